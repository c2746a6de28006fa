# scikit-learn's weighting of a step (``weight_scaling="step"`` of the PA
# estimators, the first-order kernel's ``weight_step``): the rule solves the
# unweighted problem (``C`` alone, class weights of one), then its step is
# multiplied by the sample's weight and its class's, as scikit-learn's SGD
# does (``update *= class_weight * sample_weight``), so a weight above 1 can
# step past the margin.  The default weighting multiplies ``C`` instead.

from libc.stdlib cimport malloc

from ._rules_linear cimport Rule


cdef inline void scale_step_by_weights(
    int rule, const int *labels, Py_ssize_t i, double w_i,
    const double *weight_pos, const double *weight_neg,
    double *delta, const Py_ssize_t *changed, Py_ssize_t n_changed,
) noexcept nogil:
    """Multiply the step of row ``i`` (``delta`` of the ``changed`` columns)
    by ``w_i`` and the class weight: one-vs-rest scales column ``k`` by its
    own weight (``weight_pos[k]`` on its positive rows, ``weight_neg[k]`` on
    the others), the other classification rules by ``weight_pos[y]``, the
    regression and multilabel rules by ``w_i`` alone."""
    cdef Py_ssize_t r, k, y
    cdef double factor
    if rule == Rule.OVR:
        y = labels[i]
        for r in range(n_changed):
            k = changed[r]
            delta[k] *= w_i * (weight_pos[k] if k == y else weight_neg[k])
        return
    if (
        rule == Rule.BINARY or rule == Rule.MAX_LOSS or rule == Rule.PREDICTION
        or rule == Rule.SUPPORT or rule == Rule.MIRA
        or rule == Rule.PERCEPTRON_MAX or rule == Rule.PERCEPTRON_UNIFORM
        or rule == Rule.PERCEPTRON_SCORE or rule == Rule.OGD
    ):
        factor = w_i * weight_pos[labels[i]]
    elif (
        rule == Rule.REGRESSION or rule == Rule.GRADIENT
        or rule == Rule.NORMALIZED_GRADIENT or rule == Rule.MULTILABEL
        or rule == Rule.MULTILABEL_RANKING
    ):
        factor = w_i
    else:
        # no other rule reaches the kernel (``sklearn_pa/_core/rules.py``)
        return
    for r in range(n_changed):
        delta[changed[r]] *= factor


cdef inline double *unit_weights(Py_ssize_t K) noexcept nogil:
    """``max(K, 2)`` class weights of one (``malloc``: the caller frees
    them), what the unweighted rule reads; NULL when out of memory."""
    cdef Py_ssize_t k
    cdef double *ones = <double *> malloc(max(K, 2) * sizeof(double))
    if ones != NULL:
        for k in range(max(K, 2)):
            ones[k] = 1.0
    return ones
