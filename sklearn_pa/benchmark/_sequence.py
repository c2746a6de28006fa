"""CoNLL-2000 chunking benchmark of the sequence taggers, with CRFsuite's
averaged perceptron as the peer, on the same features and epochs.

Run it through the benchmark command::

    python -m sklearn_pa.benchmark --dataset conll2000 --epochs 5

The sentences of the training split are shuffled once (``--random-state``)
and the last ``--holdout`` fraction is held out.  Features are
:func:`~sklearn_pa.sequence.chunking_features` dicts for every tagger; the fit
time includes turning those dicts into the tagger's own features (both
CRFsuite and the taggers here take the dicts).  The peer
``sklearn_crfsuite.CRF(algorithm="ap")`` runs when ``sklearn-crfsuite`` is
installed (the ``benchmark`` extra), else it is skipped with a message.
"""

import time

import numpy as np

from ..sequence import chunk_f1, chunking_features
from ._common import build_estimators, check_estimator_names
from ._data import load_dataset
from ._progress import Progress
from ._registry import DEFAULT_ESTIMATORS_BY_DATASET

__all__ = ["run_conll2000"]


def run_conll2000(
    data_home=None,
    estimators=None,
    epochs=5,
    holdout=0.2,
    n_sentences=None,
    random_state=0,
    *,
    params=None,
    verbose=False,
):
    """Fit each tagger on the training part, score the held-out part.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The benchmark data folder (``nltk_data/corpora/conll2000.zip``);
        ``None`` reads ``SKLEARN_PA_DATA``.
    estimators : list of str, default=None
        Sequence taggers of the registry (the ``conll2000`` defaults when
        None).
    epochs : int, default=5
        Passes over the training sentences.
    holdout : float, default=0.2
        Fraction of the (shuffled) sentences held out for scoring.
    n_sentences : int, default=None
        Use only the first sentences of the file.
    random_state : int, default=0
        Seed of the shuffle of the sentences and of the taggers.
    params : dict, default=None
        Hyper-parameters set on every tagger.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``fit_time`` (s), ``accuracy`` (token), ``chunk_f1``;
        a peer that is not installed has ``None`` figures and a ``note``.
    """
    names = list(
        DEFAULT_ESTIMATORS_BY_DATASET["conll2000"] if estimators is None else estimators
    )
    check_estimator_names(names, "sequence")
    data = load_dataset("conll2000", data_home, n_sentences=n_sentences)
    t0 = time.perf_counter()
    X = [chunking_features(s) for s in data.sentences]
    feat_time = time.perf_counter() - t0
    y = [list(t) for t in data.target]
    order = np.random.default_rng(random_state).permutation(len(X))
    n_test = max(1, int(round(holdout * len(X))))
    train, test = order[:-n_test], order[-n_test:]
    X_tr, y_tr = [X[i] for i in train], [y[i] for i in train]
    X_te, y_te = [X[i] for i in test], [y[i] for i in test]
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"CoNLL-2000: {len(X_tr)} training / {len(X_te)} held-out sentences, "
        f"{epochs} epochs; feature dicts built in {feat_time:.1f} s"
    )
    common = {
        "task": "sequence",
        "dataset": "conll2000",
        "epochs": epochs,
        "random_state": random_state,
        "n_train": len(X_tr),
        "n_test": len(X_te),
    }
    rows = []
    for name in names:
        try:
            est = build_estimators([name], epochs, random_state, params)[name]
        except ImportError:
            progress.log(
                f"  {name}: skipped (pip install sklearn-crfsuite, or the "
                "package's 'benchmark' extra, to compare with CRFsuite)"
            )
            rows.append(
                {
                    **common,
                    "estimator": name,
                    "fit_time": None,
                    "accuracy": None,
                    "chunk_f1": None,
                    "note": "not installed",
                }
            )
            progress.step(name)
            continue
        start = time.perf_counter()
        est.fit(X_tr, y_tr)
        fit_time = time.perf_counter() - start
        pred = [list(p) for p in est.predict(X_te)]
        acc = float(
            np.mean(
                np.concatenate(
                    [np.asarray(p) == np.asarray(t) for p, t in zip(pred, y_te)]
                )
            )
        )
        row = {
            **common,
            "estimator": name,
            "fit_time": fit_time,
            "accuracy": acc,
            "chunk_f1": chunk_f1(y_te, pred),
            "note": "",
        }
        rows.append(row)
        progress.step(name)
        progress.log("  " + _format_row(row))
    return rows


def _format_row(row):
    if row["fit_time"] is None:
        return f"{row['estimator']:<30} {'skipped':>10}"
    return (
        f"{row['estimator']:<30} acc {100 * row['accuracy']:6.2f}%  "
        f"chunk F1 {100 * row['chunk_f1']:6.2f}  fit {row['fit_time']:7.2f} s"
    )
