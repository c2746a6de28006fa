"""What the protocols share: building the registry's estimators with the
``--set`` hyper-parameters, timing a fit, the fit-time ratio to the peer."""

import time

import numpy as np
from sklearn.base import clone
from sklearn.metrics import accuracy_score

from ._registry import PUBLISHED, REGISTRY, is_peer

__all__ = [
    "add_reference",
    "build_estimators",
    "check_estimator_names",
    "classification_row",
    "describe",
    "fit_score",
    "result_line",
    "verbosity",
]


def verbosity(verbose):
    """``False``/``True``/int -> 0/1/int."""
    return int(verbose)


def check_estimator_names(names, tasks=("classification", "regression")):
    """Raise a ValueError naming the unknown names and the available ones."""
    if isinstance(tasks, str):
        tasks = (tasks,)
    available = [n for n, e in REGISTRY.items() if e.task in tasks]
    unknown = [name for name in names if name not in available]
    if unknown:
        elsewhere = [n for n in REGISTRY if n not in available]
        raise ValueError(
            f"Unknown estimator name(s) for this data set: {', '.join(unknown)}. "
            f"Available estimators: {', '.join(available)}. For other data sets "
            f"(other tasks): {', '.join(elsewhere)}; --list gives the task of each."
        )


def build_estimators(names, epochs, random_state, params=None):
    """The registry's estimators, with ``params`` set and validated."""
    built = {}
    for name in names:
        estimator = REGISTRY[name].factory(epochs, random_state)
        if params:
            try:
                estimator.set_params(**params)
                if hasattr(estimator, "_validate_params"):
                    estimator._validate_params()
            except ValueError as exc:
                raise ValueError(
                    f"Cannot set {params} on {name}: {exc} Name only estimators "
                    "that take these hyper-parameters, with valid values."
                ) from None
        built[name] = estimator
    return built


def fit_score(estimator, X_train, y_train, X_test, y_test):
    """Accuracy on the test data and the time of ``fit`` of a clone."""
    estimator = clone(estimator)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    score = accuracy_score(y_test, estimator.predict(X_test))
    return score, fit_time


def add_reference(rows, time_key="fit_time_mean"):
    """Set ``reference`` (the first peer of the run) and ``fit_time_ratio``
    (time over the reference's, ``None`` without a peer) on every row."""
    reference = next((r["estimator"] for r in rows if is_peer(r["estimator"])), None)
    ref_time = None
    if reference is not None:
        ref_time = next(r[time_key] for r in rows if r["estimator"] == reference)
    for row in rows:
        row["reference"] = reference
        row["fit_time_ratio"] = (
            row[time_key] / ref_time if ref_time and row[time_key] is not None else None
        )
    return rows


def describe(data, n_splits, repeats=1):
    """The protocol column: the split of the data."""
    if data.protocol == "holdout":
        return (
            f"train/test split ({data.X.shape[0]} train, {data.X_test.shape[0]} "
            "test samples)"
        )
    if repeats > 1:
        return f"{repeats} x {n_splits // repeats}-fold stratified CV"
    return f"{n_splits}-fold stratified CV"


def classification_row(data, name, protocol, epochs, random_state, results):
    """The row of one estimator from its ``(accuracy, fit time)`` per fold."""
    scores = np.array([score for score, _ in results])
    fit_times = np.array([fit_time for _, fit_time in results])
    n_splits = len(results)
    figure = PUBLISHED.get(data.name, {}).get(name)
    return {
        "task": "classification",
        "dataset": data.name,
        "protocol": protocol,
        "estimator": name,
        "n_splits": n_splits,
        "epochs": epochs,
        "random_state": random_state,
        "n_samples": data.X.shape[0],
        "n_features": data.X.shape[1],
        "n_classes": int(np.unique(data.y).shape[0]),
        "accuracy_mean": float(scores.mean()),
        "accuracy_std": float(scores.std()) if n_splits > 1 else None,
        "fit_time_mean": float(fit_times.mean()),
        "fit_time_std": float(fit_times.std()) if n_splits > 1 else None,
        "published": None if figure is None else figure / 100,
    }


def result_line(row):
    """The progress line of a finished classification row."""
    spread = (
        f" ± {100 * row['accuracy_std']:.2f}" if row["accuracy_std"] is not None else ""
    )
    return (
        f"  {row['estimator']}: {row['n_splits']} fit(s), accuracy "
        f"{100 * row['accuracy_mean']:.2f}{spread} %, fit {row['fit_time_mean']:.3g} s"
    )
