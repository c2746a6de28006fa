"""Progressive validation of the regressors (``preference`` data sets):
online square loss.

- ``preference``: the setting of Nakamura et al.: 20 Newsgroups posts (read
  from ``<data folder>/sklearn`` without downloading) in time order, as
  Boolean keyword vectors (alphabetic tokens of 3+ letters, English stop
  words removed, words of at least 2 documents), with a simulated reader's
  interest in {-2, ..., 2} given by the newsgroup plus noise.  The first
  3000 posts.
- ``preference-synthetic``: the same shape without the data folder: Boolean
  sparse rows, a planted sparse linear interest, rounded and clipped to
  {-2, ..., 2}.

Protocol: each estimator makes ``--epochs`` passes of ``fit`` (fit time), and
is scored by progressive validation, one pass over the stream in order
(predict each post, then learn it): the mean online square loss.  The peer
is scikit-learn's ``SGDRegressor`` with a constant learning rate (plain SGD
on the square loss, the same rule as GD with ``eta_scaling="constant"``).
Its progressive validation runs through the per-sample predict /
``partial_fit`` loop (it has no one-pass path), whose time is reported too.
"""

import time

from sklearn.base import clone

from ..model_selection import progressive_val_score
from ._common import add_reference, build_estimators
from ._progress import Progress
from ._registry import REGRESSION_ESTIMATORS

__all__ = ["run_progressive"]


def run_progressive(
    data, names=None, *, epochs=3, random_state=0, params=None, verbose=False
):
    """Fit time over ``epochs`` passes and progressive-validation loss.

    Parameters
    ----------
    data : Bunch
        A regression data set of :func:`~sklearn_pa.benchmark.load_dataset`.
    names : list of str, default=None
        Registry names of regressors (all of them when None).
    epochs : int, default=3
        Passes of ``fit``.
    random_state : int, default=0
        Seed of the shuffling of ``fit``.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``online_mse``, ``cumulative_loss``, ``progressive_time``,
        ``fit_time_mean`` and the ratio to the peer, per estimator.
    """
    names = list(REGRESSION_ESTIMATORS) if names is None else list(names)
    unknown = [name for name in names if name not in REGRESSION_ESTIMATORS]
    if unknown:
        raise ValueError(
            f"{', '.join(unknown)} cannot run on a regression data set; use "
            f"{', '.join(REGRESSION_ESTIMATORS)}."
        )
    X, y = data.X, data.y
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, regression; "
        f"{epochs} epochs (fit) and one progressive pass"
    )
    estimators = build_estimators(names, epochs, random_state, params)
    rows = []
    for name in names:
        estimator = estimators[name]
        fitted = clone(estimator)
        start = time.perf_counter()
        fitted.fit(X, y)
        fit_time = time.perf_counter() - start
        online = clone(estimator).set_params(shuffle=False)
        start = time.perf_counter()
        result = progressive_val_score(online, X, y, return_curve=True)
        online_time = time.perf_counter() - start
        rows.append(
            {
                "task": "regression",
                "dataset": data.name,
                "protocol": "progressive validation",
                "estimator": name,
                "n_splits": 1,
                "epochs": epochs,
                "random_state": random_state,
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_classes": None,
                "online_mse": -result.score,
                "cumulative_loss": float(result.cumulative_loss[-1]),
                "progressive_time": online_time,
                "fit_time_mean": fit_time,
                "fit_time_std": None,
            }
        )
        progress.step(name)
        progress.log(
            f"  {name}: online MSE {-result.score:.4f}, fit {fit_time:.3g} s, "
            f"progressive {online_time:.3g} s"
        )
    return add_reference(rows)
