"""The averaged model a stream of ``partial_fit`` calls publishes.

:class:`AveragedPublicationMixin` holds how a first-order learner exposes its
kernel state as ``coef_`` / ``intercept_``: the standard weights ``W``, ``b``
as a view, or, with ``average``, the average ``W - U / n`` of the iterates
from the lazy accumulators ``U``, ``bu``, computed when ``coef_`` or
``intercept_`` is first read after a ``partial_fit`` call (a stream that
reads neither in between pays for one average, not one per call), and told
apart from weights a user assigned.  :class:`~sklearn_pa.linear._base.BaseOnlineLinear`
uses it.
"""

import numpy as np
import scipy.sparse as sp

from .batch import estimator_lock
from .session import session_of

__all__ = ["AveragedPublicationMixin", "PublishedWhenReadMixin"]


def _is_pending(marker):
    """Whether the value of a publication's marker attribute says that it
    is pending (set, and neither None nor False)."""
    return marker is not None and marker is not False


class PublishedWhenReadMixin:
    """The one protocol of the learned attributes a ``partial_fit`` call
    leaves to be formed when first read.

    A stream of calls that never reads ``coef_`` (or ``center_``, a
    tagger's weights, ...) in between pays for one publication, not one per
    call: the call leaves a marker attribute instead, and the first read of
    a published name forms it.  A class states its publications in
    ``_publishes_when_read``: tuples ``(marker, names, form)``.  While the
    attribute ``marker`` is set (and neither None nor False), reading one of
    ``names`` that is not set calls the method ``form`` holding the
    estimator's lock (never over a call in progress); it returns ``{name:
    value}`` (or None when it set the attributes itself), each set unless
    assigned by hand since, and clears the marker or leaves it as the
    publication needs.  The publications of every class of the MRO are
    tried in its order (a scale folded before an average is formed)."""

    _pending_publications = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        publications = []
        for klass in cls.__mro__:
            for publication in klass.__dict__.get("_publishes_when_read", ()):
                if publication not in publications:
                    publications.append(publication)
        cls._pending_publications = tuple(publications)

    def __getattr__(self, name):
        # only reached when ``name`` is not found
        values = self.__dict__
        for marker, names, form in type(self)._pending_publications:
            if name in names and _is_pending(values.get(marker)):
                with estimator_lock(self):
                    if name not in values and _is_pending(values.get(marker)):
                        published = getattr(self, form)()
                        for key, value in (published or {}).items():
                            values.setdefault(key, value)
                    if name in values:
                        return values[name]
        # anything else: the lookup's own error again (a class attribute
        # whose getter raised, such as a predict_proba that is not there,
        # keeps its message)
        return object.__getattribute__(self, name)


def _same_values(current, published):
    """Whether the attribute ``current`` is the array ``published`` or holds
    its values (an assigned copy, another layout, ``sparsify()``)."""
    if current is published:
        return True
    if sp.issparse(current):
        current = current.toarray()
    try:
        return np.array_equal(np.asarray(current, dtype=float), published)
    except (TypeError, ValueError):
        return False


class AveragedPublicationMixin(PublishedWhenReadMixin):
    """The publication of the learned state as ``coef_`` / ``intercept_``,
    averaged or not (see the module docstring)."""

    #: the average a partial_fit call left to be computed when read
    _publishes_when_read = (
        ("_average_pending", ("coef_", "intercept_"), "_form_average"),
    )

    def __getstate__(self):
        """The pickled state (a pending average is computed first)."""
        with estimator_lock(self):
            if self.__dict__.get("_average_pending") is not None:
                self.coef_  # noqa: B018 (computes the pending average)
            return super().__getstate__()

    def _averaging_state(self):
        """Whether the fitted state holds averaging accumulators (the model
        was last trained with ``average``) that still describe it: a
        ``coef_`` or ``intercept_`` assigned since they were published is
        the new starting point, from which the average starts again."""
        if getattr(self, "_average_accum", None) is None:
            return False
        if self.__dict__.get("_average_pending") is not None:
            # the average is not computed yet: an attribute present was
            # assigned by hand
            return "coef_" not in self.__dict__ and "intercept_" not in self.__dict__
        published = self.__dict__.get("_published_average")
        if published is None:
            return True
        current = (self.coef_, self.intercept_)
        if not all(_same_values(c, mine) for c, mine in zip(current, published)):
            return False
        if not any(c is mine for c, mine in zip(current, published)):
            return True
        # the published arrays themselves: written in place since? (one
        # pass over the model, by blocks, only while they are held)
        mine = [c is m for c, m in zip(current, published)]
        return not self._average_edited(*current, *mine)

    def _average_edited(self, coef, intercept, check_coef=True, check_b=True):
        """Whether the published ``coef`` / ``intercept`` (those flagged)
        no longer hold the average the accumulators describe, computed as
        :meth:`_publish_average` computes it (bit for bit), a block of
        features at a time (no copy of the model)."""
        values = self.__dict__
        U, bu = values["_average_accum"], values["_average_intercept_accum"]
        n_features, n_columns = U.shape
        W = np.asarray(values["_standard_coef"]).reshape(n_columns, n_features).T
        b = values["_standard_intercept"]
        n_avg = self.t_ - self._average_start()
        expected_b = b if n_avg < 1 else b - bu / n_avg
        if check_b and not np.array_equal(np.ravel(intercept), np.ravel(expected_b)):
            return True
        if not check_coef:
            return False
        published = np.asarray(coef).reshape(n_columns, n_features).T
        step = max(1, 8192 // max(1, n_columns))
        for r in range(0, n_features, step):
            rows = slice(r, r + step)
            if n_avg < 1:
                block = W[rows]
            else:
                block = np.multiply(U[rows], -1.0 / n_avg)
                block += W[rows]
            if not np.array_equal(published[rows], block):
                return True
        return False

    def _average_start(self):
        """The sample count at which averaging starts: 1 for
        ``average=True``, the ``average`` parameter when it is an int, and
        for ``average="epoch"`` the first step of the last epoch of ``fit``
        (1 before any, or the first step of a ``partial_fit`` stream)."""
        if isinstance(self.average, str):
            return int(self.__dict__.get("_average_from", 1))
        return 1 if self.average is True else int(self.average)

    def _publish(self, W, b, U=None, bu=None, *, lazy=False):
        """Expose the kernel state as coef_ / intercept_ (averaged if asked).

        ``W`` (feature-major) and ``b`` are the standard weights; ``U`` and
        ``bu`` the lazy averaging accumulators, with which the average over
        the steps since ``_average_start()`` is ``W - U / n_avg``.  Without
        them ``coef_`` is a view of ``W``; with them the standard weights are
        kept privately (``_standard_coef``, ``_standard_intercept``) for the
        next ``partial_fit`` and ``coef_`` is the average.  With ``lazy``
        (a ``partial_fit`` call) the average is computed when ``coef_`` or
        ``intercept_`` is first read (:meth:`__getattr__`): a stream of calls
        that reads neither in between pays for one average, not one per
        call.  Reads ``t_``, which must be set first.  A subclass whose state
        is not one weight column per output overrides it (and
        ``_state_arrays``).
        """
        self.__dict__.pop("_average_pending", None)
        if U is None:
            self._average_accum = self._average_intercept_accum = None
            self._standard_coef = self._standard_intercept = None
            self._published_average = None
            self.coef_ = self._shape_coef(W.T)
            self.intercept_ = b
            session_of(self).kernel_state = (self.coef_, b, W, b, None, None)
            return
        self._average_accum, self._average_intercept_accum = U, bu
        self._standard_coef, self._standard_intercept = self._shape_coef(W.T), b
        session_of(self).kernel_state = (self._standard_coef, b, W, b, U, bu)
        n_avg = self.t_ - self._average_start()  # averaged steps so far
        if lazy and n_avg >= 1:
            self.__dict__.pop("coef_", None)
            self.__dict__.pop("intercept_", None)
            self._published_average = None
            self._average_pending = (W, b, U, bu, n_avg)
            return
        self._publish_average(W, b, U, bu, n_avg)

    def _form_average(self):
        """Compute the average a ``partial_fit`` call left pending (an
        attribute assigned by hand since is kept)."""
        values = self.__dict__
        self._publish_average(*values["_average_pending"], keep_assigned=True)
        del values["_average_pending"]

    def _publish_average(self, W, b, U, bu, n_avg, *, keep_assigned=False):
        """Set coef_ / intercept_ to the average ``W - U / n_avg`` (the
        iterate while ``n_avg < 1``); with ``keep_assigned`` (a pending
        average computed when read) an attribute assigned by hand since the
        ``partial_fit`` call is kept."""
        coef = self.__dict__.get("coef_") if keep_assigned else None
        intercept = self.__dict__.get("intercept_") if keep_assigned else None
        if n_avg >= 1:
            # W - U / n_avg in a new (D, K) array, never in the one a
            # previous coef_ views (a call that fails puts that coef_ back,
            # unchanged); coef_ is its transposed view, as in the unaveraged
            # case, where coef_ is a view of W
            avg = np.empty_like(W)
            # by blocks of rows that stay in cache between the two passes
            step = max(1, (1 << 16) // max(1, W.shape[1]))
            for r in range(0, W.shape[0], step):
                rows = slice(r, r + step)
                np.multiply(U[rows], -1.0 / n_avg, out=avg[rows])
                avg[rows] += W[rows]
            published = (self._shape_coef(avg.T), b - bu / n_avg)
        else:
            published = (self._shape_coef(W.copy().T), b.copy())
        self.coef_ = published[0] if coef is None else coef
        self.intercept_ = published[1] if intercept is None else intercept
        # (the objects published: an assigned coef_ is told apart by identity)
        self._published_average = published
