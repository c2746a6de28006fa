"""The lean path of a stream: a later ``partial_fit`` call that reuses
what the previous call set up.

A call on a few rows must cost what its rows cost.  The lean checks of
:mod:`sklearn_pa._core.session` accept such a batch in O(its size); what is left
of a call is set-up that does not depend on the batch: the epoch adapter
(class weights, margins, the averaging start, the one-vs-rest columns), the
learned arrays found again behind the published ``coef_``, the sample
counter checked again.  A :class:`StreamPlan`, made after a call that ran
the full set-up, keeps that adapter, with the objects the call published
(``coef_``, ``intercept_``, an average left pending, ``t_``).  The next
call takes the plan when each of those is still the object the plan saw
(nothing was assigned, read or refitted in between) and the lean checks
accept the batch and the parameters: it binds the batch to the adapter and
runs the same pass (:func:`sklearn_pa._core.driver.stream_epoch`), journaled for
atomicity like any other.  Any other call takes the usual path, which makes
a new plan.

The module is compiled: a call on one row spends a few microseconds here,
around its compiled pass.
"""

import numpy as np

from ..utils._atomic import JOURNAL
from .batch import weighs_nothing
from .driver import stream_epoch
from .publication import AveragedPublicationMixin
from .session import session_of

__all__ = ["StreamPlan"]

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

    def partial_fit(self, estimator, X, y, classes, sample_weight):
        """Run the call on the plan, inside the caller's ``atomic_update``;
        returns False (having changed nothing) when the call needs the usual
        path."""
        est = estimator
        cdef dict values = est.__dict__
        if not _same_objects(_published(values), self.published):
            return False
        given = sample_weight is not None
        batch = est._lean_batch(X, y, classes, sample_weight)
        journal = JOURNAL.get()
        if batch is None or journal is None:
            return False
        X, y, sample_weight = batch
        if given and weighs_nothing(sample_weight):
            return True  # a no-op, as on the full path
        adapter = self.adapter
        adapter.estimator = est
        try:
            # (the parameters and the targets' strategy are those of the
            # call that made the plan: checked above)
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
        # (a new plan, never this one changed in place: a call that fails
        # after this line puts the session's previous plan back with the
        # estimator)
        session_of(est).plan = StreamPlan(adapter, _published(values))
        return True


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
