"""The timing protocol: the minimum fit time of each estimator on the whole
training set over interleaved rounds.

``python -m sklearn_pa.benchmark --dataset 20newsgroups --timing`` fits
every named estimator once per round, in turn, ``--repeats`` rounds, so that
a noisy machine slows all of them alike, and reports the minimum of each
(and its ratio to the first peer, or to the first reference
implementation).
"""

import time

from sklearn.base import clone

from ._common import build_estimators
from ._progress import Progress
from ._registry import REGISTRY, is_peer

__all__ = ["interleaved_fit_times", "run_timing"]


def interleaved_fit_times(estimators, X, y, repeats=5, progress=None):
    """Minimum fit time of each estimator over ``repeats`` interleaved rounds.

    Parameters
    ----------
    estimators : dict
        Name -> unfitted estimator.
    X, y : array-like
        Training data.
    repeats : int, default=5
        Rounds; each round fits every estimator once, in turn.
    progress : Progress, default=None
        Counts one unit per fit.

    Returns
    -------
    times : dict
        Name -> minimum fit time in seconds.
    """
    best = {name: float("inf") for name in estimators}
    for round_ in range(repeats):
        for name, estimator in estimators.items():
            model = clone(estimator)
            tic = time.perf_counter()
            model.fit(X, y)
            best[name] = min(best[name], time.perf_counter() - tic)
            if progress is not None:
                progress.step(f"{name} round {round_ + 1}/{repeats}")
    return best


def run_timing(
    data, names, *, epochs=3, repeats=5, random_state=0, params=None, verbose=False
):
    """Rows of the timing protocol (see the module docstring)."""
    estimators = build_estimators(names, epochs, random_state, params)
    progress = Progress(len(names) * repeats, verbose=verbose)
    progress.log(
        f"{data.name}: {data.X.shape[0]} x {data.X.shape[1]}, {epochs} epochs, "
        f"minimum of {repeats} interleaved rounds"
    )
    times = interleaved_fit_times(estimators, data.X, data.y, repeats, progress)
    reference = next((n for n in names if is_peer(n)), None)
    if reference is None:
        reference = next(
            (n for n in names if REGISTRY[n].summary.startswith("reference")), None
        )
    rows = []
    for name in names:
        rows.append(
            {
                "task": "timing",
                "dataset": data.name,
                "protocol": f"minimum of {repeats} interleaved fits",
                "estimator": name,
                "epochs": epochs,
                "repeats": repeats,
                "random_state": random_state,
                "n_samples": data.X.shape[0],
                "n_features": data.X.shape[1],
                "fit_time_min": times[name],
                "reference": reference,
                "fit_time_ratio": (
                    times[name] / times[reference] if reference is not None else None
                ),
            }
        )
        progress.log(f"  {name}: {times[name]:.3g} s")
    return rows
