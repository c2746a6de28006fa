"""CoNLL-2000 chunking benchmark of the sequence taggers, with CRFsuite's
averaged perceptron as the peer, on the same features and epochs.

Run it through the package's benchmark command::

    python -m sklearn_pa.benchmark --dataset conll2000 --epochs 5

The sentences of the training split are shuffled once (``--random-state``)
and the last ``--holdout`` fraction is held out.  Features are
:func:`~sklearn_pa.sequence.chunking_features` dicts for every tagger; the fit
time includes turning those dicts into the tagger's own features (both
CRFsuite and the taggers here take the dicts).  The peer
``sklearn_crfsuite.CRF(algorithm="ap")`` runs when ``sklearn-crfsuite`` is
installed (the ``benchmark`` extra), else it is skipped with a message.
"""

import argparse
import os
import sys
import time

import numpy as np

from ._conll import chunk_f1, chunking_features, load_conll2000
from ._structured import StructuredPassiveAggressive, StructuredPerceptron

__all__ = ["SEQUENCE_ESTIMATORS", "main", "run_conll2000"]


def _crfsuite(epochs, random_state):
    import sklearn_crfsuite  # optional peer

    return sklearn_crfsuite.CRF(algorithm="ap", max_iterations=epochs)


#: name -> factory(epochs, random_state); ``crfsuite_ap`` is the peer.
SEQUENCE_ESTIMATORS = {
    "crfsuite_ap": _crfsuite,
    "perceptron": lambda e, r: StructuredPerceptron(max_iter=e, random_state=r),
    "perceptron_beam2_maxviol": lambda e, r: StructuredPerceptron(
        update="max_violation", beam_width=2, max_iter=e, random_state=r
    ),
    "perceptron_beam2_early": lambda e, r: StructuredPerceptron(
        update="early", beam_width=2, max_iter=e, random_state=r
    ),
    "pa": lambda e, r: StructuredPassiveAggressive(max_iter=e, random_state=r),
    "mira_k3": lambda e, r: StructuredPassiveAggressive(
        k_best=3, max_iter=e, random_state=r
    ),
    "pa_sqrt": lambda e, r: StructuredPassiveAggressive(
        margin="sqrt", max_iter=e, random_state=r
    ),
    "pa_max_loss": lambda e, r: StructuredPassiveAggressive(
        update="max_loss", max_iter=e, random_state=r
    ),
}
DEFAULT = ["crfsuite_ap", "perceptron", "perceptron_beam2_maxviol", "pa", "mira_k3"]


def run_conll2000(
    data_home,
    estimators=None,
    epochs=5,
    holdout=0.2,
    n_sentences=None,
    random_state=0,
    verbose=True,
):
    """Fit each tagger on the training part, score the held-out part.

    Returns a list of dicts: ``estimator``, ``fit_time`` (s), ``accuracy``
    (token), ``chunk_f1``; a skipped peer has ``None`` figures and a
    ``note``.
    """
    data = load_conll2000(data_home, n_sentences=n_sentences)
    t0 = time.perf_counter()
    X = [chunking_features(s) for s in data.sentences]
    feat_time = time.perf_counter() - t0
    y = [list(t) for t in data.target]
    order = np.random.default_rng(random_state).permutation(len(X))
    n_test = max(1, int(round(holdout * len(X))))
    train, test = order[:-n_test], order[-n_test:]
    X_tr, y_tr = [X[i] for i in train], [y[i] for i in train]
    X_te, y_te = [X[i] for i in test], [y[i] for i in test]
    if verbose:
        print(
            f"CoNLL-2000: {len(X_tr)} training / {len(X_te)} held-out sentences, "
            f"{epochs} epochs; feature dicts built in {feat_time:.1f} s",
            flush=True,
        )
    rows = []
    for name in estimators or DEFAULT:
        try:
            est = SEQUENCE_ESTIMATORS[name](epochs, random_state)
        except ImportError:
            print(
                f"{name}: skipped (pip install sklearn-crfsuite, or the "
                "package's 'benchmark' extra, to compare with CRFsuite)",
                flush=True,
            )
            rows.append(
                {
                    "estimator": name,
                    "fit_time": None,
                    "accuracy": None,
                    "chunk_f1": None,
                    "note": "not installed",
                }
            )
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
            "estimator": name,
            "fit_time": fit_time,
            "accuracy": acc,
            "chunk_f1": chunk_f1(y_te, pred),
            "note": "",
        }
        rows.append(row)
        if verbose:
            print(_format_row(row), flush=True)
    return rows


def _format_row(row):
    if row["fit_time"] is None:
        return f"{row['estimator']:<26} {'skipped':>10}"
    return (
        f"{row['estimator']:<26} acc {100 * row['accuracy']:6.2f}%  "
        f"chunk F1 {100 * row['chunk_f1']:6.2f}  fit {row['fit_time']:7.2f} s"
    )


def main(argv=None):
    """Command line of the CoNLL-2000 benchmark (``--dataset conll2000``)."""
    parser = argparse.ArgumentParser(prog="python -m sklearn_pa.benchmark")
    parser.add_argument("--dataset", choices=["conll2000"], default="conll2000")
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--holdout", type=float, default=0.2)
    parser.add_argument("--n-sentences", type=int, default=None)
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument(
        "--estimators", nargs="+", default=None, choices=sorted(SEQUENCE_ESTIMATORS)
    )
    args = parser.parse_args(argv)
    data_home = args.data_home or os.environ.get("SKLEARN_PA_DATA")
    if data_home is None:
        parser.error("pass --data-home or set SKLEARN_PA_DATA to the data folder")
    try:
        run_conll2000(
            data_home,
            args.estimators,
            epochs=args.epochs,
            holdout=args.holdout,
            n_sentences=args.n_sentences,
            random_state=args.random_state,
        )
    except FileNotFoundError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
