# The step rules of the first-order kernel: one definition for Cython and Python
# (``from sklearn_pa._kernels._rules import Rule, Slack``).

cpdef enum Rule:
    BINARY = 0        # one weight column, labels +1 / -1
    OVR = 1           # K independent binary problems (one per column)
    MAX_LOSS = 2      # multiclass, single constraint: rival = highest-scoring wrong class
    PREDICTION = 3    # multiclass, single constraint, only on a prediction mistake
    SUPPORT = 4       # multiclass, all K-1 constraints solved exactly (SPA)
    REGRESSION = 5    # epsilon-insensitive regression
    MULTILABEL = 10   # label ranking: extreme relevant/irrelevant pair, zero-score threshold
    MULTILABEL_RANKING = 12  # label ranking as in the seed: extreme pair only, no threshold
    MIRA = 11         # Crammer & Singer 2003: minimal norm of the new prototypes
    # Kivinen-Warmuth regression rules on the square loss (sklearn_pa._gradient)
    GRADIENT = 20               # GD: w += 2 eta (y - yhat) x
    NORMALIZED_GRADIENT = 21    # GD with eta / ||x||^2 (DPAU when eta = c / 2)
    EXPONENTIATED = 22          # EG+-, multiplicative kernel (_multiplicative.pyx)
    ERROR_PROPORTIONAL_MULT = 23  # DPMU, multiplicative kernel (_multiplicative.pyx)
    # -- classical margin learners (LIBOL), rules in _margin_rules.pxd --
    PERCEPTRON_MAX = 30      # perceptron; multiclass: top wrong class (M_PerceptronM)
    PERCEPTRON_UNIFORM = 31  # multiclass: error set, uniform (M_PerceptronU)
    PERCEPTRON_SCORE = 32    # multiclass: error set, score-proportional (M_PerceptronS)
    OGD = 33                 # online gradient descent, hinge loss, eta / sqrt(t)
    ROMMA = 34               # ROMMA, scaled kernel (_scaled.pyx)
    AGGRESSIVE_ROMMA = 35    # aggressive ROMMA, scaled kernel (_scaled.pyx)
    ALMA = 36                # ALMA_2, scaled kernel (_scaled.pyx)
    # -- end of the classical margin learners --

cpdef enum Slack:
    HINGE = 1         # PA-I: C * xi (C = inf gives plain PA)
    SQUARED_HINGE = 2 # PA-II: C * xi ** 2

# The second-order kernel (``_second_order.pyx``): which constraints a row
# imposes (40-43) and which step solves them (45-48).
cpdef enum SecondOrderRule:
    SO_BINARY = 40      # one weight column, labels +1 / -1
    SO_SINGLE = 41      # multiclass, one constraint against the top wrong class (k = 1)
    SO_SEQUENTIAL = 42  # multiclass, every wrong class in turn, one at a time (k = inf)
    SO_SUPPORT = 43     # multiclass, all K-1 constraints at once, matrix-Gaussian (SCCW)
    STEP_CW = 45        # exact CW: Pr[margin >= 0] >= eta
    STEP_AROW = 46      # AROW: squared hinge + variance, regularizer r
    STEP_SCW1 = 47      # SCW-I: CW loss, multiplier capped at C
    STEP_SCW2 = 48      # SCW-II: squared CW loss weighted by C

# The sequence kernels (``_sequence.pyx``): which prefixes the structured
# perceptron updates on (Huang, Fayong & Guo 2012) and the slack of
# structured PA / k-best MIRA.
cpdef enum SequenceUpdate:
    UPDATE_STANDARD = 0       # full sequences: gold against the final best
    UPDATE_EARLY = 1          # prefixes up to where the gold one falls off the beam
    UPDATE_MAX_VIOLATION = 2  # prefixes at the position of the largest violation

cpdef enum SequenceLoss:
    LOSS_HINGE = 0            # C * xi
    LOSS_SQUARED_HINGE = 1    # C * xi ** 2

# The parameters of a linear rule, as each estimator states them in its
# ``_kernel_params()``: a kernel takes them as one dict, checked and converted
# to this struct by :func:`rule_params` (a missing or unknown key is refused).
cdef struct RuleParams:
    int rule              # a Rule
    int slack             # a Slack (PA-I / PA-II); unused by MIRA and the gradient rules
    double C              # step bound (PA-I), slack weight (PA-II), MIRA's bound c
    double epsilon        # width of the epsilon-insensitive loss (REGRESSION)
    double margin         # MIRA's margin beta
    double learning_rate  # eta of GD / normalised GD / EG+-, c of DPMU
    double total_weight   # U, the total weight of EG+- (0 elsewhere)


cdef inline int check_param_names(dict params, tuple names) except -1:
    """Raise ValueError unless ``params`` has exactly the keys ``names``."""
    unknown = sorted(set(params) - set(names))
    missing = [name for name in names if name not in params]
    if unknown or missing:
        raise ValueError(
            f"kernel parameters: unknown {unknown}, missing {missing}; "
            f"expected exactly {list(names)}"
        )
    return 0


cdef inline RuleParams rule_params(dict params) except *:
    """The struct of a parameter dict; ValueError on a missing or unknown key."""
    check_param_names(params, (
        "rule", "slack", "C", "epsilon", "margin", "learning_rate", "total_weight",
    ))
    cdef RuleParams p = params
    return p


# The parameters of a second-order rule (``_second_order.pyx``), as
# ``_BaseSecondOrder._kernel_params()`` states them.
cdef struct SecondOrderParams:
    int rule       # a SecondOrderRule constraint rule (SO_*)
    int step       # a SecondOrderRule step rule (STEP_*)
    double phi     # Phi^-1(eta) (CW, SCW)
    double param   # r (AROW) or C (SCW)


cdef inline SecondOrderParams second_order_params(dict params) except *:
    """The struct of a parameter dict; ValueError on a missing or unknown key."""
    check_param_names(params, ("rule", "step", "phi", "param"))
    cdef SecondOrderParams p = params
    return p
