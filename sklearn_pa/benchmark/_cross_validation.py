"""The cross-validated accuracy table: every estimator on the same
stratified folds, ``epochs`` shuffled passes each, accuracy and fit time."""

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold

from ._common import (
    add_reference,
    build_estimators,
    check_estimator_names,
    classification_row,
    describe,
    fit_score,
    result_line,
)
from ._data import load_dataset
from ._progress import Progress
from ._registry import DEFAULT_ESTIMATORS, DEFAULT_ESTIMATORS_BY_DATASET

__all__ = ["run_benchmark"]


def run_benchmark(
    dataset="digits",
    estimators=None,
    cv=None,
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
    subset, and ``cv`` is ignored (a ``cv`` given is named as ignored in
    the table's title).  Fit time is the wall-clock time of
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
    cv : int, default=None
        Number of folds; ``None`` means 10.
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
    verbose : bool or int, default=False
        ``True`` (or 1) prints one line per estimator on standard error, and
        progress lines (estimator, fold, an estimate of the time left) once
        the run has taken ten seconds; 2 prints a progress line after every
        fit.

    Returns
    -------
    rows : list of dict
        One dict per estimator with the keys ``dataset``, ``protocol``,
        ``estimator``, ``n_splits``, ``epochs``, ``random_state``,
        ``n_samples``, ``n_features``, ``n_classes``, ``accuracy_mean``,
        ``accuracy_std`` (fractions; the std is ``None`` with one split),
        ``fit_time_mean``, ``fit_time_std`` (seconds), ``fit_time_ratio``
        (fit time over that of ``reference``), ``reference`` (the first
        scikit-learn estimator of the run, or ``None`` if there is none, in
        which case the ratio is ``None`` too) and ``published`` (the
        accuracy published for this estimator on this data set, as a
        fraction, from :data:`PUBLISHED`; ``None`` where there is none).

    Raises
    ------
    ValueError
        If an estimator name is unknown (the message lists the available
        ones) or ``cv`` or ``epochs`` is out of range.

    Examples
    --------
    >>> from sklearn_pa.benchmark import format_table, run_benchmark
    >>> rows = run_benchmark("digits", ["PA-I", "sklearn-SGD-pa1"], cv=3, epochs=1)
    >>> [row["estimator"] for row in rows]
    ['PA-I', 'sklearn-SGD-pa1']
    >>> print(format_table(rows))  # doctest: +SKIP
    """
    from ._progressive import run_progressive
    from ._train_test import run_train_test

    if isinstance(dataset, str) and dataset in ("preference", "preference-synthetic"):
        dataset = load_dataset(dataset, data_home)
    if not isinstance(dataset, str) and dataset.protocol == "online":
        return run_progressive(
            dataset,
            estimators,
            epochs=epochs,
            random_state=random_state,
            params=params,
            verbose=verbose,
        )
    names = list(DEFAULT_ESTIMATORS if estimators is None else estimators)
    if not names:
        raise ValueError("No estimator to run.")
    check_estimator_names(names, "classification")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}.")
    data = load_dataset(dataset, data_home) if isinstance(dataset, str) else dataset
    if estimators is None:
        names = list(DEFAULT_ESTIMATORS_BY_DATASET.get(data.name, names))
    if data.protocol == "holdout":
        return run_train_test(
            data,
            names,
            epochs=epochs,
            random_state=random_state,
            params=params,
            verbose=verbose,
            cv=cv,
        )
    if cv is None:
        cv = 10
    if cv < 2:
        raise ValueError(f"cv must be at least 2, got {cv}.")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")

    X, y = data.X, data.y
    if repeats > 1:
        folds = RepeatedStratifiedKFold(
            n_splits=cv, n_repeats=repeats, random_state=random_state
        )
    else:
        folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    splits = list(folds.split(np.zeros(y.shape[0]), y))
    n_splits = len(splits)
    protocol = describe(data, n_splits, repeats)
    progress = Progress(len(names) * n_splits, verbose=verbose)
    progress.log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, "
        f"{np.unique(y).shape[0]} classes; {protocol}, {epochs} epochs"
    )
    estimators_run = build_estimators(names, epochs, random_state, params)

    rows = []
    for name in names:
        estimator = estimators_run[name]
        if n_jobs == 1:
            results = []
            for fold, (train, test) in enumerate(splits, start=1):
                results.append(
                    fit_score(estimator, X[train], y[train], X[test], y[test])
                )
                progress.step(f"{name} fold {fold}/{n_splits}")
        else:
            results = Parallel(n_jobs=n_jobs)(
                delayed(fit_score)(estimator, X[train], y[train], X[test], y[test])
                for train, test in splits
            )
            progress.step(f"{name} ({n_splits} folds)", n=n_splits)
        row = classification_row(data, name, protocol, epochs, random_state, results)
        rows.append(row)
        progress.log(result_line(row))
    return add_reference(rows)
