# The second-order rules that peer libraries (LIBOL, Jubatus, SOL) ship
# besides CW / AROW / SCW, used by ``_second_order.pyx``: the second-order
# perceptron (SOP), online learning by the ellipsoid method (IELLIP), normal
# herding (NHERD), narrow adaptive regularisation (NAROW) and diagonal
# AdaGrad on the hinge loss (SOL's ``ada-fobos`` without L1).
#
# Each rule sees, like the rules of ``_cw_rules.pxd``, the margin ``m`` and
# the variance ``v = x^T Sigma x`` of one constraint (binary: ``m = y mu.x``;
# a multiclass pair (y, r): ``m = (mu_y - mu_r).x``, ``v = v_y + v_r``) and
# the sample weight ``w`` (> 0), and sets the fields of the
# ``SecondOrderStep`` it computes (``peer_pair_step`` initialises all of
# them first, ``init_step``): the mean moves by ``alpha`` times (signed)
# ``Sigma x`` and the covariance
#
#     Sigma <- scale * (Sigma - beta (Sigma x)(Sigma x)^T)
#
# except for two of NHERD's diagonal covariance rules ("project": ``kappa``,
# "exact": ``herd_c``; see ``peer_cov_block``) and AdaGrad's diagonal
# (``grad2``; see ``peer_precondition``, which the kernel calls before the
# mean's step).  ``tests/test_oracle_second_order_peers.py`` and
# ``tests/test_oracle_adagrad.py`` check every rule against the paper's
# problem or an independent transcription.

from libc.math cimport pow, sqrt, INFINITY
from scipy.linalg.cython_blas cimport dsyr

from ._dataset cimport index_t, value_t
from ._rules_second_order cimport (
    SecondOrderParams, SecondOrderRule, SecondOrderStep, init_step,
)


cdef inline bint is_peer_step(int step) noexcept nogil:
    """Whether ``step`` is one of this file's rules (SecondOrderRule 50-54,
    58, 59)."""
    return (step == SecondOrderRule.STEP_SOP or step == SecondOrderRule.STEP_IELLIP
            or step == SecondOrderRule.STEP_NHERD
            or step == SecondOrderRule.STEP_NAROW
            or step == SecondOrderRule.STEP_NHERD_EXACT
            or step == SecondOrderRule.STEP_NHERD_DROP
            or step == SecondOrderRule.STEP_ADAGRAD)


cdef inline void sop_step(
    double m, double v, double a, double w, SecondOrderStep *s,
) noexcept nogil:
    """The second-order perceptron (Cesa-Bianchi, Conconi & Gentile 2005,
    Fig. 2; LIBOL ``SOP.m``): on a mistake (``m <= 0``) the correlation
    matrix ``A = a I + sum x x^T`` and the vector ``v = sum y x`` of the
    mistakes take the example; the prediction
    ``sgn(v^T (A + x x^T)^{-1} x)`` has the sign of ``mu.x`` with
    ``mu = A^{-1} v``, so the kernel keeps ``Sigma = a A^{-1}`` (identity at
    the start) and ``mu = a A^{-1} v``, and Sherman-Morrison gives

        beta = 1 / (v + a / w),   alpha = (a - m) beta

    (the sample weight ``w`` adds ``w x x^T`` to ``A`` and ``w y x`` to
    ``v``).  No step without a mistake."""
    if not (m <= 0.0) or not w > 0.0 or not v >= 0.0:
        return
    s.beta = 1.0 / (v + a / w)
    s.alpha = (a - m) * s.beta


cdef inline void iellip_step(
    double m, double v, double c, double b, double w, long long t, SecondOrderStep *s,
) noexcept nogil:
    """IELLIP (Yang, Jin & Ye 2009, the improved ellipsoid method; LIBOL
    ``IELLIP.m``): on a mistake (``m <= 0``) with ``v > 0``, with
    ``g = y x / sqrt(v)`` and ``c_t = c b^(t-1)`` (round t = 1, 2, ...),

        mu    += (1 - m) / sqrt(v) * Sigma g = y (1 - m) / v * Sigma x
        Sigma  = (Sigma - c_t Sigma g g^T Sigma) / (1 - c_t),

    i.e. ``alpha = w (1 - m) / v`` (the sample weight scales the mean step),
    ``beta = c_t / v`` and ``scale = 1 / (1 - c_t)``."""
    cdef double c_t
    if not (m <= 0.0) or not w > 0.0 or not v > 0.0:
        return
    c_t = c * pow(b, <double> (t - 1))
    s.alpha = w * (1.0 - m) / v
    s.beta = c_t / v
    s.scale = 1.0 / (1.0 - c_t)


cdef inline void nherd_step(
    double m, double v, double C, double w, int diagonal, SecondOrderStep *s,
) noexcept nogil:
    """NHERD (Crammer & Lee 2010, normal herding; LIBOL ``NHERD.m``): when
    ``m < 1``, with ``gamma = 1 / (C w)``,

        mu    += y (1 - m) / (v + gamma) * Sigma x
        Sigma -= (v + 2 gamma) / (v + gamma)^2 * Sigma x x^T Sigma,

    the mean of AROW's squared-hinge step and the covariance that step
    carries each weight vector to: ``A Sigma A^T`` with the map
    ``A = I - Sigma x x^T / (v + gamma)``; in precision form
    ``Sigma^-1 += (2 C w + (C w)^2 v) x x^T``.  The diagonal covariance
    takes one of the paper's three diagonal rules (``diagonal``, a
    ``STEP_NHERD*`` value): "project" (STEP_NHERD) adds that precision
    feature by feature, ``kappa = 2 C w + (C w)^2 v`` (Jubatus
    ``normal_herd.cpp``); "exact" (STEP_NHERD_EXACT) herds each coordinate
    alone, ``S_rr / (1 + C w x_r^2 S_rr)^2``; "drop" (STEP_NHERD_DROP) keeps
    the diagonal of the full update (``beta``)."""
    cdef double gamma, Cw
    if not (m < 1.0) or not w > 0.0 or not v >= 0.0:
        return
    Cw = C * w
    gamma = 1.0 / Cw
    s.alpha = (1.0 - m) / (v + gamma)
    s.beta = (v + 2.0 * gamma) / ((v + gamma) * (v + gamma))
    if diagonal == SecondOrderRule.STEP_NHERD:
        s.kappa = 2.0 * Cw + Cw * Cw * v
    elif diagonal == SecondOrderRule.STEP_NHERD_EXACT:
        s.herd_c = Cw


cdef inline void narow_step(
    double m, double v, double b, double w, SecondOrderStep *s,
) noexcept nogil:
    """NAROW (Orabona & Crammer 2010, Alg. 2 with the adaptive ``r_t``;
    LIBOL ``NAROW.m``): when ``m < 1``, AROW's step with the regulariser
    ``r_t = v / (b v - 1)`` when ``v > 1 / b`` and ``r_t = inf`` (no step)
    otherwise, divided by the sample weight:

        beta = 1 / (v + r_t / w),   alpha = (1 - m) beta."""
    cdef double r
    if not (m < 1.0) or not w > 0.0 or not (v > 1.0 / b):
        return
    r = v / (b * v - 1.0)
    s.beta = 1.0 / (v + r / w)
    s.alpha = (1.0 - m) * s.beta


cdef inline void adagrad_step(
    double m, double eta, double delta, double w, SecondOrderStep *s,
) noexcept nogil:
    """Diagonal AdaGrad on the hinge loss (Duchi, Hazan & Singer 2011; SOL
    ``src/sol/model/olm/ada_fobos.cc``, ``AdaFOBOS::Update``): when the
    hinge ``1 - m`` is positive the gradient is ``-w y x`` (the sample
    weight ``w`` scales it), and for every coordinate r

        H_r = delta + sqrt(G_r),   G_r += (w x_r)^2,   then
        mu_r += eta w y x_r / H_r           (with the new H_r).

    The kernel keeps ``Sigma_rr = delta / H_r`` (1 at the start, like the
    other rules' covariance), so that the mean's step is ``alpha Sigma x``
    with ``alpha = eta w / delta``; ``grad2 = (w / delta)^2`` is what
    :func:`peer_precondition` adds to ``(sqrt(G_r) / delta)^2`` per unit
    ``x_r^2`` before that step.  No step without a positive ``delta`` (the
    estimator refuses one)."""
    if not (m < 1.0) or not w > 0.0 or not delta > 0.0:
        return
    s.alpha = eta * w / delta
    s.grad2 = (w / delta) * (w / delta)


cdef inline double adagrad_diagonal(double S, double q) noexcept nogil:
    """AdaGrad's ``delta / H_r`` after the squared gradient ``q = (g_r /
    delta)^2``: with ``S = delta / H_r``, ``sqrt(G_r) / delta = 1 / S - 1``,
    so ``delta / H_r' = 1 / (1 + sqrt((1 / S - 1)^2 + q))``."""
    cdef double r = 1.0 / S - 1.0
    return 1.0 / (1.0 + sqrt(r * r + q))


cdef inline void peer_precondition(
    const SecondOrderStep *s, double *Sd, Py_ssize_t g, Py_ssize_t G, double *sx,
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """AdaGrad's diagonal (``grad2 > 0``; nothing otherwise), taken before
    the mean's step as SOL takes it: block ``g`` of the diagonal ``Sd``
    takes the row's squared gradient (:func:`adagrad_diagonal`, the
    intercept's constant ``a`` included) and ``sx = Sigma_g x~`` is filled
    again with the new diagonal (aligned with the row's non-zeros, then the
    intercept's entry, as ``_sigma_x`` fills it).  A zero entry of a dense
    row leaves its coordinate as it is, as CSR does."""
    cdef Py_ssize_t p, j
    cdef double xr
    if not s.grad2 > 0.0:
        return
    for p in range(nnz):
        xr = row_data[p]
        j = row_ind[p] * G + g
        if xr != 0.0:
            Sd[j] = adagrad_diagonal(Sd[j], s.grad2 * xr * xr)
        sx[p] = Sd[j] * xr
    if intercept != 0.0:
        j = n_features * G + g
        Sd[j] = adagrad_diagonal(Sd[j], s.grad2 * intercept * intercept)
        sx[nnz] = Sd[j] * intercept


cdef inline void peer_pair_step(
    const SecondOrderParams *p, double m, double v, double w, long long t,
    SecondOrderStep *s,
) noexcept nogil:
    """The step ``p.step`` on one constraint (binary, k = 1, each pair of
    k = inf), into ``s`` (every field set).  ``p.param`` is SOP's ``a``,
    IELLIP's ``b``, NHERD's ``C``, NAROW's ``b`` or AdaGrad's ``eta``;
    ``p.shrinkage`` is IELLIP's ``c``, ``p.delta`` AdaGrad's ``delta``;
    ``t`` the round (1-based).
    The three NHERD steps differ only in their diagonal covariance.  A step
    with no branch here (refused at the kernel's entry) takes no step."""
    cdef int step = p.step
    init_step(s)
    if step == SecondOrderRule.STEP_SOP:
        sop_step(m, v, p.param, w, s)
    elif step == SecondOrderRule.STEP_IELLIP:
        iellip_step(m, v, p.shrinkage, p.param, w, t, s)
    elif step == SecondOrderRule.STEP_NAROW:
        narow_step(m, v, p.param, w, s)
    elif step == SecondOrderRule.STEP_ADAGRAD:
        adagrad_step(m, p.param, p.delta, w, s)
    elif (step == SecondOrderRule.STEP_NHERD
          or step == SecondOrderRule.STEP_NHERD_EXACT
          or step == SecondOrderRule.STEP_NHERD_DROP):
        nherd_step(m, v, p.param, w, step, s)


cdef inline double peer_loss(int step, double m) noexcept nogil:
    """The online loss of a rule as LIBOL reports it: the mistake (0-1) for
    SOP and IELLIP, the hinge ``max(0, 1 - m)`` for NHERD, NAROW and AdaGrad."""
    if step == SecondOrderRule.STEP_SOP or step == SecondOrderRule.STEP_IELLIP:
        return 1.0 if m <= 0.0 else 0.0
    if (step == SecondOrderRule.STEP_NHERD or step == SecondOrderRule.STEP_NAROW
            or step == SecondOrderRule.STEP_NHERD_EXACT
            or step == SecondOrderRule.STEP_NHERD_DROP
            or step == SecondOrderRule.STEP_ADAGRAD):
        return 1.0 - m if m < 1.0 else 0.0
    return 0.0


cdef inline void peer_cov_block(
    bint full, double *Sf, double *Sd, Py_ssize_t g, Py_ssize_t G, Py_ssize_t blk,
    int n_blas, char *uplo, const SecondOrderStep *s, double *sx,
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """The covariance step of block ``g`` (``sx = Sigma_g x~`` as
    ``_second_order_blocks._sigma_x`` fills it), before any ``scale``:
    ``Sigma_g -= beta sx sx^T`` (its diagonal when diagonal), or NHERD's
    diagonal rules: "project" (``kappa > 0``) ``1 / Sigma_rr += kappa x_r^2``,
    "exact" (``herd_c > 0``) ``Sigma_rr /= (1 + herd_c x_r^2 Sigma_rr)^2``."""
    cdef Py_ssize_t p
    cdef double neg_beta = -s.beta, d, d2, xr
    cdef int one = 1
    if full:
        if s.beta != 0.0:
            dsyr(uplo, &n_blas, &neg_beta, sx, &one, Sf + g * blk, &n_blas)
        return
    if s.herd_c > 0.0:
        for p in range(nnz):
            d = Sd[row_ind[p] * G + g]
            xr = row_data[p]
            d2 = 1.0 + s.herd_c * xr * xr * d
            Sd[row_ind[p] * G + g] = d / (d2 * d2)
        if intercept != 0.0:
            d = Sd[n_features * G + g]
            d2 = 1.0 + s.herd_c * intercept * intercept * d
            Sd[n_features * G + g] = d / (d2 * d2)
        return
    if s.kappa > 0.0:
        for p in range(nnz):
            d = Sd[row_ind[p] * G + g]
            xr = row_data[p]
            Sd[row_ind[p] * G + g] = d / (1.0 + s.kappa * d * xr * xr)
        if intercept != 0.0:
            d = Sd[n_features * G + g]
            Sd[n_features * G + g] = d / (1.0 + s.kappa * d * intercept * intercept)
        return
    if s.beta == 0.0:
        return
    for p in range(nnz):
        Sd[row_ind[p] * G + g] -= s.beta * sx[p] * sx[p]
    if intercept != 0.0:
        Sd[n_features * G + g] -= s.beta * sx[nnz] * sx[nnz]


cdef inline void peer_scale_all(
    bint full, double *Sf, double *Sd, Py_ssize_t G, Py_ssize_t blk,
    Py_ssize_t n_diag, double scale,
) noexcept nogil:
    """Every covariance block times ``scale`` (IELLIP's ``1 / (1 - c_t)``;
    the multiclass rule scales the whole block-diagonal covariance, as the
    binary rule on the stacked weights would).  ``n_diag`` is the number of
    rows of the diagonal layout (``n_features + 1``).  Nothing is done once
    ``c_t`` is below the rounding of 1 (``scale == 1``)."""
    cdef Py_ssize_t p, n
    if scale == 1.0:
        return
    n = G * blk if full else n_diag * G
    if full:
        for p in range(n):
            Sf[p] *= scale
    else:
        for p in range(n):
            Sd[p] *= scale
