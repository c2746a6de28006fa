# Step helpers shared by the kernels: prefetching, the single-constraint PA
# step and the exact all-constraint (support-class) step.  Everything is
# ``inline`` so that each kernel compiles its own copy and nothing is looked up
# across modules at run time.

from libc.stdlib cimport qsort

from ._rules_linear cimport Slack


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define PA_PREFETCH(p) __builtin_prefetch((p))
    #define PA_PREFETCH_W(p) __builtin_prefetch((p), 1)
    #else
    #define PA_PREFETCH(p) ((void)0)
    #define PA_PREFETCH_W(p) ((void)0)
    #endif
    """
    void PA_PREFETCH(const void *p) noexcept nogil
    void PA_PREFETCH_W(const void *p) noexcept nogil


# Rows of W are read in the order of the row's nonzeros, which is random in W:
# ask for the row this many nonzeros ahead while scoring the current one.
cdef enum:
    PREFETCH_AHEAD = 10


cdef struct Candidate:
    double loss
    Py_ssize_t k


cdef inline int _by_loss_desc(const void *a, const void *b) noexcept nogil:
    cdef const Candidate *ca = <const Candidate *> a
    cdef const Candidate *cb = <const Candidate *> b
    if ca.loss > cb.loss:
        return -1
    if ca.loss < cb.loss:
        return 1
    # ties: lower class index first, so the order never depends on qsort
    return -1 if ca.k < cb.k else (1 if ca.k > cb.k else 0)


cdef inline void prefetch_row(const double *row, Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    """Ask for every cache line (8 doubles) of ``row[c0:c1]``."""
    cdef Py_ssize_t k = c0
    while k < c1:
        PA_PREFETCH(row + k)
        k += 8
    PA_PREFETCH(row + c1 - 1)


cdef inline double single_step(double loss, double sq, double C, int slack) noexcept nogil:
    """Step of a single-constraint PA problem: loss / sq, clipped (PA-I) or
    damped (PA-II).  ``sq`` is the squared norm of the change per unit step."""
    if loss <= 0.0 or sq <= 0.0:
        return 0.0
    if slack == Slack.HINGE:
        return min(C, loss / sq)
    if slack == Slack.SQUARED_HINGE:
        return loss / (sq + 0.5 / C)
    return 0.0  # no other slack passes a kernel's entry (``_core/rules.py``)


cdef inline void sort_candidates(Candidate *cand, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Candidate tmp
    if n > 24:
        qsort(cand, n, sizeof(Candidate), _by_loss_desc)
        return
    for i in range(1, n):
        tmp = cand[i]
        j = i - 1
        while j >= 0 and _by_loss_desc(&cand[j], &tmp) > 0:
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = tmp


cdef inline double support_steps(
    Candidate *cand, Py_ssize_t n, double s, double C, int slack, double *tau
) noexcept nogil:
    """Exact all-constraint step (SPA).  ``cand`` holds the classes with a
    positive loss; on return ``tau[j]`` is the step of ``cand[j]`` (0 outside
    the support set).  Returns T = sum of the steps."""
    cdef Py_ssize_t j, k = 0
    cdef double a = s, P = 0.0, T, offset, shift
    if n == 0 or s <= 0.0:
        return 0.0
    if slack == Slack.SQUARED_HINGE:
        a = s + 0.5 / C
    sort_candidates(cand, n)
    # Support set with the sum unconstrained (plain PA and PA-II): grow it in
    # descending order of loss while the next loss beats the threshold a * T.
    for j in range(n):
        if cand[j].loss * (s + j * a) > a * P:
            P += cand[j].loss
            k = j + 1
        else:
            break
    T = P / (s + k * a)
    if slack == Slack.HINGE and T > C:
        # PA-I with the box active: the steps sum to C.  Water-filling on the
        # losses, tau_u = [l_u - theta]_+ / s with theta = (P_k - s C) / k;
        # written as C / k + (l_u - P_k / k) / s, which keeps its precision
        # when s * C is small next to the losses.
        P = 0.0
        k = 0
        for j in range(n):
            P += cand[j].loss
            if cand[j].loss * (j + 1) > P - s * C:
                k = j + 1
            else:
                P -= cand[j].loss
                break
        offset = C / k
        shift = P / k
    else:
        offset = 0.0
        shift = a * T
    # the support classes (the first k) move, the others do not
    T = 0.0
    for j in range(n):
        if j < k:
            tau[j] = offset + (cand[j].loss - shift) / s
            if tau[j] < 0.0:
                tau[j] = 0.0
            T += tau[j]
        else:
            tau[j] = 0.0
    return T


cdef inline double mira_steps(
    Candidate *cand, Py_ssize_t n, double A, double c, Py_ssize_t y, double *tau
) noexcept nogil:
    """Exact MIRA step (Crammer & Singer 2003) on the prototypes in ``cand``.

    Solves  min_tau 1/2 sum_r ||M_r + tau_r x||^2 - beta tau_y
            s.t.    tau_r <= c [r == y],  sum_r tau_r = 0,
    over the classes in ``cand`` (the true class ``y`` and every class whose
    step can be non-zero).  On entry ``cand[j].loss`` holds
    E_r = s_r - beta [r == y] + A c [r == y]  (s_r the score, A = ||x||^2);
    the KKT conditions give tau_r = c [r == y] - [E_r - Theta]_+ / A with
    sum_r [E_r - Theta]_+ = A c: a projection onto a scaled simplex, found by
    sorting.  On return ``tau[j]`` is the step of ``cand[j]`` (<= 0 for the
    other classes); returns the true class's step T = -sum of the others."""
    cdef Py_ssize_t j, k = 0
    cdef double P = 0.0, Q, theta, T = 0.0, budget = A * c
    if n == 0 or A <= 0.0 or c <= 0.0:
        return 0.0
    sort_candidates(cand, n)
    for j in range(n):
        Q = P + cand[j].loss
        if cand[j].loss * (j + 1) > Q - budget:
            P = Q
            k = j + 1
        else:
            break
    theta = (P - budget) / k
    for j in range(n):
        if cand[j].k == y:
            continue
        if j < k and cand[j].loss > theta:
            tau[j] = -(cand[j].loss - theta) / A
            T -= tau[j]
        else:
            tau[j] = 0.0
    for j in range(n):
        if cand[j].k == y:
            tau[j] = T
    return T
