"""Accuracy and fit-time benchmark of the online learners on standard data sets.

Run it as a module::

    python -m sklearn_pa.benchmark --dataset usps --cv 10 --epochs 3

Data sets and protocols:

- ``digits``: scikit-learn's bundled :func:`~sklearn.datasets.load_digits`
  (1797 x 64, 10 classes), stratified K-fold cross-validation.  Needs no data
  folder.
- ``usps``: the LIBSVM-format pair ``usps/usps_esl.bz2`` (train, 7291 x 256)
  and ``usps/usps_esl.t.bz2`` (test, 2007 x 256) under the data folder,
  stratified K-fold cross-validation on the training file.
- ``20newsgroups``: :func:`~sklearn.datasets.fetch_20newsgroups_vectorized`
  read from ``<data folder>/sklearn`` without downloading; fit on the
  ``train`` subset and score on the ``test`` subset (``--cv`` is ignored).

The data folder is ``--data-home``, else the environment variable
``SKLEARN_PA_DATA``.  For ``20newsgroups`` without a data folder,
scikit-learn's default data home is tried (still without downloading).

Estimators are looked up by short name in :data:`ESTIMATORS`, a dict mapping a
name to a factory ``factory(epochs, random_state) -> estimator``; add an entry
to make a new learner available to the command line.  Estimators from
scikit-learn itself are the reference ("peers"): fit times are reported
relative to the first peer in the run.
"""

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import Bunch

from ._bayes_point import OnlineBayesPointClassifier
from ._passive_aggressive import PassiveAggressiveClassifier

__all__ = [
    "DATASETS",
    "DATA_ENV",
    "DEFAULT_ESTIMATORS",
    "ESTIMATORS",
    "format_markdown",
    "format_table",
    "load_dataset",
    "main",
    "run_benchmark",
    "write_output",
]

#: Environment variable naming the folder that holds the benchmark data.
DATA_ENV = "SKLEARN_PA_DATA"

#: Data sets known to :func:`load_dataset`.
DATASETS = ("digits", "usps", "20newsgroups")

_USPS_FILES = ("usps/usps_esl.bz2", "usps/usps_esl.t.bz2")
_USPS_N_FEATURES = 256


def _pa(**params):
    def factory(epochs, random_state):
        return PassiveAggressiveClassifier(
            max_iter=epochs,
            tol=None,
            shuffle=True,
            random_state=random_state,
            **params,
        )

    return factory


def _sgd_pa(learning_rate):
    def factory(epochs, random_state):
        return SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate=learning_rate,
            eta0=1.0,
            max_iter=epochs,
            tol=None,
            shuffle=True,
            random_state=random_state,
        )

    return factory


def _obpm(**params):
    def factory(epochs, random_state):
        return OnlineBayesPointClassifier(
            PassiveAggressiveClassifier(**params),
            max_iter=epochs,
            tol=None,
            shuffle=True,
            random_state=random_state,
        )

    return factory


#: Registry of benchmarked estimators: short name -> ``factory(epochs,
#: random_state)`` returning an unfitted estimator that makes ``epochs`` passes
#: (no early stopping) with shuffling seeded by ``random_state``.
ESTIMATORS = {
    "PA": _pa(C=np.inf),
    "PA-I": _pa(C=1.0, loss="hinge"),
    "PA-II": _pa(C=1.0, loss="squared_hinge"),
    "SPA": _pa(C=np.inf, multiclass="support"),
    "SPA-I": _pa(C=1.0, loss="hinge", multiclass="support"),
    "SPA-II": _pa(C=1.0, loss="squared_hinge", multiclass="support"),
    "PA-I-maxloss": _pa(C=1.0, loss="hinge", multiclass="max_loss"),
    "PA-I-prediction": _pa(C=1.0, loss="hinge", multiclass="prediction"),
    "PA-I-ovr": _pa(C=1.0, loss="hinge", multiclass="ovr"),
    "PA-I-avg": _pa(C=1.0, loss="hinge", average=True),
    "PA-I-ovr-avg": _pa(C=1.0, loss="hinge", multiclass="ovr", average=True),
    "sklearn-SGD-pa1": _sgd_pa("pa1"),
    "sklearn-SGD-pa2": _sgd_pa("pa2"),
    "OBPM-PA": _obpm(C=np.inf, multiclass="max_loss"),
    "OBPM-SPA": _obpm(C=np.inf, multiclass="support"),
}

#: Estimators run when none are named (the ``SPA*`` names are aliases of the
#: default multiclass rule and are left out).
DEFAULT_ESTIMATORS = [
    "PA",
    "PA-I",
    "PA-II",
    "PA-I-maxloss",
    "PA-I-prediction",
    "PA-I-ovr",
    "PA-I-avg",
    "sklearn-SGD-pa1",
    "sklearn-SGD-pa2",
]

_CSV_FIELDS = [
    "dataset",
    "protocol",
    "estimator",
    "n_splits",
    "epochs",
    "random_state",
    "n_samples",
    "n_features",
    "n_classes",
    "accuracy_mean",
    "accuracy_std",
    "fit_time_mean",
    "fit_time_std",
    "fit_time_ratio",
    "reference",
]


def _resolve_data_home(data_home):
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return None


def _load_digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return Bunch(
        name="digits",
        X=X,
        y=y,
        X_test=None,
        y_test=None,
        protocol="cv",
    )


def _load_usps(data_home):
    from sklearn.datasets import load_svmlight_files

    root = _resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The usps data set needs a data folder holding "
            f"{' and '.join(_USPS_FILES)}: pass --data-home DIR (data_home=DIR) "
            f"or set the environment variable {DATA_ENV}=DIR."
        )
    paths = [root / name for name in _USPS_FILES]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise FileNotFoundError(
            f"USPS files not found: {', '.join(missing)}. The data folder "
            f"{root} must hold {' and '.join(_USPS_FILES)} (LIBSVM format, "
            f"{_USPS_N_FEATURES} features); point --data-home or {DATA_ENV} "
            "at the folder that does."
        )
    X, y, X_test, y_test = load_svmlight_files(
        [str(path) for path in paths], n_features=_USPS_N_FEATURES
    )
    return Bunch(
        name="usps",
        X=X.toarray(),
        y=y.astype(np.int64),
        X_test=X_test.toarray(),
        y_test=y_test.astype(np.int64),
        protocol="cv",
    )


def _load_20newsgroups(data_home):
    from sklearn.datasets import fetch_20newsgroups_vectorized, get_data_home

    root = _resolve_data_home(data_home)
    sklearn_home = root / "sklearn" if root is not None else Path(get_data_home())
    try:
        train, test = (
            fetch_20newsgroups_vectorized(
                subset=subset,
                data_home=str(sklearn_home),
                download_if_missing=False,
            )
            for subset in ("train", "test")
        )
    except OSError as exc:
        where = (
            f"the data folder {root} (its 'sklearn' subfolder)"
            if root is not None
            else f"scikit-learn's default data home {sklearn_home} (no data "
            f"folder given: pass --data-home DIR or set {DATA_ENV}=DIR)"
        )
        raise FileNotFoundError(
            f"20 Newsgroups not found in {where}. It must be a scikit-learn "
            "data home holding the fetch_20newsgroups cache "
            "(20news-bydate_py3.pkz or 20newsgroup_vectorized_py3.pkl); "
            f"nothing is downloaded. ({exc})"
        ) from exc
    return Bunch(
        name="20newsgroups",
        X=train.data.tocsr(),
        y=np.asarray(train.target),
        X_test=test.data.tocsr(),
        y_test=np.asarray(test.target),
        protocol="holdout",
    )


def load_dataset(name, data_home=None):
    """Load a benchmark data set.

    Parameters
    ----------
    name : {"digits", "usps", "20newsgroups"}
        The data set.
    data_home : str or path-like, default=None
        Folder holding the benchmark data (``usps/...``, ``sklearn/...``).
        ``None`` reads the environment variable ``SKLEARN_PA_DATA``.  Not used
        by ``"digits"``.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``name``, the training data ``X`` and ``y``, the test data
        ``X_test`` and ``y_test`` (``None`` for ``"digits"``), and
        ``protocol``: ``"cv"`` (cross-validation on ``X``, ``y``) or
        ``"holdout"`` (fit on ``X``, ``y`` and score on the test data).
        Dense data sets are ndarrays, ``"20newsgroups"`` is CSR.

    Raises
    ------
    ValueError
        If ``name`` is not a known data set.
    FileNotFoundError
        If the data files are missing; the message says what is needed and
        how to point at it.
    """
    if name == "digits":
        return _load_digits()
    if name == "usps":
        return _load_usps(data_home)
    if name == "20newsgroups":
        return _load_20newsgroups(data_home)
    raise ValueError(
        f"Unknown dataset {name!r}; available datasets: {', '.join(DATASETS)}."
    )


def _check_estimator_names(names):
    unknown = [name for name in names if name not in ESTIMATORS]
    if unknown:
        raise ValueError(
            f"Unknown estimator name(s): {', '.join(unknown)}. "
            f"Available estimators: {', '.join(ESTIMATORS)}."
        )


def _is_peer(estimator):
    return type(estimator).__module__.split(".")[0] == "sklearn"


def _fit_score(estimator, X_train, y_train, X_test, y_test):
    estimator = clone(estimator)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    score = accuracy_score(y_test, estimator.predict(X_test))
    return score, fit_time


def _describe(data, n_splits):
    if data.protocol == "holdout":
        return (
            f"train/test split ({data.X.shape[0]} train, {data.X_test.shape[0]} "
            "test samples)"
        )
    return f"{n_splits}-fold stratified CV"


def run_benchmark(
    dataset="digits",
    estimators=None,
    cv=10,
    epochs=3,
    random_state=0,
    n_jobs=1,
    *,
    data_home=None,
    verbose=False,
):
    """Measure accuracy and fit time of the named estimators on one data set.

    Every estimator makes exactly ``epochs`` shuffled passes (``tol=None``).
    On a cross-validation data set each one is scored on the same
    ``StratifiedKFold(cv, shuffle=True, random_state=random_state)`` folds; on
    ``"20newsgroups"`` it is fit on the train subset and scored on the test
    subset, and ``cv`` is ignored.  Fit time is the wall-clock time of
    ``fit`` alone, averaged over folds.

    Parameters
    ----------
    dataset : str or Bunch, default="digits"
        A name from :data:`DATASETS`, or the result of :func:`load_dataset`.
    estimators : list of str, default=None
        Names from :data:`ESTIMATORS`, in the order of the report;
        ``None`` runs :data:`DEFAULT_ESTIMATORS`.
    cv : int, default=10
        Number of folds.
    epochs : int, default=3
        Number of passes over the training data.
    random_state : int, default=0
        Seed of the folds and of the estimators' shuffling.
    n_jobs : int, default=1
        Number of folds evaluated in parallel (fit times are then measured
        while the folds share the machine).
    data_home : str or path-like, default=None
        Data folder, passed to :func:`load_dataset` when ``dataset`` is a
        name.
    verbose : bool, default=False
        Print one progress line per estimator on standard error.

    Returns
    -------
    rows : list of dict
        One dict per estimator with the keys ``dataset``, ``protocol``,
        ``estimator``, ``n_splits``, ``epochs``, ``random_state``,
        ``n_samples``, ``n_features``, ``n_classes``, ``accuracy_mean``,
        ``accuracy_std`` (fractions; the std is ``None`` with one split),
        ``fit_time_mean``, ``fit_time_std`` (seconds), ``fit_time_ratio``
        (fit time over that of ``reference``) and ``reference`` (the first
        scikit-learn estimator of the run, or ``None`` if there is none, in
        which case the ratio is ``None`` too).

    Raises
    ------
    ValueError
        If an estimator name is unknown (the message lists the available
        ones) or ``cv`` or ``epochs`` is out of range.
    """
    names = list(DEFAULT_ESTIMATORS if estimators is None else estimators)
    if not names:
        raise ValueError("No estimator to run.")
    _check_estimator_names(names)
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}.")
    data = load_dataset(dataset, data_home) if isinstance(dataset, str) else dataset
    if data.protocol == "cv" and cv < 2:
        raise ValueError(f"cv must be at least 2, got {cv}.")

    X, y = data.X, data.y
    if data.protocol == "holdout":
        splits = None
        n_splits = 1
    else:
        folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
        splits = list(folds.split(np.zeros(y.shape[0]), y))
        n_splits = len(splits)
    protocol = _describe(data, n_splits)

    def log(message):
        if verbose:
            print(message, file=sys.stderr, flush=True)

    log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, "
        f"{np.unique(y).shape[0]} classes; {protocol}, {epochs} epochs"
        + (f" (--cv {cv} ignored)" if data.protocol == "holdout" else "")
    )

    rows = []
    reference = None
    for name in names:
        estimator = ESTIMATORS[name](epochs, random_state)
        if reference is None and _is_peer(estimator):
            reference = name
        if splits is None:
            results = [_fit_score(estimator, X, y, data.X_test, data.y_test)]
        else:
            results = Parallel(n_jobs=n_jobs)(
                delayed(_fit_score)(estimator, X[train], y[train], X[test], y[test])
                for train, test in splits
            )
        scores = np.array([score for score, _ in results])
        fit_times = np.array([fit_time for _, fit_time in results])
        row = {
            "dataset": data.name,
            "protocol": protocol,
            "estimator": name,
            "n_splits": n_splits,
            "epochs": epochs,
            "random_state": random_state,
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "n_classes": int(np.unique(y).shape[0]),
            "accuracy_mean": float(scores.mean()),
            "accuracy_std": float(scores.std()) if n_splits > 1 else None,
            "fit_time_mean": float(fit_times.mean()),
            "fit_time_std": float(fit_times.std()) if n_splits > 1 else None,
        }
        rows.append(row)
        spread = f" ± {100 * row['accuracy_std']:.2f}" if n_splits > 1 else ""
        log(
            f"  {name}: {n_splits} fit(s), accuracy {100 * row['accuracy_mean']:.2f}"
            f"{spread} %, fit {row['fit_time_mean']:.3g} s"
        )

    ref_time = None
    if reference is not None:
        ref_time = next(r["fit_time_mean"] for r in rows if r["estimator"] == reference)
    for row in rows:
        row["reference"] = reference
        row["fit_time_ratio"] = row["fit_time_mean"] / ref_time if ref_time else None
    return rows


def _title(rows):
    first = rows[0]
    title = (
        f"{first['dataset']} ({first['n_samples']} x {first['n_features']}, "
        f"{first['n_classes']} classes): {first['protocol']}, "
        f"{first['epochs']} epochs, random_state={first['random_state']}"
    )
    if first["n_splits"] == 1:
        title += "; --cv is ignored on this data set"
    return title


def _ratio_header(rows):
    reference = rows[0]["reference"]
    if reference is None:
        return "x peer"
    return "x " + reference.removeprefix("sklearn-")


def _seconds(value):
    return f"{value:.0f}" if value >= 100 else f"{value:#.3g}"


def _cells(rows):
    header = ["estimator", "accuracy (%)", "fit time (s)", _ratio_header(rows)]
    body = []
    for row in rows:
        accuracy = f"{100 * row['accuracy_mean']:.2f}"
        if row["accuracy_std"] is not None:
            accuracy += f" ± {100 * row['accuracy_std']:.2f}"
        ratio = row["fit_time_ratio"]
        body.append(
            [
                row["estimator"],
                accuracy,
                _seconds(row["fit_time_mean"]),
                "n/a" if ratio is None else f"{ratio:.2f}",
            ]
        )
    return header, body


def format_table(rows):
    """Format benchmark rows as an aligned plain-text table.

    Parameters
    ----------
    rows : list of dict
        Rows returned by :func:`run_benchmark` (all from one data set).

    Returns
    -------
    table : str
        A title line (data set, protocol, epochs), then one line per
        estimator: accuracy mean ± std in percent, mean fit time per fold in
        seconds, and fit time relative to the reference scikit-learn
        estimator (column ``x <reference>``, ``n/a`` without one).
    """
    if not rows:
        return "(no results)"
    header, body = _cells(rows)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(4)]

    def line(cells):
        first = cells[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([_title(rows), "", line(header), rule, *map(line, body)])


def format_markdown(rows):
    """Format benchmark rows as a Markdown table.

    Parameters
    ----------
    rows : list of dict
        Rows returned by :func:`run_benchmark` (all from one data set).

    Returns
    -------
    table : str
        The title as a paragraph, then a pipe table with the columns of
        :func:`format_table`.
    """
    if not rows:
        return "(no results)\n"
    header, body = _cells(rows)
    lines = [
        _title(rows),
        "",
        "| " + " | ".join(header) + " |",
        "| --- | " + " | ".join("---:" for _ in header[1:]) + " |",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines) + "\n"


def write_output(rows, path):
    """Write benchmark rows to a CSV or Markdown file, chosen by extension.

    Parameters
    ----------
    rows : list of dict
        Rows returned by :func:`run_benchmark`.
    path : str or path-like
        Output file: ``.csv`` writes every field of every row (accuracies as
        fractions, times in seconds, empty cells for missing values);
        ``.md`` or ``.markdown`` writes :func:`format_markdown`.

    Raises
    ------
    ValueError
        If the extension is not one of these.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=_CSV_FIELDS, extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({key: _csv_value(row.get(key)) for key in _CSV_FIELDS})
    elif suffix in (".md", ".markdown"):
        path.write_text(format_markdown(rows), encoding="utf-8")
    else:
        raise ValueError(
            f"Cannot tell the output format of {str(path)!r}: use a .csv or .md "
            "file name."
        )


def _csv_value(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_pa.benchmark",
        description=(
            "Cross-validated accuracy and fit time of the online learners and "
            "of scikit-learn's SGDClassifier Passive-Aggressive variants."
        ),
        epilog=(
            f"The usps and 20newsgroups data are read from --data-home, else "
            f"from ${DATA_ENV}. Available estimators: {', '.join(ESTIMATORS)}."
        ),
    )
    parser.add_argument(
        "--dataset",
        choices=DATASETS,
        default="digits",
        help="data set (default: digits, bundled with scikit-learn); "
        "'--dataset 20newsgroups-semi --help' shows the semi-supervised "
        "protocol's own options",
    )
    parser.add_argument(
        "--estimators",
        nargs="+",
        metavar="NAME",
        default=None,
        help=f"estimators to run (default: {' '.join(DEFAULT_ESTIMATORS)})",
    )
    parser.add_argument(
        "--cv",
        type=int,
        default=10,
        help="number of stratified folds (default: 10; ignored on 20newsgroups)",
    )
    parser.add_argument(
        "--epochs", type=int, default=3, help="passes over the data (default: 3)"
    )
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        help="folds evaluated in parallel (default: 1)",
    )
    parser.add_argument(
        "--random-state",
        type=int,
        default=0,
        help="seed of the folds and of the shuffling (default: 0)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        default=None,
        help="also write the results to FILE.csv or FILE.md",
    )
    parser.add_argument(
        "--data-home",
        metavar="DIR",
        default=None,
        help=f"folder holding the benchmark data (default: ${DATA_ENV})",
    )
    return parser


#: Data sets with a protocol of their own: ``--dataset NAME`` hands the whole
#: command line to ``module.main(argv)``.
EXTRA_COMMANDS = {"20newsgroups-semi": "sklearn_pa._bench_semi_supervised"}


def _extra_command(argv):
    for i, arg in enumerate(argv):
        value = None
        if arg == "--dataset" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--dataset="):
            value = arg.split("=", 1)[1]
        if value in EXTRA_COMMANDS:
            return EXTRA_COMMANDS[value]
    return None


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
        0 on success.  Invalid arguments, unknown estimator names and missing
        data exit through :class:`SystemExit` with status 2 and a message on
        standard error.
    """
    extra = _extra_command(sys.argv[1:] if argv is None else list(argv))
    if extra is not None:
        import importlib

        return importlib.import_module(extra).main(argv)
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.estimators is not None:
        try:
            _check_estimator_names(args.estimators)
        except ValueError as exc:
            parser.error(str(exc))
    if args.output is not None and Path(args.output).suffix.lower() not in (
        ".csv",
        ".md",
        ".markdown",
    ):
        parser.error(f"--output must name a .csv or .md file, got {args.output!r}")
    if args.epochs < 1:
        parser.error(f"--epochs must be at least 1, got {args.epochs}")
    try:
        data = load_dataset(args.dataset, args.data_home)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if data.protocol == "cv" and args.cv < 2:
        parser.error(f"--cv must be at least 2, got {args.cv}")
    rows = run_benchmark(
        data,
        args.estimators,
        cv=args.cv,
        epochs=args.epochs,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        verbose=True,
    )
    print(format_table(rows), flush=True)
    if args.output is not None:
        write_output(rows, args.output)
        print(f"results written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
