"""The lean path of the online Bayes point machine: a later ``partial_fit``
or ``decision_function`` call on a few rows costs what its rows cost.

A call on the lean path trusts the copies' arrays the last call published,
reuses the base learner that call prepared, checks its batch in O(its
size) and leaves the Bayes point (``coef_``, a product over the whole
model) to be computed when read; the scores of a few rows come from the
copies' weights of their features.  See :mod:`sklearn_pa._core.session`.
"""

import numpy as np

from .._compiled import _scores
from .._core.epochs import _RowView
from .._core.publication import PublishedWhenReadMixin
from .._core.session import (
    _NO_ACCUMULATORS,
    FLOAT64_ROWS,
    lean_call_ready,
    lean_fitted_labels,
    lean_rows,
    lean_sample_weight,
    session_of,
    trusted_published,
)

__all__ = ["LeanBayesPointMixin"]

# the learned objects a call publishes, trusted by the next one while they
# are still in place (see _per_call.remember_call)
_PUBLISHED = (
    "_W",
    "_b",
    "n_mistakes_",
    "copy_weights_",
    "classes_",
    "_class_weight",
    "intercept_scaling_",
)


class LeanBayesPointMixin(PublishedWhenReadMixin):
    """The lean path of :class:`~sklearn_pa.OnlineBayesPointClassifier`
    (see the module docstring)."""

    #: the Bayes point a partial_fit call left to be computed when read
    _publishes_when_read = (
        ("_bayes_point_pending", ("coef_", "intercept_"), "_form_bayes_point"),
    )

    def _bayes_point(self):
        """``(coef_, intercept_)`` of the copies and ``copy_weights_``."""
        c = self.copy_weights_
        K = self._W.shape[1] // c.shape[0]
        # sum_r c_r W[:, r K : (r + 1) K] as one product, without copying W
        mix = np.kron(c[:, None], np.eye(K))  # (M * K, K)
        return np.ascontiguousarray((self._W @ mix).T), self._b @ mix

    def _form_bayes_point(self):
        """The Bayes point a ``partial_fit`` call left to be computed when
        read (an attribute assigned since is kept:
        ``PublishedWhenReadMixin``)."""
        coef, intercept = self._bayes_point()
        return {"coef_": coef, "intercept_": intercept}

    def _lean_batch(self, X, y, classes, sample_weight):
        """The cheap branch of a later ``partial_fit`` call's check:
        ``(X, y, sample_weight)`` checked in O(the batch) when the
        parameters (the base learner's included) and the copies' arrays are
        those of the last call
        (:func:`~sklearn_pa._core.session.lean_call_ready`), so that neither
        is checked again, and that call's base learner is kept in the
        session; None when the call needs the full validation.  The copies
        then move on the rows' features only (journaled by the epoch
        adapter) and the Bayes point is published when read."""
        base = session_of(self).bayes_base
        if base is None or not lean_call_ready(self):
            return None
        X = lean_rows(X, self.n_features_in_, FLOAT64_ROWS)
        if X is None:
            return None
        y = self._lean_labels(y, classes, base, X.shape[0])
        if y is None:
            return None
        sample_weight = lean_sample_weight(sample_weight, X.shape[0])
        if sample_weight is None:
            return None
        return X, y, sample_weight

    def _lean_labels(self, y, classes, base, n_samples):
        """The batch's labels for the lean path: every row labeled with a
        fitted class, ``classes`` (if given) the fitted ones, class weights
        that do not depend on the batch; else None."""
        if isinstance(base.class_weight, str):
            return None
        return lean_fitted_labels(self, y, classes, n_samples)

    def _lean_decision(self, X):
        """The Bayes point's scores of a few rows in the kernels' form
        (:func:`~sklearn_pa._core.session.lean_rows`) while a ``partial_fit``
        stream left it to be computed when read: ``sum_r c_r (x . w_r)``
        from the copies' weights of the rows' features, ``coef_`` left
        unread.  None when the call needs the full path: the Bayes point
        published (or assigned), feature names, more non-zeros than
        features times classes (the published Bayes point then costs
        less), or arrays
        the estimator did not publish itself."""
        values = self.__dict__
        if (
            not values.get("_bayes_point_pending")
            or "coef_" in values
            or "intercept_" in values
            or "feature_names_in_" in values
            or not trusted_published(self, ("_W", "_b", "copy_weights_"))
        ):
            return None
        W, b, c = values["_W"], values["_b"], values["copy_weights_"]
        n_features = W.shape[0]
        if values.get("n_features_in_") != n_features:
            return None
        X = lean_rows(X, n_features, FLOAT64_ROWS)
        if X is None:
            return None
        n, M = X.shape[0], c.shape[0]
        K = W.shape[1] // M
        # the rows' weights cost nnz M K; the Bayes point n_features M K^2
        if (X.nnz if hasattr(X, "nnz") else X.size) > n_features * K:
            return None
        per_copy = np.empty((n, W.shape[1]))
        U, bu = _NO_ACCUMULATORS
        _scores.score_rows(
            _RowView(X), W, np.zeros(W.shape[1]), U=U, bu=bu, n_avg=0.0, out=per_copy
        )
        scores = per_copy.reshape(n, M, K).transpose(0, 2, 1) @ c
        scores += b.reshape(M, K).T @ c
        return scores.ravel() if K == 1 else scores
