# The first-order update rules, one named inline function per rule of the
# seeds, shared by every kernel that applies it (``_first_order.pyx``,
# ``_bayes_point.pyx``, ``_kernel_pa.pyx``).
#
# Each function sees the scores of one row (computed before the update) and
# its squared norm ``sq`` (``||x||^2``, plus ``a ** 2`` for an intercept
# fitted as the weight of a constant feature ``a``; ``K(x, x)`` in kernel PA),
# and solves the rule's small quadratic problem in closed form.  It
#
# - adds the row's online loss to the accumulator(s) it is given,
# - reports a prediction mistake through ``mistake`` (where one is defined),
# - when ``learn`` is true, writes the step of column ``k`` to
#   ``delta[offset + k]``, lists ``offset + k`` in ``changed`` and returns how
#   many columns moved (0: no step).  The caller then adds ``delta[c] * x`` to
#   every listed column ``c``.
#
# ``C_w`` is the step bound ``C`` already multiplied by the row's sample
# weight; class weights multiply it inside the rule, as the rule defines.
# ``tests/test_oracle.py`` checks every rule against a generic solver of its
# primal problem.

from libc.math cimport fabs, INFINITY

from ._rules_linear cimport Rule
from ._steps cimport Candidate, single_step, support_steps, mira_steps


cdef inline Py_ssize_t binary_step(
    double score, Py_ssize_t y, double sq, double C_y, int slack, bint learn,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
    double *loss_sum, bint *mistake,
) noexcept nogil:
    """Binary PA / PA-I / PA-II (seed 000, section 3; Crammer et al. 2006):

        min_w 1/2 ||w - w_t||^2 (+ C xi | + C xi^2)  s.t.  y w.x >= 1 - xi,

    ``y`` is the class index 0 / 1 (sign -1 / +1); ``C_y`` the bound of this
    row (class weight included).  tau = l / ||x||^2, min(C, l / ||x||^2) or
    l / (||x||^2 + 1/(2C))."""
    cdef double ysign = 1.0 if y == 1 else -1.0
    cdef double loss, tau
    mistake[0] = ysign * score <= 0.0
    loss = 1.0 - ysign * score
    if loss <= 0.0:
        return 0
    loss_sum[0] += loss
    if not learn:
        return 0
    tau = single_step(loss, sq, C_y, slack)
    if tau > 0.0:
        delta[offset] = ysign * tau
        changed[0] = offset
        return 1
    return 0


cdef inline Py_ssize_t ovr_step(
    const double *scores, Py_ssize_t K, Py_ssize_t c0, Py_ssize_t c1,
    Py_ssize_t y, double sq, double C_w,
    const double *weight_pos, const double *weight_neg,
    const unsigned char *active, int slack, bint learn,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
    double *loss, Py_ssize_t loss_stride, bint *mistake,
) noexcept nogil:
    """One-vs-rest: an independent binary PA problem per column ``k`` in
    ``[c0, c1)`` (label +1 for the true class ``y``, -1 for the others),
    bounded by ``C_w`` times the positive class weight of column ``k`` on its
    positive rows and times its negative weight on the others.

    The loss of column ``k`` is added to ``loss[k * loss_stride]`` (stride 0:
    one sum); ``active`` (or NULL) freezes columns; the mistake (the top
    score is not the true class) is only defined over the full range."""
    cdef Py_ssize_t k, r, n_changed = 0
    cdef double best, ysign, l, tau, C_k
    mistake[0] = False
    if c0 == 0 and c1 == K:
        best = scores[0]
        r = 0
        for k in range(1, K):
            if scores[k] > best:
                best = scores[k]
                r = k
        mistake[0] = r != y
    for k in range(c0, c1):
        if active != NULL and not active[k]:
            continue
        ysign = 1.0 if k == y else -1.0
        l = 1.0 - ysign * scores[k]
        if l <= 0.0:
            continue
        loss[k * loss_stride] += l
        if learn:
            C_k = C_w * (weight_pos[k] if k == y else weight_neg[k])
            tau = single_step(l, sq, C_k, slack)
            if tau > 0.0:
                delta[offset + k] = ysign * tau
                changed[n_changed] = offset + k
                n_changed += 1
    return n_changed


cdef inline double multiclass_losses(
    const double *scores, Py_ssize_t K, Py_ssize_t y, const double *margin_row,
    Candidate *cand, Py_ssize_t *n_cand, Py_ssize_t *rival, bint *mistake,
) noexcept nogil:
    """The multi-prototype losses ``l_u = m_yu - (s_y - s_u)`` of a row of
    class ``y`` (seed 000, sections 7-8; ``m_yu`` = ``margin_row[u]``, or 1
    when ``margin_row`` is NULL).  Lists the classes with a positive loss in
    ``cand``, sets ``rival`` to the class of the largest loss and
    ``mistake`` when a wrong class scores at least as high as ``y``; returns
    that largest loss."""
    cdef Py_ssize_t k
    cdef double l, best = -INFINITY
    rival[0] = -1
    n_cand[0] = 0
    for k in range(K):
        if k == y:
            continue
        l = (1.0 if margin_row == NULL else margin_row[k]) - (scores[y] - scores[k])
        if l > best:
            best = l
            rival[0] = k
        if l > 0.0:
            cand[n_cand[0]].loss = l
            cand[n_cand[0]].k = k
            n_cand[0] += 1
    # a tie with a wrong class counts as a mistake
    mistake[0] = False
    for k in range(K):
        if k != y and scores[k] >= scores[y]:
            mistake[0] = True
            break
    return best


cdef inline Py_ssize_t pa_pair_step(
    double loss, double sq, double C_y, int slack, Py_ssize_t y, Py_ssize_t r,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
) noexcept nogil:
    """The single-constraint multiclass PA step on the pair (y, r):

        min_W 1/2 ||W - W_t||^2 (+ C xi | + C xi^2)
        s.t.  (w_y - w_r).x >= m_yr - xi,

    whose change moves two prototypes, hence ``2 ||x||^2``."""
    cdef double tau = single_step(loss, 2.0 * sq, C_y, slack)
    if tau > 0.0:
        delta[offset + y] = tau
        delta[offset + r] = -tau
        changed[0] = offset + y
        changed[1] = offset + r
        return 2
    return 0


cdef inline Py_ssize_t max_loss_step(
    double best, Py_ssize_t r, double sq, double C_y, int slack, Py_ssize_t y,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
) noexcept nogil:
    """Max-loss multiclass PA (seed 000, section 8): the constraint of the
    rival ``r`` with the largest loss ``best`` (from :func:`multiclass_losses`)."""
    return pa_pair_step(best, sq, C_y, slack, y, r, delta, changed, offset)


cdef inline Py_ssize_t prediction_step(
    const double *scores, Py_ssize_t K, Py_ssize_t y, const double *margin_row,
    double sq, double C_y, int slack,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
) noexcept nogil:
    """Prediction-based multiclass PA (seed 000, section 8): the rival is the
    predicted (top-scoring wrong) class, and only a prediction mistake moves."""
    cdef Py_ssize_t k, r = -1
    cdef double loss, best = -INFINITY
    for k in range(K):
        if k != y and scores[k] > best:
            best = scores[k]
            r = k
    loss = (1.0 if margin_row == NULL else margin_row[r]) - (scores[y] - scores[r])
    if best < scores[y]:
        loss = 0.0
    return pa_pair_step(loss, sq, C_y, slack, y, r, delta, changed, offset)


cdef inline Py_ssize_t spa_support_step(
    Candidate *cand, Py_ssize_t n_cand, Py_ssize_t y, double sq, double C_y,
    int slack, double *tau_buf,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
) noexcept nogil:
    """SPA, the support-class PA (seed 001, Tables 1-2): every constraint
    ``(w_y - w_u).x >= m_yu - xi`` of the row solved exactly at once,

        min_W 1/2 ||W - W_t||^2 (+ C xi | + C xi^2)  s.t. all K-1 constraints,

    the support classes found by sorting the losses (:func:`support_steps`)."""
    cdef Py_ssize_t j, n_changed = 0
    cdef double tau = support_steps(cand, n_cand, sq, C_y, slack, tau_buf)
    if tau > 0.0:
        delta[offset + y] = tau
        changed[0] = offset + y
        n_changed = 1
        for j in range(n_cand):
            if tau_buf[j] > 0.0:
                delta[offset + cand[j].k] = -tau_buf[j]
                changed[n_changed] = offset + cand[j].k
                n_changed += 1
    return n_changed


cdef inline Py_ssize_t multiclass_step(
    int rule, const double *scores, Py_ssize_t K, Py_ssize_t y,
    const double *margin_row, double sq, double C_y, int slack, bint learn,
    Candidate *cand, double *tau_buf,
    double *delta, Py_ssize_t *changed, Py_ssize_t offset,
    double *loss_sum, bint *mistake,
) noexcept nogil:
    """The multi-prototype rules (``Rule.MAX_LOSS``, ``PREDICTION``,
    ``SUPPORT``): the losses, then :func:`max_loss_step`,
    :func:`prediction_step` or :func:`spa_support_step`."""
    cdef Py_ssize_t n_cand, r
    cdef double best = multiclass_losses(scores, K, y, margin_row, cand, &n_cand,
                                         &r, mistake)
    if not best > 0.0:
        return 0
    loss_sum[0] += best
    if not learn:
        return 0
    if rule == Rule.SUPPORT:
        return spa_support_step(cand, n_cand, y, sq, C_y, slack, tau_buf,
                                delta, changed, offset)
    if rule == Rule.PREDICTION:
        return prediction_step(scores, K, y, margin_row, sq, C_y, slack,
                               delta, changed, offset)
    if rule == Rule.MAX_LOSS:
        return max_loss_step(best, r, sq, C_y, slack, y, delta, changed, offset)
    # no other rule is called here: the kernels refuse, at entry, a rule they
    # have no branch for (``sklearn_pa/_core/rules.py``)
    return 0


cdef inline Py_ssize_t regression_step(
    double score, double target, double epsilon, double sq, double C_w,
    int slack, bint learn, double *delta, Py_ssize_t *changed,
    double *loss_sum,
) noexcept nogil:
    """PA regression with the epsilon-insensitive loss (seed 000, section 5):

        min_w 1/2 ||w - w_t||^2 (+ C xi | + C xi^2)
        s.t.  |y - w.x| <= epsilon + xi."""
    cdef double resid = target - score
    cdef double loss = fabs(resid) - epsilon, tau
    if not loss > 0.0:
        return 0
    loss_sum[0] += loss
    if not learn:
        return 0
    tau = single_step(loss, sq, C_w, slack)
    if tau > 0.0:
        delta[0] = tau if resid > 0.0 else -tau
        changed[0] = 0
        return 1
    return 0


cdef inline Py_ssize_t gradient_step(
    double score, double target, double eta, double w, double sq,
    bint normalized, double *delta, Py_ssize_t *changed, double *loss_sum,
) noexcept nogil:
    """Kivinen-Warmuth gradient descent on the square loss (seed 002):
    ``w += 2 eta (y - yhat) x`` (GD, LMS); with ``normalized`` the step is
    divided by ``||x||^2`` (normalised GD, which is DPAU for eta = c / 2).
    ``w`` is the sample weight, a multiplier of the learning rate."""
    cdef double resid = target - score, tau
    loss_sum[0] += resid * resid
    if not (w > 0.0 and resid != 0.0):
        return 0
    tau = 2.0 * eta * w * resid
    if normalized:
        tau = tau / sq if sq > 0.0 else 0.0
    if tau != 0.0:
        delta[0] = tau
        changed[0] = 0
        return 1
    return 0


cdef inline Py_ssize_t multilabel_threshold_step(
    const double *scores, Py_ssize_t K, const unsigned char *relevant,
    double sq, double C_w, int slack, bint learn,
    double *delta, Py_ssize_t *changed, double *loss_sum, bint *mistake,
) noexcept nogil:
    """Thresholded multilabel ranking: the relevant labels above a virtual
    label of score 0 and that above the irrelevant ones, i.e.
    relevant - irrelevant >= 1, relevant >= 1/2, irrelevant <= -1/2; the step
    enforces the most violated of the three extreme constraints (the pair
    moves two columns, hence ``2 ||x||^2``; it wins ties)."""
    cdef Py_ssize_t k, r = -1, u = -1, kind = 0, n_changed = 0
    cdef double lo = INFINITY, hi = -INFINITY, best = 0.0, tau
    cdef bint miss = False
    for k in range(K):
        if relevant[k]:
            if scores[k] < lo:
                lo = scores[k]
                r = k
            if scores[k] <= 0.0:
                miss = True
        else:
            if scores[k] > hi:
                hi = scores[k]
                u = k
            if scores[k] > 0.0:
                miss = True
    mistake[0] = miss
    if r >= 0 and u >= 0 and 1.0 - (lo - hi) > best:
        best = 1.0 - (lo - hi)
        kind = 3
    if r >= 0 and 0.5 - lo > best:
        best = 0.5 - lo
        kind = 1
    if u >= 0 and 0.5 + hi > best:
        best = 0.5 + hi
        kind = 2
    if kind == 0:
        return 0
    loss_sum[0] += best
    if not learn:
        return 0
    tau = single_step(best, (2.0 if kind == 3 else 1.0) * sq, C_w, slack)
    if tau > 0.0:
        if kind != 2:
            delta[r] = tau
            changed[n_changed] = r
            n_changed += 1
        if kind != 1:
            delta[u] = -tau
            changed[n_changed] = u
            n_changed += 1
    return n_changed


cdef inline Py_ssize_t multilabel_ranking_step(
    const double *scores, Py_ssize_t K, const unsigned char *relevant,
    double sq, double C_w, int slack, bint learn,
    double *delta, Py_ssize_t *changed, double *loss_sum, bint *mistake,
) noexcept nogil:
    """Multilabel ranking as in the seed (seed 000, section 7; Crammer et al.
    2006, eqs. 31-38): only min(relevant) - max(irrelevant) >= 1, enforced on
    that extreme pair,

        min_W 1/2 ||W - W_t||^2 (+ C xi | + C xi^2)
        s.t.  (w_r - w_u).x >= 1 - xi,

    with the step loss / (2 ||x||^2) (capped at C for PA-I, ``+ 1/(2C)`` for
    PA-II).  A row with no relevant or no irrelevant label sets no
    constraint; a tie between a relevant and an irrelevant label is a
    mistake."""
    cdef Py_ssize_t k, r = -1, u = -1
    cdef double lo = INFINITY, hi = -INFINITY, loss, tau
    mistake[0] = False
    for k in range(K):
        if relevant[k]:
            if scores[k] < lo:
                lo = scores[k]
                r = k
        elif scores[k] > hi:
            hi = scores[k]
            u = k
    if r < 0 or u < 0:
        return 0
    mistake[0] = lo <= hi
    loss = 1.0 - (lo - hi)
    if not loss > 0.0:
        return 0
    loss_sum[0] += loss
    if not learn:
        return 0
    tau = single_step(loss, 2.0 * sq, C_w, slack)
    if tau > 0.0:
        delta[r] = tau
        delta[u] = -tau
        changed[0] = r
        changed[1] = u
        return 2
    return 0


cdef inline Py_ssize_t mira_step(
    const double *scores, Py_ssize_t K, Py_ssize_t y, double beta, double sq,
    double c, Candidate *cand, double *tau_buf,
    double *delta, Py_ssize_t *changed, double *loss_sum, bint *mistake,
) noexcept nogil:
    """MIRA (Crammer & Singer 2003; seed 000, section 10): the prototypes of
    minimal norm after the step,

        min_tau 1/2 sum_r ||M_r + tau_r x||^2 - beta tau_y
        s.t.    tau_r <= c [r == y],  sum_r tau_r = 0,

    ``beta`` the margin and ``c`` the true class's step bound (1 in the
    paper; times the sample and class weights).  Only the classes within
    ``beta`` of the true class can move (:func:`mira_steps`).  With one
    column (``K == 1``) it is binary MIRA on the difference ``v = M_1 - M_0``
    of the prototypes -v/2, +v/2, whose step is twice theirs, clipped at
    ``2 c``."""
    cdef Py_ssize_t k, j, n_cand = 0, n_changed = 0
    cdef double ysign, loss, tau, best = 0.0
    cdef bint miss = False
    if K == 1:
        ysign = 1.0 if y == 1 else -1.0
        mistake[0] = ysign * scores[0] <= 0.0
        loss = beta - ysign * scores[0]
        if not loss > 0.0:
            return 0
        loss_sum[0] += loss
        if c > 0.0 and sq > 0.0:
            tau = min(2.0 * c, loss / sq)
            if tau > 0.0:
                delta[0] = ysign * tau
                changed[0] = 0
                return 1
        return 0
    for k in range(K):
        if k == y:
            continue
        if scores[k] >= scores[y]:
            miss = True
        loss = beta - (scores[y] - scores[k])
        if loss > best:
            best = loss
        if loss > 0.0:
            cand[n_cand].loss = scores[k]
            cand[n_cand].k = k
            n_cand += 1
    mistake[0] = miss
    if best > 0.0:
        loss_sum[0] += best
    if n_cand > 0 and c > 0.0 and sq > 0.0:
        cand[n_cand].loss = scores[y] - beta + sq * c
        cand[n_cand].k = y
        n_cand += 1
        tau = mira_steps(cand, n_cand, sq, c, y, tau_buf)
        if tau > 0.0:
            delta[y] = tau
            changed[0] = y
            n_changed = 1
            for j in range(n_cand):
                if cand[j].k != y and tau_buf[j] < 0.0:
                    delta[cand[j].k] = tau_buf[j]
                    changed[n_changed] = cand[j].k
                    n_changed += 1
    return n_changed
