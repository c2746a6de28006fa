"""The lean path of kernel PA: a later ``partial_fit`` or ``predict`` call
on a few rows checks only its rows.

A call on the lean path trusts the support set and dual coefficients the
last call published (they are neither checked again nor scanned for NaN by
``pairwise_kernels``), checks its batch in O(its size) and evaluates the
kernel between its rows and the support set, the algorithm's own cost.
See :mod:`sklearn_pa._core.session`.
"""

import numpy as np

from .._core._calls import finite_inputs
from .._core.batch import fitted_rows
from .._core.session import (
    FLOAT64_ROWS,
    lean_call_ready,
    lean_rows,
    lean_sample_weight,
    trusted_published,
)

__all__ = ["LeanKernelMixin"]

# the learned objects a call publishes, trusted by the next one while they
# are still in place (see _per_call.remember_call)
_PUBLISHED = (
    "support_vectors_",
    "dual_coef_",
    "_sv_stamp",
    "_sv_kdiag",
    "classes_",
    "_expanded_class_weight",
)


class LeanKernelMixin:
    """The lean path of the kernel PA estimators (see the module
    docstring)."""

    def _lean_batch(self, X, y, classes, sample_weight):
        """The cheap branch of :func:`~sklearn_pa._core.batch.check_batch`
        for a later ``partial_fit`` call: ``(X, y, sample_weight)`` checked
        in O(the batch) (:func:`~sklearn_pa._core.session.lean_rows`,
        :meth:`_lean_targets`,
        :func:`~sklearn_pa._core.session.lean_sample_weight`) when the
        parameters and the published support set are those of the last call
        (:func:`~sklearn_pa._core.session.lean_call_ready`), so that neither
        is checked again; None when the call needs the full validation."""
        if not lean_call_ready(self):
            return None
        X = lean_rows(X, self.n_features_in_, FLOAT64_ROWS)
        if X is None:
            return None
        y = self._lean_targets(y, classes, X.shape[0])
        if y is None:
            return None
        sample_weight = lean_sample_weight(sample_weight, X.shape[0])
        if sample_weight is None:
            return None
        return X, y, sample_weight

    def _published_state(self):
        """The state a call continues from, read from the support set and
        dual coefficients the last call published (trusted: a call whose
        batch the cheap branch accepted checks neither again).  The pass
        itself evaluates the kernel between the batch and the support set:
        that cost is the algorithm's."""
        return {
            "sv": self.support_vectors_,
            "alpha": np.ascontiguousarray(self.dual_coef_.T),
            "stamp": self._sv_stamp,
            "kdiag": self._sv_kdiag,
            "next_stamp": self._next_stamp,
        }

    def _decision(self, X):
        values = self.__dict__
        if "feature_names_in_" not in values and trusted_published(
            self, ("support_vectors_", "dual_coef_")
        ):
            # rows in the kernels' form, the support set published by this
            # estimator: neither is checked again (nor scanned for NaN by
            # pairwise_kernels); the kernel against the support set stays
            rows = lean_rows(X, values.get("n_features_in_"), FLOAT64_ROWS)
            if rows is not None:
                with finite_inputs():
                    return self._expansion(rows)
        X = fitted_rows(self, X)
        return self._expansion(X)
