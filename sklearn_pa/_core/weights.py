"""The fit-time warning of the learners whose rule gives ``sample_weight``
and ``class_weight`` no say (:class:`~sklearn_pa.exceptions.InactiveWeightsWarning`).

Elsewhere a weight scales a step or the bound ``C`` of a step at the
default parameters, with a visible effect
(``tests/test_weights.py::test_weights_have_an_effect_or_a_warning``)."""

import warnings

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.extmath import row_norms

from ..exceptions import InactiveWeightsWarning

__all__ = ["warn_mira_weights", "warn_romma_weights"]


def _row_weights(estimator, y, sample_weight):
    """Each row's weight (sample weight times class weight), or None when
    no weight was given."""
    class_weight = getattr(estimator, "class_weight", None)
    if sample_weight is None and class_weight is None:
        return None
    weights = np.ones(len(y))
    if sample_weight is not None:
        weights = weights * np.broadcast_to(np.asarray(sample_weight, float), len(y))
    if class_weight is not None and np.ndim(y) == 1:
        weights = weights * compute_sample_weight(class_weight, y)
    return weights


def warn_mira_weights(estimator, X, y, sample_weight):
    """MIRA's weights scale the bound 1 on the true class's step; warn when
    the rows' steps (about ``margin / ||x||^2`` each) stay below their
    weighted bound on most rows, where a weight changes nothing."""
    weights = _row_weights(estimator, np.asarray(y), sample_weight)
    if weights is None:
        return
    sq_norms = row_norms(check_array(X, accept_sparse="csr", dtype=float), squared=True)
    if estimator.fit_intercept:
        sq_norms = sq_norms + getattr(estimator, "intercept_scaling_", 1.0) ** 2
    weighted = weights > 0
    if not weighted.any() or estimator.margin == 0:
        return
    typical_step = estimator.margin / sq_norms[weighted]
    binding = np.mean(weights[weighted] < typical_step)
    if binding < 0.5:
        median = float(np.median(sq_norms[weighted]))
        warnings.warn(
            f"{type(estimator).__name__}: sample_weight and class_weight scale "
            "the bound 1 on the true class's step, and the steps on these data "
            f"(about margin / ||x||^2 = {estimator.margin / median:.3g}) stay "
            f"below their weighted bound on {1 - binding:.0%} of the rows, "
            "where a weight changes nothing.  Set margin to about ||x||^2 "
            f"(margin={median:.3g} here) for the weights to bind, or use "
            'PassiveAggressiveClassifier (weight_scaling="step").',
            InactiveWeightsWarning,
            stacklevel=5,
        )


def warn_romma_weights(estimator, sample_weight):
    """ROMMA's step has no size: a weight only skips its row when zero."""
    if sample_weight is None:
        return
    weights = np.asarray(sample_weight, dtype=float)  # (fit checked it)
    if np.any((weights != 0) & (weights != 1)):
        warnings.warn(
            f"{type(estimator).__name__} has no step size: sample_weight only "
            "skips the rows of weight 0, its other values have no effect.  "
            'PassiveAggressiveClassifier (weight_scaling="step") or '
            "PerceptronClassifier scale their step by the weights.",
            InactiveWeightsWarning,
            stacklevel=5,
        )
