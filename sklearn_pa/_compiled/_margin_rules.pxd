# The classical first-order margin rules of LIBOL (Hoi, Wang & Zhao 2014):
# the perceptron and its multiclass variants, online gradient descent on the
# hinge loss, and the two rules that rescale the whole weight vector at each
# update, ROMMA (Li & Long 2002) and ALMA (Gentile 2001).
#
# The perceptron and OGD are ``w += tau x`` rules applied by the first-order
# kernel (``_first_order.pyx``), with the conventions of ``_pa_rules.pxd``:
# they see the scores of one row before its update, add its loss to
# ``loss_sum``, report a prediction mistake (binary: ``y s <= 0``;
# multiclass: a wrong class scores at least as high as the true one), write
# the step of column ``k`` to ``delta[k]``, list ``k`` in ``changed`` and
# return how many columns moved.  One column (``K == 1``) is the binary rule
# with labels 0 / 1 (signs -1 / +1).
#
# ROMMA and ALMA move the model to ``c W + d phi`` (``phi`` the row with the
# sign of its label, or on the Kesler construction of a multiclass row: ``x``
# in the true class's column and ``-x`` in the rival's); the rules here give
# ``(c, d)`` and the scaled kernel (``_scaled.pyx``) applies them to a weight
# vector held as a scale times a vector.
#
# Every rule is checked against an independent NumPy transcription of its
# source (``tests/test_oracle_margin.py``), and ROMMA's step against a
# generic solver of its problem and its KKT conditions.

from libc.math cimport sqrt, INFINITY

from ._rules_linear cimport Rule


cdef inline Py_ssize_t top_rival(
    const double *scores, Py_ssize_t K, Py_ssize_t y,
) noexcept nogil:
    """The highest-scoring wrong class (the first of equal scores)."""
    cdef Py_ssize_t k, r = -1
    cdef double best = -INFINITY
    for k in range(K):
        if k != y and scores[k] > best:
            best = scores[k]
            r = k
    return r


cdef inline Py_ssize_t perceptron_step(
    int rule, const double *scores, Py_ssize_t K, Py_ssize_t y, double c_y,
    double *delta, Py_ssize_t *changed, double *loss_sum, bint *mistake,
) noexcept nogil:
    """The perceptron (Rosenblatt 1958; LIBOL ``Perceptron``): on a mistake
    ``w += y x``.  Multiclass (Crammer & Singer 2003, section 3; LIBOL
    ``M_PerceptronM``, ``M_PerceptronU``, ``M_PerceptronS``): on a mistake
    the true class moves by ``+x`` and the error set ``E = {r != y : s_r >=
    s_y}`` by ``-x`` in total,

    - ``PERCEPTRON_MAX``: all on the highest-scoring wrong class,
    - ``PERCEPTRON_UNIFORM``: ``-x / |E|`` on each class of E,
    - ``PERCEPTRON_SCORE``: ``-x (s_r - s_y) / sum_E (s_q - s_y)`` on each
      (uniform when every class of E ties with the true one).

    ``c_y`` multiplies the step (sample weight times class weight of ``y``).
    The loss is the perceptron loss ``[max_{r != y} s_r - s_y]_+`` (binary:
    ``[-y s]_+``)."""
    cdef Py_ssize_t k, r = -1, n_err = 0, n_changed
    cdef double ysign, total = 0.0, best = -INFINITY, share
    if K == 1:
        ysign = 1.0 if y == 1 else -1.0
        mistake[0] = ysign * scores[0] <= 0.0
        if not mistake[0]:
            return 0
        loss_sum[0] += -ysign * scores[0]
        if not c_y > 0.0:
            return 0
        delta[0] = ysign * c_y
        changed[0] = 0
        return 1
    for k in range(K):
        if k == y:
            continue
        if scores[k] > best:
            best = scores[k]
            r = k
        if scores[k] >= scores[y]:
            n_err += 1
            total += scores[k] - scores[y]
    mistake[0] = n_err > 0
    if n_err == 0:
        return 0
    loss_sum[0] += best - scores[y]
    if not c_y > 0.0:
        return 0
    delta[y] = c_y
    changed[0] = y
    if rule == Rule.PERCEPTRON_MAX:
        delta[r] = -c_y
        changed[1] = r
        return 2
    n_changed = 1
    for k in range(K):
        if k == y or scores[k] < scores[y]:
            continue
        if rule == Rule.PERCEPTRON_SCORE and total > 0.0:
            share = (scores[k] - scores[y]) / total
        else:
            share = 1.0 / n_err
        if share > 0.0:
            delta[k] = -c_y * share
            changed[n_changed] = k
            n_changed += 1
    return n_changed


cdef inline Py_ssize_t ogd_step(
    const double *scores, Py_ssize_t K, Py_ssize_t y, double eta_t,
    double *delta, Py_ssize_t *changed, double *loss_sum, bint *mistake,
) noexcept nogil:
    """Online gradient descent on the hinge loss (Zinkevich 2003; LIBOL
    ``OGD`` with ``loss_type = 1`` and ``M_OGD``): with ``l = [1 - y s]_+``
    (multiclass: ``[1 - (s_y - s_r)]_+``, ``r`` the highest-scoring wrong
    class), a positive loss moves ``w += eta_t y x`` (multiclass: ``w_y +=
    eta_t x``, ``w_r -= eta_t x``).  ``eta_t = eta / sqrt(t)`` at the ``t``-th
    sample, times the sample and class weights, is the caller's."""
    cdef Py_ssize_t r
    cdef double ysign, loss
    if K == 1:
        ysign = 1.0 if y == 1 else -1.0
        mistake[0] = ysign * scores[0] <= 0.0
        loss = 1.0 - ysign * scores[0]
        if not loss > 0.0:
            return 0
        loss_sum[0] += loss
        if not eta_t > 0.0:
            return 0
        delta[0] = ysign * eta_t
        changed[0] = 0
        return 1
    r = top_rival(scores, K, y)
    mistake[0] = scores[r] >= scores[y]
    loss = 1.0 - (scores[y] - scores[r])
    if not loss > 0.0:
        return 0
    loss_sum[0] += loss
    if not eta_t > 0.0:
        return 0
    delta[y] = eta_t
    delta[r] = -eta_t
    changed[0] = y
    changed[1] = r
    return 2


# ----------------------------------------------------------------- scaled
# The parameters of the scaled kernel's rules (``ROMMA``, ``AGGRESSIVE_ROMMA``,
# ``ALMA``), as their estimators state them in ``_kernel_params()``.
cdef struct ScaledParams:
    int rule       # a Rule: ROMMA, AGGRESSIVE_ROMMA or ALMA
    double alpha   # ALMA's margin fraction alpha in (0, 1]
    double B       # ALMA's margin scale B (gamma_k = B / sqrt(k))
    double C       # ALMA's step scale C (eta_k = C / sqrt(k))
    int normalize  # ALMA: 1 learns from x / ||x|| (the paper), 0 from x (LIBOL)


cdef inline bint romma_coefficients(
    double m, double q, double N, double *c, double *d,
) noexcept nogil:
    """ROMMA's step (Li & Long 2002, section 3 and eq. (3); LIBOL ``ROMMA``,
    ``aROMMA``, ``M_ROMMA``, ``M_aROMMA``): the new weights are the smallest
    vector of the old half-space and the new constraint,

        min_v ||v||^2  s.t.  v . w >= ||w||^2,   v . phi >= 1,

    with ``N = ||w||^2``, ``q = ||phi||^2`` and ``m = w . phi``; ``v = c w +
    d phi``.  With both constraints active

        c = (q N - m) / (q N - m^2),   d = N (1 - m) / (q N - m^2);

    when ``m >= q N`` (in particular ``w = 0``) the half-space is inactive and
    ``v = phi / q`` (``c = 0``).  Returns False (no step) when the two
    constraints cannot both hold (``phi`` pointing against ``w``) or
    ``phi = 0``; the caller only asks when ``m < 1``."""
    cdef double deno
    if not q > 0.0:
        return False
    if N <= 0.0 or m >= q * N:
        c[0] = 0.0
        d[0] = 1.0 / q
        return True
    deno = q * N - m * m
    if not deno > 0.0:
        return False
    c[0] = (q * N - m) / deno
    d[0] = N * (1.0 - m) / deno
    return True


cdef inline bint alma_coefficients(
    double m, double q, double N, double eta, double *c, double *d,
) noexcept nogil:
    """ALMA_2's step (Gentile 2001, Figure 1 with p = 2; LIBOL ``ALMA``):
    ``v = w + eta phi`` projected on the unit ball, ``w <- v / max(1,
    ||v||)``, i.e. ``c = 1 / max(1, ||v||)``, ``d = eta c`` with ``||v||^2 =
    N + 2 eta m + eta^2 q``."""
    cdef double norm_v = sqrt(max(N + 2.0 * eta * m + eta * eta * q, 0.0))
    c[0] = 1.0 / norm_v if norm_v > 1.0 else 1.0
    d[0] = eta * c[0]
    return True
