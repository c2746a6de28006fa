"""The lean path of a later call: a ``partial_fit`` or ``predict`` on a
few rows costs what its rows cost.

:class:`LeanCallsMixin` (the first-order learners and the
confidence-weighted family, through :class:`~sklearn_pa.linear._base.BaseOnlineLinear`)
trusts the learned arrays the estimator published itself, checks a later
batch in O(its size) when the parameters did not change and the batch is in
the kernels' form, and scores a few rows from the weights of their features
(the averaged scores of a pending average included); anything else takes the
full validation, which gives the errors it always gave.
:class:`LeanLabelsMixin` reads a classifier's labels on that path.  The
checks are the functions below (``lean_rows``,
``lean_labels``, ``lean_targets``, ``lean_sample_weight``,
``params_unchanged``), with :class:`Session`, everything a later call of an
estimator reuses.
"""

import functools
import threading

import numpy as np
from sklearn.base import _fit_context

from .._compiled import _scores
from ..utils._atomic import session_of, set_session_type
from ._calls import (
    _MISSING,
    lean_batch,
    lean_fitted_labels,
    lean_label_targets,
    lean_labels,
    lean_rows,
    lean_sample_weight,
    lean_targets,
    params_snapshot,
    params_unchanged,
)
from .epochs import _RowView

__all__ = [
    "LeanCallsMixin",
    "LeanLabelsMixin",
    "Session",
    "call_cache",
    "lean_fitted_labels",
    "lean_labels",
    "lean_rows",
    "lean_sample_weight",
    "lean_targets",
    "params_snapshot",
    "params_unchanged",
    "session_of",
    "fitted_partial_fit_context",
    "partial_fit_context",
    "stream_started",
]

#: The attributes a ``partial_fit`` call may leave instead of ``coef_``, to
#: publish it when read: an average to compute (``_core/publication.py``), a scale
#: to fold (``linear/_scaled.py``).
PENDING_PUBLICATIONS = ("_average_pending", "_scale_pending")


def stream_started(values):
    """Whether the attribute dictionary ``values`` holds a learned model
    (``coef_``, or a publication left pending; ``hasattr(self, "coef_")``
    would compute it)."""
    if "coef_" in values:
        return True
    for name in PENDING_PUBLICATIONS:
        if name in values:
            return True
    return False


# no averaging accumulators, as score_rows reads them
_NO_ACCUMULATORS = (np.zeros((0, 1)), np.zeros(0))


try:  # scikit-learn's configuration of this thread (the dict config_context sets)
    from sklearn._config import _get_threadlocal_config
except ImportError:  # pragma: no cover - another layout: the full wrapper only
    _get_threadlocal_config = None


def fitted_partial_fit_context(started):
    """A decorator: scikit-learn's
    ``_fit_context(prefer_skip_nested_validation=True)`` for a
    ``partial_fit`` method, at O(1) cost once ``started(values)`` says that
    the estimator's attribute dictionary ``values`` holds a learned state.

    scikit-learn's wrapper finds whether the estimator is fitted by listing
    its attributes, and enters two generator-based context managers (the
    configuration and the callbacks), a fixed cost that dominates a call on
    one row.  When the estimator holds its learned state, has no callbacks
    and the package's configuration layout is the known one, this wrapper
    does what scikit-learn's does in that case: it does not validate the
    parameters again (``_is_fitted`` would be true; the call validates them
    itself whenever they changed), runs the method with
    ``skip_parameter_validation`` set for the nested calls and puts the
    previous value back afterwards, even on an error.  Any other call goes
    through scikit-learn's wrapper."""

    def decorate(partial_fit):
        full = _fit_context(prefer_skip_nested_validation=True)(partial_fit)

        @functools.wraps(partial_fit)
        def wrapper(estimator, *args, **kwargs):
            values = estimator.__dict__
            if (
                _get_threadlocal_config is None
                or not started(values)
                or "_skl_callbacks" in values
                or "_callback_fit_ctx" in values
            ):
                return full(estimator, *args, **kwargs)
            config = _get_threadlocal_config()
            previous = config.get("skip_parameter_validation")
            if previous is True:
                return partial_fit(estimator, *args, **kwargs)
            try:
                # (set inside the try: an interrupt right after it still
                # puts the previous value back)
                config["skip_parameter_validation"] = True
                return partial_fit(estimator, *args, **kwargs)
            finally:
                config["skip_parameter_validation"] = previous

        wrapper.__wrapped__ = partial_fit
        return wrapper

    return decorate


#: :func:`fitted_partial_fit_context` for the learners whose state is
#: ``coef_`` (or a publication left pending, :func:`stream_started`).
partial_fit_context = fitted_partial_fit_context(stream_started)


class LeanCallsMixin:
    """The lean path of ``partial_fit`` and of the scores (see the module
    docstring)."""

    #: Whether a later ``partial_fit`` call may take the lean path: the batch
    #: checks of :meth:`_validate_batch` are those of :func:`lean_rows` and
    #: :meth:`_lean_targets` (plus :meth:`_check_rows`).
    _lean_partial_fit = True

    def _trusted_state(self, coef, intercept):
        """The kernel arrays ``(coef, intercept, W, b, U, bu)`` that
        :meth:`_publish` last exposed, when ``coef`` and ``intercept`` are
        still the objects it published (nobody assigned others) and ``W``
        fits the model's dimensions; else None, and the arrays are checked
        as assigned ones.  O(1): a stream of calls does not scan or copy
        the model.  (Entries written in place through ``coef_`` reach
        ``W``, which ``coef_`` is a view of; the kernel checks the entries
        a step reads.)"""
        state = session_of(self).kernel_state
        if state is None or coef is not state[0] or intercept is not state[1]:
            return None
        W, b = state[2], state[3]
        if W.shape != (self.n_features_in_, self._n_columns()) or not (
            W.flags.writeable and b.flags.writeable
        ):
            return None
        return state

    def _lean_scores(self, X, checked=False):
        """The decision values ``(n_samples, n_columns)`` of ``X`` from the
        weights of its rows' features only, or None when the call needs
        the full path (scikit-learn's validation and product).

        Applies when :meth:`_lean_weights` finds the weights and ``X`` is
        in the kernels' form (:func:`lean_rows`; ``checked``: it passed it
        already).  A call on a few rows then costs what its rows cost."""
        weights = self._lean_weights()
        if weights is None:
            return None
        if not checked:
            X = lean_rows(X, self.__dict__["n_features_in_"])
            if X is None:
                return None
        W, b, U, bu, n_avg = weights
        out = np.empty((X.shape[0], W.shape[1]))
        _scores.score_rows(_RowView(X), W, b, U=U, bu=bu, n_avg=n_avg, out=out)
        return out

    def _lean_weights(self):
        """``(W, b, U, bu, n_avg)``: the feature-major weights the scores
        read (and the averaging accumulators with the number of averaged
        steps, when a ``partial_fit`` stream left its average to be computed
        when read: the scores are then those of that average, and
        ``coef_`` stays unread), or None when the scores need the full
        path.

        Applies when ``coef_`` and ``intercept_`` are dense float64 arrays
        whose transposed weights are C-contiguous (those the estimator
        publishes, or their pickled copies), or when an average is pending,
        and no feature names were fitted."""
        values = self.__dict__
        if "feature_names_in_" in values or "n_features_in_" not in values:
            return None
        n_features = values["n_features_in_"]
        pending = values.get("_average_pending")
        if pending is not None:
            if "coef_" in values or "intercept_" in values:
                return None  # assigned since the stream's last call
            W, b, U, bu, n_avg = pending
            return W, b, U, bu, float(n_avg)
        coef, b = values.get("coef_"), values.get("intercept_")
        if not (
            type(coef) is np.ndarray
            and type(b) is np.ndarray
            and coef.dtype == np.float64
            and b.dtype == np.float64
            and coef.ndim in (1, 2)
            and coef.shape[-1] == n_features
            and b.ndim == 1
        ):
            return None
        if coef.ndim == 1 or coef.shape[0] == 1:
            if not coef.flags.c_contiguous:
                return None
            W = coef.reshape(n_features, 1)
        else:
            W = coef.T
            if not W.flags.c_contiguous:
                return None
        if b.shape[0] != W.shape[1]:
            return None
        return W, b, _NO_ACCUMULATORS[0], _NO_ACCUMULATORS[1], 0.0

    #: ``_lean_batch(X, y, classes, sample_weight)``: ``(X, y,
    #: sample_weight)`` of a later ``partial_fit`` call checked in O(batch),
    #: or None when the call needs the full validation (the compiled
    #: :func:`~sklearn_pa._core._calls.lean_batch`, a method of the class).
    _lean_batch = lean_batch

    def _check_rows(self, X, lean=False):
        """Hook: the estimator's own check of the validated rows ``X``
        (refuse with a ``ValueError``; with ``lean``, return False instead
        of raising).  Accepts every row here."""
        return True

    def _lean_targets(self, y, classes, n_samples):
        """The batch's targets for the lean path (regression: finite
        numbers), or None."""
        if classes is not None:
            return None
        return lean_targets(y, n_samples)


class LeanLabelsMixin:
    """A classifier's labels on the lean path."""

    #: ``_lean_targets(y, classes, n_samples)``: the batch's labels for the
    #: lean path (single-label ``y`` of the fitted classes, ``classes``, if
    #: given, the fitted ones, class weights that do not depend on the
    #: batch), or None (the compiled
    #: :func:`~sklearn_pa._core._calls.lean_label_targets`).
    _lean_targets = lean_label_targets


class Session:
    """Everything a later call of one estimator reuses, in one object: the
    session of the estimator (:func:`session_of`).

    It lives in the package's one registry of per-estimator state, beside
    the lock that serialises the estimator's calls (kept by identity and
    held weakly, :mod:`sklearn_pa.utils._atomic`): the estimator's
    attributes, pickles, copies and clones are those of a model without
    it, and a copy never shares it.  Every entry is valid only while the
    objects it names are still those the estimator holds (the published
    learned objects, the parameter snapshot); a call that finds any of them
    replaced takes the full path and makes the entry anew.  An atomic block
    (``atomic_update``) saves the slots of :attr:`saved_slots` on entry and
    puts them back when the block fails, with the estimator's attributes:
    no slot holds an object that a call changes in place.  A read
    (``predict``, ``predict_proba``, a pending publication) writes a slot
    only holding the estimator's lock.

    Attributes
    ----------
    lock : threading.RLock
        The re-entrant lock of the estimator's calls and reads.
    kernel_state : tuple, dict or None
        The identities of the learned objects the estimator last published:
        ``(coef, intercept, W, b, U, bu)`` for the linear learners (see
        ``BaseOnlineLinear._trusted_state``), or ``{name: object}`` for
        those that publish through :func:`remember_call`.
    lean : tuple or None
        ``(params, classes)``: the :func:`params_snapshot` and the
        ``classes_`` object of the last fully validated call (a
        :func:`call_snapshot` for :func:`remember_call`).
    classes_arg : tuple or None
        The ``classes`` argument last checked against ``classes_``, with
        what it held then (:func:`_same_classes_arg`).
    members : tuple or None
        ``(classes_, set of its labels)``, for :func:`lean_labels`.
    plan : StreamPlan or None
        The set-up a later ``partial_fit`` call reuses, with the identities
        of the objects it was made for (:mod:`sklearn_pa._core.stream_plan`).
    calibration : tuple or None
        ``(margins, fitted)``: the recorded margins of a second-order
        learner and the calibration of ``predict_proba`` fitted to them.
    bayes_base : estimator or None
        The base learner the last ``partial_fit`` call of an online Bayes
        point machine prepared, reused by the next call.
    tagger_validated, tagger_checked, tagger_published : tuple or None
        A sequence tagger's parameters last validated, its own check's
        result and the identities of its published weights
        (:func:`sklearn_pa.sequence._base.tagger_cache`).
    """

    __slots__ = (
        "bayes_base",
        "calibration",
        "classes_arg",
        "kernel_state",
        "lean",
        "lock",
        "members",
        "plan",
        "tagger_checked",
        "tagger_published",
        "tagger_validated",
    )

    #: The slots an atomic block saves and puts back (all but the lock).
    saved_slots = tuple(name for name in __slots__ if name != "lock")

    def __init__(self):
        self.lock = threading.RLock()
        self.clear()

    def clear(self):
        """Forget everything (the lock stays): the next call validates
        everything and sets up anew."""
        for name in self.saved_slots:
            setattr(self, name, None)

    def saved(self):
        """The values of :attr:`saved_slots`, as an atomic block saves them."""
        return tuple(getattr(self, name) for name in self.saved_slots)


set_session_type(Session)


#: The :class:`Session` of an estimator (:func:`session_of`).
call_cache = session_of


# ----------------------------------------------------------------------------
# The lean path of the estimators outside BaseOnlineLinear: the one-class PA,
# kernel PA and the online Bayes point machine.  Each remembers, after a call
# that validated everything, the parameters it saw (those of a nested base
# estimator included, :func:`call_snapshot`) and the learned objects it
# published (:func:`remember_call`); a later call whose parameters and
# published objects are unchanged (:func:`lean_call_ready`) checks only its
# batch (:func:`lean_rows`, :func:`lean_labels`, :func:`lean_sample_weight`).

#: The row dtypes of the kernels that read float64 rows only.
FLOAT64_ROWS = (np.dtype(np.float64),)


def started_partial_fit_context(attribute, *pending):
    """:func:`fitted_partial_fit_context` for an estimator whose learned
    state is ``attribute`` (``center_``, ``dual_coef_``, ...) rather than
    ``coef_``, or one of the attributes ``pending`` that stand for it until
    it is published when read."""
    names = (attribute, *pending)
    return fitted_partial_fit_context(
        lambda values: any(name in values for name in names)
    )


def call_snapshot(estimator):
    """``(params_snapshot(estimator), nested)``: ``nested`` holds, for each
    parameter value that is itself an estimator (a base learner), that
    object and its own :func:`call_snapshot`, so that
    ``set_params(estimator__C=...)`` is a change (:func:`call_unchanged`)."""
    snapshot = params_snapshot(estimator)
    nested = tuple(
        (value, call_snapshot(value))
        for value in snapshot[1]
        if hasattr(value, "get_params") and not isinstance(value, type)
    )
    return snapshot, nested


def call_unchanged(estimator, record):
    """Whether the parameters of ``estimator``, and of the estimators among
    them, are those of the :func:`call_snapshot` ``record``."""
    snapshot, nested = record
    return params_unchanged(estimator, snapshot) and all(
        call_unchanged(value, inner) for value, inner in nested
    )


def remember_call(estimator, published, *, validated=True):
    """Remember the learned objects ``estimator`` has just published (the
    attribute names ``published``, each trusted by a later call as long as
    it is still that object) and, with ``validated``, the parameters the
    call validated.  Called last in a call, once nothing can fail."""
    cache = session_of(estimator)
    values = estimator.__dict__
    cache.kernel_state = {name: values.get(name, _MISSING) for name in published}
    if validated:
        cache.lean = call_snapshot(estimator)


def lean_call_ready(estimator):
    """Whether a later call of ``estimator`` may take the lean path: its
    parameters (and its base learner's) are those of the last fully
    validated call, no feature names were fitted, and every learned object
    remembered by :func:`remember_call` is still in place.  O(number of
    parameters + published attributes)."""
    cache = session_of(estimator)
    record, published = cache.lean, cache.kernel_state
    values = estimator.__dict__
    if (
        record is None
        or type(published) is not dict
        or "feature_names_in_" in values
        or not all(values.get(name, _MISSING) is obj for name, obj in published.items())
    ):
        return False
    return call_unchanged(estimator, record)


def trusted_published(estimator, names):
    """Whether each attribute of ``names`` is the object ``estimator``
    published last (:func:`remember_call`): then its shape and finiteness
    were checked or produced by the estimator, and need no scan."""
    published = session_of(estimator).kernel_state
    if type(published) is not dict:
        return False
    values = estimator.__dict__
    return all(
        name in published and values.get(name, _MISSING) is published[name]
        for name in names
    )
