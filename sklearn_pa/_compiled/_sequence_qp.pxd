# The dual of structured PA / k-best MIRA over the k best sequences of a
# sentence (``_sequence.pyx``):
#
#     min_w 1/2 ||w - w_old||^2 + C xi  (or + C xi^2)
#     s.t.  w . (phi(y) - phi(z_j)) >= rho(y, z_j) - xi   for the k best z_j,
#
# solved over the k multipliers: SMO-style pairwise steps on the simplex
# ``sum(alpha) + alpha_slack = C`` for the hinge loss, Hildreth's coordinate
# ascent for the squared hinge (``G + 1/(2C)`` positive definite).

from libc.math cimport INFINITY, fabs, sqrt

from ._rules_sequence cimport SequenceLoss

cdef inline Py_ssize_t solve_duals(
    const double *G,
    const double *ell,
    Py_ssize_t k,
    double C,
    int loss,
    double *alpha,
    double *grad,
    double tol,
    Py_ssize_t max_iter,
) noexcept nogil:
    """Dual of the k-constraint PA problem, maximise
    ``ell . a - 1/2 a' H a`` over ``a >= 0`` (and ``sum(a) <= C`` for the
    hinge loss with finite C), ``H = G`` (+ ``1/(2C)`` everywhere for the squared
    hinge).  Returns the number of iterations."""
    cdef Py_ssize_t i, j, it, up, low
    cdef double extra = 0.0
    cdef double a_slack, g_up, g_low, eta, d, h, new, viol, pg
    cdef bint hinge_box = loss == SequenceLoss.LOSS_HINGE and C < INFINITY
    for j in range(k):
        alpha[j] = 0.0
        grad[j] = ell[j]
    if loss == SequenceLoss.LOSS_SQUARED_HINGE:
        extra = 0.5 / C
    if hinge_box:
        # pairwise steps on {a >= 0, a_slack >= 0, sum(a) + a_slack = C}; the
        # slack coordinate has zero gain and zero curvature
        a_slack = C
        for it in range(max_iter):
            up = -1  # -1 is the slack
            g_up = 0.0
            for j in range(k):
                if grad[j] > g_up:
                    g_up = grad[j]
                    up = j
            low = -2
            g_low = INFINITY
            if a_slack > 0.0:
                low = -1
                g_low = 0.0
            for j in range(k):
                if alpha[j] > 0.0 and grad[j] < g_low:
                    g_low = grad[j]
                    low = j
            if low == -2 or up == low or g_up - g_low <= tol:
                return it
            eta = 0.0
            if up >= 0:
                eta += G[up * k + up]
            if low >= 0:
                eta += G[low * k + low]
            if up >= 0 and low >= 0:
                eta -= 2.0 * G[up * k + low]
            h = a_slack if low == -1 else alpha[low]
            if eta > 1e-300:
                d = (g_up - g_low) / eta
                if d > h:
                    d = h
            else:
                d = h
            if up >= 0:
                alpha[up] += d
            else:
                a_slack += d
            if low >= 0:
                alpha[low] = 0.0 if d == h else alpha[low] - d
            else:
                a_slack = 0.0 if d == h else a_slack - d
            for j in range(k):
                if up >= 0:
                    grad[j] -= d * G[j * k + up]
                if low >= 0:
                    grad[j] += d * G[j * k + low]
        return max_iter
    # Hildreth: exact coordinate ascent with a >= 0
    for it in range(max_iter):
        viol = 0.0
        for j in range(k):
            h = G[j * k + j] + extra
            if h <= 0.0:
                continue
            new = alpha[j] + grad[j] / h
            if new < 0.0:
                new = 0.0
            d = new - alpha[j]
            if d != 0.0:
                alpha[j] = new
                for i in range(k):
                    grad[i] -= d * (G[i * k + j] + extra)
        for j in range(k):
            pg = grad[j] if alpha[j] > 0.0 else (grad[j] if grad[j] > 0.0 else 0.0)
            if fabs(pg) > viol:
                viol = fabs(pg)
        if viol <= tol:
            return it + 1
    return max_iter
