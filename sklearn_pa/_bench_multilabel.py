"""Multilabel benchmark: label ranking on 20 Newsgroups with super-categories.

``python -m sklearn_pa.benchmark --dataset 20newsgroups-multilabel`` runs
:func:`run_multilabel_benchmark`.  Each document keeps its newsgroup as one
label and gets its super-category (``comp``, ``rec``, ``sci``, ``talk``) as a
second one when it has one, so a row has one or two relevant labels out of
24.  The models are fit on the ``train`` subset and scored on ``test`` with
scikit-learn's ranking metrics (label ranking average precision, coverage
error: both on the decision scores) and the micro-averaged F1 of the
predicted label sets.
"""

import sys
import time
from pathlib import Path

from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import (
    coverage_error,
    f1_score,
    label_ranking_average_precision_score,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.utils import Bunch

from ._passive_aggressive import PassiveAggressiveClassifier
from .datasets import (
    SUPER_CATEGORIES,
    fetch_20newsgroups_multilabel,
    multilabel_targets,
)

__all__ = [
    "MULTILABEL_ESTIMATORS",
    "SUPER_CATEGORIES",
    "format_multilabel_table",
    "load_20newsgroups_multilabel",
    "multilabel_targets",
    "run_multilabel_benchmark",
]


def load_20newsgroups_multilabel(data_home=None):
    """20 Newsgroups (vectorized) with the super-category labels.

    The train and test subsets of
    :func:`sklearn_pa.datasets.fetch_20newsgroups_multilabel`, read from the
    benchmark data folder without downloading.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The benchmark data folder (its ``sklearn`` subfolder is the
        scikit-learn data home); ``None`` reads ``SKLEARN_PA_DATA``, and
        without it scikit-learn's default data home is used.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``X``, ``Y`` (train), ``X_test``, ``Y_test``, ``label_names``.
    """
    from sklearn.datasets import get_data_home

    from .benchmark import _20newsgroups_not_found, _resolve_data_home

    root = _resolve_data_home(data_home)
    sklearn_home = root / "sklearn" if root is not None else Path(get_data_home())
    try:
        train, test = (
            fetch_20newsgroups_multilabel(
                data_home=sklearn_home, subset=subset, download_if_missing=False
            )
            for subset in ("train", "test")
        )
    except OSError as exc:
        raise _20newsgroups_not_found(root, sklearn_home, exc) from exc
    return Bunch(
        name="20newsgroups-multilabel",
        X=train.data,
        Y=train.target,
        X_test=test.data,
        Y_test=test.target,
        label_names=train.target_names,
    )


def _pa_ranking(epochs, random_state):
    return PassiveAggressiveClassifier(
        max_iter=epochs, tol=None, random_state=random_state
    )


def _pa_seed_ranking(epochs, random_state):
    return PassiveAggressiveClassifier(
        multilabel="ranking", max_iter=epochs, tol=None, random_state=random_state
    )


def _pa_ovr(epochs, random_state):
    return OneVsRestClassifier(
        PassiveAggressiveClassifier(
            max_iter=epochs, tol=None, random_state=random_state
        )
    )


def _sgd_ovr(epochs, random_state):
    return OneVsRestClassifier(
        SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate="pa1",
            eta0=1.0,
            max_iter=epochs,
            tol=None,
            random_state=random_state,
        )
    )


#: Multilabel learners: name -> ``factory(epochs, random_state)``.
MULTILABEL_ESTIMATORS = {
    "PA-I-ranking": _pa_ranking,
    "PA-I-seed-ranking": _pa_seed_ranking,
    "OvR(PA-I)": _pa_ovr,
    "sklearn-OvR(SGD-pa1)": _sgd_ovr,
}


def run_multilabel_benchmark(
    data=None,
    estimators=None,
    epochs=5,
    random_state=0,
    *,
    data_home=None,
    verbose=False,
):
    """Fit on the train subset, score the ranking and the label sets on test.

    Parameters
    ----------
    data : Bunch, default=None
        From :func:`load_20newsgroups_multilabel` (loaded when None).
    estimators : list of str, default=None
        Names from :data:`MULTILABEL_ESTIMATORS` (all when None).
    epochs : int, default=5
        Passes over the training data.
    random_state : int, default=0
        Seed of the shuffling.
    data_home : str or path-like, default=None
        Data folder used when ``data`` is None.
    verbose : bool, default=False
        One progress line per estimator on standard error.

    Returns
    -------
    rows : list of dict
        Keys ``estimator``, ``lrap``, ``coverage_error``, ``f1_micro``,
        ``fit_time``.
    """
    if data is None:
        data = load_20newsgroups_multilabel(data_home)
    names = list(MULTILABEL_ESTIMATORS if estimators is None else estimators)
    unknown = [n for n in names if n not in MULTILABEL_ESTIMATORS]
    if unknown:
        raise ValueError(
            f"Unknown multilabel estimator(s) {unknown}; available: "
            f"{', '.join(MULTILABEL_ESTIMATORS)}."
        )
    rows = []
    for name in names:
        est = clone(MULTILABEL_ESTIMATORS[name](epochs, random_state))
        start = time.perf_counter()
        est.fit(data.X, data.Y)
        fit_time = time.perf_counter() - start
        scores = est.decision_function(data.X_test)
        pred = est.predict(data.X_test)
        row = {
            "estimator": name,
            "lrap": float(label_ranking_average_precision_score(data.Y_test, scores)),
            "coverage_error": float(coverage_error(data.Y_test, scores)),
            "f1_micro": float(f1_score(data.Y_test, pred, average="micro")),
            "fit_time": fit_time,
        }
        rows.append(row)
        if verbose:
            print(
                f"  {name}: LRAP {row['lrap']:.4f}, coverage "
                f"{row['coverage_error']:.3f}, micro-F1 {row['f1_micro']:.4f}, "
                f"fit {fit_time:.3g} s",
                file=sys.stderr,
                flush=True,
            )
    return rows


def format_multilabel_table(rows, data=None, epochs=None):
    """Plain-text table of :func:`run_multilabel_benchmark` rows."""
    lines = []
    if data is not None:
        lines.append(
            f"{data.name} ({data.X.shape[0]} train / {data.X_test.shape[0]} test x "
            f"{data.X.shape[1]} features, {data.Y.shape[1]} labels)"
            + (f", {epochs} epochs" if epochs else "")
        )
    header = ("estimator", "LRAP", "coverage", "micro-F1", "fit (s)")
    body = [
        (
            r["estimator"],
            f"{r['lrap']:.4f}",
            f"{r['coverage_error']:.3f}",
            f"{r['f1_micro']:.4f}",
            f"{r['fit_time']:.2f}",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [header, *body]) for i in range(len(header))]
    for cells in [header, *body]:
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths))
            )
        )
    return "\n".join(lines)
