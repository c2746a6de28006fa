# The second-order regression steps (constraint rule ``SO_REGRESSION`` of
# ``_second_order.pyx``), one named inline function per rule.  The weights are
# Gaussian, w ~ N(mu, Sigma); a row with target ``y`` has the residual
# ``e = y - mu.x`` and the variance ``v = x^T Sigma x``.  A step moves the mean
# by ``alpha`` (signed) times ``Sigma x`` and adds ``d x x^T`` to the precision
# ``Sigma^-1``: the full covariance takes the Sherman-Morrison form
# ``Sigma -= d / (1 + d v) (Sigma x)(Sigma x)^T``; the diagonal one either its
# diagonal (AROW, as Jubatus' and Hivemall's AROW) or the diagonal precision
# ``1 / Sigma_jj += d x_j^2`` (CW and NHERD, as Jubatus).  Each rule steps only
# when the epsilon-insensitive loss ``|e| - epsilon`` is positive; ``w`` (> 0)
# is the sample weight.  Each rule sets ``alpha`` and ``prec`` of the
# ``SecondOrderStep`` (``regression_step`` initialises every field first,
# ``init_step``).  References (the code each rule transcribes):
#
# - jubatus_core ``jubatus/core/regression/arow.cpp``, ``confidence_weighted.cpp``
#   and ``normal_herd.cpp`` (``train`` and ``update``);
# - Hivemall ``core/src/main/java/hivemall/regression/AROWRegressionUDTF.java``
#   (``train_arow_regr``, ``train_arowe_regr``).
#
# ``tests/test_oracle_second_order_regression.py`` checks AROW and CW against a
# generic solver of their optimisation problems, NHERD against a NumPy
# transcription of Jubatus.

from libc.math cimport sqrt, fabs

from ._rules_second_order cimport (
    SecondOrderParams, SecondOrderRule, SecondOrderStep, init_step,
)


cdef inline double regression_loss(double e, double epsilon) noexcept nogil:
    """The epsilon-insensitive loss ``max(0, |e| - epsilon)``."""
    cdef double l = fabs(e) - epsilon
    return l if l > 0.0 else 0.0


cdef inline void arow_regression_step(
    double e, double v, double epsilon, double r, double w,
    SecondOrderStep *s,
) noexcept nogil:
    """AROW regression (Jubatus ``arow::train``, Hivemall AROWe with
    Jubatus' ``regularization_weight = 1 / r``): the minimiser of

        KL(N(mu, Sigma) || N(mu_t, Sigma_t))
        + (max(0, |y - mu.x| - epsilon)^2 + x^T Sigma x) / (2 r / w),

    ``alpha = sign(e) (|e| - epsilon) / (v + r / w)``, precision ``+= (w / r)
    x x^T``, i.e. ``beta = 1 / (v + r / w)``."""
    cdef double l = fabs(e) - epsilon
    if not l > 0.0 or not v > 0.0 or not w > 0.0:
        return
    s.alpha = (l if e > 0.0 else -l) / (v + r / w)
    s.prec = w / r


cdef inline void cw_regression_step(
    double e, double v, double epsilon, double phi, double w,
    SecondOrderStep *s,
) noexcept nogil:
    """CW regression (Jubatus ``confidence_weighted::train``, its
    ``regularization_weight`` being ``phi``): the variance form of CW
    (Crammer, Dredze & Pereira 2008) on the margin ``M = -|e|`` of the residual
    sign ``s = sign(e)``,

        min KL(N(mu, Sigma) || N(mu_t, Sigma_t))
        s.t. s (mu.x - y) >= phi x^T Sigma x,

    whose multiplier is the positive root ``gamma`` of
    ``2 phi v^2 g^2 + (1 - 2 phi |e|) v g - (|e| + phi v) = 0`` (Jubatus:
    ``(-b + sqrt(b^2 + 8 phi (|e| + phi v))) / (4 phi v)``, ``b = 1 - 2 phi
    |e|``; written here without cancellation), scaled by the sample weight:
    ``alpha = s gamma w``, precision ``+= 2 gamma w phi x x^T``.  Jubatus steps
    when ``|e| > epsilon`` (its ``sensitivity``), with the whole ``|e|`` in
    the multiplier."""
    cdef double a = fabs(e), b, disc, g
    if not a > epsilon or not v > 0.0 or not w > 0.0:
        return
    b = 1.0 - 2.0 * phi * a
    disc = sqrt(b * b + 8.0 * phi * (a + phi * v))
    if b > 0.0:
        g = 2.0 * (a + phi * v) / (v * (b + disc))
    else:
        g = (disc - b) / (4.0 * phi * v)
    g = g * w
    s.alpha = g if e > 0.0 else -g
    s.prec = 2.0 * g * phi


cdef inline void nherd_regression_step(
    double e, double v, double epsilon, double C, double w,
    SecondOrderStep *s,
) noexcept nogil:
    """NHERD regression (Jubatus ``normal_herd::train``, ``C`` its
    ``regularization_weight``; Crammer & Lee 2010's herding update on the
    epsilon-insensitive loss): ``alpha = sign(e) (|e| - epsilon) / (v + 1 /
    (C w))``, precision ``+= (2 C w + (C w)^2 v) x x^T`` (the full form is
    NHERD's ``Sigma -= (2C + C^2 v) / (1 + C v)^2 Sigma x x^T Sigma``)."""
    cdef double l = fabs(e) - epsilon, c = C * w
    if not l > 0.0 or not v > 0.0 or not w > 0.0:
        return
    s.alpha = (l if e > 0.0 else -l) / (v + 1.0 / c)
    s.prec = 2.0 * c + c * c * v


cdef inline void regression_step(
    const SecondOrderParams *p, double e, double v, double w, SecondOrderStep *s,
) noexcept nogil:
    """The regression step ``p.step`` (``SecondOrderRule.STEP_*_REGRESSION``)
    into ``s`` (every field set): ``p.phi`` is CW's, ``p.param`` AROW's ``r``
    or NHERD's ``C``, ``p.epsilon`` the insensitive width.  A step with no
    branch here (refused at the kernel's entry) takes no step."""
    init_step(s)
    if p.step == SecondOrderRule.STEP_AROW_REGRESSION:
        arow_regression_step(e, v, p.epsilon, p.param, w, s)
    elif p.step == SecondOrderRule.STEP_CW_REGRESSION:
        cw_regression_step(e, v, p.epsilon, p.phi, w, s)
    elif p.step == SecondOrderRule.STEP_NHERD_REGRESSION:
        nherd_regression_step(e, v, p.epsilon, p.param, w, s)


cdef inline bint diagonal_in_precision(int step) noexcept nogil:
    """Whether a diagonal covariance adds ``d x_j^2`` to each precision
    ``1 / Sigma_jj`` (CW, NHERD, as Jubatus) rather than taking the diagonal
    of the full Sherman-Morrison update (AROW, as Jubatus and Hivemall)."""
    return step != SecondOrderRule.STEP_AROW_REGRESSION
