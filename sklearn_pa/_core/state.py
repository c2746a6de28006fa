"""The state protocol: what parameter mixing needs from a learner.

Every estimator that :mod:`sklearn_pa.distributed` can train exposes its
learned state through one object, returned by the public dunder method
``estimator.__sklearn_pa_state__()`` (as scikit-learn's
``__sklearn_tags__``): a :class:`LearnerState`.  It can

- :meth:`~LearnerState.initialise` the state of a model before its first
  update, for the dimensions, classes and intercept scale of the whole data;
- :meth:`~LearnerState.prepare` a block of rows once (validated and converted
  to the kernel's row view, labels encoded as the kernel reads them);
- run one bare kernel :meth:`~LearnerState.epoch` over a prepared block from
  a given state, without validating the block again and without copying
  anything larger than the model;
- :meth:`~LearnerState.get` the state of a fitted estimator and
  :meth:`~LearnerState.set` a state as its fitted attributes;
- :meth:`~LearnerState.mix` several states into one.

A state is a plain ``dict`` of arrays and numbers (picklable, of the size of
the model).  Adding a learner to parameter mixing means implementing this
protocol for it; the distributed modules do not change.

One implementation per family: :class:`LinearState` (the first-order linear
learners, averaged or not), :class:`SecondOrderState` (CW, AROW, SCW, with
Gaussian mixing) here, ``OneClassState`` in ``sklearn_pa/one_class/_one_class.py``
(the one-class PA) and ``BayesPointState`` in ``sklearn_pa/bayes_point/_epochs.py``
(the Bayes point machine).
"""

import copy
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier

from . import growth as _growth
from .batch import atomic_update
from .driver import EpochAdapter, EpochStats, run_epochs
from .mixing import linear_mix, mix_second_order_gaussian

__all__ = [
    "BlockEpochStats",
    "LearnerState",
    "LinearState",
    "PreparedBlock",
    "ScaledState",
    "SecondOrderState",
]


@dataclass
class BlockEpochStats(EpochStats):
    """What one bare epoch over a block reports: the family adapter's
    :class:`~sklearn_pa._core.driver.EpochStats`, its loss summed over the
    one-vs-rest columns, and the number of terms of that loss.

    Attributes
    ----------
    n_rows : int
        Number of terms in ``loss`` (the mean loss is ``loss / n_rows``):
        the rows of the block, or what the family counts instead (the
        labeled rows times the copies of a Bayes point machine).
    """

    n_rows: int = 0


class _Quiet:
    """What the epoch driver reads of an estimator, for one bare epoch of a
    partition: no stopping rule, no verbose line; the history it writes
    stays here, away from the estimator."""

    tol = None
    n_iter_no_change = 1
    verbose = 0


class _Recorder(EpochAdapter):
    """A family adapter whose last :class:`EpochStats` is kept."""

    def __init__(self, adapter):
        self.adapter = adapter
        self.n_loss = adapter.n_loss
        self.skipped_reason = adapter.skipped_reason
        self.overflow_message = adapter.overflow_message
        self.stats = None

    def run(self, order, t):
        self.stats = self.adapter.run(order, t)
        return self.stats

    def failed(self):
        self.adapter.failed()

    def journal(self, journal, order):
        self.adapter.journal(journal, order)


def one_pass(adapter, n_rows, rng, *, shuffle, t_start, n_loss_rows=None):
    """One pass of a family adapter over the ``n_rows`` rows of a block, run
    by the epoch driver as one ``partial_fit`` call runs it (the same row
    order drawn from ``rng``, the same skipped-row warning and overflow
    error); returns the sample counter after it and a
    :class:`BlockEpochStats`."""
    recorder = _Recorder(adapter)
    run = run_epochs(
        _Quiet(),
        recorder,
        train_idx=np.arange(n_rows, dtype=np.int64),
        max_iter=1,
        rng=rng,
        shuffle=shuffle,
        stopping=False,
        t_start=t_start,
        n_rows_per_epoch=n_loss_rows,
    )
    stats = recorder.stats
    return run.t, BlockEpochStats(
        loss=float(np.sum(stats.loss)),
        n_updates=int(stats.n_updates),
        mistakes=int(stats.mistakes),
        n_skipped=int(stats.n_skipped),
        overflow=bool(stats.overflow),
        n_rows=int(n_rows if n_loss_rows is None else n_loss_rows),
    )


@dataclass
class PreparedBlock:
    """A block of rows validated and converted once for the kernel.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix
        float64 C-ordered dense rows, or a canonical CSR matrix.
    y : ndarray or None
        The targets as the learner's epoch reads them.
    sample_weight : ndarray
        float64 weights, one per row.
    extra : dict
        Anything else the family computes once per block.
    """

    X: object
    y: object
    sample_weight: np.ndarray
    extra: dict = field(default_factory=dict)

    @property
    def n_rows(self):
        return self.X.shape[0]


def zero_row(n_features):
    return sp.csr_matrix((1, n_features))


def scale_row(n_features, value):
    """A one-row CSR whose typical feature value is ``value``: lets the
    estimator run its own intercept-scaling check on the global value."""
    return sp.csr_matrix(
        (np.array([value]), np.array([0]), np.array([0, 1])),
        shape=(1, max(n_features, 1)),
    )


def _copy_state(state):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}


def _epoch_stats(estimator):
    (n_updates, loss, n_rows) = estimator.__dict__.pop("_epoch_stats")[0]
    return BlockEpochStats(loss=loss, n_updates=n_updates, n_rows=n_rows)


def summed_count(prior, values):
    """``prior + sum_i (v_i - prior)``: what every partition added."""
    return prior + sum(v - prior for v in values)


class LearnerState:
    """The learned state of one estimator, behind one protocol.

    Obtained with ``estimator.__sklearn_pa_state__()``; it works on that
    estimator (a template that holds the hyper-parameters, the classes and
    the intercept scale).  Subclasses implement the protocol for a family.

    Parameters
    ----------
    estimator : estimator instance
        The estimator whose state this is.
    epochs : type, default=None
        The family's epoch adapter (an :class:`~sklearn_pa._core.driver.EpochAdapter`
        subclass): :meth:`prepare` builds what it needs once and
        :meth:`epoch` runs it for one pass.  ``None`` (a state subclass
        given no adapter) runs the family's ``partial_fit`` internals
        instead.

    Attributes
    ----------
    mixing_rules : tuple of str
        The mixing rules :meth:`mix` accepts.
    default_mixing : str
        The rule ``mixing="auto"`` stands for.
    needs_y : bool
        Whether the learner trains on targets.
    unlabeled_marker : object or None
        The label that marks an unlabeled row, if the learner takes any.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> y = np.array([0, 1])
    >>> learner = PassiveAggressiveClassifier().__sklearn_pa_state__()
    >>> state = learner.initialise(2, classes=np.array([0, 1]), scale=1.0)
    >>> block = learner.prepare(X, y)
    >>> state, stats = learner.epoch(block, state, np.random.RandomState(0))
    >>> model = learner.set(state)
    >>> model.predict(X)
    array([0, 1])
    """

    mixing_rules = ("uniform", "updates")
    default_mixing = "uniform"
    needs_y = True
    unlabeled_marker = None

    def __init__(self, estimator, *, epochs=None):
        self.estimator = estimator
        self.epochs = epochs

    @property
    def classifier(self):
        """Whether the learner is a classifier (its targets are labels)."""
        return is_classifier(self.estimator)

    def validate_params(self):
        """Check the estimator's hyper-parameters; raise ``ValueError``."""
        self.estimator._validate_params()

    # ------------------------------------------------------------ protocol
    def initialise(self, n_features, classes=None, scale=None, random_state=None):
        """Set the template up for the data and return the initial state.

        Parameters
        ----------
        n_features : int
            Number of features of the whole data.
        classes : ndarray, default=None
            Every class label (classifiers).
        scale : float, default=None
            The typical feature value of the whole data, for
            ``intercept_scaling="auto"`` (and ``1.0`` if None).
        random_state : RandomState, default=None
            The generator the estimator keeps for later ``partial_fit``
            calls.

        Returns
        -------
        state : dict
            The state of the model before its first update.
        """
        raise NotImplementedError

    def prepare(self, X, y=None, sample_weight=None):
        """Validate and convert a block of rows once.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
            The rows.
        y : array-like of shape (n_rows,), default=None
            Their targets.
        sample_weight : array-like of shape (n_rows,), default=None
            Per-row weights (ones when None).

        Returns
        -------
        block : PreparedBlock
            What :meth:`epoch` reads.
        """
        X, y, sample_weight = self._validate(X, y, sample_weight)
        y = self._encode(y)
        return PreparedBlock(X, y, sample_weight, self._extra(X, y, sample_weight))

    def _validate(self, X, y, sample_weight):
        """The estimator's own validation of a batch, as ``partial_fit``
        runs it on a fitted model (float64 C-ordered or canonical CSR rows,
        checked targets and sample weights)."""
        return self.estimator._validate_batch(X, y, sample_weight, reset=False)

    def _encode(self, y):
        return y

    def _extra(self, X, y, sample_weight):
        """What the family's epochs need of a block, computed once (the
        family adapter built over the block's rows and labels)."""
        return {}

    def epoch(self, block, state, rng):
        """One bare kernel epoch over a prepared block.

        Parameters
        ----------
        block : PreparedBlock
            A block from :meth:`prepare`.
        state : dict
            The state to start from (not modified).
        rng : RandomState
            The generator of the row order (advanced as a ``partial_fit``
            would advance it).

        Returns
        -------
        state : dict
            The state after the epoch.
        stats : EpochStats
            The epoch's number of updates and loss.
        """
        if self.epochs is not None:
            return self._adapter_epoch(block, _copy_state(state), rng)
        est = copy.copy(self.estimator)
        # the template's buffers and lists are not the copy's to write into
        est.__dict__.pop("_average_coef_buffer", None)
        est.__dict__.pop("loss_curve_", None)
        est._epoch_stats = []
        # (one call on the copy: the values its steps hand to each other
        # live in the call, batch.call_values)
        with atomic_update(est):
            self._set_on(est, _copy_state(state))
            self._run_epoch(est, block, rng)
            state = self._get_from(est)
        return state, _epoch_stats(est)

    def get(self):
        """The learned state of the (fitted) estimator, as a copy.

        Returns
        -------
        state : dict
            Arrays and numbers; see :meth:`initialise`.
        """
        return _copy_state(self._get_from(self.estimator))

    def set(self, state, *, random_state=None):
        """Publish ``state`` as the estimator's fitted attributes.

        Parameters
        ----------
        state : dict
            A state from :meth:`initialise`, :meth:`epoch` or :meth:`mix`.
        random_state : RandomState, default=None
            The generator later ``partial_fit`` calls continue with.

        Returns
        -------
        estimator : estimator instance
            The estimator, fitted.
        """
        self._set_on(self.estimator, state)
        if random_state is not None:
            self.estimator._rng = random_state
        return self.estimator

    def mix(self, states, weights, *, prior, rule="uniform"):
        """Mix the states of partitions that started from ``prior``.

        Parameters
        ----------
        states : list of dict
            The partitions' states after their epoch.
        weights : ndarray of shape (n_states,)
            Mixing weights, summing to one.
        prior : dict
            The state every partition started from.
        rule : str, default="uniform"
            One of :attr:`mixing_rules`; ``"uniform"`` and ``"updates"``
            both take the weighted average (they differ in ``weights``).

        Returns
        -------
        state : dict
            The mixed state.
        """
        raise NotImplementedError

    def reducible(self, rule):
        """Whether the mix under ``rule`` is a weighted sum of per-state
        terms (:meth:`mix_terms`), which can then be summed pairwise where
        the states live instead of gathering every state.  A subclass that
        overrides :meth:`mix` is gathered unless it says otherwise."""
        return False

    def mix_terms(self, state, weight, rule):
        """The terms one state adds to a reducible mix (see
        :meth:`reducible`): a dict of arrays and numbers, summed key by key
        by :meth:`add_terms` and turned into the mixed state by
        :meth:`finish_mix`."""
        raise NotImplementedError

    @staticmethod
    def add_terms(a, b):
        """The key-by-key sum of two dicts of :meth:`mix_terms`."""
        return {k: (None if a[k] is None else a[k] + b[k]) for k in a}

    def finish_mix(self, total, *, prior, rule="uniform"):
        """The mixed state from the summed :meth:`mix_terms` of every
        partition (equal, up to rounding, to :meth:`mix`)."""
        raise NotImplementedError

    def restart_average(self, state):
        """``state`` with its average restarted at its sample count, before
        a round of parameter mixing that may be the last (``average="epoch"``
        averages the last round); unchanged for a learner that does not
        average that way."""
        return state

    # -------------------------------------------------------------- hooks
    def _set_on(self, est, state):
        raise NotImplementedError

    def _get_from(self, est):
        raise NotImplementedError

    def _run_epoch(self, est, block, rng):
        """The family's single-epoch internals, without an adapter."""
        raise NotImplementedError

    def _adapter_epoch(self, block, state, rng):
        """One pass of the block's adapter from ``state`` (a copy, updated
        in place): ``(state, BlockEpochStats)``."""
        raise NotImplementedError


def _averaged(W, b, U, bu, t, start):
    """The published average of a lazily averaged state (as ``_publish``)."""
    n_avg = t - start
    if n_avg < 1:
        return W, b
    avg = np.multiply(U, -1.0 / n_avg)
    avg += W
    return avg, b - bu / n_avg


class LinearState(LearnerState):
    """The first-order linear learners: PA, MIRA, the regressors, GD/EG.

    State: ``W`` (features x columns), ``b``, the lazy averaging
    accumulators ``U``, ``bu`` (``None`` without ``average``) and ``t``
    (samples seen plus one).
    """

    def initialise(self, n_features, classes=None, scale=None, random_state=None):
        est = self.estimator
        scale = 1.0 if scale is None else float(scale)
        y0 = classes[:1] if classes is not None else np.zeros(1)
        est._validate_batch(zero_row(n_features), y0, None, reset=True)
        if classes is not None:
            est._prepare_targets(
                classes, classes=classes, first_call=True, fitting=False
            )
        else:
            est._prepare_targets(y0, classes=None, first_call=True, fitting=False)
        est._set_intercept_scaling(scale_row(n_features, scale))
        if getattr(est, "intercept_scaling", None) == "auto":
            est.intercept_scaling_ = scale
        W, b = est._allocate(n_features, est._n_columns(), None, None)
        state = self._initial_extra(est, n_features, {"W": W, "b": b})
        state.update(U=None, bu=None, t=1.0, avg_start=1)
        est._rng = random_state
        est.n_iter_ = 0
        self._set_on(est, state)
        return state

    def _initial_extra(self, est, n_features, state):
        return state

    def _extra(self, X, y, sample_weight):
        if self.epochs is None:
            return {}
        est = self.estimator
        n_columns = est._n_columns()
        W, b = np.zeros((X.shape[1], n_columns)), np.zeros(n_columns)
        U = bu = None
        if est.average:
            U, bu = np.zeros_like(W), np.zeros_like(b)
        # the row view, the encoded labels and the label arrays, once; each
        # epoch points a copy of it at the state's arrays
        return {"adapter": self.epochs(est, X, y, sample_weight, W, b, U, bu, None)}

    def _adapter_epoch(self, block, state, rng):
        est = self.estimator
        W, b, U, bu = state["W"], state["b"], state["U"], state["bu"]
        if U is None and est.average:
            U, bu = np.zeros_like(W), np.zeros_like(b)
        n_columns = W.shape[1]
        adapter = copy.copy(block.extra["adapter"])
        adapter.W, adapter.b, adapter.U, adapter.bu = W, b, U, bu
        adapter.U_ = U if U is not None else np.zeros((0, n_columns))
        adapter.bu_ = bu if bu is not None else np.zeros(0)
        adapter.avg_start = self._start(state) if U is not None else 0
        adapter.avg_start_col = np.full(n_columns, adapter.avg_start, dtype=np.int64)
        adapter.active = np.ones(n_columns, dtype=np.uint8)
        adapter.t_stop = np.full(n_columns, -1, dtype=np.int64)
        t, stats = one_pass(
            adapter,
            block.n_rows,
            rng,
            shuffle=est.shuffle,
            t_start=int(state["t"]) - 1,
        )
        adapter.rescale_averages(t)
        state.update(W=W, b=b, U=U, bu=bu, t=float(t) + 1.0)
        return state, stats

    def _encode(self, y):
        if y is None:
            return None
        if not self.classifier:
            y = np.ascontiguousarray(y, dtype=np.float64)
            if not np.all(np.isfinite(y)):
                raise ValueError(
                    "y contains NaN or infinity; drop or impute those rows "
                    "before training."
                )
            return y
        unknown = np.setdiff1d(np.unique(y), self.estimator.classes_)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()!r} that are not in "
                f"classes {self.estimator.classes_.tolist()!r}."
            )
        return y

    def _start(self, state):
        """The first averaged step of ``state``: its own for
        ``average="epoch"`` (the round it restarted at), else the one the
        ``average`` parameter says."""
        est = self.estimator
        if isinstance(est.average, str):
            return int(state.get("avg_start", 1))
        return est._average_start()

    def restart_average(self, state):
        est = self.estimator
        if not (est.average and isinstance(est.average, str)):
            return state
        state = dict(state)
        state["U"], state["bu"] = np.zeros_like(state["W"]), np.zeros_like(state["b"])
        state["avg_start"] = int(state["t"])
        return state

    def _set_on(self, est, state):
        _growth.adopt_state_classes(est, state)
        est.t_ = float(state["t"])  # before _publish, which averages over it
        est._average_from = int(state.get("avg_start", 1))
        est._publish(state["W"], state["b"], state.get("U"), state.get("bu"))

    def _get_from(self, est):
        W, b = est._state_arrays()
        U = bu = None
        if est._averaging_state():
            U, bu = est._average_accum, est._average_intercept_accum
        start = int(est.__dict__.get("_average_from", 1))
        state = dict(W=W, b=b, U=U, bu=bu, t=float(est.t_), avg_start=start)
        return _growth.with_classes(est, state)

    def _run_epoch(self, est, block, rng):
        # as partial_fit continues a model, without validating the block
        # (the partitions are checked when made)
        W, b = est._state_arrays()
        U = bu = None
        if est._averaging_state():
            U, bu = est._average_accum, est._average_intercept_accum
        elif est.average:
            U, bu = np.zeros_like(W), np.zeros_like(b)
        # (the pass of a partial_fit call, from the state as it is)
        est._pass_from(
            block.X,
            block.y,
            block.sample_weight,
            (W, b, U, bu),
            t_start=int(est.t_) - 1,
            rng=rng,
            lazy=False,
        )

    def _mix_means(self, states, weights, prior, rule):
        W = linear_mix([s["W"] for s in states], weights)
        b = linear_mix([s["b"] for s in states], weights)
        return W, b, {}

    def mix(self, states, weights, *, prior, rule="uniform"):
        if rule not in self.mixing_rules:
            raise ValueError(
                f"mixing={rule!r} is not one of {self.mixing_rules} for "
                f"{type(self.estimator).__name__}."
            )
        t_new = summed_count(float(prior["t"]), [float(s["t"]) for s in states])
        states, prior, union = _growth.over_the_union(self.estimator, states, prior)
        W, b, extra = self._mix_means(states, weights, prior, rule)
        if rule == "gaussian":
            weights = np.full(len(states), 1.0 / len(states))  # for the averages
        W = np.ascontiguousarray(W)
        avg = avg_b = None
        start = self._start(prior)
        if all(s["U"] is not None for s in states):
            averages = [
                _averaged(s["W"], s["b"], s["U"], s["bu"], s["t"], start)
                for s in states
            ]
            avg = linear_mix([a[0] for a in averages], weights)
            avg_b = linear_mix([a[1] for a in averages], weights)
        mixed = self._mixed(W, b, avg, avg_b, t_new, extra, start)
        return _growth.with_union(mixed, union)

    def _mixed(self, W, b, avg, avg_b, t_new, extra, start):
        """The mixed state from its mixed weights and, when averaging, its
        mixed averaged weights (whose accumulators it rebuilds from the
        first averaged step ``start``)."""
        U = bu = None
        if avg is not None:
            n_avg = t_new - start
            if n_avg < 1:
                U, bu = np.zeros_like(W), np.zeros_like(b)
            else:
                U, bu = n_avg * (W - avg), n_avg * (b - avg_b)
        return dict(W=W, b=b, U=U, bu=bu, t=t_new, avg_start=start, **extra)

    _summed = ()  # further state arrays mixed as weighted sums

    def reducible(self, rule):
        if _growth.grows_classes(self.estimator):  # (gathered: see mix)
            return False
        return rule in ("uniform", "updates") and type(self).mix is LinearState.mix

    def mix_terms(self, state, weight, rule):
        terms = {
            "W": weight * state["W"],
            "b": weight * state["b"],
            "t": float(state["t"]),
            "n": 1.0,
            "avg": None,
            "avg_b": None,
        }
        if state["U"] is not None:
            start = self._start(state)
            avg, avg_b = _averaged(
                state["W"], state["b"], state["U"], state["bu"], state["t"], start
            )
            terms.update(avg=weight * avg, avg_b=weight * avg_b)
        for name in self._summed:
            terms[name] = weight * state[name]
        return terms

    def finish_mix(self, total, *, prior, rule="uniform"):
        t0 = float(prior["t"])
        t_new = t0 + (total["t"] - total["n"] * t0)
        extra = {name: total[name] for name in self._summed}
        W = np.ascontiguousarray(total["W"])
        start = self._start(prior)
        return self._mixed(
            W, total["b"], total["avg"], total["avg_b"], t_new, extra, start
        )


class ScaledState(LinearState):
    """ROMMA and ALMA: a linear state and the number of updates made,
    ``n_updates`` (ALMA's ``k - 1``, which sets its margin target and its
    step), counted like ``t``: a mix adds what every partition added."""

    def _initial_extra(self, est, n_features, state):
        state["n_updates"] = 0
        return state

    def _set_on(self, est, state):
        est.n_updates_ = int(state["n_updates"])
        super()._set_on(est, state)

    def _get_from(self, est):
        state = super()._get_from(est)
        state["n_updates"] = int(est.__dict__.get("n_updates_", 0))
        return state

    def _adapter_epoch(self, block, state, rng):
        # the pass reads and advances the count on the estimator its adapter
        # calls: a copy of the template per epoch, so that threads do not
        # share it
        est = copy.copy(self.estimator)
        est.n_updates_ = int(state["n_updates"])
        adapter = copy.copy(block.extra["adapter"])
        adapter.estimator = est
        block = replace(block, extra={**block.extra, "adapter": adapter})
        state, stats = super()._adapter_epoch(block, state, rng)
        state["n_updates"] = int(est.n_updates_)
        return state, stats

    def mix(self, states, weights, *, prior, rule="uniform"):
        mixed = super().mix(states, weights, prior=prior, rule=rule)
        mixed["n_updates"] = int(
            summed_count(prior["n_updates"], [s["n_updates"] for s in states])
        )
        return mixed

    def reducible(self, rule):
        if _growth.grows_classes(self.estimator):  # (gathered: see mix)
            return False
        return rule in ("uniform", "updates")

    def mix_terms(self, state, weight, rule):
        terms = super().mix_terms(state, weight, rule)
        terms["n_updates"] = float(state["n_updates"])
        return terms

    def finish_mix(self, total, *, prior, rule="uniform"):
        mixed = super().finish_mix(total, prior=prior, rule=rule)
        n0 = float(prior["n_updates"])
        mixed["n_updates"] = int(round(n0 + total["n_updates"] - total["n"] * n0))
        return mixed


class SecondOrderState(LinearState):
    """Confidence-Weighted, AROW and SCW: a linear state and its covariance
    ``sigma`` (diagonal ``(n_features + 1, n_groups)`` or full
    ``(n_groups, D, D)``); mixed by default as Gaussians
    (:func:`sklearn_pa.distributed.mix_gaussians`)."""

    mixing_rules = ("uniform", "updates", "gaussian")
    _summed = ("sigma",)  # (the Gaussian mix is not a weighted sum)

    @property
    def default_mixing(self):
        """``"gaussian"`` when the estimator's matrix is the covariance of
        a Gaussian over the weights, else ``"uniform"`` (an estimator
        says so by its ``_mixes_as_gaussian`` attribute; IELLIP's matrix
        is the shape of an ellipsoid that each mistake cuts and shrinks,
        whose Gaussian product counts the shrinkage of every partition)."""
        return "gaussian" if self.estimator._mixes_as_gaussian else "uniform"

    def _initial_extra(self, est, n_features, state):
        # the constraint rule the kernel runs (binary with two classes)
        rule = est._kernel_params()["rule"]
        state["sigma"] = est._new_sigma(n_features, est._n_groups(rule))
        return state

    def _set_on(self, est, state):
        est._sigma = state["sigma"]
        super()._set_on(est, state)

    def _get_from(self, est):
        state = super()._get_from(est)
        state["sigma"] = est._sigma
        return state

    def _mix_means(self, states, weights, prior, rule):
        if rule == "gaussian":
            est = self.estimator
            W, b, sigma = mix_second_order_gaussian(
                (prior["W"], prior["b"], prior["sigma"]),
                [(s["W"], s["b"], s["sigma"]) for s in states],
                fit_intercept=est.fit_intercept,
                intercept_scaling=est.intercept_scaling_,
            )
            return W, b, {"sigma": sigma}
        W, b, _ = super()._mix_means(states, weights, prior, rule)
        return W, b, {"sigma": linear_mix([s["sigma"] for s in states], weights)}
