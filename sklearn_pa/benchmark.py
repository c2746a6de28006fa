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
relative to the first online peer in the run.  ``LinearSVC`` is the batch
reference (:data:`BATCH_REFERENCES`): it solves the regularised problem to
convergence (``epochs`` is ignored), for the accuracy an online learner can aim
at, and is never the time reference.
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
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold
from sklearn.svm import LinearSVC
from sklearn.utils import Bunch

from . import _bench_gradient
from ._bayes_point import OnlineBayesPointClassifier
from ._bench_confidence_weighted import ESTIMATORS as _CW_ESTIMATORS
from ._bench_uniclass import uniclass_kernel_estimators
from ._passive_aggressive import MIRAClassifier, PassiveAggressiveClassifier

__all__ = [
    "BATCH_REFERENCES",
    "DATASETS",
    "DATA_ENV",
    "DEFAULT_ESTIMATORS",
    "DEFAULT_ESTIMATORS_BY_DATASET",
    "ESTIMATORS",
    "PUBLISHED",
    "format_markdown",
    "format_table",
    "load_dataset",
    "main",
    "plot_results",
    "run_benchmark",
    "write_output",
]

#: Environment variable naming the folder that holds the benchmark data.
DATA_ENV = "SKLEARN_PA_DATA"

#: Data sets known to :func:`load_dataset`.
DATASETS = (
    "digits",
    "usps",
    "usps-libsvm",
    "20newsgroups",
    *_bench_gradient.REGRESSION_DATASETS,
)

_USPS_FILES = ("usps/usps_esl.bz2", "usps/usps_esl.t.bz2")
_USPS_LIBSVM_FILES = ("usps/usps.t.bz2",)


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


def _linear_svc(epochs, random_state):
    # a batch learner: it runs to convergence whatever the number of epochs
    return LinearSVC(random_state=random_state)


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
    "PA-maxloss": _pa(C=np.inf, multiclass="max_loss"),
    "PA-I-maxloss": _pa(C=1.0, loss="hinge", multiclass="max_loss"),
    "PA-II-maxloss": _pa(C=1.0, loss="squared_hinge", multiclass="max_loss"),
    "PA-I-prediction": _pa(C=1.0, loss="hinge", multiclass="prediction"),
    "PA-I-ovr": _pa(C=1.0, loss="hinge", multiclass="ovr"),
    "PA-I-avg": _pa(C=1.0, loss="hinge", average=True),
    "PA-I-ovr-avg": _pa(C=1.0, loss="hinge", multiclass="ovr", average=True),
    "MIRA": lambda epochs, random_state: MIRAClassifier(
        max_iter=epochs, tol=None, shuffle=True, random_state=random_state
    ),
    "sklearn-SGD-pa1": _sgd_pa("pa1"),
    "sklearn-SGD-pa2": _sgd_pa("pa2"),
    # regression (the ``preference`` data sets; see ``_bench_gradient``)
    **_bench_gradient.REGRESSION_ESTIMATORS,
    **_CW_ESTIMATORS,
    "OBPM-PA": _obpm(C=np.inf, multiclass="max_loss"),
    "OBPM-SPA": _obpm(C=np.inf, multiclass="support"),
    "LinearSVC": _linear_svc,
}

#: Batch estimators of the registry: the accuracy an online learner can aim at
#: (``LinearSVC``: C=1, squared hinge, one-vs-rest, solved to convergence).
#: They ignore ``epochs`` and are never the reference of the fit-time ratio.
BATCH_REFERENCES = ("LinearSVC",)
# kernel PA and uniclass PA (as one detector per class); see _bench_uniclass
ESTIMATORS.update(uniclass_kernel_estimators())

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

#: The layout of the published comparison (Table 2 of the matrix-Gaussian
#: support-class CW paper: multiclass PA / PA-I / PA-II, CW k=1, CW k=inf,
#: SCCW, SCCWD), then the support-class PA, AROW, SCW and scikit-learn's peer.
TABLE2_ESTIMATORS = [
    "PA-maxloss",
    "PA-I-maxloss",
    "PA-II-maxloss",
    "CW-k1",
    "CW-kinf",
    "SCCW",
    "SCCWD",
    "SPA",
    "SPA-I",
    "AROW",
    "SCW-I",
    "SCW-II",
    "sklearn-SGD-pa1",
]

#: Estimators run when none are named, by data set (others run
#: :data:`DEFAULT_ESTIMATORS`).  20 Newsgroups leaves out the full-covariance
#: SCCW: its 130107 x 130107 covariance does not fit in memory.
DEFAULT_ESTIMATORS_BY_DATASET = {
    "digits": [*DEFAULT_ESTIMATORS[:-1], "CW-k1", "SCCW", "SCCWD", "AROW", "SCW-I"]
    + DEFAULT_ESTIMATORS[-1:],
    "usps": TABLE2_ESTIMATORS,
    "usps-libsvm": TABLE2_ESTIMATORS,
    "20newsgroups": [name for name in TABLE2_ESTIMATORS if name != "SCCW"],
}

#: Published accuracies (percent) to print beside ours: data set -> estimator
#: name -> figure.  The multiclass PA rows of the source are the
#: single-constraint (max-loss) rule.
PUBLISHED = {
    "usps": {
        "PA-maxloss": 90.04,
        "PA-I-maxloss": 89.62,
        "PA-II-maxloss": 90.41,
        "CW-k1": 92.40,
        "CW-kinf": 83.53,
        "SCCW": 93.73,
        "SCCWD": 93.51,
    },
    "20newsgroups": {
        "PA-maxloss": 75.76,
        "PA-I-maxloss": 78.05,
        "PA-II-maxloss": 78.05,
        "CW-k1": 84.76,
        "CW-kinf": 76.32,
        "SCCW": 83.31,
        "SCCWD": 83.29,
    },
}

PUBLISHED["usps-libsvm"] = PUBLISHED["usps"]

#: Where the published figures come from, and how their protocol differs.
PUBLISHED_SOURCE = {
    "usps": (
        "published: matrix-Gaussian support-class CW, Table 2 (LIBSVM USPS, "
        "10-fold CV, 3 epochs; this usps copy is preprocessed differently)"
    ),
    "usps-libsvm": (
        "published: matrix-Gaussian support-class CW, Table 2 (LIBSVM USPS, "
        "10-fold CV, 3 epochs, on the 7291 training images; here the 2007 "
        "images of LIBSVM's usps.t, the same preprocessing)"
    ),
    "20newsgroups": (
        "published: matrix-Gaussian support-class CW, Table 2 (LIBSVM news20, "
        "15935 x 60345, 10-fold CV, 3 epochs; not the same features or protocol)"
    ),
}

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
    "published",
    "online_mse",
    "cumulative_loss",
    "progressive_time",
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
    from .datasets import fetch_usps

    root = _resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The usps data set needs a data folder holding "
            f"{' and '.join(_USPS_FILES)}: pass --data-home DIR (data_home=DIR) "
            f"or set the environment variable {DATA_ENV}=DIR."
        )
    train, test = (
        fetch_usps(data_home=root, subset=subset, variant="esl")
        for subset in ("train", "test")
    )
    return Bunch(
        name="usps",
        X=train.data,
        y=train.target,
        X_test=test.data,
        y_test=test.target,
        protocol="cv",
    )


def _load_usps_libsvm(data_home):
    from .datasets import fetch_usps

    root = _resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The usps-libsvm data set needs a data folder holding "
            f"{' and '.join(_USPS_LIBSVM_FILES)}: pass --data-home DIR "
            f"(data_home=DIR) or set the environment variable {DATA_ENV}=DIR."
        )
    test = fetch_usps(
        data_home=root, subset="test", variant="libsvm", download_if_missing=False
    )
    return Bunch(
        name="usps-libsvm",
        X=test.data,
        y=test.target,
        X_test=None,
        y_test=None,
        protocol="cv",
    )


def _20newsgroups_not_found(root, sklearn_home, exc):
    """The error for a data folder without the 20 Newsgroups cache."""
    where = (
        f"the data folder {root} (its 'sklearn' subfolder)"
        if root is not None
        else f"scikit-learn's default data home {sklearn_home} (no data "
        f"folder given: pass --data-home DIR or set {DATA_ENV}=DIR)"
    )
    return FileNotFoundError(
        f"20 Newsgroups not found in {where}. It must be a scikit-learn "
        "data home holding the fetch_20newsgroups cache "
        "(20news-bydate_py3.pkz or 20newsgroup_vectorized_py3.pkl); "
        f"nothing is downloaded. ({exc})"
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
        raise _20newsgroups_not_found(root, sklearn_home, exc) from exc
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
    name : str
        A name from :data:`DATASETS`: ``"digits"``; ``"usps"`` (the
        ``usps_esl`` training images, with their test images); ``"usps-libsvm"``
        (the 2007 images of LIBSVM's ``usps.t``, smoothed as LIBSVM's whole
        USPS set, cross-validated); ``"20newsgroups"``; or a regression data
        set.
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
    if name == "usps-libsvm":
        return _load_usps_libsvm(data_home)
    if name == "20newsgroups":
        return _load_20newsgroups(data_home)
    if name in _bench_gradient.REGRESSION_DATASETS:
        return _bench_gradient.load_regression_dataset(
            name, _resolve_data_home(data_home)
        )
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


def _build_estimators(names, epochs, random_state, params=None):
    """The registry's estimators, with ``params`` set and validated."""
    built = {}
    for name in names:
        estimator = ESTIMATORS[name](epochs, random_state)
        if params:
            try:
                estimator.set_params(**params)
                estimator._validate_params()
            except ValueError as exc:
                raise ValueError(
                    f"Cannot set {params} on {name}: {exc} Name only estimators "
                    "that take these hyper-parameters, with valid values."
                ) from None
        built[name] = estimator
    return built


def _fit_score(estimator, X_train, y_train, X_test, y_test):
    estimator = clone(estimator)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    score = accuracy_score(y_test, estimator.predict(X_test))
    return score, fit_time


def _describe(data, n_splits, repeats=1):
    if data.protocol == "holdout":
        return (
            f"train/test split ({data.X.shape[0]} train, {data.X_test.shape[0]} "
            "test samples)"
        )
    if repeats > 1:
        return f"{repeats} x {n_splits // repeats}-fold stratified CV"
    return f"{n_splits}-fold stratified CV"


def run_benchmark(
    dataset="digits",
    estimators=None,
    cv=10,
    epochs=3,
    random_state=0,
    n_jobs=1,
    *,
    repeats=1,
    params=None,
    data_home=None,
    verbose=False,
):
    """Measure accuracy and fit time of the named estimators on one data set.

    Every estimator makes exactly ``epochs`` shuffled passes (``tol=None``).
    On a cross-validation data set each one is scored on the same
    ``StratifiedKFold(cv, shuffle=True, random_state=random_state)`` folds
    (``RepeatedStratifiedKFold`` with ``repeats > 1``); on
    ``"20newsgroups"`` it is fit on the train subset and scored on the test
    subset, and ``cv`` is ignored.  Fit time is the wall-clock time of
    ``fit`` alone, averaged over folds.

    Parameters
    ----------
    dataset : str or Bunch, default="digits"
        A name from :data:`DATASETS`, or the result of :func:`load_dataset`.
    estimators : list of str, default=None
        Names from :data:`ESTIMATORS`, in the order of the report;
        ``None`` runs the data set's entry of
        :data:`DEFAULT_ESTIMATORS_BY_DATASET`, else
        :data:`DEFAULT_ESTIMATORS`.
    cv : int, default=10
        Number of folds.
    epochs : int, default=3
        Number of passes over the training data.
    random_state : int, default=0
        Seed of the folds and of the estimators' shuffling.
    n_jobs : int, default=1
        Number of folds evaluated in parallel (fit times are then measured
        while the folds share the machine).
    repeats : int, default=1
        Number of differently shuffled ``cv``-fold splits; the mean and std
        are taken over all ``repeats * cv`` folds.  Differences between
        online learners below a few tenths of a point are often within the
        spread of one split; repeats tell them apart.
    params : dict, default=None
        Hyper-parameters set on every estimator (``set_params``) after its
        registry defaults, for sweeps; each estimator must accept them.
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
        (fit time over that of ``reference``), ``reference`` (the first
        online scikit-learn estimator of the run, not one of
        :data:`BATCH_REFERENCES`, or ``None`` if there is none, in
        which case the ratio is ``None`` too) and ``published`` (the
        accuracy published for this estimator on this data set, as a
        fraction, from :data:`PUBLISHED`; ``None`` where there is none).

    Raises
    ------
    ValueError
        If an estimator name is unknown (the message lists the available
        ones) or ``cv`` or ``epochs`` is out of range.
    """
    if isinstance(dataset, str) and dataset in _bench_gradient.REGRESSION_DATASETS:
        dataset = load_dataset(dataset, data_home)
    if not isinstance(dataset, str) and dataset.protocol == "online":
        _check_estimator_names(estimators or [])
        return _bench_gradient.run_regression_benchmark(
            dataset,
            estimators,
            epochs=epochs,
            random_state=random_state,
            log=lambda message: verbose and print(message, file=sys.stderr),
        )
    names = list(DEFAULT_ESTIMATORS if estimators is None else estimators)
    if not names:
        raise ValueError("No estimator to run.")
    _check_estimator_names(names)
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}.")
    data = load_dataset(dataset, data_home) if isinstance(dataset, str) else dataset
    if estimators is None:
        names = list(DEFAULT_ESTIMATORS_BY_DATASET.get(data.name, names))
    if data.protocol == "cv" and cv < 2:
        raise ValueError(f"cv must be at least 2, got {cv}.")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")

    X, y = data.X, data.y
    if data.protocol == "holdout":
        splits = None
        n_splits = 1
    else:
        if repeats > 1:
            folds = RepeatedStratifiedKFold(
                n_splits=cv, n_repeats=repeats, random_state=random_state
            )
        else:
            folds = StratifiedKFold(
                n_splits=cv, shuffle=True, random_state=random_state
            )
        splits = list(folds.split(np.zeros(y.shape[0]), y))
        n_splits = len(splits)
    protocol = _describe(data, n_splits, repeats if splits is not None else 1)

    def log(message):
        if verbose:
            print(message, file=sys.stderr, flush=True)

    log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, "
        f"{np.unique(y).shape[0]} classes; {protocol}, {epochs} epochs"
        + (f" (--cv {cv} ignored)" if data.protocol == "holdout" else "")
    )

    estimators_run = _build_estimators(names, epochs, random_state, params)

    rows = []
    reference = None
    for name in names:
        estimator = estimators_run[name]
        if reference is None and _is_peer(estimator) and name not in BATCH_REFERENCES:
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
    published = PUBLISHED.get(data.name, {})
    for row in rows:
        row["reference"] = reference
        row["fit_time_ratio"] = row["fit_time_mean"] / ref_time if ref_time else None
        figure = published.get(row["estimator"])
        row["published"] = None if figure is None else figure / 100
    return rows


def _title(rows):
    first = rows[0]
    if first.get("task") == "regression":
        return _bench_gradient.title(rows)
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


def _has_published(rows):
    return any(row.get("published") is not None for row in rows)


def _cells(rows):
    if rows[0].get("task") == "regression":
        return _bench_gradient.cells(rows, _ratio_header(rows), _seconds)
    header = ["estimator", "accuracy (%)", "fit time (s)", _ratio_header(rows)]
    with_published = _has_published(rows)
    if with_published:
        header.append("published (%)")
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
        if with_published:
            figure = row.get("published")
            body[-1].append("" if figure is None else f"{100 * figure:.2f}")
    return header, body


def _footer(rows):
    if not _has_published(rows):
        return []
    return ["", PUBLISHED_SOURCE.get(rows[0]["dataset"], "published: see PUBLISHED")]


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
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def line(cells):
        first = cells[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join(
        [_title(rows), "", line(header), rule, *map(line, body), *_footer(rows)]
    )


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
    lines += _footer(rows)
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


def plot_results(rows, path):
    """Draw benchmark rows as a bar chart and save it (PNG, or any format
    matplotlib knows from the extension).

    Bars are the mean accuracies with their standard deviation across folds;
    a published figure, where there is one, is drawn as a red diamond on
    its bar.  The fit time relative to the reference is written beside each bar.

    Parameters
    ----------
    rows : list of dict
        Rows returned by :func:`run_benchmark` (all from one data set).
    path : str or path-like
        The image file to write.

    Raises
    ------
    ImportError
        If matplotlib is not installed (``pip install matplotlib``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "--plot needs matplotlib: pip install matplotlib (or the 'benchmark' extra)"
        ) from exc
    names = [row["estimator"] for row in rows]
    acc = np.array([100 * row["accuracy_mean"] for row in rows])
    std = np.array([100 * (row["accuracy_std"] or 0.0) for row in rows])
    positions = np.arange(len(rows))[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.5))
    ax.barh(positions, acc, xerr=std, color="tab:blue", alpha=0.8, capsize=3)
    published = [
        (pos, 100 * row["published"])
        for pos, row in zip(positions, rows)
        if row.get("published") is not None
    ]
    if published:
        pos, fig_ = zip(*published)
        ax.scatter(fig_, pos, marker="D", s=30, color="tab:red", label="published")
        ax.legend(loc="best", fontsize=8)
    points = [p for _, p in published]
    low = min([*(acc - std), *points])
    high = max([*(acc + std), *points])
    span = max(high - low, 1.0)
    ax.set_xlim(max(0.0, low - 0.15 * span), min(100.0, high + 0.6 * span) + 0.5)
    for pos, row, value, err in zip(positions, rows, acc, std):
        ratio = row.get("fit_time_ratio")
        label = f"{value:.2f}%" + ("" if ratio is None else f", {ratio:.2f}x time")
        ax.text(value + err + 0.05 * span, pos, label, va="center", fontsize=8)
    ax.set_yticks(positions, names)
    ax.set_xlabel("accuracy (%)")
    ax.set_title(_title(rows), fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


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
        choices=(*DATASETS, "20newsgroups-multilabel"),
        default="digits",
        help="data set (default: digits, bundled with scikit-learn); "
        "'--dataset 20newsgroups-semi --help' shows the semi-supervised "
        "protocol's own options, '--dataset stream-2m --help' those of "
        "parameter mixing on Dask against the serial fit",
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
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=(
            "set a hyper-parameter of every estimator run (repeatable), e.g. "
            "--set eta=0.7; VALUE is read as a Python literal, else a string"
        ),
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="differently shuffled CV splits, pooled (default: 1)",
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
        "--plot",
        metavar="FILE",
        default=None,
        help="also draw the results as a bar chart in FILE.png (needs matplotlib)",
    )
    parser.add_argument(
        "--stream",
        type=int,
        nargs="?",
        const=1_000_000,
        metavar="ROWS",
        default=None,
        help=(
            "instead of the accuracy table, stream ROWS sparse rows (default "
            "1000000) through partial_fit of every public estimator and print "
            "the peak traced memory per batch"
        ),
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
EXTRA_COMMANDS = {
    "20newsgroups-semi": "sklearn_pa._bench_semi_supervised",
    "stream-2m": "sklearn_pa._bench_distributed",
}


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


def _parse_params(pairs):
    """``["eta=0.7", "covariance=full"]`` -> ``{"eta": 0.7, ...}``."""
    import ast

    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"--set expects NAME=VALUE, got {pair!r}")
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[name] = value
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
        0 on success.  Invalid arguments, unknown estimator names and missing
        data exit through :class:`SystemExit` with status 2 and a message on
        standard error.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = _extra_command(argv)
    if extra is not None:
        import importlib

        return importlib.import_module(extra).main(argv)
    if "conll2000" in argv or "--dataset=conll2000" in argv:
        # sequence data: lists of sentences, its own protocol and peers
        from .sequence._benchmark import main as sequence_main

        return sequence_main(argv)
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.stream is not None:
        from ._bench_robustness import main_stream

        return main_stream(args.stream)
    if args.estimators is not None and args.dataset != "20newsgroups-multilabel":
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
    if args.dataset == "20newsgroups-multilabel":
        return _main_multilabel(parser, args)
    try:
        data = load_dataset(args.dataset, args.data_home)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if data.protocol == "cv" and args.cv < 2:
        parser.error(f"--cv must be at least 2, got {args.cv}")
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    try:
        params = _parse_params(args.params)
        names = args.estimators or DEFAULT_ESTIMATORS_BY_DATASET.get(
            args.dataset, DEFAULT_ESTIMATORS
        )
        _build_estimators(names, args.epochs, args.random_state, params)
    except ValueError as exc:
        parser.error(str(exc))
    rows = run_benchmark(
        data,
        args.estimators,
        cv=args.cv,
        epochs=args.epochs,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        repeats=args.repeats,
        params=params,
        verbose=True,
    )
    print(format_table(rows), flush=True)
    if args.output is not None:
        write_output(rows, args.output)
        print(f"results written to {args.output}", file=sys.stderr)
    if args.plot is not None:
        plot_results(rows, args.plot)
        print(f"chart written to {args.plot}", file=sys.stderr)
    return 0


def _main_multilabel(parser, args):
    """``--dataset 20newsgroups-multilabel``: label ranking metrics (see
    ``sklearn_pa._bench_multilabel``); ``--estimators`` names its learners."""
    from ._bench_multilabel import (
        format_multilabel_table,
        load_20newsgroups_multilabel,
        run_multilabel_benchmark,
    )

    try:
        data = load_20newsgroups_multilabel(args.data_home)
        rows = run_multilabel_benchmark(
            data,
            args.estimators,
            epochs=args.epochs,
            random_state=args.random_state,
            verbose=True,
        )
    except FileNotFoundError as exc:
        parser.error(str(exc))
    except ValueError as exc:
        parser.error(str(exc))
    print(format_multilabel_table(rows, data, args.epochs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
