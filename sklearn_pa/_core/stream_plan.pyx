"""The one path of a linear-family ``partial_fit`` call
(:func:`stream_call`), and the set-up a later call reuses
(:class:`StreamPlan`).

A call on a few rows must cost what its rows cost.  Every call checks its
batch once (:func:`~sklearn_pa._core._calls.check_batch`, whose first
branch accepts a batch in the kernels' form in O(its size)) and runs one
pass (:func:`sklearn_pa._core.driver.stream_epoch`), journaled for
atomicity.  What is left of a call is set-up that does not depend on the
batch: the epoch adapter (class weights, margins, the averaging start, the
one-vs-rest columns), the learned arrays found again behind the published
``coef_``, the sample counter checked again.  The session keeps it in a
:class:`StreamPlan`, with the objects the call published (``coef_``,
``intercept_``, an average left pending, ``t_``).  The next call reuses it
when each of those is still the object the plan saw (nothing was
assigned, read or refitted in between) and the cheap branch accepted the
batch and the parameters; otherwise it sets up anew and keeps that.

The module is compiled: a call on one row spends a few microseconds here,
around its compiled pass.
"""

import numpy as np

from ..utils._atomic import JOURNAL
from ._calls import check_batch
from .driver import stream_epoch
from .publication import AveragedPublicationMixin
from .session import session_of, stream_started

__all__ = ["StreamPlan", "plans_streams", "stream_call"]

_MISSING = object()


cdef tuple _published(dict values):
    """The objects a call left as the learned state (those a user would
    replace): ``coef_``, ``intercept_``, an average left pending, ``t_``,
    the covariance of the confidence-weighted family, the targets'
    strategy (which states the rule), the value of the intercept's constant
    feature."""
    return (
        values.get("coef_", _MISSING),
        values.get("intercept_", _MISSING),
        values.get("_average_pending", _MISSING),
        values.get("t_", _MISSING),
        values.get("_sigma", _MISSING),
        values.get("_target_strategy", _MISSING),
        values.get("intercept_scaling_", _MISSING),
    )


cdef bint _same_objects(tuple current, tuple published):
    cdef Py_ssize_t i
    for i in range(len(current)):
        if current[i] is not published[i]:
            return False
    return True


cdef class StreamPlan:
    """The set-up of a ``partial_fit`` stream that a later call reuses (see
    the module docstring).

    Parameters
    ----------
    adapter : _LinearEpochs
        The epoch adapter of the call that made the plan, holding the
        kernel arrays ``W``, ``b``, ``U``, ``bu`` behind the published
        state.
    published : tuple
        :func:`_published` of the estimator after that call.

    The sample counter a call starts from is read from the estimator's own
    ``t_`` (the object the plan saw), never kept here: a call that fails or
    is interrupted puts the estimator back, and with it the counter the
    next call starts from.
    """

    cdef public object adapter
    cdef public tuple published

    def __init__(self, adapter, published):
        self.adapter, self.published = adapter, published

    @classmethod
    def make(cls, estimator, X, y, sample_weight, W, b, U, bu):
        """A plan for the stream of ``estimator`` after a call that published
        ``W``, ``b``, ``U``, ``bu`` from the validated batch ``X``, ``y``,
        ``sample_weight``; None when its configuration needs the full path
        every call (an adapter of its own, threads over columns, a progress
        line, parameter mixing).  The caller checks that the adapter of
        ``estimator._stream_adapter`` is the one its passes run on."""
        est = estimator
        values = est.__dict__
        if values.get("verbose") or "_epoch_stats" in values:
            return None
        adapter = est._stream_adapter(X, y, sample_weight, W, b, U, bu)
        if adapter is None:
            return None
        _release(adapter)
        return cls(adapter, _published(values))


def stream_call(estimator, X, y, classes, sample_weight, bint record_scores=False):
    """One ``partial_fit`` call of a linear-family learner (its
    ``_partial_fit``), inside the caller's ``atomic_update``: one unstopped
    pass over the batch from the current state (the first call allocates
    it); returns the estimator, or, with ``record_scores``, the
    ``(n_samples, n_columns)`` scores each row got before its update.

    The call checks its batch once (:func:`check_batch`, whose first
    branch accepts a batch in the kernels' form in O(its size)), skips a
    batch that weighs nothing, runs one pass
    (:func:`~sklearn_pa._core.driver.stream_epoch`) and publishes the
    state.  Its set-up (the epoch adapter and the learned arrays behind the
    published ``coef_``) is the one the session's :class:`StreamPlan` kept
    when the previous call published the objects the estimator still holds
    and the cheap branch accepted the batch and the parameters; otherwise
    it is made anew (``_stream_state`` finds or checks the learned arrays,
    ``_pass_from`` builds the adapter and runs the pass) and kept for the
    next call."""
    est = estimator
    cdef dict values = est.__dict__
    cdef bint first_call = not stream_started(values)
    session = session_of(est)
    batch = check_batch(est, X, y, classes, sample_weight, first_call)
    X, y, sample_weight = batch.X, batch.y, batch.sample_weight
    if not first_call and batch.weighs_nothing:
        return est._weightless_batch(X, record_scores)
    plan = session.plan
    # (the session is put back with the estimator if the call fails)
    session.plan = None
    journal = JOURNAL.get()
    if (
        plan is not None
        and batch.snapshot is None
        and not record_scores
        and journal is not None
        and _same_objects(_published(values), (<StreamPlan> plan).published)
    ):
        # the set-up the previous call kept: bind the batch, run the pass
        adapter = (<StreamPlan> plan).adapter
        adapter.estimator = est
        try:
            # (the parameters and the targets' strategy are those of the
            # call that made the plan: checked by check_batch)
            adapter.bind(X, y, sample_weight, same_rule=True)
            n_rows = X.shape[0]
            order = _ORDER[:n_rows] if n_rows <= _ORDER.shape[0] else np.arange(n_rows)
            t, _ = stream_epoch(
                est,
                adapter,
                order,
                int(values["t_"]) - 1,
                values.get("_rng"),
                est.shuffle,
                journal,
            )
        finally:
            _release(adapter)
        est.n_iter_ = 1
        est.t_ = float(t) + 1.0
        est._publish(adapter.W, adapter.b, adapter.U, adapter.bu, lazy=True)
        # (a new plan, never this one changed in place)
        session.plan = StreamPlan(adapter, _published(values))
        return est
    W, b, U, bu, t_start = est._stream_state(X, first_call)
    scores_out = None
    if record_scores:
        scores_out = np.empty((X.shape[0], est._n_columns()), dtype=np.float64)
    est._pass_from(
        X,
        y,
        sample_weight,
        (W, b, U, bu),
        t_start=t_start,
        rng=est._rng,
        lazy=True,
        scores_out=scores_out,
    )
    if batch.snapshot is not None:
        # what the next call's cheap branch compares against
        session.lean = (batch.snapshot, values.get("classes_"))
    if plans_streams(type(est)) and session.lean is not None:
        session.plan = StreamPlan.make(est, X, y, sample_weight, W, b, U, bu)
    if record_scores:
        return scores_out
    return est


cdef _release(adapter):
    """Drop the adapter's references to the estimator and to the batch
    between calls: the plan lives in the estimator's session, which must
    not keep the estimator (nor a large batch) alive."""
    adapter.estimator = None
    adapter.X = adapter.y = adapter.rows = None
    adapter.sample_weight = adapter.labels = adapter.targets = None


# the rows of a batch in their given order (read only, shared)
_ORDER = np.arange(1024, dtype=np.int64)
_ORDER.flags.writeable = False


def plans_streams(cls):
    """Whether a ``partial_fit`` stream of ``cls`` keeps a
    :class:`~sklearn_pa._core.stream_plan.StreamPlan`: the class that states
    the adapter a plan reuses (``_stream_adapter``) also gives ``cls`` its
    passes, learned arrays, publication and ``_partial_fit`` (a subclass
    that overrides one of them runs the usual path every call)."""
    plans = _PLANS_STREAMS.get(cls)
    if plans is None:
        mro = cls.__mro__
        before = next(i for i, k in enumerate(mro) if "_stream_adapter" in k.__dict__)
        plans = _PLANS_STREAMS[cls] = not any(
            name in k.__dict__ for k in mro[:before] for name in _PLAN_METHODS
        ) and (cls._publish is AveragedPublicationMixin._publish)
    return plans


_PLAN_METHODS = (
    "_run",
    "_partial_fit",
    "_pass_from",
    "_state_arrays",
    "_publish",
    "_kernel_epoch",
    "_epoch_adapter_class",
)


_PLANS_STREAMS = {}
