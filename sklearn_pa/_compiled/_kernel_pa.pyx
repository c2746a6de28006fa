# cython: language_level=3
"""The sequential part of kernel Passive-Aggressive over one block of rows.

The model is ``f(x) = sum_i alpha_i K(x_i, x)`` (one ``alpha`` column per
output).  The caller computes, with scikit-learn's ``pairwise_kernels``, the
kernel between the block's rows and the support vectors alive when the block
starts (``K_RS``) and between the block's rows themselves (``K_RR``), and the
scores ``F = K_RS @ alpha_S``.  Every support vector created during the block
is one of its rows, so this function can run the online loop exactly: after a
step on row p it adds ``delta * K_RR[p, q]`` to the scores of the later rows q,
and when the budget removes a support vector it subtracts that vector's
contribution, read from ``K_RS`` or ``K_RR``.

The step is the PA step with ``||x||^2`` replaced by ``K(x, x)`` (``2 K(x, x)``
for the multiclass max-loss rule, which moves two classes).  Support vectors
live in a pool of slots: each training row owns at most one slot per call
(re-updating a row adds to its coefficients).  Nothing here calls back into
Python.
"""

from libc.math cimport isfinite, sqrt, INFINITY
from libc.stdlib cimport malloc, free

from ._rules_linear cimport Rule, RuleParams, rule_params

from .._core.rules import check_linear_rule
from ._steps cimport Candidate
from ._pa_rules cimport binary_step, multiclass_step, regression_step


cpdef enum Policy:
    OLDEST = 0      # remove the support vector created first
    SMALLEST = 1    # remove the one with the smallest ||alpha_i|| sqrt(K(x_i, x_i))


cdef inline Py_ssize_t _victim(
    int policy,
    Py_ssize_t current,
    const long long *alive_list,
    Py_ssize_t n_alive,
    const long long *stamp,
    const double *alpha,
    const double *kdiag,
    Py_ssize_t n_cols,
) noexcept nogil:
    cdef Py_ssize_t m, s, k, best_s = -1
    cdef double best = INFINITY, value, norm
    for m in range(n_alive):
        s = alive_list[m]
        if s == current:
            continue
        if policy == Policy.OLDEST:
            value = <double> stamp[s]
        else:
            norm = 0.0
            for k in range(n_cols):
                norm += alpha[s * n_cols + k] * alpha[s * n_cols + k]
            value = sqrt(norm * max(kdiag[s], 0.0))
        # ties: the oldest goes first, so the choice never depends on the
        # order of the list
        if value < best or (value == best and best_s >= 0 and stamp[s] < stamp[best_s]):
            best = value
            best_s = s
    return best_s


cdef int _check_block(
    const double[:, ::1] K_RS,
    const double[:, ::1] K_RR,
    const long long[::1] rows,
    const int[::1] labels,
    const double[::1] targets,
    const double[::1] sample_weight,
    int rule,
    Py_ssize_t n_cols,
    Py_ssize_t n_slots,
    unsigned char[::1] alive,
    double[::1] kdiag,
    long long[::1] stamp,
    long long[::1] row_slot,
    long long[::1] src_row,
    const long long[::1] pos_S,
    long long[::1] pos_R,
    long long[::1] alive_list,
    long long[::1] alive_pos,
    long long[::1] counters,
    double[::1] loss_out,
) except -1:
    """Raise ValueError unless the arrays of :func:`block` fit each other:
    every index the kernel follows (block rows, slots, K_RS columns, class
    labels) lies inside the array it indexes, and the slot pool has room for
    a new support vector per block row."""
    cdef Py_ssize_t n_block = rows.shape[0], n_train = row_slot.shape[0]
    cdef Py_ssize_t n_S = K_RS.shape[1], p, q, i, slot, n_new = 0
    if K_RR.shape[1] < n_block or (n_S > 0 and K_RS.shape[0] < n_block):
        raise ValueError("K_RS and K_RR must have a row per block row")
    per_row = (("targets", targets.shape[0]) if rule == Rule.REGRESSION
               else ("labels", labels.shape[0]))
    for name, length in (per_row, ("sample_weight", sample_weight.shape[0])):
        if length < n_train:
            raise ValueError(f"{name} has {length} entries; {n_train} are needed")
    for name, length in (("alive", alive.shape[0]), ("kdiag", kdiag.shape[0]),
                         ("stamp", stamp.shape[0]), ("src_row", src_row.shape[0]),
                         ("pos_S", pos_S.shape[0]), ("pos_R", pos_R.shape[0]),
                         ("alive_list", alive_list.shape[0]),
                         ("alive_pos", alive_pos.shape[0])):
        if length < n_slots:
            raise ValueError(f"{name} has {length} entries; {n_slots} slots are needed")
    if counters.shape[0] < 3 or loss_out.shape[0] < 1:
        raise ValueError("counters needs 3 entries and loss_out 1")
    if not (0 <= counters[1] <= counters[0] <= n_slots):
        raise ValueError(
            f"counters {counters[0]} slots, {counters[1]} alive, do not fit a "
            f"pool of {n_slots}"
        )
    for q in range(counters[1]):
        slot = alive_list[q]
        if slot < 0 or slot >= counters[0]:
            raise ValueError(f"alive slot {slot} outside the {counters[0]} in use")
        if pos_S[slot] < -1 or pos_S[slot] >= n_S:
            raise ValueError(f"K_RS has {n_S} columns; slot {slot} names another")
    for p in range(n_block):
        i = rows[p]
        if i < 0 or i >= n_train:
            raise ValueError(f"block row {i} outside the {n_train} training rows")
        if row_slot[i] < -1 or row_slot[i] >= counters[0]:
            raise ValueError(f"training row {i} names slot {row_slot[i]}")
        if row_slot[i] == -1:
            n_new += 1  # a row without a slot may take a new one
        if rule == Rule.MAX_LOSS and (labels[i] < 0 or labels[i] >= n_cols):
            raise ValueError(f"label {labels[i]} outside the {n_cols} classes")
    if counters[0] + n_new > n_slots:
        raise ValueError(
            f"the slot pool of {n_slots} has no room for {n_new} new support "
            f"vectors after {counters[0]} slots"
        )
    return 0


def block(
    const double[:, ::1] K_RS,
    const double[:, ::1] K_RR,
    double[:, ::1] F,
    const long long[::1] rows,
    *,
    dict params,
    const int[::1] labels,
    const double[::1] targets,
    const double[::1] sample_weight,
    double[:, ::1] alpha,
    unsigned char[::1] alive,
    double[::1] kdiag,
    long long[::1] stamp,
    long long[::1] row_slot,
    long long[::1] src_row,
    const long long[::1] pos_S,
    long long[::1] pos_R,
    long long[::1] alive_list,
    long long[::1] alive_pos,
    long long[::1] counters,
    long long budget,
    int policy,
    double[::1] loss_out,
):
    """Run the online rule over the block's rows in order.

    Parameters (all validated by the caller)
    ----------------------------------------
    K_RS : (n_block, n_S) kernel between the block's rows and the support
        vectors alive at the block's start (column ``pos_S[slot]``).
    K_RR : (n_block, n_block) kernel among the block's rows.
    F : (n_block, n_cols) scores of the block's rows from the support vectors
        alive at the block's start; updated in place as the block runs.
    rows : (n_block,) the training row of each block row.
    labels, targets, sample_weight : per training row (class index for the
        classification rules, target for REGRESSION, multiplier of C).
    params : dict, the estimator's ``_kernel_params()`` (``RuleParams`` in
        ``_rules_linear.pxd``): ``rule`` (BINARY, MAX_LOSS or REGRESSION),
        ``slack``, ``C`` and ``epsilon`` (REGRESSION).
    alpha : (n_slots_max, n_cols) coefficient pool, updated in place.
    alive, kdiag, stamp, src_row : per slot: in the model, K(x, x), creation
        stamp, training row (-1 for a support vector of an earlier call).
    row_slot : per training row, its slot or -1.
    pos_S : per slot, its column in K_RS or -1.
    pos_R : per slot, the block row that created or revived it (written).
    alive_list, alive_pos : the alive slots, compact, and each slot's place.
    counters : [n_slots, n_alive, next_stamp], updated.
    budget : maximum number of support vectors, or -1.
    policy : OLDEST or SMALLEST.
    loss_out : [0] receives the loss summed over the rows (before updates).

    Returns
    -------
    (mistakes, updates, skipped, removed)
    """
    cdef RuleParams prm = rule_params(params)
    cdef int rule = prm.rule, slack = prm.slack
    cdef double C = prm.C, epsilon = prm.epsilon
    cdef Py_ssize_t n_block = rows.shape[0]
    cdef Py_ssize_t n_cols = alpha.shape[1]
    cdef Py_ssize_t p, q, k, r, y, i, slot, victim, col, last, n_changed
    cdef long long mistakes = 0, updates = 0, skipped = 0, removed = 0
    cdef double sq, w_i, coef
    cdef const double *scores
    cdef bint finite, fresh, miss
    cdef double *alpha0 = &alpha[0, 0]
    if F.shape[0] < n_block or F.shape[1] < n_cols or K_RR.shape[0] < n_block:
        raise ValueError("F and K_RR must have a row per block row")
    # BINARY, MAX_LOSS or REGRESSION, one branch each below; any other refused
    check_linear_rule("kernel_pa", rule, slack)
    if rule == Rule.MAX_LOSS and n_cols < 2:
        raise ValueError("the max-loss rule needs one column per class")
    _check_block(K_RS, K_RR, rows, labels, targets, sample_weight, rule, n_cols,
                 alpha.shape[0], alive, kdiag, stamp, row_slot, src_row, pos_S,
                 pos_R, alive_list, alive_pos, counters, loss_out)
    # the step of column k goes to delta[k] (rules of ``_pa_rules.pxd``)
    cdef double *delta = <double *> malloc(n_cols * sizeof(double))
    cdef double *tau_buf = <double *> malloc(n_cols * sizeof(double))
    cdef Py_ssize_t *changed = <Py_ssize_t *> malloc(n_cols * sizeof(Py_ssize_t))
    cdef Candidate *cand = <Candidate *> malloc(n_cols * sizeof(Candidate))
    if delta == NULL or tau_buf == NULL or changed == NULL or cand == NULL:
        free(delta); free(tau_buf); free(changed); free(cand)
        raise MemoryError()

    with nogil:
        for p in range(n_block):
            i = rows[p]
            sq = K_RR[p, p]
            finite = isfinite(sq)
            for k in range(n_cols):
                finite = finite and isfinite(F[p, k])
            if not finite:
                skipped += 1
                continue
            w_i = sample_weight[i]
            scores = &F[p, 0]
            miss = False
            if rule == Rule.REGRESSION:
                n_changed = regression_step(scores[0], targets[i], epsilon, sq,
                                            C * w_i, slack, w_i > 0.0, delta,
                                            changed, &loss_out[0])
            elif rule == Rule.BINARY:
                n_changed = binary_step(scores[0], labels[i], sq, C * w_i, slack,
                                        w_i > 0.0, delta, changed, 0,
                                        &loss_out[0], &miss)
            elif rule == Rule.MAX_LOSS:
                # margins of 1 (NULL): the max-loss rule of the linear kernel
                n_changed = multiclass_step(Rule.MAX_LOSS, scores, n_cols, labels[i],
                                            NULL, sq, C * w_i, slack, w_i > 0.0,
                                            cand, tau_buf, delta, changed, 0,
                                            &loss_out[0], &miss)
            else:
                n_changed = 0  # no other rule passes the entry
            if miss:
                mistakes += 1
            if n_changed == 0:
                continue
            updates += 1

            # the row's slot: reuse it, or create / revive it
            slot = row_slot[i]
            fresh = slot < 0 or not alive[slot]
            if slot < 0:
                slot = counters[0]
                counters[0] += 1
                row_slot[i] = slot
                src_row[slot] = i
            if fresh:
                for k in range(n_cols):
                    alpha0[slot * n_cols + k] = 0.0
                alive[slot] = 1
                kdiag[slot] = sq
                stamp[slot] = counters[2]
                counters[2] += 1
                pos_R[slot] = p
                alive_pos[slot] = counters[1]
                alive_list[counters[1]] = slot
                counters[1] += 1
            for r in range(n_changed):
                alpha0[slot * n_cols + changed[r]] += delta[changed[r]]
            # the later rows of the block see the step
            for q in range(p + 1, n_block):
                coef = K_RR[p, q]
                if coef != 0.0:
                    for r in range(n_changed):
                        F[q, changed[r]] += delta[changed[r]] * coef

            if budget < 0 or counters[1] <= budget:
                continue
            victim = _victim(policy, slot, &alive_list[0], counters[1], &stamp[0],
                             alpha0, &kdiag[0], n_cols)
            if victim < 0:
                continue
            removed += 1
            col = pos_S[victim]
            for q in range(p + 1, n_block):
                if col >= 0:
                    coef = K_RS[q, col]
                else:
                    coef = K_RR[pos_R[victim], q]
                if coef != 0.0:
                    for k in range(n_cols):
                        F[q, k] -= alpha0[victim * n_cols + k] * coef
            for k in range(n_cols):
                alpha0[victim * n_cols + k] = 0.0
            alive[victim] = 0
            last = alive_list[counters[1] - 1]
            alive_list[alive_pos[victim]] = last
            alive_pos[last] = alive_pos[victim]
            counters[1] -= 1
    free(delta)
    free(tau_buf)
    free(changed)
    free(cand)
    return mistakes, updates, skipped, removed
