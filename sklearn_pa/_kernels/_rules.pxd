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
    MIRA = 11         # Crammer & Singer 2003: minimal norm of the new prototypes

cpdef enum Slack:
    HINGE = 1         # PA-I: C * xi (C = inf gives plain PA)
    SQUARED_HINGE = 2 # PA-II: C * xi ** 2
