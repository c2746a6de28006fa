"""Per-call latency of a stream: ``partial_fit`` and ``predict`` on a row,
or a few rows, at a time.

An online learner is judged by its whole fits and by what one call costs:
a live stream hands it one row (or a small batch) at a time, and the call
must cost what its rows cost, not the size of the model.
:func:`stream_latency` times every call of such a stream (CPU and wall
time, median and 99th percentile) for batches of 1, 10, 100 and 1000 rows on
20 Newsgroups (130,107 features, 20 classes), for the package's learners and
the peers that are installed: scikit-learn's ``SGDClassifier.partial_fit``,
river's one-vs-rest ``PAClassifier`` (``learn_one`` / ``predict_one``) and
Vowpal Wabbit's ``learn`` / ``predict`` (``--oaa``).  ``python -m
sklearn_pa.benchmark --dataset stream-latency`` prints the table;
``--plot`` draws the CPU time per row against the batch size.

Each learner first learns 100 rows (one ``partial_fit`` call, the classes
given), then the stream goes on from row 100, cycling through the training
rows.  A peer's rows are converted to its own format before the clock starts
(river's dicts, Vowpal Wabbit's text lines), as a user's stream would hand
them over.  Each batch size runs for at most ``max_calls`` calls and about
``max_seconds`` seconds (at least ``min_calls`` calls).
"""

import time

import numpy as np

from ._progress import Progress

__all__ = [
    "BATCH_SIZES",
    "OPTIONAL",
    "latency_learners",
    "plot_latency",
    "run_stream_latency",
    "stream_latency",
    "stream_latency_cells",
]

#: The batch sizes of the protocol (rows per call).
BATCH_SIZES = (1, 10, 100, 1000)

#: The learners the protocol runs only when named (``--estimators``).
OPTIONAL = ("OneClass", "BPM", "KernelPA", "PA-pass", "PA-floor", "AROW-pass")


class _SklearnLearner:
    """An estimator with ``partial_fit`` and ``predict``, fed CSR slices."""

    def __init__(self, estimator, regression=False):
        self.estimator = estimator
        self.regression = regression

    def start(self, X, y, classes):
        if self.regression:
            self.estimator.partial_fit(X, _regression_targets(y))
        else:
            self.estimator.partial_fit(X, y, classes=classes)

    def batch(self, X, y):
        return X, (_regression_targets(y) if self.regression else y)

    def learn(self, batch):
        self.estimator.partial_fit(*batch)

    def predict(self, batch):
        return self.estimator.predict(batch[0])


class _OneClassLearner(_SklearnLearner):
    """A one-class learner: ``partial_fit`` on the rows alone."""

    def start(self, X, y, classes):
        self.estimator.partial_fit(X)

    def batch(self, X, y):
        return (X,)


class _CompiledPassLearner:
    """The compiled pass and scoring of
    ``PassiveAggressiveClassifier(average=False)`` called directly, with
    nothing around them (no checks, journal or bookkeeping, the arguments
    made before the clock starts): the floor of a call's cost at each
    batch size, which a lone row's cold weights put above a row of a large
    batch."""

    def __init__(self):
        from .. import PassiveAggressiveClassifier

        self.estimator = PassiveAggressiveClassifier(average=False, random_state=0)

    def start(self, X, y, classes):
        from .._core.epochs import _LinearEpochs

        est = self.estimator
        est.partial_fit(X, y, classes=classes)
        self.W, self.b = est._state_arrays()
        adapter = _LinearEpochs(
            est, X, y, np.ones(X.shape[0]), self.W, self.b, None, None, None
        )
        self.fixed = {
            "params": adapter.params,
            "weight_pos": adapter.weight_pos,
            "weight_neg": adapter.weight_neg,
            "margins": adapter.margins,
            "active": adapter.active,
            "intercept_sq": adapter.intercept_sq,
            "average_start": 0,
            "col_start": 0,
            "col_stop": adapter.n_columns,
        }
        self.U, self.bu = adapter.U_, adapter.bu_
        self.t = int(est.t_)

    def batch(self, X, y):
        from .._core.epochs import _RowView

        est = self.estimator
        labels, targets = est._targets(np.asarray(y))
        n = X.shape[0]
        self.t += n
        kwargs = dict(
            self.fixed,
            labels=labels,
            targets=targets,
            sample_weight=np.ones(n),
            t0=self.t,
            loss_out=np.zeros(1),
        )
        order = np.arange(n, dtype=np.int64)
        return _RowView(X), order, kwargs, np.empty((n, self.W.shape[1]))

    def learn(self, batch):
        from .._compiled import _first_order

        rows, order, kwargs, _ = batch
        _first_order.epoch(rows, order, self.W, self.b, self.U, self.bu, **kwargs)

    def predict(self, batch):
        from .._compiled import _scores

        rows, _, _, out = batch
        U, bu = self.U, self.bu
        _scores.score_rows(rows, self.W, self.b, U=U, bu=bu, n_avg=0.0, out=out)
        return out


class _CallFloorLearner(_SklearnLearner):
    """The least a ``partial_fit`` call of
    ``PassiveAggressiveClassifier(average=False)`` can do and still be a
    call: atomic (the estimator's atomic block, the journal of what the pass
    writes, the writes checked), checked once (``check_batch``), its labels
    encoded, its rows in their order through the pass ``PA-pass`` times,
    the sample counter moved.  It leaves out every layer between them (the
    scikit-learn configuration, the family's hooks, the epoch adapter and
    its statistics, the loss curve, the publication, the stream's plan):
    what a call costs above this floor is what those layers cost.  Its
    ``predict`` is ``PA-unaveraged``'s."""

    def __init__(self):
        from .. import PassiveAggressiveClassifier

        super().__init__(PassiveAggressiveClassifier(average=False, random_state=0))

    def start(self, X, y, classes):
        from .._core.epochs import _LinearEpochs

        est = self.estimator
        est.partial_fit(X, y, classes=classes)
        W, b = est._state_arrays()
        self.adapter = _LinearEpochs(
            est, X, y, np.ones(X.shape[0]), W, b, None, None, None
        )
        self.bound = self.adapter._first_order_pass()[0]

    def learn(self, batch):
        from .._core._calls import RowView, check_batch, check_writes, encode_labels
        from .._core._passes import bound_first_order_run
        from .._core.batch import atomic_update

        est, adapter = self.estimator, self.adapter
        with atomic_update(est) as journal:
            checked = check_batch(est, *batch, None, None, False)
            n, t = checked.X.shape[0], int(est.t_)
            order = np.arange(n, dtype=np.int64)
            adapter.rows = RowView(checked.X)
            adapter.labels, adapter.targets = encode_labels(est.classes_, checked.y)
            adapter.sample_weight = checked.sample_weight
            # (the adapter's own choice of a write log or the touched rows)
            adapter.journal(journal, order)
            writes, adapter._writes = adapter._writes, None
            loss = np.zeros(1)
            bound_first_order_run(
                self.bound, adapter, order, t, 0, loss, 0, adapter.n_columns, writes
            )
            if writes is not None:
                check_writes(est, writes)
            est.t_ = float(t + n)


class _SecondOrderPassLearner:
    """The compiled pass and scoring of ``AROWClassifier()`` called
    directly, with nothing around them (as ``PA-pass`` for PA): the floor
    of an AROW call's cost at each batch size.  The call's cost above its
    pass is ``AROW`` minus this, to compare with ``PA-unaveraged`` minus
    ``PA-pass``."""

    def __init__(self):
        from .. import AROWClassifier

        self.estimator = AROWClassifier(random_state=0)

    def start(self, X, y, classes):
        from ..second_order._epochs import batch_arrays

        est = self.estimator
        est.partial_fit(X, y, classes=classes)
        self.W, self.b = est._state_arrays()
        sigma = est._sigma
        if sigma.ndim == 3:
            self.S_diag, self.S_full = np.zeros((0, 1)), sigma
        else:
            self.S_diag, self.S_full = sigma, np.zeros((0, 1, 1))
        self.params = batch_arrays(est, X[:1], np.asarray(y)[:1])[3]
        self.fixed = {
            "class_weight": est._expanded_class_weight,
            "U": np.zeros((0, self.W.shape[1])),
            "bu": np.zeros(0),
            "intercept": float(est.intercept_scaling_),
            "average_start": 0,
        }
        self.t = int(est.t_)

    def batch(self, X, y):
        from .._core.epochs import _RowView

        est = self.estimator
        labels, _ = est._targets(np.asarray(y))
        n = X.shape[0]
        self.t += n
        kwargs = dict(
            self.fixed,
            labels=labels,
            sample_weight=np.ones(n),
            t0=self.t,
            loss_out=np.zeros(1),
        )
        order = np.arange(n, dtype=np.int64)
        return _RowView(X), order, kwargs, np.empty((n, self.W.shape[1]))

    def learn(self, batch):
        from .._compiled import _second_order

        rows, order, kwargs, _ = batch
        _second_order.epoch(
            rows,
            order,
            params=self.params,
            W=self.W,
            b=self.b,
            S_diag=self.S_diag,
            S_full=self.S_full,
            scores_out=None,
            var_out=None,
            targets=None,
            **kwargs,
        )

    def predict(self, batch):
        from .._compiled import _scores

        rows, _, kwargs, out = batch
        _scores.score_rows(
            rows, self.W, self.b, U=kwargs["U"], bu=kwargs["bu"], n_avg=0.0, out=out
        )
        return out


def _regression_targets(y):
    """A regression target on the same rows: +1 for the odd groups, -1 for
    the even ones."""
    return (np.asarray(y) % 2) * 2.0 - 1.0


class _RiverLearner:
    """river's one-vs-rest of its ``PAClassifier``, one dict a row."""

    def __init__(self):
        from river import linear_model, multiclass

        self.model = multiclass.OneVsRestClassifier(linear_model.PAClassifier())

    def _rows(self, X):
        return [
            dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
            for a, b in zip(X.indptr[:-1], X.indptr[1:])
        ]

    def start(self, X, y, classes):
        self.learn(self.batch(X, y))

    def batch(self, X, y):
        return list(zip(self._rows(X), np.asarray(y).tolist()))

    def learn(self, batch):
        for x, label in batch:
            self.model.learn_one(x, label)

    def predict(self, batch):
        return [self.model.predict_one(x) for x, _ in batch]


class _VowpalLearner:
    """Vowpal Wabbit's one-against-all (``--oaa``), one text line a row."""

    def __init__(self, n_classes):
        from vowpalwabbit import Workspace

        self.model = Workspace(f"--oaa {n_classes} --quiet")

    def start(self, X, y, classes):
        self.learn(self.batch(X, y))

    def batch(self, X, y):
        lines = []
        for (a, b), label in zip(zip(X.indptr[:-1], X.indptr[1:]), np.asarray(y)):
            features = " ".join(
                f"{j}:{v:.6g}" for j, v in zip(X.indices[a:b], X.data[a:b])
            )
            lines.append(f"{int(label) + 1} | {features}")
        return lines

    def learn(self, batch):
        for line in batch:
            self.model.learn(line)

    def predict(self, batch):
        return [self.model.predict(line) for line in batch]


def latency_learners(n_classes):
    """The learners of the latency protocol: name -> factory of a learner
    (``start``, ``batch``, ``learn``, ``predict``).  The peers are listed
    only when their package can be imported.

    Parameters
    ----------
    n_classes : int
        The number of classes of the stream (Vowpal Wabbit's ``--oaa``).

    Returns
    -------
    learners : dict
        ``PA-default`` (``PassiveAggressiveClassifier()``), ``PA-unaveraged``
        (``average=False``), ``AROW``, ``CW`` (diagonal covariance),
        ``PA-regressor`` (``PassiveAggressiveRegressor()`` on a +-1 target),
        ``SGD-pa1`` (scikit-learn's ``SGDClassifier(learning_rate="pa1")``),
        and, where installed, ``river-PA-ovr`` and ``vw-oaa``; the other
        families with ``partial_fit``, run when named (``OPTIONAL``):
        ``OneClass`` (``PassiveAggressiveOneClass()``), ``BPM``
        (``OnlineBayesPointClassifier(n_estimators=10)``) and ``KernelPA``
        (``KernelPassiveAggressiveClassifier(kernel="rbf", budget=300)``,
        whose calls evaluate the kernel on its support set), and
        ``PA-pass`` and ``AROW-pass``: the compiled pass and scoring of
        ``PA-unaveraged`` and of ``AROW`` called directly, the floor of a
        call's cost, and ``PA-floor``: the least an atomic, checked call of
        ``PA-unaveraged`` does around that pass.
    """
    from sklearn.linear_model import SGDClassifier

    from .. import (
        AROWClassifier,
        ConfidenceWeightedClassifier,
        KernelPassiveAggressiveClassifier,
        OnlineBayesPointClassifier,
        PassiveAggressiveClassifier,
        PassiveAggressiveOneClass,
        PassiveAggressiveRegressor,
    )

    learners = {
        "PA-default": lambda: _SklearnLearner(
            PassiveAggressiveClassifier(random_state=0)
        ),
        "PA-unaveraged": lambda: _SklearnLearner(
            PassiveAggressiveClassifier(average=False, random_state=0)
        ),
        "AROW": lambda: _SklearnLearner(AROWClassifier(random_state=0)),
        "CW": lambda: _SklearnLearner(ConfidenceWeightedClassifier(random_state=0)),
        "PA-regressor": lambda: _SklearnLearner(
            PassiveAggressiveRegressor(random_state=0), regression=True
        ),
        "SGD-pa1": lambda: _SklearnLearner(
            SGDClassifier(
                loss="hinge",
                penalty=None,
                learning_rate="pa1",
                eta0=1.0,
                random_state=0,
            )
        ),
    }
    learners.update(
        {
            "OneClass": lambda: _OneClassLearner(PassiveAggressiveOneClass()),
            "BPM": lambda: _SklearnLearner(
                OnlineBayesPointClassifier(n_estimators=10, random_state=0)
            ),
            "PA-pass": _CompiledPassLearner,
            "PA-floor": _CallFloorLearner,
            "AROW-pass": _SecondOrderPassLearner,
            "KernelPA": lambda: _SklearnLearner(
                KernelPassiveAggressiveClassifier(
                    kernel="rbf", budget=300, random_state=0
                )
            ),
        }
    )
    try:
        import river  # noqa: F401
    except ImportError:
        pass
    else:
        learners["river-PA-ovr"] = _RiverLearner
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        pass
    else:
        learners["vw-oaa"] = lambda: _VowpalLearner(n_classes)
    return learners


def _batches(X, y, size, n_calls, start):
    """``n_calls`` consecutive batches of ``size`` rows from row ``start``,
    cycling through the rows."""
    n = X.shape[0]
    out = []
    position = start
    for _ in range(n_calls):
        if position + size > n:
            position = 0
        out.append((X[position : position + size], y[position : position + size]))
        position += size
    return out


def stream_latency(
    learner,
    X,
    y,
    *,
    batch_sizes=BATCH_SIZES,
    max_calls=1000,
    min_calls=5,
    max_seconds=3.0,
    warmup=100,
):
    """Time each ``learn`` and ``predict`` call of a stream, per batch size.

    Parameters
    ----------
    learner : object
        From a factory of :func:`latency_learners`.
    X : sparse matrix of shape (n_samples, n_features)
        The stream's rows (CSR).
    y : ndarray of shape (n_samples,)
        Their labels.
    batch_sizes : tuple of int, default=BATCH_SIZES
        Rows per call.
    max_calls, min_calls : int, default=1000, 5
        The most and the fewest calls per batch size.
    max_seconds : float, default=3.0
        After this much time in a batch size's calls (and ``min_calls``
        calls), its stream stops.
    warmup : int, default=100
        Rows of the first call, which is not timed.

    Returns
    -------
    timings : dict
        ``(operation, batch_size) -> (cpu, wall)``: arrays of seconds, one
        entry per call; ``operation`` is ``"partial_fit"`` or ``"predict"``.
    """
    classes = np.unique(y)
    learner.start(X[:warmup], y[:warmup], classes)
    timings = {}
    start = warmup
    for size in batch_sizes:
        n_calls = max(min_calls, min(max_calls, 20_000 // size))
        prepared = [
            learner.batch(Xb, yb) for Xb, yb in _batches(X, y, size, n_calls, start)
        ]
        start = (start + size * n_calls) % X.shape[0]
        cpu = {"partial_fit": [], "predict": []}
        wall = {"partial_fit": [], "predict": []}
        spent = 0.0
        for batch in prepared:
            for operation, call in (
                ("partial_fit", learner.learn),
                ("predict", learner.predict),
            ):
                c0, w0 = time.process_time(), time.perf_counter()
                call(batch)
                c1, w1 = time.process_time(), time.perf_counter()
                cpu[operation].append(c1 - c0)
                wall[operation].append(w1 - w0)
                spent += w1 - w0
            if spent > max_seconds and len(cpu["predict"]) >= min_calls:
                break
        for operation in cpu:
            timings[operation, size] = (
                np.asarray(cpu[operation]),
                np.asarray(wall[operation]),
            )
    return timings


def run_stream_latency(
    data, names=None, *, batch_sizes=BATCH_SIZES, max_seconds=3.0, verbose=False
):
    """The latency table: one row per learner, operation and batch size.

    Parameters
    ----------
    data : Bunch
        A loaded data set with CSR ``X`` and labels ``y`` (the training
        split of 20 Newsgroups for the command line).
    names : list of str, default=None
        Learners of :func:`latency_learners` (when None, every available
        one but the ``OPTIONAL`` ones).
    batch_sizes : tuple of int, default=BATCH_SIZES
        Rows per call.
    max_seconds : float, default=3.0
        About how long each batch size's stream of one learner runs.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``operation``, ``batch_size``, ``calls``, the median
        and 99th-percentile CPU and wall time of a call in microseconds
        (``cpu_median_us``, ``cpu_p99_us``, ``wall_median_us``,
        ``wall_p99_us``), the median CPU time per row (``cpu_per_row_us``)
        and its ratio to that of the largest batch (``per_row_ratio``).
    """
    X, y = data.X.tocsr(), np.asarray(data.y)
    available = latency_learners(np.unique(y).shape[0])
    if names is None:
        names = [name for name in available if name not in OPTIONAL]
    names = list(names)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(
            f"Unknown or unavailable learner(s): {', '.join(unknown)}. The "
            f"stream-latency protocol has: {', '.join(available)} (river and "
            "Vowpal Wabbit only when installed)."
        )
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"One call at a time on {data.name} ({X.shape[0]} x {X.shape[1]}): "
        f"batches of {', '.join(map(str, batch_sizes))} rows"
    )
    rows = []
    for name in names:
        timings = stream_latency(
            available[name](), X, y, batch_sizes=batch_sizes, max_seconds=max_seconds
        )
        mine = []
        for (operation, size), (cpu, wall) in sorted(timings.items()):
            mine.append(
                {
                    "task": "stream-latency",
                    "dataset": data.name,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "estimator": name,
                    "operation": operation,
                    "batch_size": size,
                    "calls": cpu.shape[0],
                    "cpu_median_us": 1e6 * float(np.median(cpu)),
                    "cpu_p99_us": 1e6 * float(np.percentile(cpu, 99)),
                    "wall_median_us": 1e6 * float(np.median(wall)),
                    "wall_p99_us": 1e6 * float(np.percentile(wall, 99)),
                    "cpu_per_row_us": 1e6 * float(np.median(cpu)) / size,
                }
            )
        for operation in ("partial_fit", "predict"):
            own = [r for r in mine if r["operation"] == operation]
            largest = max(own, key=lambda r: r["batch_size"])
            for r in own:
                base = largest["cpu_per_row_us"]
                r["per_row_ratio"] = r["cpu_per_row_us"] / base if base > 0 else None
        rows += mine
        progress.step(name)
    return rows


def stream_latency_cells(rows):
    """The header and the cells of the stream-latency table."""
    header = [
        "estimator",
        "call",
        "rows",
        "calls",
        "CPU median",
        "CPU p99",
        "wall median",
        "wall p99",
        "CPU/row",
        "x per row",
    ]
    body = [
        [
            row["estimator"],
            row["operation"],
            str(row["batch_size"]),
            str(row["calls"]),
            f"{row['cpu_median_us']:.1f}",
            f"{row['cpu_p99_us']:.1f}",
            f"{row['wall_median_us']:.1f}",
            f"{row['wall_p99_us']:.1f}",
            f"{row['cpu_per_row_us']:.2f}",
            "n/a"
            if row.get("per_row_ratio") is None
            else f"{row['per_row_ratio']:.2f}",
        ]
        for row in rows
    ]
    return header, body


def plot_latency(rows, path, Figure, title):
    """The CPU time per row of a stream-latency run against the batch size,
    one line per learner and call (log-log: a call that costs what its rows
    cost is a flat line)."""
    fig = Figure(figsize=(7, 4.8))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, operation in zip(axes, ("partial_fit", "predict")):
        names = dict.fromkeys(r["estimator"] for r in rows)
        for name in names:
            own = sorted(
                (
                    r
                    for r in rows
                    if r["estimator"] == name and r["operation"] == operation
                ),
                key=lambda r: r["batch_size"],
            )
            if own:
                ax.plot(
                    [r["batch_size"] for r in own],
                    [r["cpu_per_row_us"] for r in own],
                    marker="o",
                    label=name,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows per call")
        ax.set_title(operation, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("CPU time per row (microseconds)")
    axes[1].legend(fontsize=7, loc="best")
    fig.suptitle(title, fontsize=7, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
