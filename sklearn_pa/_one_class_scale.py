"""The centre of the one-class PA between ``partial_fit`` calls: a scale
times a vector.

A uniclass step moves every entry of the centre (``w <- (1 - beta) w + beta
x``); the kernel (``_kernels/_uniclass.pyx``) holds it as ``a * v`` and keeps
``||w||^2`` up to date from the row, so that a step costs the row's
non-zeros.  ``fit`` folds the scale back at the end of each pass, as it
always did.  A ``partial_fit`` call keeps the model in that form, as ROMMA
and ALMA do (``_scaled_epochs.py``): the vector ``v``
(``_scale_pending``), the scale ``a`` and ``||w||^2`` (``_scale_state``)
are carried to the next call, ``center_`` is published (the scale folded,
a new array) when first read, and a few rows are scored from ``a * v`` and
the carried norm, so that neither call costs the size of the model.

A call's rollback journal saves the entries of ``v`` its rows touch (the
scale and norm are a new array per call); the fold of a tiny scale (below
1e-9, a step with ``beta`` near 1), which writes every entry, saves the
whole vector first (:func:`stream_passes`).
"""

import numpy as np
import scipy.sparse as sp

from ._averaging import _same_values
from ._kernels import _uniclass
from ._validation import current_journal, estimator_lock, sum_of_squares

__all__ = ["ScaledCentreMixin", "new_scale_state", "stream_passes"]

# entries compared at a time with the published centre
_BLOCK = 1024

# the attributes of the scaled centre a partial_fit call leaves
_PENDING = ("_scale_pending", "_scale_state", "_scale_published")


def new_scale_state():
    """``[a, ||w||^2, whole, done]`` for the kernel's ``state``: scale 1,
    the norm to compute at entry."""
    return np.array([1.0, np.nan, 0.0, 0.0])


def stream_passes(rows, order, w, extra, state, **kwargs):
    """One ``partial_fit`` pass of the uniclass kernel over ``order`` that
    keeps the scale and the norm in ``state``: the kernel stops before a
    step that folds the scale (it writes every entry of ``w``) unless the
    whole centre is saved in the rollback journal, which is done then, once.
    Returns the kernel's ``(outside, updates, skipped, overflow)`` summed
    over the parts."""
    totals = [0, 0, 0, False]
    start = 0
    while True:
        stats = _uniclass.epoch(rows, order[start:], w, extra, state=state, **kwargs)
        totals = [totals[i] + int(stats[i]) for i in range(3)] + [
            totals[3] or bool(stats[3])
        ]
        start += int(state[3])
        if start >= order.shape[0] or stats[3]:
            return tuple(totals)
        journal = current_journal()
        if journal is not None:
            journal.save(w)
        state[2] = 1.0


class ScaledCentreMixin:
    """The scaled centre of :class:`~sklearn_pa.PassiveAggressiveOneClass`
    between ``partial_fit`` calls (see the module's description)."""

    def _centre_assigned(self):
        """Whether ``center_`` was assigned or edited since the last
        ``partial_fit`` call left the centre scaled: an attribute that is
        not the copy published when read, or that copy written in place
        since (its values are no longer ``a * v``: one pass over the
        model, only while the published copy is held)."""
        values = self.__dict__
        if "_scale_pending" not in values or "center_" not in values:
            return False
        centre = values["center_"]
        if centre is not values.get("_scale_published"):
            return True
        # (by blocks: no copy of the model is made)
        v, scale = values["_scale_pending"], values["_scale_state"][0]
        if centre.shape != v.shape:
            return True
        return any(
            not np.array_equal(centre[i : i + _BLOCK], v[i : i + _BLOCK] * scale)
            for i in range(0, v.shape[0], _BLOCK)
        )

    def _folded_centre(self):
        """A new array ``a * v``: the centre a ``partial_fit`` call left as a
        scale times a vector (one pass over the model); ``v`` itself stays,
        so that a stream goes on bit for bit whether ``center_`` was read or
        not."""
        values = self.__dict__
        return values["_scale_pending"] * values["_scale_state"][0]

    def _drop_scale(self):
        """Forget the scaled centre (an assigned ``center_`` or a fit starts
        the model again)."""
        for name in _PENDING:
            self.__dict__.pop(name, None)

    def _pending_centre(self, compare=False):
        """``(v, state)`` of the scaled centre a ``partial_fit`` call left,
        when it is still the model (of the fitted width, ``center_`` not
        assigned since or, with ``compare``, assigned the model's values:
        one pass over the model, and the stream goes on from its scale as if
        nothing was assigned); None otherwise."""
        values = self.__dict__
        v = values.get("_scale_pending")
        if v is None or v.shape != (values.get("n_features_in_"),):
            return None
        if self._centre_assigned() and not (
            compare and _same_values(values["center_"], self._folded_centre())
        ):
            return None
        return v, values["_scale_state"]

    def _stream_centre(self, centre):
        """The vector a ``partial_fit`` pass updates in place, and sets the
        pass's scale state ``_scale_stream``: the carried ``v`` and a copy of
        its state (a failed call leaves the previous one in place), or else
        a copy of ``centre()`` (the published or assigned centre, read
        once) at scale 1, its norm computed at the kernel's entry."""
        pending = self._pending_centre(compare=True)
        if pending is not None:
            v, state = pending
            state = state.copy()
            state[2] = 0.0
            self._scale_stream = state
            return v
        if "_scale_pending" in self.__dict__:
            # an assigned centre starts the stream again (the scaled one
            # published first, where it was not read)
            self.center_  # noqa: B018
            self._drop_scale()
        w = centre().copy()
        self._scale_stream = new_scale_state()
        return w

    def _publish_scaled(self, v):
        """Keep ``v`` and the pass's scale state as the model; ``center_``
        is published when read (:meth:`__getattr__`)."""
        values = self.__dict__
        state = values.pop("_scale_stream")
        values.pop("center_", None)
        values.pop("_scale_published", None)
        state[2] = state[3] = 0.0
        self._scale_state = state
        self._scale_pending = v

    def __getattr__(self, name):
        # only reached when ``name`` is not found: the centre a partial_fit
        # call left as a scale times a vector, published as a new array
        values = self.__dict__
        if name == "center_" and "_scale_pending" in values:
            # (published under the lock: never over a call in progress)
            with estimator_lock(self):
                if "center_" not in values and "_scale_pending" in values:
                    centre = self._folded_centre()
                    values.setdefault("center_", centre)
                    self._scale_published = centre
                if "center_" in values:
                    return values["center_"]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def _squared_distances(self, X):
        """``||x - center_||^2`` of each row of ``X`` (float64, dense or
        canonical CSR of the fitted width): from the scaled centre and its
        carried norm where a ``partial_fit`` call left one (a CSR row costs
        its non-zeros), else from ``center_``."""
        pending = self._pending_centre()
        if pending is None:
            w, scale, norm_sq = np.asarray(self.center_, dtype=np.float64), 1.0, None
        else:
            w, state = pending
            scale, norm_sq = float(state[0]), float(state[1])
        if not sp.issparse(X):
            diff = X - (w if scale == 1.0 else w * scale)
            return np.einsum("ij,ij->i", diff, diff)
        if norm_sq is None:
            # (no BLAS: its threads wake on a model-sized dot product, and on
            # a busy machine a call then waits for them)
            norm_sq = sum_of_squares(w)
        # ||w||^2 - ||w_S||^2 + sum_S (x_j - w_j)^2 per row (S its
        # non-zeros): O(nnz), and no cancellation on the support
        w_at = w[X.indices] * scale
        terms = (X.data - w_at) ** 2 - w_at**2
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        sq = np.bincount(rows, weights=terms, minlength=X.shape[0]) + norm_sq
        return np.maximum(sq, 0.0)
