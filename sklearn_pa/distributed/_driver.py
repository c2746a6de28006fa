"""The driver of iterative parameter mixing: check the estimator and the
partitions, initialise the model, then per epoch broadcast the state, run the
partitions' bare epochs where they live, gather and mix.

It reaches the estimator only through its state protocol
(``estimator.__sklearn_pa_state__()``, see ``sklearn_pa/_core/state.py``).
"""

import copy
import functools
import numbers
import time
import warnings

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target, unique_labels

from .._core.driver import EpochAdapter, EpochStats, run_epochs
from ._executors import WorkerLost, executor_for
from ._partitions import _blocks, _summarize_partition, _typical_value

_MIXINGS = ("auto", "uniform", "updates", "gaussian")

_GENERIC_HINT = (
    "only the linear online estimators of sklearn_pa carry a state that "
    "parameter mixing can average; for any estimator with partial_fit, "
    "dask_ml.wrappers.Incremental streams the blocks of a dask array "
    "through it on one worker at a time"
)
_SEE_GUIDE = "See the 'Distributed training' page of the user guide."

# tries of a round (or of the preparation) when workers are lost: between
# two, Dask recomputes the partitions it can and the driver sends again
# those it scattered
_ROUND_ATTEMPTS = 3


# ---------------------------------------------------------------- learner
def _learner(estimator):
    """A clone of ``estimator`` behind its state protocol, its parameters
    checked for parameter mixing."""
    name = type(estimator).__name__
    protocol = getattr(estimator, "__sklearn_pa_state__", None)
    if protocol is None:
        raise TypeError(
            f"fit_parameter_mixing does not support {name}: {_GENERIC_HINT}. "
            f"{_SEE_GUIDE}"
        )
    try:
        learner = clone(estimator).__sklearn_pa_state__()
    except TypeError as exc:
        raise TypeError(f"fit_parameter_mixing: {exc} {_SEE_GUIDE}") from exc
    learner.validate_params()
    est = learner.estimator
    if getattr(est, "early_stopping", False):
        raise ValueError(
            "early_stopping=True is not supported by parameter mixing (the "
            "validation split would have to be drawn across partitions); set "
            "early_stopping=False. Training stops after n_epochs epochs, or "
            "when the training loss stops improving by tol if n_epochs=None."
        )
    if getattr(est, "class_weight", None) == "balanced":
        raise ValueError(
            "class_weight='balanced' would be computed per partition; compute "
            "the weights on the whole data with "
            "sklearn.utils.class_weight.compute_class_weight('balanced', ...) "
            "and pass them as a dict."
        )
    return learner


def _partition_rngs(random_state, k):
    """One random generator per partition; the first is the one a serial
    ``fit`` would use, so that one partition reproduces it exactly."""
    if random_state is None:
        return [np.random.RandomState() for _ in range(k)]
    if isinstance(random_state, numbers.Integral):
        seeds = np.random.SeedSequence(int(random_state)).spawn(k)
        return [check_random_state(int(random_state))] + [
            np.random.RandomState(s.generate_state(1)[0]) for s in seeds[1:]
        ]
    first = copy.deepcopy(check_random_state(random_state))
    return [first] + [
        np.random.RandomState(random_state.randint(np.iinfo(np.int32).max))
        for _ in range(k - 1)
    ]


def _weights(stats, mixing):
    k = len(stats)
    if mixing == "updates":
        updates = np.array([s.n_updates for s in stats], dtype=np.float64)
        if updates.sum() > 0:
            return updates / updates.sum()
    return np.full(k, 1.0 / k)


# ------------------------------------------------------------ worker side
def _prepare_block(part, learner):
    """The partition as the kernel reads it (converted once, kept)."""
    X, y = part
    return learner.prepare(X, y)


def _epoch(block, rng, learner, state):
    """One bare epoch of one partition: (state, stats, rng, seconds)."""
    tic = time.perf_counter()
    state, stats = learner.epoch(block, state, rng)
    return state, stats, rng, time.perf_counter() - tic


def _mix_terms(learner, state, weight, *, rule):
    return learner.mix_terms(state, weight, rule)


def _add_terms(learner, a, b):
    return learner.add_terms(a, b)


# ------------------------------------------------------------- the rounds
class _Monitor:
    """What the epoch driver reads of an estimator (its stopping rule and
    verbosity) and writes back (the training history), for the mixing
    rounds: the estimator itself is the partitions' template."""

    def __init__(self, *, tol, n_iter_no_change):
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.verbose = 0


class _MixingRounds(EpochAdapter):
    """One round of iterative parameter mixing as one epoch of the driver:
    broadcast the mixed state, run the partitions' bare epochs where they
    live, gather their states and mix them.

    Its loss is the mean training loss over all the partitions (the driver
    is told that an epoch has one row); ``history`` collects the timings of
    each round for ``return_history``.
    """

    def __init__(self, executor, held, rngs, learner, shipped, state, mixing):
        self.executor, self.held, self.rngs = executor, held, rngs
        self.learner, self.shipped = learner, shipped
        self.state, self.mixing = state, mixing
        self.history = []
        self._last = {}

    @property
    def parts(self):
        return self.held["parts"]

    def run(self, order, t):
        """One round; run again from the same mixed state and random states
        (a round changes nothing before its results are all in) when a
        worker was lost, once Dask has recomputed the partitions it held
        that came from a graph and the driver has sent again those it
        scattered: the model is that of an undisturbed fit."""

        def resend(lost):  # the learner's copy may have gone with it
            self.shipped = self.executor.broadcast(self.learner)
            _resend(self.executor, self.held, lost, self.shipped)

        return _retried(
            self.executor,
            lambda: self.parts,
            self._run_once,
            resend,
            len(self.history) + 1,
        )

    def _run_once(self):
        executor, learner = self.executor, self.learner
        start = time.perf_counter()
        handle = executor.broadcast(self.state)
        driver = time.perf_counter() - start
        per_part = [(rng,) for rng in self.rngs]
        common = (self.shipped, handle)
        tree = (
            executor.tree_reduce
            and len(self.parts) > 1
            and learner.reducible(self.mixing)
        )
        if tree:
            # the weighted states are summed pairwise on the workers
            mixing = self.mixing
            results, total = executor.map_reduce(
                _epoch,
                self.parts,
                per_part,
                common,
                weights=lambda stats: _weights(stats, mixing),
                terms=functools.partial(_mix_terms, rule=mixing),
                add=_add_terms,
                context=self.shipped,
            )
        else:
            results = executor.map(_epoch, self.parts, per_part, common, models=True)
        gathered = time.perf_counter()
        for _, messages in results:
            for message, category in messages:
                warnings.warn(message, category, stacklevel=2)
        stats = [r[0][1] for r in results]
        self.rngs = [r[0][2] for r in results]
        seconds = [r[0][3] for r in results]
        if tree:
            self.state = learner.finish_mix(total, prior=self.state, rule=self.mixing)
        else:
            states = [r[0][0] for r in results]
            self.state = learner.mix(
                states, _weights(stats, self.mixing), prior=self.state, rule=self.mixing
            )
            del states
        del handle
        objective = sum(s.loss for s in stats) / max(sum(s.n_rows for s in stats), 1)
        n_updates = sum(s.n_updates for s in stats)
        end = time.perf_counter()
        driver += end - gathered
        self.history.append(
            {
                "loss": objective,
                "n_updates": n_updates,
                "wall_time": end - start,
                "kernel_time": max(seconds),
                "kernel_time_total": sum(seconds),
                "driver_time": driver,
                "overhead": end - start - max(seconds),
            }
        )
        self._last = {
            "Partitions": len(self.parts),
            "T": int(self.state["t"]) - 1,
            "Slowest partition (s)": f"{max(seconds):.2f}",
            "Driver (s)": f"{driver:.3f}",
        }
        return EpochStats(np.array([objective]), int(n_updates))

    def start_epoch(self, t, may_end):
        # average="epoch": the average of the last round's passes
        if may_end:
            self.state = self.learner.restart_average(self.state)

    def publish(self):
        self.learner.set(self.state)

    def summary(self):
        return self._last


# ------------------------------------------------------------------ public
def fit_parameter_mixing(
    estimator,
    X,
    y=None,
    *,
    classes=None,
    n_epochs=None,
    mixing="auto",
    n_partitions=None,
    client=None,
    n_jobs=None,
    verbose=0,
    return_history=False,
):
    """Fit a linear online estimator on partitioned data by iterative
    parameter mixing.

    At every epoch each partition runs one epoch of the estimator's own
    compiled update starting from the current mixed model, where the
    partition lives (a Dask worker, or a thread of this process); the driver
    then mixes the partitions' models into the next mixed model (McDonald,
    Hall & Mann, 2010).  The partitions are checked, converted into the
    kernel's row view and persisted once; an epoch ships only the model and
    runs the bare kernel epoch on the prepared rows (no validation, no copy
    of the data).  The estimator is reached only through its state protocol
    (``estimator.__sklearn_pa_state__()``), so any estimator implementing it
    can be mixed.

    Parameters
    ----------
    estimator : estimator instance
        A linear online estimator of this package:
        :class:`~sklearn_pa.PassiveAggressiveClassifier`,
        :class:`~sklearn_pa.PassiveAggressiveRegressor`,
        :class:`~sklearn_pa.MIRAClassifier`,
        :class:`~sklearn_pa.ConfidenceWeightedClassifier`,
        :class:`~sklearn_pa.AROWClassifier`, :class:`~sklearn_pa.SCWClassifier`,
        :class:`~sklearn_pa.GradientDescentRegressor`,
        :class:`~sklearn_pa.ExponentiatedGradientRegressor`,
        :class:`~sklearn_pa.ErrorProportionalRegressor`,
        :class:`~sklearn_pa.OnlineBayesPointClassifier` or
        :class:`~sklearn_pa.PassiveAggressiveOneClass`.  It is cloned; its
        parameters are used as they are, except ``max_iter`` (see
        ``n_epochs``).  The kernel PA models and the sequence taggers are
        refused with a ``TypeError`` saying what to use instead.
    X : dask array, dask DataFrame, array-like or sparse matrix
        Training data.  A dask array is split along its row chunks (its
        blocks may be scipy CSR matrices, and their numbers of rows unknown,
        as in the arrays of
        :func:`~sklearn_pa.datasets.read_svmlight_partitions`: ``y`` is then
        matched block by block); a dask DataFrame along its
        partitions; anything else is cut into ``n_partitions`` contiguous
        blocks of rows (shuffle first if the rows are sorted by label).
    y : dask array, dask Series or array-like of shape (n_samples,), default=None
        Targets, partitioned like ``X``; ``None`` for
        :class:`~sklearn_pa.PassiveAggressiveOneClass`.  ``-1`` marks an
        unlabeled row for :class:`~sklearn_pa.OnlineBayesPointClassifier`.
    classes : array-like of shape (n_classes,), default=None
        Every class label.  ``None`` computes them once from ``y`` (one pass
        over the partitions) so that every partition has the same
        ``classes_``; given, a partition holding another label is an error.
    n_epochs : int, default=None
        Number of mixing epochs (passes over the data).  ``None`` runs up to
        the estimator's ``max_iter`` epochs and stops, as ``fit`` does, when
        the training loss summed over the partitions has not improved by
        ``tol`` for ``n_iter_no_change`` epochs (``tol=None``: all
        ``max_iter`` epochs).
    mixing : {"auto", "uniform", "updates", "gaussian"}, default="auto"
        How the partitions' models are combined. ``"uniform"``: the plain
        average. ``"updates"``: an average weighted by each partition's
        number of updates in the epoch (uniform if there were none).
        ``"gaussian"`` (the second-order learners only: CW, AROW, SCW and
        their peers and regressors): the Gaussians over the weights are
        combined in information form, adding each partition's gain in
        precision to the shared prior (see :func:`mix_gaussians`).
        ``"auto"`` is ``"gaussian"`` for those models whose matrix is a
        Gaussian's covariance (all but IELLIP, whose ellipsoid is
        averaged) and ``"uniform"`` otherwise.
    n_partitions : int, default=None
        Number of partitions a plain array is cut into; ``None`` is the
        number of Dask workers (of threads for the local scheduler).
        Ignored for dask collections, which carry their own partitions.
    client : distributed.Client, default=None
        Where to run. ``None`` uses the current default Dask client if there
        is one, else threads in this process (see ``n_jobs``).  A cluster is
        never started here.
    n_jobs : int, default=None
        Run the partitions on ``n_jobs`` threads of this process (the
        compiled epochs release the GIL), even if a default Dask client
        exists; it cannot be combined with ``client``.  ``None`` uses
        ``os.cpu_count()`` threads when no client is used.  ``-1`` means all
        processors (joblib's convention).
    verbose : int, default=0
        Print one line per epoch.
    return_history : bool, default=False
        Also return the per-epoch history (see Returns).

    Returns
    -------
    estimator : estimator instance
        A fitted clone of ``estimator``, of the same class, whose
        ``predict``, ``partial_fit`` etc. work as after a serial ``fit``.
        ``n_iter_`` is the number of epochs, ``t_`` counts the rows seen
        by every partition and ``loss_curve_`` holds the mean training loss
        of each epoch over all the partitions.
    history : list of dict
        Only with ``return_history=True``: one dict per epoch with ``loss``
        (the mean training loss over the partitions), ``n_updates``,
        ``wall_time`` (s, the whole epoch), ``kernel_time`` (s, the slowest
        partition's epoch where it ran), ``kernel_time_total`` (s, summed
        over the partitions), ``driver_time`` (s, the driver's own work:
        broadcasting the model and mixing the returned ones) and
        ``overhead`` (``wall_time - kernel_time``: scheduling, transfers and
        the driver's work).

    Raises
    ------
    ValueError
        On invalid data in any partition (NaN or infinity, inconsistent
        numbers of features, labels outside ``classes``) or parameters; the
        whole data are checked before the first epoch.
    TypeError
        For an estimator parameter mixing does not apply to.
    RuntimeError
        When workers are lost in each of three tries of an epoch (or of the
        preparation of the partitions).  A single loss is recovered: the
        partitions the lost worker held are recomputed by Dask (a dask
        collection) or sent again from this process (arrays), and the epoch
        is run again from the same model and random states.

    Notes
    -----
    With a single partition the result is the model of the serial ``fit``
    with ``max_iter=n_epochs`` and ``tol=None`` (same random state).  With
    several, the mixed model is not the serial one; for the perceptron
    update on separable data, iterative parameter mixing still stops making
    updates after finitely many epochs, with a bound on the mixing-weighted
    number of updates equal to the serial perceptron's (McDonald et al.,
    Theorem 3).  On 20 Newsgroups the accuracy is within a point of the
    serial model's.  Models with
    ``average=True`` mix their current weights and, separately, their
    averaged weights (with the same weights; uniform for ``"gaussian"``).

    References
    ----------
    R. McDonald, K. Hall and G. Mann, "Distributed Training Strategies for
    the Structured Perceptron", NAACL 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.distributed import fit_parameter_mixing
    >>> X, y = make_classification(n_samples=400, random_state=0)
    >>> model = fit_parameter_mixing(
    ...     PassiveAggressiveClassifier(random_state=0), X, y,
    ...     n_epochs=3, n_partitions=2)
    >>> type(model).__name__, model.n_iter_
    ('PassiveAggressiveClassifier', 3)
    >>> bool(model.score(X, y) > 0.8)
    True

    On the cores of one machine, without Dask:

    >>> model = fit_parameter_mixing(
    ...     PassiveAggressiveClassifier(random_state=0), X, y,
    ...     n_epochs=3, n_partitions=2, n_jobs=2)
    >>> bool(model.score(X, y) > 0.8)
    True

    On a cluster, connect a client first (the rest is unchanged):

    >>> from distributed import Client  # doctest: +SKIP
    >>> client = Client("tcp://scheduler:8786")  # doctest: +SKIP
    """
    if mixing not in _MIXINGS:
        raise ValueError(f"mixing must be one of {_MIXINGS}; got {mixing!r}.")
    if n_epochs is not None and (
        not isinstance(n_epochs, numbers.Integral) or n_epochs < 1
    ):
        raise ValueError(
            f"n_epochs must be a positive integer or None; got {n_epochs!r}."
        )
    if n_partitions is not None and (
        not isinstance(n_partitions, numbers.Integral) or n_partitions < 1
    ):
        raise ValueError(
            f"n_partitions must be a positive integer or None; got {n_partitions!r}."
        )
    if n_jobs is not None:
        if not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
            raise ValueError(
                f"n_jobs must be a non-zero integer or None; got {n_jobs!r}."
            )
        n_jobs = effective_n_jobs(n_jobs)
    learner = _learner(estimator)
    name = type(learner.estimator).__name__
    if mixing == "auto":
        mixing = learner.default_mixing
    if mixing not in learner.mixing_rules:
        raise ValueError(
            f"mixing={mixing!r} is not available for {name}"
            + (
                ", which has no covariance (mixing='gaussian' combines the "
                "Gaussian posteriors over the weights of the second-order "
                "classifiers)"
                if mixing == "gaussian"
                else ""
            )
            + f". Use one of {learner.mixing_rules}."
        )
    if not learner.needs_y:
        y = None
    elif y is None:
        raise ValueError(f"{name} needs y.")

    executor = executor_for(client, n_jobs)
    x_blocks, y_blocks, feature_names = _blocks(X, y, n_partitions, executor.n_workers)
    # the partitions held, the number of the block of each, and the blocks
    # (to send again a partition lost with a worker)
    held = {
        "parts": [],
        "index": list(range(len(x_blocks))),
        "blocks": (x_blocks, y_blocks),
    }
    try:
        held["parts"] = executor.persist(x_blocks, y_blocks)
        model, history = _fit_recovering(
            executor, held, learner, classes, n_epochs, mixing, verbose
        )
    finally:
        executor.release(held["parts"])
        executor.close()
    if feature_names is not None:
        model.feature_names_in_ = feature_names
    return (model, history) if return_history else model


def _lost_error(lost, exc, epoch=None):
    """The error of a fit that kept losing workers: ``_ROUND_ATTEMPTS``
    tries, the last of which still missed the partitions ``lost`` (their
    positions)."""
    when = f" in epoch {epoch}" if epoch else " while preparing the partitions"
    missing = ""
    if lost:
        missing = (
            f"; partition{'s' if len(lost) > 1 else ''} "
            f"{', '.join(map(str, lost))} could not be restored"
        )
    return RuntimeError(
        f"fit_parameter_mixing lost a worker{when} {_ROUND_ATTEMPTS} times "
        f"({exc}){missing}. The estimator is unchanged and the client can be "
        "used again; check the cluster's workers and fit again."
    )


def _resend(executor, held, lost, learner=None):
    """Persist again the partitions at the positions ``lost`` of
    ``held["parts"]`` (those Dask could not recompute: scattered from this
    process) from the blocks this process holds, prepared for the
    ``learner`` broadcast when the rounds have started."""
    x_blocks, y_blocks = held["blocks"]
    for position in lost:
        i = held["index"][position]
        (part,) = executor.persist([x_blocks[i]], [y_blocks[i]], indices=[i])
        if learner is not None:
            (part,) = executor.transform(_prepare_block, [part], (learner,))
        old, held["parts"][position] = held["parts"][position], part
        executor.release([old])


def _fit_recovering(executor, held, *args):
    """:func:`_fit_parts`, started again when a worker is lost while the
    partitions are summarised and prepared, once Dask has recomputed what it
    held and the driver has sent again what it scattered (the rounds retry
    on their own)."""
    return _retried(
        executor,
        lambda: held["parts"],
        lambda: _fit_parts(executor, held, *args),
        lambda lost: _resend(executor, held, lost),
    )


def _retried(executor, parts, once, resend, *round_number):
    """``once()``, run again (up to ``_ROUND_ATTEMPTS`` tries) when a worker
    is lost, after Dask has recomputed the partitions ``parts()`` it held
    that came from a graph and ``resend(lost)`` has sent again those the
    driver scattered; a loss in every try is :func:`_lost_error`."""
    lost = []
    for attempt in range(1, _ROUND_ATTEMPTS + 1):
        try:
            if attempt > 1:
                resend(lost)
            return once()
        except WorkerLost as exc:
            lost = executor.recover(parts())
            error = exc
    raise _lost_error(lost, error, *round_number) from error


def _check_classes(summaries, classes):
    labelled = [s["labels"] for s in summaries if s["labels"].size]
    if not labelled:
        raise ValueError(
            "y has no labeled sample (-1 marks an unlabeled one); parameter "
            "mixing needs labeled samples of at least two classes."
        )
    if classes is None:
        classes = unique_labels(*labelled)
    else:
        classes = unique_labels(np.asarray(classes))
        for i, s in enumerate(summaries):
            unknown = np.setdiff1d(s["labels"], classes)
            if unknown.size:
                raise ValueError(
                    f"Partition {i}: y contains labels {unknown.tolist()!r} "
                    f"that are not in classes {classes.tolist()!r}."
                )
    if type_of_target(classes) not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {type_of_target(classes)!r}; parameter mixing "
            "takes binary or multiclass targets."
        )
    return classes


def _fit_parts(executor, held, learner, classes, n_epochs, mixing, verbose):
    """Check, prepare and train on the persisted partitions
    ``held["parts"]`` (kept up to date with the partitions held, for the
    caller to release); returns the model and the per-epoch history."""
    parts = held["parts"]
    k = len(parts)
    summaries = [
        result
        for result, _ in executor.map(
            _summarize_partition,
            parts,
            [(i,) for i in range(k)],
            (learner.classifier, learner.unlabeled_marker),
        )
    ]
    n_features = {s["n_features"] for s in summaries}
    if len(n_features) > 1:
        raise ValueError(
            f"The partitions have different numbers of features {sorted(n_features)}; "
            "every block of X must have all the columns."
        )
    n_features = n_features.pop()
    classes = _check_classes(summaries, classes) if learner.classifier else None
    # an empty partition has nothing to contribute to the mix
    kept = [s["n_rows"] > 0 for s in summaries]
    executor.release([p for p, keep in zip(parts, kept) if not keep])
    parts = held["parts"] = [p for p, keep in zip(parts, kept) if keep]
    held["index"] = [i for i, keep in zip(held["index"], kept) if keep]
    summaries = [s for s, keep in zip(summaries, kept) if keep]
    if not parts:
        raise ValueError("X has no rows.")
    k = len(parts)
    est = learner.estimator
    rngs = _partition_rngs(getattr(est, "random_state", None), k)
    state = learner.initialise(
        n_features,
        classes=classes,
        scale=_typical_value(summaries),
        random_state=rngs[0],
    )
    shipped = executor.broadcast(learner)
    parts = held["parts"] = executor.transform(_prepare_block, parts, (shipped,))
    rounds = _MixingRounds(executor, held, rngs, learner, shipped, state, mixing)
    # the rounds run on the package's one epoch driver: the stopping rule on
    # the training loss, the ConvergenceWarning, the verbose lines and the
    # loss_curve_ are those of every serial fit
    monitor = _Monitor(
        tol=getattr(est, "tol", None),
        n_iter_no_change=getattr(est, "n_iter_no_change", 1),
    )
    monitor.verbose = 2 if verbose else 0
    run = run_epochs(
        monitor,
        rounds,
        train_idx=np.arange(k, dtype=np.int64),
        max_iter=n_epochs if n_epochs is not None else est.max_iter,
        rng=None,
        shuffle=False,
        stopping=n_epochs is None,
        n_rows_per_epoch=1,  # a round reports its mean loss
    )
    model = learner.set(rounds.state, random_state=rounds.rngs[0])
    model.n_iter_ = run.n_iter
    model.loss_curve_ = monitor.loss_curve_
    return model, rounds.history
