"""The drift protocols: streams whose concept changes, learned prequentially.

``python -m sklearn_pa.benchmark --dataset drift``: a synthetic stream
(:func:`make_drift_stream`) whose labelling hyperplane changes twice, once
abruptly and once gradually.  ``--dataset 20newsgroups-drift``: the 20
Newsgroups documents in a random order, their classes swapped in pairs at
the abrupt change and swapped again, row by row with a growing probability,
during the gradual one (:func:`swap_classes_stream`).  Each learner predicts
every batch before it learns it (``partial_fit``), and the windowed
accuracy of those predictions is followed over the stream.  The
second-order learners run without and with ``covariance_floor`` (ARCOR's
covariance projection), beside the first-order PA, whose step never
shrinks, and the peers where their package is installed: river's PA and,
on the hyperplane, river's Hoeffding Adaptive Tree and MOA's Hoeffding
Adaptive Tree and Adaptive Random Forest (through CapyMOA).
"""

import importlib.util
import time

import numpy as np
import scipy.sparse as sp
from sklearn.utils import shuffle

__all__ = ["DRIFT_LEARNERS", "make_drift_stream", "run_drift", "swap_classes_stream"]

#: The covariance floor of the forgetting variants, one value for all (the
#: prior variance is 1).  Chosen among 0.01, 0.05, 0.1 and 0.3 on this
#: stream (random_state=0): the lowest gives up the least accuracy before
#: the change; every one of them recovers after it.
FLOOR = 0.01

#: Rows after a change over which the recovery is measured, and the width
#: of the windowed accuracy of the chart.
WINDOW = 500


def _learner(name, n_classes=2, random_state=0):
    from sklearn_pa import (
        AROWClassifier,
        ConfidenceWeightedClassifier,
        PassiveAggressiveClassifier,
        SCWClassifier,
    )

    def river(make):
        # (a river model through the same predict / partial_fit calls)
        return _RiverLearner(make)

    # (a batch's rows are shuffled as scikit-learn's partial_fit shuffles
    # them: seeded, so that a run is reproduced)
    seed = {"random_state": random_state}
    learners = {
        "PA": lambda: PassiveAggressiveClassifier(average=False, **seed),
        "PA-averaged": lambda: PassiveAggressiveClassifier(**seed),
        "AROW": lambda: AROWClassifier(**seed),
        "AROW-floor": lambda: AROWClassifier(covariance_floor=FLOOR, **seed),
        "SCW": lambda: SCWClassifier(**seed),
        "SCW-floor": lambda: SCWClassifier(covariance_floor=FLOOR, **seed),
        "CW": lambda: ConfidenceWeightedClassifier(**seed),
        "CW-floor": lambda: ConfidenceWeightedClassifier(
            covariance_floor=FLOOR, **seed
        ),
        "river-PA": lambda: river(
            lambda m: (
                m.linear_model.PAClassifier(C=1.0, mode=1)
                if n_classes == 2
                # (river's PA is binary: one-vs-rest, as river's docs do)
                else m.multiclass.OneVsRestClassifier(
                    m.linear_model.PAClassifier(C=1.0, mode=1)
                )
            )
        ),
        "river-HAT": lambda: river(
            lambda m: m.tree.HoeffdingAdaptiveTreeClassifier(seed=0)
        ),
        # (MOA's learners, through CapyMOA, at their defaults)
        "capymoa-HAT": lambda: _CapyMOALearner(
            lambda C, schema: C.HoeffdingAdaptiveTree(schema=schema)
        ),
        "capymoa-ARF": lambda: _CapyMOALearner(
            lambda C, schema: C.AdaptiveRandomForestClassifier(
                schema=schema, random_seed=random_state
            )
        ),
    }
    return learners[name]()


#: The learners of the protocol, in the order of the table: name -> what it is.
DRIFT_LEARNERS = {
    "PA": "PassiveAggressiveClassifier(average=False): its step never shrinks",
    "PA-averaged": "PassiveAggressiveClassifier() (average='epoch': from the "
    "first row of a stream, which it never forgets)",
    "AROW": "AROWClassifier, the covariance shrinks for ever",
    "AROW-floor": f"AROWClassifier(covariance_floor={FLOOR})",
    "SCW": "SCWClassifier",
    "SCW-floor": f"SCWClassifier(covariance_floor={FLOOR})",
    "CW": "ConfidenceWeightedClassifier",
    "CW-floor": f"ConfidenceWeightedClassifier(covariance_floor={FLOOR})",
    "river-PA": "river.linear_model.PAClassifier (PA-I, C=1; one-vs-rest on "
    "more than two classes), where installed",
    "river-HAT": "river.tree.HoeffdingAdaptiveTreeClassifier, where installed",
    "capymoa-HAT": "MOA's HoeffdingAdaptiveTree (CapyMOA), where installed",
    "capymoa-ARF": "MOA's AdaptiveRandomForestClassifier (CapyMOA: 100 trees, "
    "ADWIN drift detectors), where installed",
}

#: The peers, by the package that runs them (left out where not installed).
_PEERS = {
    "river": ("river-PA", "river-HAT"),
    "capymoa": ("capymoa-HAT", "capymoa-ARF"),
}

#: Learners left out of the text stream by default: a Hoeffding tree keeps
#: an estimator per feature and class in every leaf, which on 20 Newsgroups'
#: 130 000 sparse features runs for hours, and MOA reads dense instances.
_NOT_ON_TEXT = ("river-HAT", "capymoa-HAT", "capymoa-ARF")


class _RiverLearner:
    """A river classifier behind ``predict`` / ``partial_fit`` on arrays
    (one ``learn_one`` per row, as river learns)."""

    def __init__(self, make):
        import river
        import river.linear_model
        import river.multiclass
        import river.tree

        self.model = make(river)

    @staticmethod
    def _dicts(X):
        if sp.issparse(X):
            X = X.tocsr()
            return [
                dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
                for a, b in zip(X.indptr[:-1], X.indptr[1:])
            ]
        return [dict(enumerate(row.tolist())) for row in X]

    def predict(self, X):
        out = [self.model.predict_one(x) for x in self._dicts(X)]
        return np.array([0 if p is None else p for p in out])

    def partial_fit(self, X, y, classes=None):
        for x, label in zip(self._dicts(X), np.asarray(y).tolist()):
            self.model.learn_one(x, label)
        return self


class _CapyMOALearner:
    """A MOA classifier (CapyMOA) behind ``predict`` / ``partial_fit`` on
    dense arrays: one ``predict`` and one ``train`` per row, as MOA
    learns; the schema (numeric features, the classes) is made at the
    first call."""

    def __init__(self, make):
        self.make = make
        self.model = None

    def _start(self, n_features, classes):
        from capymoa import classifier
        from capymoa.stream import Schema

        self.classes = np.asarray(classes)
        names = [f"x{j}" for j in range(n_features)]
        self.schema = Schema.from_custom(
            [*names, "class"],
            target="class",
            categories={"class": [str(c) for c in self.classes]},
            name="stream",
        )
        self.model = self.make(classifier, self.schema)

    def predict(self, X):
        from capymoa.core import Instance

        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        out = [self.model.predict(Instance.from_array(self.schema, x)) for x in X]
        return np.array([self.classes[0 if p is None else p] for p in out])

    def partial_fit(self, X, y, classes=None):
        from capymoa.core import LabeledInstance

        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        if self.model is None:
            self._start(X.shape[1], np.unique(y) if classes is None else classes)
        for x, index in zip(X, np.searchsorted(self.classes, y).tolist()):
            self.model.train(LabeledInstance.from_array(self.schema, x, index))
        return self


def _unit(rng, d):
    w = rng.normal(size=d)
    return w / np.linalg.norm(w)


def make_drift_stream(
    n_rows=30000, n_features=50, *, nnz=None, noise=0.05, random_state=0
):
    """A rotating hyperplane stream with an abrupt and a gradual change.

    The label of a row ``x`` is ``x . w_t > 0`` (flipped with probability
    ``noise``).  ``w_t`` is a random unit vector ``w_1`` for the first third
    of the stream, jumps to an independent ``w_2`` at ``n_rows // 3`` (the
    abrupt change), and at ``2 n_rows // 3`` starts to turn towards an
    independent ``w_3``, reached ``n_rows // 6`` rows later (the gradual
    change, along the great circle).

    Parameters
    ----------
    n_rows : int, default=30000
        Rows of the stream.
    n_features : int, default=50
        Features of a row.
    nnz : int or None, default=None
        None: dense Gaussian rows.  An int: CSR rows with ``nnz`` Gaussian
        non-zeros each, at random features.
    noise : float, default=0.05
        Probability that a label is flipped.
    random_state : int, default=0
        Seed of the hyperplanes, the rows and the noise.

    Returns
    -------
    X : ndarray or CSR matrix of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,), labels 0 / 1
    changes : list of (start, end)
        The changes: ``(c, c)`` for the abrupt one, ``(start, end)`` for the
        gradual one.
    """
    rng = np.random.RandomState(random_state)
    w1, w2, w3 = (_unit(rng, n_features) for _ in range(3))
    abrupt, start = n_rows // 3, 2 * n_rows // 3
    end = min(n_rows, start + n_rows // 6)
    # the hyperplane of each row (slerp from w2 to w3 during the gradual change)
    angle = np.arccos(np.clip(w2 @ w3, -1.0, 1.0))
    t = np.clip((np.arange(n_rows) - start) / max(end - start, 1), 0.0, 1.0)
    W = (
        np.sin((1 - t) * angle)[:, None] * w2 + np.sin(t * angle)[:, None] * w3
    ) / np.sin(angle)
    W[:abrupt] = w1
    if nnz is None:
        X = rng.normal(size=(n_rows, n_features))
        margins = np.einsum("ij,ij->i", X, W)
    else:
        nnz = min(nnz, n_features)
        cols = np.argsort(rng.random_sample((n_rows, n_features)), axis=1)[:, :nnz]
        cols.sort(axis=1)
        vals = rng.normal(size=(n_rows, nnz))
        margins = np.einsum("ij,ij->i", vals, np.take_along_axis(W, cols, axis=1))
        X = sp.csr_matrix(
            (vals.ravel(), cols.ravel(), np.arange(0, n_rows * nnz + 1, nnz)),
            shape=(n_rows, n_features),
        )
    y = (margins > 0).astype(np.int64)
    flip = rng.random_sample(n_rows) < noise
    y[flip] = 1 - y[flip]
    return X, y, [(abrupt, abrupt), (start, end)]


def _pairing(rng, classes):
    """A random pairing of ``classes`` (an array of k >= 2 labels) as a
    map: each label to its partner's (the last three rotate when k is
    odd), so that no class keeps its label."""
    order = rng.choice(classes, classes.shape[0], replace=False)
    k = order.shape[0]
    partner = {}
    end = k - 3 if k % 2 else k
    for i in range(0, end, 2):
        partner[order[i]], partner[order[i + 1]] = order[i + 1], order[i]
    if k % 2:
        a, b, c = order[end:]
        partner[a], partner[b], partner[c] = b, c, a
    return partner


def swap_classes_stream(X, y, *, random_state=0):
    """A labelled data set as a stream whose classes are swapped twice.

    The rows are drawn in a random order.  From row ``n // 3`` on (the
    abrupt change) every label is replaced by its partner's in a random
    pairing of the classes; from row ``2 n // 3`` to ``2 n // 3 + n // 6``
    (the gradual change) a row takes its partner's label in a second
    pairing, in which no class has the same partner as in the first, with a
    probability growing linearly from 0 to 1, and every row after does.
    The documents do not change: what a class's documents are called does
    (a concept drift, ``p(y | x)``, at unchanged ``p(x)``).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, n_features)
    y : ndarray of shape (n,)
        Labels of at least four classes (three for a rotation).
    random_state : int, default=0
        Seed of the order, the pairings and the gradual change.

    Returns
    -------
    X : ndarray or CSR matrix of shape (n, n_features)
        The rows in the stream's order.
    y : ndarray of shape (n,)
        The labels the stream gives them.
    changes : list of (start, end)
        ``(c, c)`` for the abrupt change, ``(start, end)`` for the gradual
        one.
    """
    rng = np.random.RandomState(random_state)
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.shape[0] < 3:
        raise ValueError(
            f"Swapping classes needs at least 3 of them; y holds {classes.shape[0]}."
        )
    X, y = shuffle(X if not sp.issparse(X) else sp.csr_matrix(X), y, random_state=rng)
    n = y.shape[0]
    first = _pairing(rng, classes)
    for _ in range(1000):
        second = _pairing(rng, classes)
        if all(second[c] != first[c] for c in classes):
            break
    else:  # (three classes: the other rotation)
        second = {c: first[first[c]] for c in classes}
    abrupt, start = n // 3, 2 * n // 3
    end = min(n, start + n // 6)
    t = np.clip((np.arange(n) - start) / max(end - start, 1), 0.0, 1.0)
    swapped = rng.random_sample(n) < t
    out = y.copy()
    out[abrupt:] = [first[c] for c in y[abrupt:]]
    out[swapped] = [second[c] for c in y[swapped]]
    return X, out, [(abrupt, abrupt), (start, end)]


def _windowed(correct, window):
    """The accuracy over the last ``window`` rows at each row (fewer at the
    start)."""
    c = np.concatenate([[0.0], np.cumsum(correct)])
    n = np.arange(1, correct.shape[0] + 1)
    lo = np.maximum(n - window, 0)
    return (c[n] - c[lo]) / (n - lo)


def prequential(learner, X, y, batch_size):
    """Predict each batch, then learn it; returns the per-row correctness."""
    correct = np.zeros(X.shape[0], dtype=bool)
    classes = np.unique(y)
    for lo in range(0, X.shape[0], batch_size):
        hi = min(lo + batch_size, X.shape[0])
        if lo > 0:
            correct[lo:hi] = learner.predict(X[lo:hi]) == y[lo:hi]
        learner.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
    return correct


def run_drift(
    names=None,
    n_rows=30000,
    *,
    nnz=None,
    batch_size=10,
    random_state=0,
    verbose=1,
    data=None,
):
    """Run the drift protocol; returns one row (dict) per learner.

    Each row has the prequential accuracy over the whole stream, over the
    ``WINDOW`` rows before the abrupt change, over the ``WINDOW`` rows after
    it and after the end of the gradual change, and the windowed accuracy
    curve (``curve``, one point per ``WINDOW // 5`` rows) the chart draws.
    The river and CapyMOA learners are left out where their package is not
    installed.

    ``data`` (a Bunch of :func:`~sklearn_pa.benchmark.load_dataset`: its
    training and test rows together) is streamed with its classes swapped
    (:func:`swap_classes_stream`), a random subset of ``n_rows`` of its rows
    (None: all of them), instead of the rotating hyperplane; ``nnz`` does
    not apply to it.
    """
    if names is None:
        names = [n for n in DRIFT_LEARNERS if data is None or n not in _NOT_ON_TEXT]
    unknown = [n for n in names if n not in DRIFT_LEARNERS]
    if unknown:
        raise ValueError(
            f"Unknown drift learner(s) {', '.join(unknown)}; the drift protocol "
            f"runs {', '.join(DRIFT_LEARNERS)}."
        )
    for package, peers in _PEERS.items():
        if importlib.util.find_spec(package) is None:
            names = [n for n in names if n not in peers]
    if data is None:
        dataset = "drift"
        X, y, changes = make_drift_stream(n_rows, nnz=nnz, random_state=random_state)
    else:
        dataset = f"{data.name}-drift"
        X_all, y_all = data.X, data.y
        if data.X_test is not None:
            X_all = (
                sp.vstack([X_all, data.X_test], format="csr")
                if sp.issparse(X_all)
                else np.vstack([X_all, data.X_test])
            )
            y_all = np.concatenate([y_all, data.y_test])
        if n_rows is not None and n_rows < y_all.shape[0]:
            # (a random subset of that size, then its stream)
            keep = np.sort(
                np.random.RandomState(random_state).choice(
                    y_all.shape[0], n_rows, replace=False
                )
            )
            X_all, y_all = X_all[keep], y_all[keep]
        X, y, changes = swap_classes_stream(X_all, y_all, random_state=random_state)
        n_rows = y.shape[0]
    n_classes = np.unique(y).shape[0]
    (abrupt, _), (_, gradual_end) = changes
    step = max(WINDOW // 5, 1)
    rows = []
    for name in names:
        learner = _learner(name, n_classes, random_state)
        tic = time.perf_counter()
        correct = prequential(learner, X, y, batch_size)
        seconds = time.perf_counter() - tic
        curve = _windowed(correct, WINDOW)

        def mean(a, b, correct=correct):
            # (the first batch is learned unseen: it has no prediction)
            a, b = max(a, batch_size), min(b, n_rows)
            return float(correct[a:b].mean()) if b > a else float("nan")

        rows.append(
            {
                "task": "drift",
                "dataset": dataset,
                "protocol": "prequential",
                "estimator": name,
                "n_rows": n_rows,
                "n_features": X.shape[1],
                "sparse": bool(sp.issparse(X)),
                "n_classes": n_classes,
                "batch_size": batch_size,
                "random_state": random_state,
                "window": WINDOW,
                "changes": changes,
                "accuracy": mean(0, n_rows),
                "before_change": mean(abrupt - WINDOW, abrupt),
                "after_abrupt": mean(abrupt, abrupt + WINDOW),
                "after_gradual": mean(gradual_end, gradual_end + WINDOW),
                "time": seconds,
                "curve_rows": list(range(step, n_rows + 1, step)),
                "curve": [float(curve[i - 1]) for i in range(step, n_rows + 1, step)],
            }
        )
        if verbose > 1:
            print(f"{name}: {seconds:.1f} s", flush=True)
    return rows


def drift_title(rows):
    first = rows[0]
    kind = "sparse" if first["sparse"] else "dense"
    (abrupt, _), (start, end) = first["changes"]
    if first["dataset"] != "drift":
        return (
            f"{first['dataset']}: {first['n_rows']} documents in a random order, "
            f"{first['n_classes']} classes swapped in pairs at row {abrupt}, "
            f"swapped again from {start} to {end} (each row with a probability "
            f"growing to 1); predicted in batches of {first['batch_size']} before "
            f"each is learned; accuracy (%) over {first['window']} rows, "
            f"random_state={first['random_state']}"
        )
    return (
        f"drift: a rotating hyperplane, {first['n_rows']} {kind} rows x "
        f"{first['n_features']} features, abrupt change at row {abrupt}, gradual "
        f"from {start} to {end}; predicted in batches of {first['batch_size']} "
        f"before each is learned; accuracy (%) over {first['window']} rows, "
        f"random_state={first['random_state']}"
    )


def drift_cells(rows):
    header = [
        "estimator",
        "overall",
        "before change",
        "after abrupt",
        "after gradual",
        "time (s)",
    ]
    body = [
        [
            row["estimator"],
            f"{100 * row['accuracy']:.2f}",
            f"{100 * row['before_change']:.2f}",
            f"{100 * row['after_abrupt']:.2f}",
            f"{100 * row['after_gradual']:.2f}",
            f"{row['time']:.2f}",
        ]
        for row in rows
    ]
    return header, body


def plot_drift(rows, path, Figure, title):
    """The windowed accuracy of each learner against the rows seen, the
    changes marked (a line at the abrupt change, a band over the gradual
    one).  A learner and its ``-floor`` variant share a colour, the
    variant drawn solid and the learner dotted."""
    fig = Figure(figsize=(8, 4.5))
    ax = fig.subplots()
    (abrupt, _), (start, end) = rows[0]["changes"]
    ax.axvline(abrupt, color="0.3", linestyle="--", linewidth=1)
    ax.axvspan(start, end, color="0.85", zorder=0)
    colours = {}
    for row in rows:
        name = row["estimator"]
        base = name.removesuffix("-floor")
        colours.setdefault(base, f"C{len(colours) % 10}")
        ax.plot(
            row["curve_rows"],
            100 * np.asarray(row["curve"]),
            label=name,
            color=colours[base],
            linewidth=1.6 if name.endswith("-floor") else 1.0,
            linestyle="-" if name.endswith("-floor") or name == "PA" else ":",
        )
    ax.set_xlabel("rows seen")
    ax.set_ylabel(f"accuracy over the last {rows[0]['window']} rows (%)")
    ax.set_ylim(40 if rows[0]["dataset"] == "drift" else 0, 100)
    ax.legend(loc="lower left", fontsize=8, ncol=2)
    ax.set_title(title, fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
