"""The command line: one parser for every data set and protocol.

``python -m sklearn_pa.benchmark --dataset NAME [options]``: the data set
picks the protocol (:data:`PROTOCOLS`), each protocol takes the options of
:data:`OPTIONS` that apply to it and refuses the others with a message.
"""

import argparse
import ast
import os
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from ._common import build_estimators, check_estimator_names
from ._data import DATA_ENV, DATASETS, load_dataset
from ._registry import (
    DEFAULT_ESTIMATORS,
    DEFAULT_ESTIMATORS_BY_DATASET,
    REGISTRY,
    every_classifier,
)
from ._report import format_table, plot_results, write_output

__all__ = ["OPTIONS", "PROTOCOLS", "TASKS", "build_parser", "list_text", "main"]

#: data set -> protocol (``--timing`` turns an accuracy table into ``timing``).
PROTOCOLS = {
    "digits": "cross-validation",
    "usps": "cross-validation",
    "usps-libsvm": "cross-validation",
    "20newsgroups": "train/test",
    "20newsgroups-cv": "cross-validation",
    "20newsgroups-multilabel": "multilabel",
    "20newsgroups-semi": "semi-supervised",
    "conll2000": "sequence",
    "preference": "progressive",
    "preference-synthetic": "progressive",
    "stream-memory": "stream-memory",
    "stream-latency": "stream-latency",
    "stream-2m": "stream-dask",
    "stream-file": "stream-file",
    "20newsgroups-dtype": "input-dtype",
    "stream-4m-dtype": "input-dtype",
    "20newsgroups-persistence": "persistence",
    "20newsgroups-calibration": "calibration",
    "usps-calibration": "calibration",
    "drift": "drift",
    "20newsgroups-drift": "drift",
}

_TABLE = {"estimators", "epochs", "params", "random_state", "output", "plot"}

#: protocol -> the options (destinations) it takes.
OPTIONS = {
    "cross-validation": _TABLE | {"cv", "repeats", "n_jobs", "data_home", "timing"},
    "train/test": _TABLE | {"data_home", "timing"},
    "timing": _TABLE | {"repeats", "data_home", "timing"},
    "progressive": _TABLE | {"data_home"},
    "multilabel": _TABLE | {"data_home"},
    "semi-supervised": _TABLE
    | {"n_jobs", "data_home", "subsets", "folds", "full", "unlabeled_ratio"},
    "sequence": _TABLE | {"data_home", "holdout", "n_sentences"},
    "stream-memory": {"estimators", "rows", "output", "plot"},
    "stream-latency": {"estimators", "output", "plot", "data_home"},
    "stream-dask": _TABLE | {"rows", "nnz", "workers", "scheduler", "threads"},
    "stream-file": _TABLE | {"rows"},
    "input-dtype": _TABLE | {"data_home", "rows", "nnz"},
    "persistence": {"estimators", "output", "data_home", "repeats"},
    "calibration": {"estimators", "output", "plot", "data_home", "random_state"},
    "drift": _TABLE - {"epochs", "params"} | {"rows", "nnz", "data_home"},
}

#: Protocols whose learners are their own (not the registry's estimators).
_OWN_LEARNERS = (
    "stream-memory",
    "stream-latency",
    "persistence",
    "calibration",
    "drift",
)

#: Data sets that read no data folder.
_NO_DATA = {
    "digits",
    "preference-synthetic",
    "stream-memory",
    "stream-2m",
    "stream-file",
    "stream-4m-dtype",
    "drift",
}

#: protocol -> the task of the estimators it runs.
TASKS = {
    "cross-validation": "classification",
    "train/test": "classification",
    "timing": "classification",
    "progressive": "regression",
    "multilabel": "multilabel",
    "semi-supervised": "classification",
    "sequence": "sequence",
    "stream-dask": "classification",
    "stream-file": "classification",
    "input-dtype": "classification",
}


def _flag(dest):
    return "--" + {"params": "set"}.get(dest, dest).replace("_", "-")


def _default_estimators(dataset):
    if dataset == "stream-memory":
        return ["every public estimator with partial_fit and sparse input"]
    if dataset == "drift":
        return [
            "PA PA-averaged AROW AROW-floor SCW SCW-floor CW CW-floor (and "
            "river-PA, river-HAT, capymoa-HAT, capymoa-ARF where river and "
            "capymoa are installed)"
        ]
    if dataset == "20newsgroups-drift":
        return [
            "PA PA-averaged AROW AROW-floor SCW SCW-floor CW CW-floor (and "
            "river-PA where river is installed)"
        ]
    if dataset == "stream-latency":
        return [
            "PA-default PA-unaveraged AROW CW PA-regressor SGD-pa1 (and river,"
            " Vowpal Wabbit where installed)"
        ]
    return DEFAULT_ESTIMATORS_BY_DATASET.get(dataset, DEFAULT_ESTIMATORS)


def list_text():
    """The text of ``--list``: data sets and estimators, one line each."""
    width = max(map(len, [*DATASETS, *REGISTRY])) + 2
    lines = ["datasets (protocol: description; default estimators):"]
    for name, description in DATASETS.items():
        defaults = " ".join(_default_estimators(name))
        lines.append(f"  {name:<{width}}{PROTOCOLS[name]}: {description}; {defaults}")
    lines += ["", "estimators (task: description):"]
    for name, entry in REGISTRY.items():
        lines.append(f"  {name:<{width}}{entry.task}: {entry.summary}")
    lines += [
        "",
        "The stream-memory protocol names estimators by class "
        "(PassiveAggressiveClassifier, ...); stream-latency has its own "
        "learners (see its default estimators).",
    ]
    return "\n".join(lines)


def build_parser():
    """The argument parser of ``python -m sklearn_pa.benchmark``."""
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_pa.benchmark",
        description=(
            "Accuracy and fit time of the online learners beside their "
            "scikit-learn (and CRFsuite) peers. The data set picks the "
            "protocol: cross-validation (digits, usps, usps-libsvm), train/test "
            "(20newsgroups), label ranking (20newsgroups-multilabel), "
            "semi-supervised OBPM (20newsgroups-semi), sequence tagging "
            "(conll2000), progressive validation (preference, "
            "preference-synthetic), memory on a long stream (stream-memory), "
            "parameter mixing on Dask (stream-2m), a svmlight file streamed "
            "against loaded (stream-file) and fit time and memory of float32 "
            "against float64 input (20newsgroups-dtype, stream-4m-dtype), "
            "windowed accuracy on a drifting stream (drift, "
            "20newsgroups-drift). An "
            "option that does not "
            "apply to the protocol is refused."
        ),
        epilog=(
            f"Data are read from --data-home, else from ${DATA_ENV}; nothing is "
            "downloaded. --list prints every data set with its default "
            "estimators and every estimator, one line each."
        ),
    )
    add = parser.add_argument
    add(
        "--dataset",
        choices=list(DATASETS),
        default="digits",
        help="data set, hence protocol (default: digits, bundled with scikit-learn)",
    )
    add(
        "--list",
        action="store_true",
        help="print the data sets and the estimators, one line each, and exit",
    )
    add(
        "--estimators",
        nargs="+",
        metavar="NAME",
        default=None,
        help="registry names of the estimators to run, or 'all' for every "
        "classification learner of the package (default: the data "
        f"set's own list, see --list; digits runs "
        f"{' '.join(DEFAULT_ESTIMATORS_BY_DATASET['digits'])})",
    )
    add(
        "--epochs",
        type=int,
        default=None,
        help="passes over the data (default: 3; 30 for digits, whose fits would "
        "otherwise last a few milliseconds, mostly call overhead; 5 for "
        "20newsgroups-semi and conll2000; 1 for stream-file)",
    )
    add(
        "--cv",
        type=int,
        default=None,
        help="number of stratified folds (default: 10; cross-validation only)",
    )
    add(
        "--repeats",
        type=int,
        default=None,
        help="differently shuffled CV splits, pooled (default: 1); with "
        "--timing, interleaved rounds (default: 5)",
    )
    add(
        "--set",
        dest="params",
        action="append",
        default=None,
        metavar="NAME=VALUE",
        help="set a hyper-parameter of every estimator run (repeatable), e.g. "
        "--set eta=0.7; VALUE is read as a Python literal, else a string",
    )
    add(
        "--n-jobs",
        type=int,
        default=None,
        help="folds evaluated in parallel (default: 1)",
    )
    add(
        "--random-state",
        type=int,
        default=None,
        help="seed of the folds, the data and the shuffling (default: 0)",
    )
    add(
        "--output",
        metavar="FILE",
        default=None,
        help="also write the results to FILE.csv or FILE.md",
    )
    add(
        "--plot",
        metavar="FILE",
        default=None,
        help="also draw the results as a bar chart in FILE.png (the scaling "
        "curve for stream-2m with several --workers); needs matplotlib, "
        "skipped with a message without it",
    )
    add(
        "--data-home",
        metavar="DIR",
        default=None,
        help=f"folder holding the benchmark data (default: ${DATA_ENV})",
    )
    add(
        "-v",
        "--verbose",
        action="store_true",
        help="a progress line after every fit (estimator, fold, time left); "
        "without it, progress and result lines appear only once a run has "
        "taken 10 s (a shorter run prints its table alone)",
    )
    add(
        "--timing",
        action="store_true",
        help="instead of accuracy, the minimum fit time of each estimator on "
        "the whole training set over --repeats interleaved rounds",
    )
    group = parser.add_argument_group("20newsgroups-semi")
    group.add_argument(
        "--subsets",
        nargs="+",
        default=None,
        metavar="SUBSET",
        help="subsets to run: sb-7-1 sb-7-2 sb-8-1 sb-8-2 (default: sb-7-1 "
        "sb-8-1; all four with --full)",
    )
    group.add_argument(
        "--folds",
        type=int,
        default=None,
        help="reported folds after the tuning fold (default: 3; 9 with --full)",
    )
    group.add_argument(
        "--full",
        action="store_true",
        help="the paper's protocol: four subsets, 10-fold CV (9 reported folds)",
    )
    group.add_argument(
        "--unlabeled-ratio",
        type=float,
        default=None,
        help="unlabeled : labeled samples of each training part (default: 4)",
    )
    group = parser.add_argument_group("conll2000")
    group.add_argument(
        "--holdout",
        type=float,
        default=None,
        help="fraction of the sentences held out (default: 0.2)",
    )
    group.add_argument(
        "--n-sentences",
        type=int,
        default=None,
        help="use only the first sentences (default: all 8936)",
    )
    group = parser.add_argument_group(
        "stream-memory, stream-2m, stream-file, stream-4m-dtype, drift"
    )
    group.add_argument(
        "--rows",
        type=int,
        default=None,
        help="rows of the stream (default: 1000000 for stream-memory and "
        "stream-file, 2000000 for stream-2m, 4000000 for stream-4m-dtype, "
        "30000 for drift, all 18846 documents for 20newsgroups-drift)",
    )
    group.add_argument(
        "--nnz",
        type=int,
        default=None,
        help="non-zeros per row (stream-2m, stream-4m-dtype; default: 20); "
        "drift: sparse rows with that many non-zeros (default: dense rows; "
        "not for 20newsgroups-drift)",
    )
    group.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="Dask workers of the LocalCluster (stream-2m; default: 2); "
        "several (e.g. --workers 1 2 4 8) run one after the other: the "
        "scaling curve",
    )
    group.add_argument(
        "--threads",
        action="store_true",
        help="also run parameter mixing on threads of this process, as many "
        "partitions as workers, without Dask (stream-2m)",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="address of a running Dask scheduler (stream-2m; default: a LocalCluster)",
    )
    return parser


def parse_params(pairs):
    """``["eta=0.7", "covariance=full"]`` -> ``{"eta": 0.7, ...}``."""
    params = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"--set expects NAME=VALUE, got {pair!r}")
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[name] = value
    return params


def _given(args, dest):
    value = getattr(args, dest)
    return value is not None and value is not False


def _protocol(parser, args):
    protocol = PROTOCOLS[args.dataset]
    if args.timing:
        if protocol not in ("cross-validation", "train/test"):
            parser.error(
                f"--timing does not apply to --dataset {args.dataset} ({protocol}); "
                "it times the classifiers of digits, usps, usps-libsvm and "
                "20newsgroups."
            )
        protocol = "timing"
    allowed = OPTIONS[protocol]
    if args.dataset in _NO_DATA:
        allowed = allowed - {"data_home"}
    refused = [
        dest
        for dest in sorted({d for ds in OPTIONS.values() for d in ds} - allowed)
        if _given(args, dest)
    ]
    if refused:
        flags = ", ".join(_flag(dest) for dest in refused)
        takes = " ".join(sorted(_flag(dest) for dest in allowed))
        parser.error(
            f"{flags} does not apply to --dataset {args.dataset} ({protocol}); "
            f"it takes {takes}."
        )
    return protocol


#: The largest seed numpy's ``RandomState`` takes, plus one.
_SEED_END = 2**32


def _destination_error(flag, path):
    """Why ``path`` cannot be written (a message), or None.

    Checked before the run, so that a run of minutes does not end in a
    traceback when it writes its results."""
    path = Path(path)
    if path.is_dir():
        return f"{flag} {str(path)!r} is a directory; name a file in it."
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return (
            f"{flag} {str(path)!r}: the folder {str(parent)!r} does not exist; "
            "create it first or name a file in an existing folder."
        )
    if not os.access(parent, os.W_OK):
        return f"{flag} {str(path)!r}: the folder {str(parent)!r} is not writable."
    return None


def _scheduler_error(address, timeout=5.0):
    """Why the Dask scheduler at ``address`` cannot be reached, or None.

    A TCP address (``tcp://host:port``, ``tls://``, ``ws://`` or a bare
    ``host:port``) is tried with one connection of at most ``timeout``
    seconds; other schemes are left to Dask."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls", "ws", "wss"):
        return None
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None:
        return (
            f"--scheduler {address!r} is not an address of the form "
            "tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)."
        )
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return (
            f"--scheduler {address!r}: no Dask scheduler answers there ({exc}). "
            "Start one (dask scheduler) and pass the address it prints, or "
            "leave out --scheduler to run on a LocalCluster."
        )


def _check(parser, args, protocol):
    """Validate the whole command line before running anything."""
    for flag, path in (("--output", args.output), ("--plot", args.plot)):
        message = None if path is None else _destination_error(flag, path)
        if message is not None:
            parser.error(message)
    if args.output is not None and Path(args.output).suffix.lower() not in (
        ".csv",
        ".md",
        ".markdown",
    ):
        parser.error(f"--output must name a .csv or .md file, got {args.output!r}")
    if args.random_state is not None and not 0 <= args.random_state < _SEED_END:
        parser.error(
            f"--random-state must be in [0, 2**32 - 1] (a numpy seed), got "
            f"{args.random_state}"
        )
    for dest, low in [
        ("epochs", 1),
        ("repeats", 1),
        ("cv", 2),
        ("n_jobs", 1),
        ("folds", 1),
        ("rows", 1),
        ("nnz", 1),
        ("workers", 1),
        ("n_sentences", 1),
    ]:
        values = getattr(args, dest)
        for value in values if isinstance(values, list) else [values]:
            if value is not None and value < low:
                parser.error(f"{_flag(dest)} must be at least {low}, got {value}")
    if args.holdout is not None and not 0 < args.holdout < 1:
        parser.error(f"--holdout must be in (0, 1), got {args.holdout}")
    if args.unlabeled_ratio is not None and args.unlabeled_ratio < 0:
        parser.error(f"--unlabeled-ratio must be >= 0, got {args.unlabeled_ratio}")
    if args.scheduler is not None:
        message = _scheduler_error(args.scheduler)
        if message is not None:
            parser.error(message)
    try:
        params = parse_params(args.params)
        if protocol in _OWN_LEARNERS:
            return params
        names = args.estimators or _default_estimators(args.dataset)
        check_estimator_names(names, TASKS[protocol])
        if protocol == "semi-supervised":
            from ._semi_supervised import SUBSETS

            bad = [n for n in names if not n.startswith("OBPM-")]
            if bad:
                raise ValueError(
                    f"{', '.join(bad)}: 20newsgroups-semi runs Online Bayes Point "
                    "Machines only (OBPM-PA, OBPM-PA-maxloss, OBPM-SPA)."
                )
            unknown = [s for s in args.subsets or [] if s not in SUBSETS]
            if unknown:
                raise ValueError(
                    f"Unknown subset(s) {', '.join(unknown)}; choose from "
                    f"{', '.join(SUBSETS)}."
                )
        elif protocol != "sequence":
            build_estimators(names, 1, 0, params)
    except ValueError as exc:
        parser.error(str(exc))
    return params


def main(argv=None):
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : list of str, default=None
        Command-line arguments (without the program name); ``None`` reads
        ``sys.argv``.

    Returns
    -------
    status : int
        0 on success.  Invalid arguments, options that do not apply to the
        data set, unknown estimator names and missing data exit through
        :class:`SystemExit` with status 2 and a message on standard error.

    Examples
    --------
    >>> from sklearn_pa.benchmark import main
    >>> main(["--dataset", "digits", "--cv", "2", "--epochs", "1",
    ...       "--estimators", "PA-I"])  # doctest: +SKIP
    0
    """
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.estimators == ["all"]:
        args.estimators = every_classifier(args.dataset)
    if args.list:
        print(list_text())
        return 0
    protocol = _protocol(parser, args)
    params = _check(parser, args, protocol)
    try:
        rows = _run(parser, args, protocol, params)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    print(format_table(rows), flush=True)
    if args.output is not None:
        write_output(rows, args.output)
        print(f"results written to {args.output}", file=sys.stderr)
    if args.plot is not None:
        try:
            plot_results(rows, args.plot)
        except ImportError as exc:
            # the results are printed (and written): only the chart is missing
            print(f"--plot skipped: {exc}", file=sys.stderr)
        else:
            print(f"chart written to {args.plot}", file=sys.stderr)
    return 0


def _or(value, default):
    return default if value is None else value


def _check_folds(parser, args, data):
    """``--cv`` against the smallest class of the loaded data, before any fit."""
    cv = _or(args.cv, 10)
    if data.protocol != "cv" or data.y.ndim != 1:
        return
    counts = np.unique(data.y, return_counts=True)[1]
    if cv > counts.min():
        parser.error(
            f"--cv {cv} is more folds than the {counts.min()} samples of the "
            f"smallest class of {args.dataset}: every stratified fold needs one "
            f"of each class. Pass --cv between 2 and {counts.min()}."
        )


def _run(parser, args, protocol, params):
    verbose = 2 if args.verbose else 1
    # digits: 30 epochs, so that a fit (15 ms for PA, 45 ms for SGD) is
    # mostly the learners' work rather than the call's overhead (0.5-2 ms)
    epochs = _or(
        args.epochs,
        {"semi-supervised": 5, "sequence": 5, "stream-file": 1}.get(
            protocol, 30 if args.dataset == "digits" else 3
        ),
    )
    random_state = _or(args.random_state, 0)
    common = {"params": params, "verbose": verbose}
    if protocol in ("cross-validation", "train/test", "progressive", "timing"):
        data = load_dataset(args.dataset, args.data_home)
        if protocol == "cross-validation":
            _check_folds(parser, args, data)
        if protocol == "timing":
            from ._timing import run_timing

            names = args.estimators or _default_estimators(args.dataset)
            return run_timing(
                data,
                names,
                epochs=epochs,
                repeats=_or(args.repeats, 5),
                random_state=random_state,
                **common,
            )
        from ._cross_validation import run_benchmark

        return run_benchmark(
            data,
            args.estimators,
            cv=args.cv,
            epochs=epochs,
            random_state=random_state,
            n_jobs=_or(args.n_jobs, 1),
            repeats=_or(args.repeats, 1),
            **common,
        )
    if protocol == "multilabel":
        from ._multilabel import run_multilabel

        return run_multilabel(
            load_dataset(args.dataset, args.data_home),
            args.estimators,
            epochs=epochs,
            random_state=random_state,
            **common,
        )
    if protocol == "semi-supervised":
        from ._semi_supervised import SUBSETS, run_semi_supervised

        default_subsets = list(SUBSETS) if args.full else ["sb-7-1", "sb-8-1"]
        n_folds = _or(args.folds, 9 if args.full else 3)
        if n_folds > 9:
            parser.error(f"--folds must be in 1..9, got {n_folds}")
        return run_semi_supervised(
            args.subsets or default_subsets,
            args.estimators or _default_estimators(args.dataset),
            n_splits=10,
            n_folds=n_folds,
            unlabeled_ratio=_or(args.unlabeled_ratio, 4.0),
            epochs=epochs,
            random_state=random_state,
            n_jobs=_or(args.n_jobs, 1),
            data_home=args.data_home,
            **common,
        )
    if protocol == "sequence":
        from ._sequence import run_conll2000

        return run_conll2000(
            args.data_home,
            args.estimators,
            epochs=epochs,
            holdout=_or(args.holdout, 0.2),
            n_sentences=args.n_sentences,
            random_state=random_state,
            **common,
        )
    if protocol == "stream-latency":
        from ._stream_latency import run_stream_latency

        try:
            return run_stream_latency(
                load_dataset("20newsgroups", args.data_home),
                args.estimators,
                verbose=verbose,
            )
        except ValueError as exc:
            parser.error(str(exc))
    if protocol == "calibration":
        from ._calibration import run_calibration, usps_held_out

        if args.dataset == "usps-calibration":
            data = usps_held_out(load_dataset("usps", args.data_home), random_state)
        else:
            data = load_dataset("20newsgroups", args.data_home)
        data.name = args.dataset
        try:
            return run_calibration(
                data, args.estimators, random_state=random_state, verbose=verbose
            )
        except ValueError as exc:
            parser.error(str(exc))
    if protocol == "persistence":
        from ._persistence import run_persistence

        try:
            return run_persistence(
                load_dataset("20newsgroups", args.data_home),
                args.estimators,
                repeats=_or(args.repeats, 5),
                verbose=verbose,
            )
        except ValueError as exc:
            parser.error(str(exc))
    if protocol == "drift":
        from ._drift import run_drift

        data, rows = None, _or(args.rows, 30000)
        if args.dataset == "20newsgroups-drift":
            if _given(args, "nnz"):
                parser.error(
                    "--nnz applies to --dataset drift only (20newsgroups-drift "
                    "streams the documents as they are)"
                )
            data, rows = load_dataset("20newsgroups", args.data_home), args.rows
        try:
            return run_drift(
                args.estimators,
                rows,
                nnz=args.nnz,
                random_state=random_state,
                verbose=verbose,
                data=data,
            )
        except ValueError as exc:
            parser.error(str(exc))
    if protocol == "stream-memory":
        from ._stream_memory import run_stream_memory

        try:
            return run_stream_memory(
                args.estimators, _or(args.rows, 1_000_000), verbose=verbose
            )
        except ValueError as exc:
            parser.error(str(exc))
    if protocol == "input-dtype":
        from ._input_dtype import load_stream, run_input_dtype

        if args.dataset == "stream-4m-dtype":
            data = load_stream(_or(args.rows, 4_000_000), _or(args.nnz, 20))
        else:
            if _given(args, "rows") or _given(args, "nnz"):
                parser.error("--rows and --nnz apply to stream-4m-dtype only")
            data = load_dataset("20newsgroups", args.data_home)
            data.name = args.dataset
        names = args.estimators or _default_estimators(args.dataset)
        return run_input_dtype(
            data, names, epochs=epochs, random_state=random_state, **common
        )
    if protocol == "stream-file":
        from ._stream_file import run_stream_file

        return run_stream_file(
            _or(args.rows, 1_000_000),
            args.estimators,
            epochs,
            random_state=random_state,
            **common,
        )
    # stream-dask
    n_rows, workers = _or(args.rows, 2_000_000), _or(args.workers, [2])
    if n_rows < max(workers):
        parser.error(f"--rows ({n_rows}) must be at least --workers ({max(workers)})")
    try:
        import distributed  # noqa: F401
    except ImportError:
        parser.error(
            'this benchmark needs the dask extra: pip install "sklearn_pa[dask]"'
        )
    from ._stream_dask import run_stream_dask

    return run_stream_dask(
        n_rows,
        workers,
        args.estimators,
        epochs,
        _or(args.nnz, 20),
        scheduler=args.scheduler,
        random_state=random_state,
        threads=args.threads,
        **common,
    )
