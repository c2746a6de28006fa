# cython: language_level=3
"""One epoch of first-order online updates ``W[:, k] += tau_k * x``.

Every rule here is the closed-form solution of a small quadratic problem

    min_W  1/2 ||W - W_old||^2 + C * xi   (PA-I)   or  + C * xi ** 2  (PA-II)
    s.t.   margin constraints on the example just seen, each >= m - xi

(``C = inf`` is plain PA: the constraints hold exactly).  An intercept is the
weight of a constant feature ``a`` appended to x (``intercept_sq = a ** 2``).  Writing the change as
``Delta w_y = T x`` and ``Delta w_u = -tau_u x`` the dual of every multiclass
variant is

    max_{tau >= 0}  sum_u tau_u l_u - s/2 sum_u tau_u^2 - a/2 T^2 (- 0 ...)
    with s = ||x||^2 (+1 for the intercept), T = sum_u tau_u,
         a = s (+ 1/(2C) for PA-II),   and T <= C for PA-I,

whose KKT conditions give ``tau_u = [l_u - theta]_+ / s``: the support classes
are the largest losses, found by sorting.  ``tests/test_oracle.py`` checks each
rule against a generic solver of its primal problem.

Weights are feature-major (``W[n_features, n_columns]``) so one sparse row
reads and writes contiguous rows of W.  Averaging is lazy: with ``c`` the index
of the current averaged step, ``U += (c - 1) * Delta`` and the average of the
iterates is ``W - U / c``.  Nothing here calls back into Python.
"""

from libc.math cimport fabs, isfinite, sqrt, INFINITY, NAN
from libc.stdlib cimport malloc, free

from ._dataset cimport index_t, get_row, check_rows, check_length
from ._rules cimport Rule, Slack
from ._steps cimport (
    Candidate, PA_PREFETCH, PREFETCH_AHEAD, prefetch_row, single_step, support_steps,
)
from ._steps cimport mira_steps


cdef bint _step_overflows(
    const double *row_data,
    const index_t *row_ind,
    Py_ssize_t nnz,
    double *W0,
    double *U0,
    double[::1] b,
    double[::1] bu,
    Py_ssize_t K,
    const double *delta,
    const Py_ssize_t *changed,
    Py_ssize_t n_changed,
    double sq,
    double intercept_sq,
    double avg_coef,
) noexcept nogil:
    """Whether adding the step to W, b (and U, bu) would overflow.

    Every |x_j| is at most sqrt(sq), so a step bounded by 1e300 cannot make a
    finite weight infinite (unless the weight is already within 1e300 of the
    largest double, which the write-time check still reports): only rows above
    that bound, which are rare, pay for the exact test.
    """
    cdef Py_ssize_t j, r, k
    cdef double step_max = 0.0, factor = avg_coef if avg_coef > 1.0 else 1.0
    cdef double xj
    cdef double *wrow
    for r in range(n_changed):
        step_max = max(step_max, fabs(delta[changed[r]]))
    step_max *= factor
    if step_max * sqrt(sq) < 1e300 and step_max * intercept_sq < 1e300:
        return False
    for j in range(nnz):
        xj = row_data[j]
        wrow = W0 + row_ind[j] * K
        for r in range(n_changed):
            k = changed[r]
            if not isfinite(wrow[k] + delta[k] * xj):
                return True
            if avg_coef != 0.0 and not isfinite(
                U0[row_ind[j] * K + k] + avg_coef * delta[k] * xj
            ):
                return True
    if intercept_sq > 0.0:
        for r in range(n_changed):
            k = changed[r]
            if not isfinite(b[k] + intercept_sq * delta[k]):
                return True
            if avg_coef != 0.0 and not isfinite(
                bu[k] + avg_coef * intercept_sq * delta[k]
            ):
                return True
    return False


def epoch(
    const double[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    bint dense,
    Py_ssize_t n_features,
    const long long[::1] order,
    const int[::1] labels,
    const double[::1] targets,
    const double[::1] sample_weight,
    double[:, ::1] W,
    double[::1] b,
    double[:, ::1] U,
    double[::1] bu,
    const double[::1] weight_pos,
    const double[::1] weight_neg,
    const double[:, ::1] margins,
    const unsigned char[::1] active,
    int rule,
    int slack,
    double C,
    double epsilon,
    double intercept_sq,
    long long t0,
    long long average_start,
    double[::1] loss_out,
    Py_ssize_t col_start=0,
    Py_ssize_t col_stop=-1,
    double[:, ::1] scores_out=None,
    const long long[::1] label_indptr=None,
    const int[::1] label_indices=None,
    bint score_average=False,
):
    """Run the rule over the rows ``order`` once, updating W, b (and U, bu).

    Parameters (all validated by the caller)
    ----------------------------------------
    data, indices, indptr, dense, n_features
        The row view (see ``_dataset.pxd``).
    order : int64 row indices, in visiting order.
    labels : class index per row (classification; BINARY uses 0/1).
    targets : target per row (REGRESSION).
    sample_weight : per row; multiplies C.  A zero weight skips the row.
    W, b : weights (n_features, n_columns) and intercepts, updated in place.
    U, bu : lazy-averaging accumulators, or arrays of length 0.
    weight_pos, weight_neg : per-column class weights.  BINARY and the
        multiclass rules read ``weight_pos[label]``; OVR reads ``weight_pos[k]``
        for the positive column and ``weight_neg[k]`` for the others.
    margins : (K, K) required margins (ones off the diagonal).
    intercept_sq : a^2 for an intercept fitted as the weight of a constant
        feature a (0 without intercept): it adds a^2 to ||x||^2 and b moves
        by a^2 times the step.
    active : per column, OVR only: 0 freezes a converged column.
    t0 : samples seen before this call; row n of this call is step t0 + n + 1.
    average_start : first step that is averaged (when U is not empty).
    loss_out : per column (OVR) or [0] (others): loss summed over the rows,
        measured before each update (online loss).
    col_start, col_stop : OVR only, the column range this call owns, so
        disjoint ranges may run concurrently.
    scores_out : None, or (len(order), n_columns): row n receives the scores
        of row ``order[n]`` computed before the update on it (the online,
        "predict then learn" decision values used by progressive validation).
        Columns outside ``col_start:col_stop`` are left alone; a skipped row
        gets NaN.
    score_average : with ``scores_out`` and averaging, record the scores of
        the averaged model (``W - U / c`` over the ``c = t - average_start``
        averaged steps before row t; the current iterate while ``c < 1``),
        the model ``predict`` uses, instead of the current iterate's.
    label_indptr, label_indices : MULTILABEL only, the relevant labels of
        row i as ``label_indices[label_indptr[i]:label_indptr[i + 1]]`` (a
        CSR indicator matrix).  MULTILABEL ranks the relevant labels above a
        virtual label of score 0 and that above the irrelevant ones: relevant
        - irrelevant >= 1, relevant >= 1/2, irrelevant <= -1/2, and each step
        enforces the most violated of the three extreme constraints.
        MULTILABEL_RANKING is the pure ranking rule (Crammer et al. 2006,
        eqs. 31-38): only min(relevant) - max(irrelevant) >= 1, enforced on
        that extreme pair with the step loss / (2 ||x||^2) (capped at C for
        PA-I, ``+ 1/(2C)`` for PA-II); a row with no relevant or no
        irrelevant label sets no constraint.
    MIRA reads ``epsilon`` as its margin beta and bounds the true class's
        step by ``C * sample_weight * weight_pos[y]`` (1 in the paper); with
        one column it is binary MIRA on the difference of the two prototypes.

    Returns
    -------
    (mistakes, updates, skipped, overflow) : online prediction mistakes (-1
        when not defined), the number of rows that took a non-zero step, the
        number of rows skipped because their norm or scores were not finite,
        and whether a weight this call wrote overflowed.
    """
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t K = W.shape[1]
    # the only reads indexed by a label rather than a column: check them here,
    # since the loop runs without bounds checks
    cdef Py_ssize_t n_weights = 2 if rule == Rule.BINARY else K
    if weight_pos.shape[0] < n_weights or weight_neg.shape[0] < n_weights:
        raise ValueError(
            f"class weights need {n_weights} entries for this rule; got "
            f"{weight_pos.shape[0]} and {weight_neg.shape[0]}"
        )
    if rule in (Rule.MAX_LOSS, Rule.PREDICTION, Rule.SUPPORT) and (
        margins.shape[0] < K or margins.shape[1] < K
    ):
        raise ValueError(f"margins must be at least ({K}, {K})")
    if rule == Rule.MIRA and K == 1 and (weight_pos.shape[0] < 2):
        raise ValueError("class weights need 2 entries for binary MIRA")
    cdef const long long *lptr = NULL
    cdef const int *lind = NULL
    cdef Py_ssize_t max_row = 0, q
    if rule == Rule.MULTILABEL or rule == Rule.MULTILABEL_RANKING:
        if label_indptr is None or label_indices is None:
            raise ValueError("MULTILABEL needs label_indptr and label_indices")
        for q in range(order.shape[0]):
            if order[q] > max_row:
                max_row = order[q]
        if label_indptr.shape[0] < max_row + 2:
            raise ValueError("label_indptr is shorter than the rows in order")
        if label_indices.shape[0] < label_indptr[max_row + 1]:
            raise ValueError("label_indices is shorter than label_indptr says")
        for q in range(label_indptr[max_row + 1]):
            if label_indices[q] < 0 or label_indices[q] >= K:
                raise ValueError(f"label indices must lie in [0, {K})")
        lptr = &label_indptr[0]
        if label_indices.shape[0] > 0:
            lind = &label_indices[0]
    cdef bint averaging = U.shape[0] > 0
    # the rows, the weights and every per-row and per-column array must fit
    # the data and each other (the estimators check the learned state first)
    cdef Py_ssize_t needed = check_rows(data, indices, indptr, dense, n_features, order)
    if W.shape[0] != n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {n_features} features")
    check_length(b.shape[0], K, "b")
    if U.shape[0] > 0:
        if U.shape[0] != W.shape[0] or U.shape[1] != K:
            raise ValueError("U must have the shape of W")
        check_length(bu.shape[0], K, "bu")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(loss_out.shape[0], K if rule == Rule.OVR else 1, "loss_out")
    check_length(active.shape[0], K, "active")
    if col_start < 0 or col_stop > K:
        raise ValueError(f"the column range must lie in [0, {K}]")
    cdef Py_ssize_t n_labels = 2 if K == 1 else K
    if rule in (Rule.REGRESSION, Rule.GRADIENT, Rule.NORMALIZED_GRADIENT):
        check_length(targets.shape[0], needed, "targets")
    elif rule != Rule.MULTILABEL:
        check_length(labels.shape[0], needed, "labels")
        for q in range(order.shape[0]):
            if labels[order[q]] < 0 or labels[order[q]] >= n_labels:
                raise ValueError(f"labels must lie in [0, {n_labels})")
    cdef bint want_scores = scores_out is not None
    if want_scores and (scores_out.shape[0] < order.shape[0] or scores_out.shape[1] < K):
        raise ValueError(f"scores_out must be at least ({order.shape[0]}, {K})")
    cdef Py_ssize_t c0 = col_start
    cdef Py_ssize_t c1 = K if col_stop < 0 else col_stop
    cdef long long mistakes = 0, updates = 0, skipped = 0
    cdef bint finite, overflow = False
    cdef Py_ssize_t n, i, j, k, r, y, nnz, n_changed, n_cand
    cdef long long t
    cdef double sq, w_i, C_i, loss, tau, ysign, best, xj, avg_coef, resid
    cdef double n_avg_before
    cdef double lo, hi
    cdef Py_ssize_t u, kind
    cdef bint miss
    cdef const double *row_data
    cdef const index_t *row_ind
    cdef const double *next_data
    cdef const index_t *next_ind
    cdef Py_ssize_t next_nnz
    cdef double *wrow
    cdef double *urow
    cdef const index_t *indptr_ptr = &indptr[0]
    cdef double *W0 = &W[0, 0]
    cdef double *U0 = &U[0, 0] if averaging else NULL
    cdef double *scores = <double *> malloc(K * sizeof(double))
    cdef double *delta = <double *> malloc(K * sizeof(double))
    cdef double *tau_buf = <double *> malloc(K * sizeof(double))
    cdef Py_ssize_t *changed = <Py_ssize_t *> malloc(K * sizeof(Py_ssize_t))
    cdef Candidate *cand = <Candidate *> malloc(K * sizeof(Candidate))
    cdef unsigned char *relevant = <unsigned char *> malloc(K * sizeof(unsigned char))
    if scores == NULL or delta == NULL or tau_buf == NULL or changed == NULL or cand == NULL:
        free(scores); free(delta); free(tau_buf); free(changed); free(cand)
        free(relevant)
        raise MemoryError()
    if relevant == NULL:
        free(scores); free(delta); free(tau_buf); free(changed); free(cand)
        raise MemoryError()

    with nogil:
        for n in range(n_rows):
            i = order[n]
            t = t0 + n + 1
            get_row(&data[0], &indices[0], indptr_ptr, dense, n_features, i,
                    &row_data, &row_ind, &nnz)
            if n + 1 < n_rows and not dense:
                # the next row is elsewhere in X (shuffled order): start
                # fetching its first non-zeros while this one is scored
                get_row(&data[0], &indices[0], indptr_ptr, dense, n_features,
                        order[n + 1], &next_data, &next_ind, &next_nnz)
                for j in range(0, min(next_nnz, 32), 8):
                    PA_PREFETCH(next_data + j)
                for j in range(0, min(next_nnz, 32), 16):
                    PA_PREFETCH(next_ind + j)

            sq = intercept_sq
            for k in range(c0, c1):
                scores[k] = b[k]
            for j in range(min(nnz, PREFETCH_AHEAD)):
                prefetch_row(W0 + row_ind[j] * K, c0, c1)
            for j in range(nnz):
                if j + PREFETCH_AHEAD < nnz:
                    prefetch_row(W0 + row_ind[j + PREFETCH_AHEAD] * K, c0, c1)
                xj = row_data[j]
                sq += xj * xj
                wrow = W0 + row_ind[j] * K
                for k in range(c0, c1):
                    scores[k] += xj * wrow[k]

            # a row whose scores overflow cannot be learned from safely
            finite = isfinite(sq)
            for k in range(c0, c1):
                finite = finite and isfinite(scores[k])
            if want_scores:
                n_avg_before = <double> (t - average_start)
                if finite and score_average and averaging and n_avg_before >= 1.0:
                    # the averaged model's scores: s - (x . U + bu) / c
                    for k in range(c0, c1):
                        scores_out[n, k] = bu[k]
                    for j in range(nnz):
                        xj = row_data[j]
                        urow = U0 + row_ind[j] * K
                        for k in range(c0, c1):
                            scores_out[n, k] += xj * urow[k]
                    for k in range(c0, c1):
                        scores_out[n, k] = scores[k] - scores_out[n, k] / n_avg_before
                        if not isfinite(scores_out[n, k]):
                            scores_out[n, k] = NAN
                else:
                    for k in range(c0, c1):
                        scores_out[n, k] = scores[k] if finite else NAN
            if not finite:
                skipped += 1
                continue

            n_changed = 0
            w_i = sample_weight[i]

            if rule == Rule.REGRESSION:
                resid = targets[i] - scores[0]
                loss = fabs(resid) - epsilon
                if loss > 0.0:
                    loss_out[0] += loss
                    if w_i > 0.0:
                        tau = single_step(loss, sq, C * w_i, slack)
                        if tau > 0.0:
                            delta[0] = tau if resid > 0.0 else -tau
                            changed[0] = 0
                            n_changed = 1

            elif rule == Rule.GRADIENT or rule == Rule.NORMALIZED_GRADIENT:
                # Kivinen-Warmuth GD on the square loss: C is the learning
                # rate eta, the step 2 eta (y - yhat) (divided by ||x||^2,
                # intercept feature included, for the normalised rule)
                resid = targets[i] - scores[0]
                loss_out[0] += resid * resid
                if w_i > 0.0 and resid != 0.0:
                    tau = 2.0 * C * w_i * resid
                    if rule == Rule.NORMALIZED_GRADIENT:
                        tau = tau / sq if sq > 0.0 else 0.0
                    if tau != 0.0:
                        delta[0] = tau
                        changed[0] = 0
                        n_changed = 1

            elif rule == Rule.BINARY:
                y = labels[i]
                ysign = 1.0 if y == 1 else -1.0
                if ysign * scores[0] <= 0.0:
                    mistakes += 1
                loss = 1.0 - ysign * scores[0]
                if loss > 0.0:
                    loss_out[0] += loss
                    if w_i > 0.0:
                        tau = single_step(loss, sq, C * w_i * weight_pos[y], slack)
                        if tau > 0.0:
                            delta[0] = ysign * tau
                            changed[0] = 0
                            n_changed = 1

            elif rule == Rule.OVR:
                y = labels[i]
                if c0 == 0 and c1 == K:
                    best = scores[0]
                    r = 0
                    for k in range(1, K):
                        if scores[k] > best:
                            best = scores[k]
                            r = k
                    if r != y:
                        mistakes += 1
                for k in range(c0, c1):
                    if not active[k]:
                        continue
                    ysign = 1.0 if k == y else -1.0
                    loss = 1.0 - ysign * scores[k]
                    if loss <= 0.0:
                        continue
                    loss_out[k] += loss
                    if w_i > 0.0:
                        C_i = C * w_i * (weight_pos[k] if k == y else weight_neg[k])
                        tau = single_step(loss, sq, C_i, slack)
                        if tau > 0.0:
                            delta[k] = ysign * tau
                            changed[n_changed] = k
                            n_changed += 1

            elif rule == Rule.MULTILABEL:
                # label ranking with a virtual label of score 0 between the
                # relevant labels (above it) and the irrelevant ones (below)
                for k in range(K):
                    relevant[k] = 0
                for j in range(<Py_ssize_t> lptr[i], <Py_ssize_t> lptr[i + 1]):
                    relevant[lind[j]] = 1
                r = -1
                u = -1
                lo = INFINITY
                hi = -INFINITY
                miss = False
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
                if miss:
                    mistakes += 1
                # the extreme constraints: (lowest relevant, highest
                # irrelevant) at margin 1, each against the threshold at 1/2;
                # the pair wins ties (its loss is the sum of the other two)
                best = 0.0
                kind = 0
                if r >= 0 and u >= 0 and 1.0 - (lo - hi) > best:
                    best = 1.0 - (lo - hi)
                    kind = 3
                if r >= 0 and 0.5 - lo > best:
                    best = 0.5 - lo
                    kind = 1
                if u >= 0 and 0.5 + hi > best:
                    best = 0.5 + hi
                    kind = 2
                if kind != 0:
                    loss_out[0] += best
                    if w_i > 0.0:
                        tau = single_step(best, (2.0 if kind == 3 else 1.0) * sq,
                                          C * w_i, slack)
                        if tau > 0.0:
                            if kind != 2:
                                delta[r] = tau
                                changed[n_changed] = r
                                n_changed += 1
                            if kind != 1:
                                delta[u] = -tau
                                changed[n_changed] = u
                                n_changed += 1

            elif rule == Rule.MULTILABEL_RANKING:
                # the seed's ranking margin: lowest relevant minus highest
                # irrelevant score, at least 1; no threshold
                for k in range(K):
                    relevant[k] = 0
                for j in range(<Py_ssize_t> lptr[i], <Py_ssize_t> lptr[i + 1]):
                    relevant[lind[j]] = 1
                r = -1
                u = -1
                lo = INFINITY
                hi = -INFINITY
                for k in range(K):
                    if relevant[k]:
                        if scores[k] < lo:
                            lo = scores[k]
                            r = k
                    elif scores[k] > hi:
                        hi = scores[k]
                        u = k
                if r >= 0 and u >= 0:
                    # a tie between a relevant and an irrelevant label is a
                    # mistake: the ranking does not put every relevant first
                    if lo <= hi:
                        mistakes += 1
                    loss = 1.0 - (lo - hi)
                    if loss > 0.0:
                        loss_out[0] += loss
                        if w_i > 0.0:
                            tau = single_step(loss, 2.0 * sq, C * w_i, slack)
                            if tau > 0.0:
                                delta[r] = tau
                                delta[u] = -tau
                                changed[0] = r
                                changed[1] = u
                                n_changed = 2

            elif rule == Rule.MIRA:
                y = labels[i]
                C_i = C * w_i * weight_pos[y]
                if K == 1:
                    # prototypes -v/2 and +v/2: the step of v = M_1 - M_0 is
                    # twice the prototypes' step, clipped at 2 C_i
                    ysign = 1.0 if y == 1 else -1.0
                    if ysign * scores[0] <= 0.0:
                        mistakes += 1
                    loss = epsilon - ysign * scores[0]
                    if loss > 0.0:
                        loss_out[0] += loss
                        if C_i > 0.0 and sq > 0.0:
                            tau = min(2.0 * C_i, loss / sq)
                            if tau > 0.0:
                                delta[0] = ysign * tau
                                changed[0] = 0
                                n_changed = 1
                else:
                    n_cand = 0
                    best = 0.0
                    miss = False
                    for k in range(K):
                        if k == y:
                            continue
                        if scores[k] >= scores[y]:
                            miss = True
                        loss = epsilon - (scores[y] - scores[k])
                        if loss > best:
                            best = loss
                        if loss > 0.0:
                            # only classes within beta of the true class move
                            cand[n_cand].loss = scores[k]
                            cand[n_cand].k = k
                            n_cand += 1
                    if miss:
                        mistakes += 1
                    if best > 0.0:
                        loss_out[0] += best
                    if n_cand > 0 and C_i > 0.0 and sq > 0.0:
                        cand[n_cand].loss = scores[y] - epsilon + sq * C_i
                        cand[n_cand].k = y
                        n_cand += 1
                        tau = mira_steps(cand, n_cand, sq, C_i, y, tau_buf)
                        if tau > 0.0:
                            delta[y] = tau
                            changed[0] = y
                            n_changed = 1
                            for j in range(n_cand):
                                if cand[j].k != y and tau_buf[j] < 0.0:
                                    delta[cand[j].k] = tau_buf[j]
                                    changed[n_changed] = cand[j].k
                                    n_changed += 1

            else:
                # multiclass rules on K prototypes: losses l_u = m_yu - (s_y - s_u)
                y = labels[i]
                r = -1
                best = -INFINITY
                n_cand = 0
                for k in range(K):
                    if k == y:
                        continue
                    loss = margins[y, k] - (scores[y] - scores[k])
                    if loss > best:
                        best = loss
                        r = k
                    if loss > 0.0:
                        cand[n_cand].loss = loss
                        cand[n_cand].k = k
                        n_cand += 1
                # a tie with a wrong class counts as a mistake
                for k in range(K):
                    if k != y and scores[k] >= scores[y]:
                        mistakes += 1
                        break
                if best > 0.0:
                    loss_out[0] += best
                if best > 0.0 and w_i > 0.0:
                    C_i = C * w_i * weight_pos[y]
                    if rule == Rule.SUPPORT:
                        tau = support_steps(cand, n_cand, sq, C_i, slack, tau_buf)
                        if tau > 0.0:
                            delta[y] = tau
                            changed[0] = y
                            n_changed = 1
                            for j in range(n_cand):
                                if tau_buf[j] > 0.0:
                                    delta[cand[j].k] = -tau_buf[j]
                                    changed[n_changed] = cand[j].k
                                    n_changed += 1
                    else:
                        if rule == Rule.PREDICTION:
                            # rival = the predicted class; only on a mistake
                            best = -INFINITY
                            r = -1
                            for k in range(K):
                                if k != y and scores[k] > best:
                                    best = scores[k]
                                    r = k
                            loss = margins[y, r] - (scores[y] - scores[r])
                            if best < scores[y]:
                                loss = 0.0
                        else:
                            loss = best
                        tau = single_step(loss, 2.0 * sq, C_i, slack)
                        if tau > 0.0:
                            delta[y] = tau
                            delta[r] = -tau
                            changed[0] = y
                            changed[1] = r
                            n_changed = 2

            if n_changed == 0:
                continue
            if _step_overflows(row_data, row_ind, nnz, W0, U0, b, bu, K, delta,
                               changed, n_changed, sq, intercept_sq,
                               <double> (t - average_start)
                               if averaging and t >= average_start else 0.0):
                # a finite row whose step would make a weight infinite: skip it
                # before writing anything, as a row whose scores overflow
                skipped += 1
                continue
            updates += 1
            avg_coef = 0.0
            if averaging and t >= average_start:
                avg_coef = <double> (t - average_start)
            if avg_coef != 0.0:
                for j in range(min(nnz, PREFETCH_AHEAD)):
                    prefetch_row(U0 + row_ind[j] * K, c0, c1)
            for j in range(nnz):
                if avg_coef != 0.0 and j + PREFETCH_AHEAD < nnz:
                    prefetch_row(U0 + row_ind[j + PREFETCH_AHEAD] * K, c0, c1)
                xj = row_data[j]
                if xj == 0.0:
                    continue
                wrow = W0 + row_ind[j] * K
                for r in range(n_changed):
                    k = changed[r]
                    wrow[k] += delta[k] * xj
                    if not isfinite(wrow[k]):
                        overflow = True
                if avg_coef != 0.0:
                    urow = U0 + row_ind[j] * K
                    for r in range(n_changed):
                        k = changed[r]
                        urow[k] += avg_coef * delta[k] * xj
            if intercept_sq > 0.0:
                # b = a * w_a for the constant feature a: it moves by a^2 * step
                for r in range(n_changed):
                    k = changed[r]
                    b[k] += intercept_sq * delta[k]
                    if not isfinite(b[k]):
                        overflow = True
                    if avg_coef != 0.0:
                        bu[k] += avg_coef * intercept_sq * delta[k]

    free(scores)
    free(delta)
    free(tau_buf)
    free(changed)
    free(cand)
    free(relevant)
    if (
        rule == Rule.REGRESSION
        or rule == Rule.GRADIENT
        or rule == Rule.NORMALIZED_GRADIENT
        or (rule == Rule.OVR and not (c0 == 0 and c1 == K))
    ):
        mistakes = -1
    return mistakes, updates, skipped, overflow
