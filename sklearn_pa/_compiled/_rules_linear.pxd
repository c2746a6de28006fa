# The step rules of the linear kernels (``_first_order.pyx``,
# ``_multiplicative.pyx``, ``_bayes_point.pyx``, ``_kernel_pa.pyx``): one
# definition for Cython and Python (``from sklearn_pa._compiled._rules import
# Rule, Slack``).  What the package knows of each rule is its entry in
# ``sklearn_pa/_core/rules.py``; a kernel refuses a rule that has none.

from ._params cimport check_param_names

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


cdef inline RuleParams rule_params(dict params) except *:
    """The struct of a parameter dict; ValueError on a missing or unknown key."""
    check_param_names(params, (
        "rule", "slack", "C", "epsilon", "margin", "learning_rate", "total_weight",
    ))
    cdef RuleParams p = params
    return p
