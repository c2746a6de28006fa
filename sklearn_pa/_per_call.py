"""The lean path of a later call: a ``partial_fit`` or ``predict`` on a
few rows costs what its rows cost.

:class:`LeanCallsMixin` (the first-order learners and the
confidence-weighted family, through :class:`~sklearn_pa._base.BaseOnlineLinear`)
trusts the learned arrays the estimator published itself, checks a later
batch in O(its size) when the parameters did not change and the batch is in
the kernels' form, and scores a few rows from the weights of their features
(the averaged scores of a pending average included); anything else takes the
full validation, which gives the errors it always gave.
:class:`LeanLabelsMixin` reads a classifier's labels on that path.  The
checks themselves are in :mod:`sklearn_pa._validation` (``lean_rows``,
``lean_labels``, ``lean_targets``, ``lean_sample_weight``,
``params_unchanged``).
"""

import numpy as np

from ._kernels import _first_order
from ._linear_epochs import _RowView
from ._validation import (
    call_cache,
    lean_labels,
    lean_rows,
    lean_sample_weight,
    lean_targets,
    params_unchanged,
)

__all__ = ["LeanCallsMixin", "LeanLabelsMixin"]

# no averaging accumulators, as score_rows reads them
_NO_ACCUMULATORS = (np.zeros((0, 1)), np.zeros(0))


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
        state = call_cache(self).kernel_state
        if state is None or coef is not state[0] or intercept is not state[1]:
            return None
        W, b = state[2], state[3]
        if W.shape != (self.n_features_in_, self._n_columns()) or not (
            W.flags.writeable and b.flags.writeable
        ):
            return None
        return state

    def _lean_scores(self, X):
        """The decision values ``(n_samples, n_columns)`` of ``X`` from the
        weights of its rows' features only, or None when the call needs
        the full path (scikit-learn's validation and product).

        Applies when ``coef_`` and ``intercept_`` are dense float64 arrays
        whose transposed weights are C-contiguous (those the estimator
        publishes, or their pickled copies), or when a ``partial_fit``
        stream left its average to be computed when read: the scores are
        then those of that average, from ``W`` and the accumulators of the
        rows' features, and ``coef_`` stays unread.  ``X`` must be in the
        kernels' form (:func:`lean_rows`) and no feature names fitted.  A
        call on a few rows then costs what its rows cost."""
        values = self.__dict__
        if "feature_names_in_" in values or "n_features_in_" not in values:
            return None
        n_features = values["n_features_in_"]
        pending = values.get("_average_pending")
        if pending is not None:
            if "coef_" in values or "intercept_" in values:
                return None  # assigned since the stream's last call
            W, b, U, bu, n_avg = pending
        else:
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
            U, bu, n_avg = _NO_ACCUMULATORS[0], _NO_ACCUMULATORS[1], 0.0
        X = lean_rows(X, n_features)
        if X is None:
            return None
        out = np.empty((X.shape[0], W.shape[1]))
        _first_order.score_rows(
            _RowView(X), W, b, U=U, bu=bu, n_avg=float(n_avg), out=out
        )
        return out

    def _lean_batch(self, X, y, classes, sample_weight):
        """``(X, y, sample_weight)`` of a later ``partial_fit`` call checked
        in O(batch), or None when the call needs the full validation.

        The lean path applies when the parameters are the objects (and
        contents) the last fully validated call saw, the fitted classes
        and feature count are unchanged, no feature names were fitted, and
        the batch is already in the kernels' form (:func:`lean_rows`,
        :meth:`_lean_targets`, :func:`lean_sample_weight`).  It never
        raises: a batch it does not accept goes through the full
        validation, which says what is wrong."""
        record = call_cache(self).lean
        if (
            record is None
            or not self._lean_partial_fit
            or "feature_names_in_" in self.__dict__
            or self.__dict__.get("classes_") is not record[1]
            or not params_unchanged(self, record[0])
        ):
            return None
        X = lean_rows(X, self.n_features_in_)
        if X is None:
            return None
        n_samples = X.shape[0]
        y = self._lean_targets(y, classes, n_samples)
        if y is None:
            return None
        sample_weight = lean_sample_weight(sample_weight, n_samples)
        if sample_weight is None or not self._check_rows(X, lean=True):
            return None
        return X, y, sample_weight

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

    def _lean_targets(self, y, classes, n_samples):
        """The batch's labels for the lean path: single-label ``y`` of the
        fitted classes, ``classes`` (if given) the fitted ones, class
        weights that do not depend on the batch; else None."""
        strategy = self.__dict__.get("_target_strategy")
        if (
            strategy is None
            or strategy.multi_output
            or isinstance(self.__dict__.get("class_weight"), str)
        ):
            return None
        classes_ = self.classes_
        cache = call_cache(self)
        if classes is not None and classes is not cache.classes_arg:
            given = np.asarray(classes)
            if given.ndim != 1 or given.dtype.kind == "O":
                return None
            if not np.array_equal(np.unique(given), classes_):
                return None
            # (a stream that passes the same object every call checks it once)
            cache.classes_arg = classes
        return lean_labels(classes_, y, n_samples)
