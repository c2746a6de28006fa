# The second-order update rules, one named inline function per rule, used by
# ``_second_order.pyx``.  The weights are Gaussian, w ~ N(mu, Sigma); a step
# moves the mean by ``alpha`` times ``Sigma x`` (signed) and shrinks the
# covariance by ``beta (Sigma x)(Sigma x)^T``.  The binary rules see the margin
# ``m = y mu.x`` and the variance ``v = x^T Sigma x`` of the row (for a
# multiclass pair (y, r), ``m = (mu_y - mu_r).x`` and ``v = v_y + v_r``);
# ``w`` (> 0) is the sample weight (times the class weight).  Each rule sets
# the fields of the ``SecondOrderStep`` it computes; :func:`cw_pair_step`
# initialises all of them first (``init_step``).
# ``tests/test_oracle_second_order.py`` checks every rule against a generic
# solver of its optimisation problem.

from libc.math cimport sqrt, M_SQRT2

from ._rules_second_order cimport (
    SecondOrderParams, SecondOrderRule, SecondOrderStep, init_step,
)


cdef struct Cand:
    double l
    Py_ssize_t k


cdef inline void _gaussian_step(
    double a, double v, double phi, SecondOrderStep *s,
) noexcept nogil:
    """The mean step ``alpha = a`` and the covariance step ``beta`` of the
    CW-family rules from their multiplier ``a``:
    ``beta = a phi / (sqrt(u) + v a phi)`` with
    ``sqrt(u) = (-a v phi + sqrt(a^2 v^2 phi^2 + 4 v)) / 2``, written without
    cancellation."""
    cdef double phi2 = phi * phi, disc, sqrt_u
    if not a > 0.0:
        return
    disc = sqrt(a * a * v * v * phi2 + 4.0 * v)
    sqrt_u = 2.0 * v / (a * v * phi + disc)
    s.alpha = a
    s.beta = a * phi / (sqrt_u + v * a * phi)


cdef inline double _cw_multiplier(double m, double v, double phi) noexcept nogil:
    """The multiplier of exact CW (Crammer, Dredze & Pereira 2008):
    ``(-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 zeta)) / (v zeta)`` with
    ``psi = 1 + phi^2 / 2``, ``zeta = 1 + phi^2``."""
    cdef double phi2 = phi * phi
    cdef double psi = 1.0 + 0.5 * phi2
    cdef double zeta = 1.0 + phi2
    return (-m * psi + sqrt(0.25 * m * m * phi2 * phi2 + v * phi2 * zeta)) / (v * zeta)


cdef inline void cw_step(
    double m, double v, double phi, double w, SecondOrderStep *s,
) noexcept nogil:
    """Exact CW (seed 004's baseline; Crammer et al. 2008): the Gaussian
    closest in KL to the old one with Pr[y w.x >= 0] >= eta,

        min KL(N(mu, Sigma) || N(mu_t, Sigma_t))
        s.t. m - phi sqrt(v) >= 0   (phi = Phi^-1(eta)),

    the multiplier scaled by the sample weight."""
    if not v > 0.0 or not w > 0.0:
        return
    _gaussian_step(_cw_multiplier(m, v, phi) * w, v, phi, s)


cdef inline void scw1_step(
    double m, double v, double phi, double C, double w, SecondOrderStep *s,
) noexcept nogil:
    """SCW-I (Wang, Zhao & Hoi 2012): KL + C times the CW loss
    ``max(0, phi sqrt(v) - m)``; the CW multiplier capped at ``C w``."""
    cdef double a
    if not v > 0.0 or not w > 0.0:
        return
    a = _cw_multiplier(m, v, phi)
    if a > C * w:
        a = C * w
    _gaussian_step(a, v, phi, s)


cdef inline void scw2_step(
    double m, double v, double phi, double C, double w, SecondOrderStep *s,
) noexcept nogil:
    """SCW-II (Wang, Zhao & Hoi 2012): KL + C times the squared CW loss;
    with ``n = v + 1/(2 C w)``, the multiplier
    ``(-(2 m n + phi^2 m v) + phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2)))
    / (2 (n^2 + n v phi^2))``."""
    cdef double phi2 = phi * phi, n, gamma, a
    if not v > 0.0 or not w > 0.0:
        return
    n = v + 1.0 / (2.0 * C * w)
    gamma = phi * sqrt(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2))
    a = (-(2.0 * m * n + phi2 * m * v) + gamma) / (2.0 * (n * n + n * v * phi2))
    _gaussian_step(a, v, phi, s)


cdef inline void arow_step(
    double m, double v, double r, double w, SecondOrderStep *s,
) noexcept nogil:
    """AROW (Crammer, Kulesza & Dredze 2009): KL + the squared hinge
    ``max(0, 1 - m)^2 / (2 r)`` + ``v / (2 r)``, the regulariser ``r``
    divided by the sample weight: ``beta = 1 / (v + r / w)``,
    ``alpha = (1 - m) beta`` when ``m < 1``."""
    if not v > 0.0 or not w > 0.0:
        return
    if m < 1.0:
        s.beta = 1.0 / (v + r / w)
        s.alpha = (1.0 - m) * s.beta


cdef inline void cw_pair_step(
    const SecondOrderParams *p, double m, double v, double w, SecondOrderStep *s,
) noexcept nogil:
    """The step ``p.step`` (``SecondOrderRule.STEP_*``) on one constraint:
    the binary rule, the single-constraint multiclass rule (k = 1) and each
    pair of the sequential rule (k = inf), into ``s`` (every field set).
    ``p.param`` is AROW's ``r`` or SCW's ``C``.  A step with no branch here
    (refused at the kernel's entry) takes no step."""
    init_step(s)
    if p.step == SecondOrderRule.STEP_AROW:
        arow_step(m, v, p.param, w, s)
    elif p.step == SecondOrderRule.STEP_SCW2:
        scw2_step(m, v, p.phi, p.param, w, s)
    elif p.step == SecondOrderRule.STEP_CW:
        cw_step(m, v, p.phi, w, s)
    elif p.step == SecondOrderRule.STEP_SCW1:
        scw1_step(m, v, p.phi, p.param, w, s)


cdef inline double cw_loss(int step, double m, double v, double phi) noexcept nogil:
    """The online loss of a step rule: ``max(0, 1 - m)`` (AROW) or the CW
    loss ``max(0, phi sqrt(v) - m)``."""
    cdef double l
    if step == SecondOrderRule.STEP_AROW:
        l = 1.0 - m
    elif (
        step == SecondOrderRule.STEP_CW or step == SecondOrderRule.STEP_SCW1
        or step == SecondOrderRule.STEP_SCW2
    ):
        l = phi * sqrt(v) - m
    else:
        l = 0.0  # no other step passes the kernel's entry (``_core/rules.py``)
    return l if l > 0.0 else 0.0


cdef inline void sort_pairs(Cand *cand, Py_ssize_t n) noexcept nogil:
    """The rivals of the multiclass pair rules in ascending margin (ties by
    class index): k = 1 takes the first, the sequential rule (k = inf) all of
    them in this order, each pair step seeing the state the previous left."""
    cdef Py_ssize_t i, j
    cdef Cand tmp
    for i in range(1, n):
        tmp = cand[i]
        j = i - 1
        while j >= 0 and (cand[j].l > tmp.l or (cand[j].l == tmp.l and cand[j].k > tmp.k)):
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = tmp


cdef inline double _support_sqrt_u(double A, double v, double phi, double K) noexcept nogil:
    # eq. (20): sqrt(u) = (-sqrt2 A phi v + sqrt(2 A^2 phi^2 v^2 + 4 K^2 v)) / (2K)
    cdef double c = M_SQRT2 * A * phi * v
    cdef double disc = sqrt(c * c + 4.0 * K * K * v)
    if c >= 0.0:
        return 2.0 * K * v / (c + disc)
    return (-c + disc) / (2.0 * K)


cdef inline double _support_A(double L, double s, double v, double phi, double K) noexcept nogil:
    # eq. (22): the root of (B^2 - s^2 phi^4 v^2) A^2 + 2 A K B L
    #           + K^2 (L^2 - 2 s^2 phi^2 v) = 0 with (s+1) v A + L >= 0
    cdef double phi2 = phi * phi
    cdef double B = ((s + 1.0) * K + s * phi2) * v
    cdef double a = B * B - s * s * phi2 * phi2 * v * v
    return (-K * B * L + s * K * phi * sqrt(phi2 * v * v * L * L + 2.0 * v * a)) / a


cdef inline double sccw_support_step(
    Cand *cand, Py_ssize_t n_cand, double v, double phi, double K, double w,
    double *alpha, double *beta,
) noexcept nogil:
    """SCCW / SCCWD (seed 004, Algorithm 1): the matrix-Gaussian support-class
    CW step, all constraints ``l_k + (A + alpha_k) v >= phi sqrt(2u)`` at once
    (eq. 10), minimising the KL divergence of eq. 11; the mean moves as in
    eqs. 16-17, the shared covariance as in eqs. 18-19.

    ``cand`` holds the margins ``l_k = (mu_y - mu_k).x`` of the wrong classes;
    it is sorted here, ascending.  The support set is the prefix of that order
    grown while the newest class still gets a positive multiplier.  Fills
    ``alpha[j]`` for ``cand[j]`` (0 outside the support set), ``beta``, and
    returns ``A = sum_k alpha_k`` (0: no step)."""
    cdef Py_ssize_t i, j, n_sup = 0
    cdef Cand tmp
    cdef double L = 0.0, A, sqrt_u, a_j, A_best = 0.0, su_best = 0.0
    beta[0] = 0.0
    for j in range(n_cand):
        alpha[j] = 0.0
    if not v > 0.0 or not w > 0.0 or n_cand == 0:
        return 0.0
    # insertion sort, ascending margin (ties: lower class index first)
    for i in range(1, n_cand):
        tmp = cand[i]
        j = i - 1
        while j >= 0 and (cand[j].l > tmp.l or (cand[j].l == tmp.l and cand[j].k > tmp.k)):
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = tmp
    # no constraint violated: no step
    if cand[0].l >= phi * sqrt(2.0 * v):
        return 0.0
    for j in range(n_cand):
        L += cand[j].l
        A = _support_A(L, <double> (j + 1), v, phi, K)
        sqrt_u = _support_sqrt_u(A, v, phi, K)
        a_j = (phi * M_SQRT2 * sqrt_u - cand[j].l) / v - A
        if not a_j > 0.0:
            break
        n_sup = j + 1
        A_best = A
        su_best = sqrt_u
    if n_sup == 0 or not A_best > 0.0:
        return 0.0
    for j in range(n_sup):
        alpha[j] = w * ((phi * M_SQRT2 * su_best - cand[j].l) / v - A_best)
        if alpha[j] < 0.0:
            alpha[j] = 0.0
    A = w * A_best
    if w != 1.0:
        su_best = _support_sqrt_u(A, v, phi, K)
    beta[0] = M_SQRT2 * A * phi / (K * su_best + M_SQRT2 * A * phi * v)
    return A
