# The rules of the second-order kernel (``_second_order.pyx``): which
# constraints a row imposes (40-43) and which step solves them (45-48).
# What the package knows of each is its entry in ``sklearn_pa/_rule_specs.py``;
# the kernel refuses a rule or a step that has none.

from ._params cimport check_param_names

cpdef enum SecondOrderRule:
    SO_BINARY = 40      # one weight column, labels +1 / -1
    SO_SINGLE = 41      # multiclass, one constraint against the top wrong class (k = 1)
    SO_SEQUENTIAL = 42  # multiclass, every wrong class in turn, one at a time (k = inf)
    SO_SUPPORT = 43     # multiclass, all K-1 constraints at once, matrix-Gaussian (SCCW)
    STEP_CW = 45        # exact CW: Pr[margin >= 0] >= eta
    STEP_AROW = 46      # AROW: squared hinge + variance, regularizer r
    STEP_SCW1 = 47      # SCW-I: CW loss, multiplier capped at C
    STEP_SCW2 = 48      # SCW-II: squared CW loss weighted by C

# The parameters of a second-order rule, as
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
