# The rules of the second-order kernel (``_second_order.pyx``): which
# constraints a row imposes (40-44) and which step solves them (45-48; the
# regression steps 55-57, ``_cw_regression_rules.pxd``; the peer-library
# steps 50-54, 58 and 59, ``_peer_rules.pxd``).
# What the package knows of each is its entry in ``sklearn_pa/_core/rules.py``;
# the kernel refuses a rule or a step that has none.

from libc.string cimport memset

from ._params cimport check_param_names

cpdef enum SecondOrderRule:
    SO_BINARY = 40      # one weight column, labels +1 / -1
    SO_SINGLE = 41      # multiclass, one constraint against the top wrong class (k = 1)
    SO_SEQUENTIAL = 42  # multiclass, every wrong class in turn, one at a time (k = inf)
    SO_SUPPORT = 43     # multiclass, all K-1 constraints at once, matrix-Gaussian (SCCW)
    SO_REGRESSION = 44  # a real target per row: one weight column, one block
    STEP_CW = 45        # exact CW: Pr[margin >= 0] >= eta
    STEP_AROW = 46      # AROW: squared hinge + variance, regularizer r
    STEP_SCW1 = 47      # SCW-I: CW loss, multiplier capped at C
    STEP_SCW2 = 48      # SCW-II: squared CW loss weighted by C
    STEP_AROW_REGRESSION = 55   # AROW(e) regression: r, epsilon
    STEP_CW_REGRESSION = 56     # CW regression (Jubatus): phi, epsilon
    STEP_NHERD_REGRESSION = 57  # NHERD regression (Jubatus): C, epsilon
    # peer-library steps (_peer_rules.pxd; SO_BINARY, SO_SINGLE, SO_SEQUENTIAL)
    STEP_SOP = 50       # second-order perceptron, param = a
    STEP_IELLIP = 51    # ellipsoid method, param = b, phi = c
    STEP_NHERD = 52     # normal herding, param = C (diagonal: "project")
    STEP_NAROW = 53     # narrow adaptive regularisation, param = b
    STEP_NHERD_EXACT = 54  # NHERD, the diagonal "exact" rule (as 52 when full)
    STEP_NHERD_DROP = 58   # NHERD, the diagonal "drop" rule (as 52 when full)
    STEP_ADAGRAD = 59      # diagonal AdaGrad on the hinge (SOL), param = eta, delta

# The parameters of a second-order rule, as an estimator's ``_kernel_params()``
# states them (``sklearn_pa._core.rules.second_order_kernel_params``, which
# reads the names from this struct: a new parameter is a new field here, read
# by its step through the ``SecondOrderParams *`` every step receives).
cdef struct SecondOrderParams:
    int rule       # a SecondOrderRule constraint rule (SO_*)
    int step       # a SecondOrderRule step rule (STEP_*)
    double phi     # Phi^-1(eta) (CW, SCW); phi (CW regression)
    double param   # r (AROW), C (SCW, NHERD), a (SOP) or b (IELLIP, NAROW)
    double epsilon # the insensitive width of the regression steps (0 otherwise)
    double shrinkage  # IELLIP's c, the first covariance shrinkage (0 otherwise)
    double delta   # AdaGrad's delta, H = delta + sqrt(G) (0 otherwise)
    double floor   # every rule: the covariance floor (ARCOR's eigenvalue bound,
                   # ``_second_order_blocks._floor_cov``); 0: none


# What a step rule gives for one constraint (binary, k = 1, each pair of
# k = inf) or one regression row: the mean moves by ``alpha`` times (signed)
# ``Sigma x`` and the covariance
#
#     Sigma <- scale * (Sigma - beta (Sigma x)(Sigma x)^T)
#
# (the regression steps: the precision ``+= prec x x^T`` instead), except for
# two of NHERD's diagonal covariance rules (``kappa``, ``herd_c``).  Every
# field is set by :func:`init_step`, which each step dispatcher calls before
# its rule sets what it computes: a new field is added here and there.
cdef struct SecondOrderStep:
    double alpha   # the mean step: mu_c += (+/-) alpha Sigma_c x
    double beta    # the rank-one shrinkage of Sigma (Sherman-Morrison form)
    double prec    # the regression steps: the precision += prec x x^T
    double kappa   # > 0: NHERD's "project" diagonal, precision_rr += kappa x_r^2
    double herd_c  # > 0: NHERD's "exact" diagonal, S_rr /= (1 + herd_c x_r^2 S_rr)^2
    double scale   # the factor of the whole covariance after the step (IELLIP)
    double grad2   # > 0: AdaGrad, G_rr += grad2 delta^2 x_r^2 before the mean's step


cdef inline void init_step(SecondOrderStep *s) noexcept nogil:
    """No step: every field of ``s`` at its neutral value."""
    s.alpha = 0.0
    s.beta = 0.0
    s.prec = 0.0
    s.kappa = 0.0
    s.herd_c = 0.0
    s.scale = 1.0
    s.grad2 = 0.0


cdef inline tuple second_order_param_names():
    """The fields of ``SecondOrderParams``, in their order (read from the
    struct itself, so that its declaration is the only list of them)."""
    cdef SecondOrderParams zero
    memset(&zero, 0, sizeof(zero))
    cdef dict fields = zero
    return tuple(fields)


cdef inline SecondOrderParams second_order_params(
    dict params, tuple names=None
) except *:
    """The struct of a parameter dict; ValueError on a missing or unknown key.
    ``names``: :func:`second_order_param_names`, when the caller keeps them."""
    check_param_names(params, second_order_param_names() if names is None else names)
    cdef SecondOrderParams p = params
    return p
