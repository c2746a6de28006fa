"""Calibrated probabilities on a stream: log-loss, Brier score and expected
calibration error of each learner's probabilities on held-out rows, after
a prequential stream over the training rows
(``python -m sklearn_pa.benchmark --dataset 20newsgroups-calibration``,
``--dataset usps-calibration``).

The online learners see the training rows once, in batches, in a shuffled
order; :class:`~sklearn_pa.calibration.OnlineCalibratedClassifier` learns
its map from the scores each row got before its model learned from it.
``CalibratedClassifierCV`` is the batch reference: it fits its
Passive-Aggressive models on two thirds of the training rows and its
sigmoid on the held-out third, three times.  river's PA (its sigmoid of the
score, one against the rest) runs when river is installed.
"""

import time
import warnings

import numpy as np
import scipy.sparse as sp

from ._progress import Progress

__all__ = [
    "LEARNERS",
    "calibration_cells",
    "calibration_title",
    "plot_reliability",
    "reliability",
    "run_calibration",
    "usps_held_out",
]

#: rows per partial_fit call of the stream
BATCH = 100

#: bins of the expected calibration error and the reliability diagram
N_BINS = 15


def _online(method, base):
    def make(random_state):
        from ..calibration import OnlineCalibratedClassifier

        return OnlineCalibratedClassifier(base(random_state), method=method)

    return make


def _pa(random_state):
    from .. import PassiveAggressiveClassifier

    return PassiveAggressiveClassifier(random_state=random_state)


def _arow(random_state):
    from .. import AROWClassifier

    return AROWClassifier(random_state=random_state)


def _cw(random_state):
    from .. import ConfidenceWeightedClassifier

    return ConfidenceWeightedClassifier(random_state=random_state)


def _sgd(random_state):
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(loss="log_loss", random_state=random_state)


#: learner name -> (factory(random_state), how it learns: "stream", "batch"
#: or "river")
LEARNERS = {
    "PA+sigmoid": (_online("sigmoid", _pa), "stream"),
    "PA+temperature": (_online("temperature", _pa), "stream"),
    "PA+isotonic": (_online("isotonic", _pa), "stream"),
    "AROW+sigmoid": (_online("sigmoid", _arow), "stream"),
    "AROW-probit": (_arow, "stream"),
    "CW-probit": (_cw, "stream"),
    "SGD-log": (_sgd, "stream"),
    "PA-CalibratedCV": (None, "batch"),
    "river-PA": (None, "river"),
}


def _river_available():
    try:
        import river  # noqa: F401
    except ImportError:
        return False
    return True


def _stream(model, X, y, classes, order):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, order.shape[0], BATCH):
            rows = order[start : start + BATCH]
            model.partial_fit(X[rows], y[rows], classes=classes)
    return model


def _batch_calibrated(X, y, random_state):
    from sklearn.calibration import CalibratedClassifierCV

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CalibratedClassifierCV(_pa(random_state), method="sigmoid", cv=3)
        return model.fit(X, y)


def _river_rows(X):
    X = sp.csr_matrix(X)
    for i in range(X.shape[0]):
        start, end = X.indptr[i], X.indptr[i + 1]
        yield dict(zip(X.indices[start:end].tolist(), X.data[start:end].tolist()))


def _river_pa(X, y, classes, order, X_test):
    from river import linear_model, multiclass

    model = multiclass.OneVsRestClassifier(linear_model.PAClassifier())
    rows = list(_river_rows(X))
    for i in order:
        model.learn_one(rows[i], y[i])
    P = np.zeros((X_test.shape[0], classes.shape[0]))
    position = {c: k for k, c in enumerate(classes.tolist())}
    for i, x in enumerate(_river_rows(X_test)):
        for label, p in model.predict_proba_one(x).items():
            P[i, position[label]] = p
    total = P.sum(axis=1, keepdims=True)
    return np.where(total > 0, P / np.where(total > 0, total, 1), 1 / P.shape[1])


def reliability(P, y_index, n_bins=N_BINS):
    """The top-label reliability of probabilities ``P`` for true class
    indices ``y_index``: per bin of the top probability, ``(mean top
    probability, accuracy, rows)``, and the expected calibration error (the
    rows' weighted mean of ``|accuracy - confidence|``)."""
    confidence = P.max(axis=1)
    correct = (P.argmax(axis=1) == y_index).astype(float)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    bins = []
    ece = 0.0
    for b in range(n_bins):
        mask = which == b
        if not mask.any():
            continue
        conf, acc, n = confidence[mask].mean(), correct[mask].mean(), int(mask.sum())
        bins.append((float(conf), float(acc), n))
        ece += n * abs(acc - conf)
    return bins, ece / P.shape[0]


def _scores(P, y_index):
    eps = 1e-15
    picked = np.clip(P[np.arange(P.shape[0]), y_index], eps, 1.0)
    onehot = np.zeros_like(P)
    onehot[np.arange(P.shape[0]), y_index] = 1.0
    bins, ece = reliability(P, y_index)
    return {
        "log_loss": float(-np.log(picked).mean()),
        "brier": float(((P - onehot) ** 2).sum(axis=1).mean()),
        "ece": float(ece),
        "accuracy": float((P.argmax(axis=1) == y_index).mean()),
        "reliability": bins,
    }


def usps_held_out(data, random_state=0):
    """USPS (one set of rows) with a fifth of them held out as the test
    rows, stratified."""
    from sklearn.model_selection import train_test_split
    from sklearn.utils import Bunch

    X_train, X_test, y_train, y_test = train_test_split(
        data.X, data.y, test_size=0.2, stratify=data.y, random_state=random_state
    )
    return Bunch(name=data.name, X=X_train, y=y_train, X_test=X_test, y_test=y_test)


def run_calibration(data, names=None, *, random_state=0, verbose=False):
    """Stream the training rows through each learner and score the
    probabilities of the test rows.

    Parameters
    ----------
    data : Bunch
        ``name``, ``X``, ``y``, ``X_test``, ``y_test``.
    names : list of str, default=None
        Learners of :data:`LEARNERS` (all when None; river's only when it is
        installed).
    random_state : int, default=0
        Seed of the stream's order and of the learners.
    verbose : bool or int, default=False
        A line per learner.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``log_loss``, ``brier`` (the multiclass Brier score,
        the mean over rows of the squared distance to the one-hot label),
        ``ece`` (expected calibration error of the top label, 15 equal
        bins), ``accuracy``, ``time`` (seconds to learn) and
        ``reliability`` (per bin: mean top probability, accuracy, rows).
    """
    if names is None:
        names = [n for n in LEARNERS if n != "river-PA" or _river_available()]
    names = list(names)
    unknown = [n for n in names if n not in LEARNERS]
    if unknown:
        raise ValueError(
            f"Unknown learner(s): {', '.join(unknown)}. The calibration "
            f"protocol has: {', '.join(LEARNERS)}."
        )
    if "river-PA" in names and not _river_available():
        raise ValueError("river-PA needs river: pip install river")
    X, y = data.X, np.asarray(data.y)
    X_test, y_test = data.X_test, np.asarray(data.y_test)
    classes = np.unique(y)
    y_index = np.searchsorted(classes, y_test)
    order = np.random.default_rng(random_state).permutation(X.shape[0])
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"Probabilities on {data.name}: {X.shape[0]} training rows streamed in "
        f"batches of {BATCH}, {X_test.shape[0]} test rows"
    )
    rows = []
    for name in names:
        factory, kind = LEARNERS[name]
        start = time.perf_counter()
        if kind == "stream":
            model = _stream(factory(random_state), X, y, classes, order)
            P = model.predict_proba(X_test)
        elif kind == "batch":
            model = _batch_calibrated(X, y, random_state)
            P = model.predict_proba(X_test)
        else:
            P = _river_pa(X, y, classes, order, X_test)
        elapsed = time.perf_counter() - start
        rows.append(
            {
                "task": "calibration",
                "dataset": data.name,
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_test": X_test.shape[0],
                "estimator": name,
                "time": elapsed,
                **_scores(P, y_index),
            }
        )
        progress.step(name)
    return rows


def calibration_cells(rows):
    """The header and the cells of the calibration table."""
    header = ["estimator", "log-loss", "Brier", "ECE", "accuracy", "time (s)"]
    body = [
        [
            row["estimator"],
            f"{row['log_loss']:.4f}",
            f"{row['brier']:.4f}",
            f"{row['ece']:.4f}",
            f"{row['accuracy']:.4f}",
            f"{row['time']:.1f}",
        ]
        for row in rows
    ]
    return header, body


def calibration_title(rows):
    first = rows[0]
    return (
        f"{first['dataset']} ({first['n_samples']} training rows streamed once "
        f"in batches of {BATCH}, {first['n_test']} test rows): probabilities "
        "of the test rows (log-loss, multiclass Brier score, expected "
        f"calibration error of the top label over {N_BINS} bins)"
    )


def plot_reliability(rows, path, Figure, title):
    """Reliability diagrams, one panel per learner: the accuracy of the top
    label against its mean probability in each bin (the diagonal is perfect
    calibration; bars below and above it are over- and under-confidence),
    the share of the test rows in each bin as grey bars, the ECE and
    log-loss in the panel's title."""
    n = len(rows)
    columns = min(3, n)
    lines = -(-n // columns)
    figure = Figure(figsize=(3.3 * columns, 3.1 * lines + 0.9))
    total = max(sum(b[2] for b in row["reliability"]) for row in rows)
    width = 1.0 / N_BINS
    for i, row in enumerate(rows):
        axes = figure.add_subplot(lines, columns, i + 1)
        bins = row["reliability"]
        conf = np.array([b[0] for b in bins])
        acc = np.array([b[1] for b in bins])
        share = np.array([b[2] for b in bins]) / total
        centres = (np.floor(conf * N_BINS).clip(0, N_BINS - 1) + 0.5) * width
        axes.bar(centres, share, width=width, color="0.85", label="rows (share)")
        axes.bar(
            centres,
            acc - conf,
            bottom=conf,
            width=width * 0.8,
            color=np.where(acc >= conf, "tab:blue", "tab:red"),
            alpha=0.8,
        )
        axes.plot(conf, acc, "o", color="black", markersize=3)
        axes.plot([0, 1], [0, 1], color="0.4", linestyle="--", linewidth=1)
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1)
        axes.set_title(
            f"{row['estimator']}\nECE {row['ece']:.3f}, log-loss {row['log_loss']:.3f}",
            fontsize=9,
        )
        axes.tick_params(labelsize=7)
        if i % columns == 0:
            axes.set_ylabel("accuracy", fontsize=8)
        if i >= n - columns:
            axes.set_xlabel("mean top probability", fontsize=8)
    legend = (
        "bars: accuracy minus mean probability of each bin (blue: under-, red: "
        "over-confident); grey: share of the test rows in the bin"
    )
    figure.suptitle("\n".join([*_wrap(title, 110), legend]), fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def _wrap(text, width):
    import textwrap

    return textwrap.wrap(text, width)
