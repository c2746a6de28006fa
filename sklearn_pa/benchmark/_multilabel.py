"""Multilabel label ranking on 20 Newsgroups with super-categories.

``python -m sklearn_pa.benchmark --dataset 20newsgroups-multilabel``: each
document keeps its newsgroup as one label and gets its super-category
(``comp``, ``rec``, ``sci``, ``talk``) as a second one when it has one, so a
row has one or two relevant labels out of 24.  The models are fit on the
``train`` subset and scored on ``test`` with scikit-learn's ranking metrics
(label ranking average precision, coverage error: both on the decision
scores) and the micro-averaged F1 of the predicted label sets.
"""

import time

from sklearn.base import clone
from sklearn.metrics import (
    coverage_error,
    f1_score,
    label_ranking_average_precision_score,
)

from ._common import add_reference, build_estimators, check_estimator_names
from ._data import load_20newsgroups_multilabel
from ._progress import Progress
from ._registry import MULTILABEL_ESTIMATORS

__all__ = ["run_multilabel"]


def run_multilabel(
    data=None,
    estimators=None,
    epochs=5,
    random_state=0,
    *,
    params=None,
    data_home=None,
    verbose=False,
):
    """Fit on the train subset, score the ranking and the label sets on test.

    Parameters
    ----------
    data : Bunch, default=None
        ``load_dataset("20newsgroups-multilabel")`` (loaded when None).
    estimators : list of str, default=None
        Multilabel names of the registry (all of them when None).
    epochs : int, default=5
        Passes over the training data.
    random_state : int, default=0
        Seed of the shuffling.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    data_home : str or path-like, default=None
        Data folder used when ``data`` is None.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        Keys ``estimator``, ``lrap``, ``coverage_error``, ``f1_micro``,
        ``fit_time``, and the data set's shape.
    """
    if data is None:
        data = load_20newsgroups_multilabel(data_home)
    names = list(MULTILABEL_ESTIMATORS if estimators is None else estimators)
    check_estimator_names(names, "multilabel")
    built = build_estimators(names, epochs, random_state, params)
    progress = Progress(len(names), verbose=verbose)
    rows = []
    for name in names:
        est = clone(built[name])
        start = time.perf_counter()
        est.fit(data.X, data.Y)
        fit_time = time.perf_counter() - start
        scores = est.decision_function(data.X_test)
        pred = est.predict(data.X_test)
        row = {
            "task": "multilabel",
            "dataset": data.name,
            "estimator": name,
            "epochs": epochs,
            "random_state": random_state,
            "n_samples": data.X.shape[0],
            "n_test": data.X_test.shape[0],
            "n_features": data.X.shape[1],
            "n_labels": data.Y.shape[1],
            "lrap": float(label_ranking_average_precision_score(data.Y_test, scores)),
            "coverage_error": float(coverage_error(data.Y_test, scores)),
            "f1_micro": float(f1_score(data.Y_test, pred, average="micro")),
            "fit_time": fit_time,
        }
        rows.append(row)
        progress.step(name)
        progress.log(
            f"  {name}: LRAP {row['lrap']:.4f}, coverage "
            f"{row['coverage_error']:.3f}, micro-F1 {row['f1_micro']:.4f}, "
            f"fit {fit_time:.3g} s"
        )
    return add_reference(rows, "fit_time")
