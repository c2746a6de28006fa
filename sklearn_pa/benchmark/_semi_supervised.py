"""Semi-supervised online learning on 20 Newsgroups subsets (ss-PA / ss-SPA).

Run it through the benchmark command::

    python -m sklearn_pa.benchmark --dataset 20newsgroups-semi            # reduced
    python -m sklearn_pa.benchmark --dataset 20newsgroups-semi --full     # 10 folds

The default is reduced (subsets sb-7-1 and sb-8-1, three reported folds:
about 10 minutes on two shared cores); ``--full`` runs the four subsets and
nine reported folds (25 minutes).  Measured results and what they show are
in the user guide (``doc/semi_supervised.rst``).

The protocol follows Matsushima et al. (ss-PA / ss-SPA, Tables 5-6):

- Four subsets of 20 Newsgroups, "separated and balanced": 500 documents
  drawn at random from each of 7 or 8 newsgroups on distinct topics
  (:data:`SUBSETS`).  The original names (sb-7-1, ...) come from the
  20 Newsgroups subset collection of University College Dublin, whose lists
  of groups the paper does not give; the groups here are our choice, one per
  top-level hierarchy as far as possible, so the figures are comparable in
  shape, not digit for digit.
- Bag-of-words counts scaled to unit norm
  (:func:`~sklearn.datasets.fetch_20newsgroups_vectorized`, read from
  ``<data folder>/sklearn`` without downloading); columns unused by the
  subset are dropped.
- Stratified K-fold cross-validation.  In each fold the training part is
  split, stratified, into labeled and unlabeled samples in the ratio
  1 : ``unlabeled_ratio`` (4 in the paper); the learners make ``epochs``
  shuffled passes over the mixed stream (5 by default: one pass stays some
  20 points below the paper's accuracies, five reach their level) and are
  scored on the held-out fold.
- ``OnlineBayesPointClassifier`` with M = 30 copies and pi = 0.8 over plain
  PA with the seed's prediction-based rule (``multiclass="prediction"``,
  ``C=inf``; registry name ``OBPM-PA``; the max-loss rule is
  ``OBPM-PA-maxloss``) and
  plain SPA (``multiclass="support"``, ``C=inf``; ``OBPM-SPA``); ``--set``
  changes M (``n_estimators``), pi (``update_probability``) or the
  ``weighting``.  "supervised" ignores the
  unlabeled samples (``unlabeled_step=0``); "semi-supervised" uses the step
  c chosen on the first fold, which is then left out of the reported mean.
"""

import time
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold, train_test_split

from ..datasets import NEWSGROUP_SUBSETS
from ._common import check_estimator_names
from ._data import DATA_ENV, load_subset
from ._progress import Progress
from ._registry import REGISTRY, SEED_TABLES

__all__ = ["DEFAULT_STEPS", "SUBSETS", "run_semi_supervised", "semi_split"]

#: The subsets: name -> newsgroups (500 random documents of each).
SUBSETS = NEWSGROUP_SUBSETS

#: Unlabeled steps c tried on the tuning fold.
DEFAULT_STEPS = (0.25, 0.5, 1.0, 1.5, 2.0)


def semi_split(y_train, unlabeled_ratio, random_state):
    """Mark all but 1 / (1 + unlabeled_ratio) of the samples unlabeled (-1)."""
    y_semi = np.asarray(y_train).copy()
    if unlabeled_ratio > 0:
        idx = np.arange(y_semi.shape[0])
        _, unlabeled = train_test_split(
            idx,
            test_size=unlabeled_ratio / (1.0 + unlabeled_ratio),
            stratify=y_semi,
            random_state=random_state,
        )
        y_semi[unlabeled] = -1
    return y_semi


def _model(name, step, settings, epochs, seed):
    return (
        REGISTRY[name]
        .factory(epochs, seed)
        .set_params(**settings, unlabeled_step=step, tol=None)
    )


def _fit_score(model, X, y_semi, X_test, y_test):
    tic = time.perf_counter()
    with warnings.catch_warnings():
        # the classes are 0 .. K-1 and -1 marks the unlabeled samples on
        # purpose: the estimator's warning about that pair is meant for users
        warnings.filterwarnings("ignore", "y holds .* labeled -1", UserWarning)
        model.fit(X, y_semi)
    elapsed = time.perf_counter() - tic
    return float(model.score(X_test, y_test)), elapsed


def run_semi_supervised(
    subsets=None,
    estimators=("OBPM-PA", "OBPM-SPA"),
    *,
    n_splits=10,
    n_folds=None,
    unlabeled_ratio=4,
    n_estimators=30,
    update_probability=0.8,
    weighting="mistakes",
    steps=DEFAULT_STEPS,
    epochs=5,
    random_state=0,
    n_jobs=1,
    params=None,
    data_home=None,
    verbose=False,
):
    """Supervised vs semi-supervised OBPM accuracy on the 20 Newsgroups subsets.

    Fold 0 of ``StratifiedKFold(n_splits)`` tunes the unlabeled step c (the
    best of ``steps`` on its held-out part); folds 1, 2, ... (``n_folds`` of
    them, all remaining when ``None``) give the reported accuracies, so the
    reported numbers never saw the tuning.

    ``params`` (the ``--set`` hyper-parameters) are set on every model
    after ``n_estimators``, ``update_probability`` and ``weighting``.
    ``data_home`` is the benchmark data folder (``None`` reads
    ``SKLEARN_PA_DATA``); its ``sklearn`` subfolder is the data home.

    Returns
    -------
    rows : list of dict
        One per (subset, estimator): ``subset``, ``estimator``, ``n_samples``,
        ``n_features``, ``n_classes``, ``step`` (the tuned c),
        ``tuning`` (dict c -> tuning-fold accuracy), ``supervised`` and
        ``semi`` (lists of per-fold accuracies), ``fit_time`` (mean seconds
        of one fit), ``seed_table`` (the paper's pair or None).
    """
    from ._data import resolve_data_home

    subsets = list(SUBSETS if subsets is None else subsets)
    unknown = [s for s in subsets if s not in SUBSETS]
    if unknown:
        raise ValueError(
            f"Unknown subset(s) {', '.join(unknown)}; available: {', '.join(SUBSETS)}."
        )
    estimators = list(estimators)
    check_estimator_names(estimators, "classification")
    not_obpm = [n for n in estimators if not n.startswith("OBPM-")]
    if not_obpm:
        raise ValueError(
            f"{', '.join(not_obpm)}: the semi-supervised protocol runs Online "
            "Bayes Point Machines only (OBPM-PA, OBPM-PA-maxloss, OBPM-SPA)."
        )
    root = resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "20newsgroups-semi needs the data folder: pass --data-home DIR or set "
            f"{DATA_ENV}=DIR (its sklearn/ subfolder is the data home)."
        )
    sklearn_home = Path(root) / "sklearn"
    settings = {
        "n_estimators": n_estimators,
        "update_probability": update_probability,
        "weighting": weighting,
        **(params or {}),
    }
    if n_folds is None:
        n_folds = n_splits - 1
    progress = Progress(
        len(subsets) * len(estimators) * (len(steps) + 2 * n_folds), verbose=verbose
    )
    log = progress.log

    rows = []
    for subset in subsets:
        X, y = load_subset(subset, sklearn_home, random_state=random_state)
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
        splits = list(cv.split(np.zeros(y.shape[0]), y))
        tune_train, tune_test = splits[0]
        report = splits[1:] if n_folds is None else splits[1 : 1 + n_folds]
        log(
            f"{subset}: {X.shape[0]} documents x {X.shape[1]} words, "
            f"{np.unique(y).shape[0]} classes; tuning on fold 0, reporting "
            f"{len(report)} folds"
        )
        for name in estimators:

            def job(step, train, test, fold, name=name, X=X, y=y):
                y_semi = semi_split(y[train], unlabeled_ratio, random_state + fold)
                model = _model(name, step, settings, epochs, seed=random_state + fold)
                return _fit_score(model, X[train], y_semi, X[test], y[test])

            tuning = Parallel(n_jobs=n_jobs)(
                delayed(job)(step, tune_train, tune_test, 0) for step in steps
            )
            progress.step(f"{subset} {name} tuning fold", n=len(steps))
            tuning = {step: acc for step, (acc, _) in zip(steps, tuning)}
            best = max(steps, key=lambda s: (tuning[s], -s))
            results = []
            for fold, (train, test) in enumerate(report, start=1):
                results += Parallel(n_jobs=n_jobs)(
                    delayed(job)(step, train, test, fold) for step in (0.0, best)
                )
                progress.step(f"{subset} {name} fold {fold}/{len(report)}", n=2)
            sup = [acc for acc, _ in results[0::2]]
            semi = [acc for acc, _ in results[1::2]]
            fit_time = float(np.mean([t for _, t in results]))
            row = {
                "task": "semi-supervised",
                "dataset": "20newsgroups-semi",
                "subset": subset,
                "estimator": name,
                "epochs": epochs,
                "random_state": random_state,
                "unlabeled_ratio": unlabeled_ratio,
                "settings": dict(settings),
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_classes": int(np.unique(y).shape[0]),
                "step": best,
                "tuning": tuning,
                "supervised": sup,
                "semi": semi,
                "supervised_mean": float(np.mean(sup)),
                "semi_mean": float(np.mean(semi)),
                "fit_time": fit_time,
                "seed_table": SEED_TABLES.get((name, subset)),
            }
            rows.append(row)
            log(
                f"  {name}: c={best:g}, supervised {100 * np.mean(sup):.2f}, "
                f"semi {100 * np.mean(semi):.2f} (fit {fit_time:.2f} s)"
            )
    return rows
