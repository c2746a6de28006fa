"""The train/test accuracy table: fit on the training subset, score on the
test subset (20 Newsgroups' ``bydate`` split)."""

import numpy as np

from ._common import (
    add_reference,
    build_estimators,
    classification_row,
    describe,
    fit_score,
    result_line,
)
from ._progress import Progress

__all__ = ["run_train_test"]


def run_train_test(
    data, names, *, epochs=3, random_state=0, params=None, verbose=False, cv=None
):
    """Fit each estimator on ``data.X``, ``data.y``; score on the test data.

    Parameters
    ----------
    data : Bunch
        From :func:`~sklearn_pa.benchmark.load_dataset`, with ``X_test`` and
        ``y_test``.
    names : list of str
        Registry names of classifiers.
    epochs : int, default=3
        Passes over the training data.
    random_state : int, default=0
        Seed of the shuffling.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.
    cv : int, default=None
        Not used: a number of folds passed along is named as ignored in the
        first progress line and in the table's title (``cv_ignored``).

    Returns
    -------
    rows : list of dict
        The rows of :func:`~sklearn_pa.benchmark.run_benchmark`, with
        ``n_splits=1`` and ``None`` standard deviations.
    """
    X, y = data.X, data.y
    protocol = describe(data, 1)
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, "
        f"{np.unique(y).shape[0]} classes; {protocol}, {epochs} epochs"
        + (f" (--cv {cv} ignored)" if cv is not None else "")
    )
    estimators = build_estimators(names, epochs, random_state, params)
    rows = []
    for name in names:
        result = fit_score(estimators[name], X, y, data.X_test, data.y_test)
        progress.step(name)
        row = classification_row(data, name, protocol, epochs, random_state, [result])
        row["cv_ignored"] = cv
        rows.append(row)
        progress.log(result_line(row))
    return add_reference(rows)
