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
