# cython: language_level=3
"""One epoch of Online Bayes Point Machine updates over M copies at once.

The M copies of a first-order linear learner share one feature-major block
``W[n_features, M * K]``: copy ``r`` owns the columns ``r * K : (r + 1) * K``
(``K`` = 1 for a binary problem).  A row is read once and scored for every
copy in one pass over its non-zeros; one more pass writes the steps of every
copy that moved.

On a labeled row (class index ``y >= 0``) copy ``r`` takes the step of the
base rule (PA / PA-I / PA-II; binary, one-vs-rest, max-loss, prediction-based
or the exact support-class step) when its Bernoulli draw ``draws[n, r]`` is 1,
and is left alone otherwise (Harrington et al., Online Bayes Point Machines).
The step of one copy is the rule of ``_pa_rules.pxd`` that the first-order
kernel applies.

On an unlabeled row (``y == -1``) every copy moves its scores toward the
copies' mean (ss-PA / ss-SPA, Matsushima et al.): with ``s`` the squared norm
of the row (plus ``a ** 2`` for an intercept fitted as the weight of a
constant feature ``a``),

    m_{r,v} = w_{r,v} . x / s,   mbar_v = mean_r m_{r,v},
    w_{r,v} += c (mbar_v - m_{r,v}) x,

so the score of copy ``r`` on ``x`` becomes ``(1 - c) f_{r,v} + c fbar_v``:
``c = 1`` makes every copy's score equal, ``c = 0`` changes nothing, and for
``c`` in [0, 2] the spread of the copies around their mean never grows.
Nothing here calls back into Python.
"""

from libc.math cimport isfinite, exp2, NAN
from libc.stdlib cimport malloc, free

from ._dataset cimport (
    Rows32, Rows64, rows_t, get_row, make_rows, wide_rows, check_rows, check_length,
)
from ._rules_linear cimport Rule, RuleParams, rule_params

from .._core.rules import check_linear_rule
from ._steps cimport Candidate, PA_PREFETCH, PREFETCH_AHEAD, prefetch_row
from ._pa_rules cimport binary_step, ovr_step, multiclass_step


cdef inline Py_ssize_t copy_step(
    const double *scores,
    Py_ssize_t K,
    Py_ssize_t y,
    int rule,
    int slack,
    double C_i,
    double sq,
    bint learn,
    const double *weight_pos,
    const double *weight_neg,
    const double *margins,
    Candidate *cand,
    double *tau_buf,
    double *delta,
    Py_ssize_t *changed,
    Py_ssize_t offset,
    double *loss_sum,
    bint *mistake,
) noexcept nogil:
    """The base rule on one copy whose scores are ``scores[0:K]``.

    Always measures the copy's online loss (added to ``loss_sum``) and
    whether it makes a prediction mistake; when ``learn``, writes the step of
    column ``k`` to ``delta[offset + k]``, lists ``offset + k`` in
    ``changed`` and returns how many columns moved.  ``C_i`` is ``C`` times
    the sample weight; the class weights multiply it as in the first-order
    kernel.
    """
    if rule == Rule.BINARY:
        return binary_step(scores[0], y, sq, C_i * weight_pos[y], slack, learn,
                           delta, changed, offset, loss_sum, mistake)
    if rule == Rule.OVR:
        return ovr_step(scores, K, 0, K, y, sq, C_i, weight_pos, weight_neg, NULL,
                        slack, learn, delta, changed, offset, loss_sum, 0, mistake)
    if rule == Rule.MAX_LOSS or rule == Rule.PREDICTION or rule == Rule.SUPPORT:
        return multiclass_step(rule, scores, K, y, margins + y * K, sq,
                               C_i * weight_pos[y], slack, learn, cand, tau_buf,
                               delta, changed, offset, loss_sum, mistake)
    # no other rule reaches the copies: the entry refuses a rule without a
    # branch here (``sklearn_pa/_core/rules.py``)
    return 0


cdef inline void _record_mix(
    const double *scores, Py_ssize_t M, Py_ssize_t K, bint finite,
    bint weight_by_mistakes, const long long *mistakes, double *mix, double *out,
) noexcept nogil:
    """The Bayes point's scores ``out[k] = sum_r c_r scores[r K + k]``,
    ``c_r`` uniform or proportional to ``2 ** -(mistakes[r] - min)`` (as
    ``_publish`` mixes the copies); NaN when the row is not finite."""
    cdef Py_ssize_t r, k
    cdef long long least
    cdef double total = 0.0
    if not finite:
        for k in range(K):
            out[k] = NAN
        return
    least = mistakes[0]
    for r in range(M):
        if mistakes[r] < least:
            least = mistakes[r]
    for r in range(M):
        mix[r] = exp2(-<double> (mistakes[r] - least)) if weight_by_mistakes else 1.0
        total += mix[r]
    for k in range(K):
        out[k] = 0.0
    for r in range(M):
        for k in range(K):
            out[k] += (mix[r] / total) * scores[r * K + k]
    for k in range(K):
        if not isfinite(out[k]):
            out[k] = NAN


def epoch(
    rows,
    const long long[::1] order,
    double[:, ::1] W,
    double[::1] b,
    *,
    dict params,
    Py_ssize_t n_copies,
    labels,
    sample_weight,
    draws,
    weight_pos,
    weight_neg,
    margins,
    double intercept_sq,
    double unlabeled_step,
    mistakes,
    loss_out,
    scores_out=None,
    bint weight_by_mistakes=True,
    bint weight_step=False,
):
    """Run the M copies over the rows ``order`` once, updating W and b.

    Parameters (all validated by the caller)
    ----------------------------------------
    rows
        The row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (see ``_dataset.pxd`` and ``_linear_epochs._RowView``).
    order : int64 row indices, in visiting order.
    params : dict
        The base learner's ``_kernel_params()`` (``RuleParams``,
        ``_rules_linear.pxd``): its rule, slack and C.
    labels : class index per row (BINARY uses 0/1); -1 marks an unlabeled row.
    sample_weight : per row; multiplies C on a labeled row (its step with
        ``weight_step``) and the unlabeled step (capped at 2) on an unlabeled
        one.  A zero weight skips the row.
    draws : (len(order), n_copies) Bernoulli draws: copy r learns from the
        labeled row ``order[n]`` only when ``draws[n, r]`` is 1.
    W, b : weights (n_features, n_copies * K) and intercepts (n_copies * K),
        copy r in columns ``r * K : (r + 1) * K``, updated in place.
    weight_pos, weight_neg, margins : the base rule's, as in
        ``_first_order.epoch``.
    intercept_sq : a^2 for an intercept fitted as the weight of a constant
        feature a (0 without intercept).
    unlabeled_step : the step c of the unlabeled update (0 turns it off).
    mistakes : (n_copies,) int64, incremented by each copy's online
        prediction mistakes on the labeled rows (whether or not it learned).
    loss_out : [0] receives the online loss summed over labeled rows and
        copies, measured before each update.
    scores_out : None, or (len(order), K): row n receives the scores of the
        Bayes point (the copies' mix ``sum_r c_r (w_r . x + b_r)``) on row
        ``order[n]`` before its update (progressive validation); NaN when not
        finite.  Labeled or not, every row is scored.
    weight_by_mistakes : with ``scores_out``, the mix of the copies:
        ``c_r`` proportional to ``2 ** -mistakes[r]`` (counted up to that
        row), else uniform.
    weight_step : the base learner's ``weight_scaling="step"``: each copy
        solves the unweighted step (``C``, class weights of one), then the
        sample weight and the class weight multiply it, as in
        ``_first_order.epoch`` (``_weighting.pxd``).

    Returns
    -------
    (n_labeled, n_unlabeled, updates, skipped, overflow) : the labeled and
        unlabeled rows seen, the rows on which some copy moved, the rows
        skipped because their norm or scores were not finite, and whether a
        weight this call wrote overflowed.
    """
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _epoch[Rows64](
            &rows64, order, labels, sample_weight, draws, W, b, n_copies, weight_pos,
            weight_neg, margins, params, intercept_sq, unlabeled_step, mistakes,
            loss_out, scores_out, weight_by_mistakes, weight_step,
        )
    arrays = make_rows(rows, &rows32)
    return _epoch[Rows32](
        &rows32, order, labels, sample_weight, draws, W, b, n_copies, weight_pos,
        weight_neg, margins, params, intercept_sq, unlabeled_step, mistakes, loss_out,
        scores_out, weight_by_mistakes, weight_step,
    )


cdef tuple _epoch(
    const rows_t *rows,
    const long long[::1] order,
    const int[::1] labels,
    const double[::1] sample_weight,
    const unsigned char[:, ::1] draws,
    double[:, ::1] W,
    double[::1] b,
    Py_ssize_t n_copies,
    const double[::1] weight_pos,
    const double[::1] weight_neg,
    const double[:, ::1] margins,
    dict params,
    double intercept_sq,
    double unlabeled_step,
    long long[::1] mistakes,
    double[::1] loss_out,
    double[:, ::1] scores_out,
    bint weight_by_mistakes,
    bint weight_step,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    dtype)."""
    # the loop reads a local copy of the row view, which the compiler keeps in
    # registers (through the pointer it would reload the fields after each
    # store that might alias them)
    cdef rows_t view = rows[0]
    cdef bint dense = view.dense
    cdef Py_ssize_t n_features = view.n_features
    cdef RuleParams p = rule_params(params)
    cdef int rule = p.rule, slack = p.slack
    cdef double C = p.C
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t M = n_copies
    cdef Py_ssize_t MK = W.shape[1]
    if M < 1 or MK % M != 0:
        raise ValueError(f"W has {MK} columns, not a multiple of {M} copies")
    cdef Py_ssize_t K = MK // M
    # the rules the copies run: those ``sklearn_pa/_core/rules.py`` lists
    # for "bayes_point"
    spec = check_linear_rule("bayes_point", rule, slack)
    cdef Py_ssize_t n_weights = 2 if rule == Rule.BINARY else K
    if weight_pos.shape[0] < n_weights or weight_neg.shape[0] < n_weights:
        raise ValueError(
            f"class weights need {n_weights} entries for this rule; got "
            f"{weight_pos.shape[0]} and {weight_neg.shape[0]}"
        )
    if spec.margins and (margins.shape[0] != K or margins.shape[1] != K):
        raise ValueError(f"margins must be ({K}, {K})")
    if draws.shape[0] < n_rows or draws.shape[1] != M:
        raise ValueError(f"draws must be ({n_rows}, {M})")
    if mistakes.shape[0] != M or b.shape[0] != MK:
        raise ValueError("mistakes and b must match the copies")
    # the rows, the weights and every per-row array must fit the data
    cdef Py_ssize_t needed = check_rows(rows, order)
    cdef Py_ssize_t q, n_labels = 2 if K == 1 else K
    if W.shape[0] != n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {n_features} features")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(labels.shape[0], needed, "labels")
    check_length(loss_out.shape[0], 1, "loss_out")
    cdef bint want_scores = scores_out is not None
    if want_scores and (scores_out.shape[0] < n_rows or scores_out.shape[1] < K):
        raise ValueError(f"scores_out must be at least ({n_rows}, {K})")
    for q in range(order.shape[0]):
        if labels[order[q]] < -1 or labels[order[q]] >= n_labels:
            raise ValueError(f"labels must lie in [-1, {n_labels})")

    cdef long long n_labeled = 0, n_unlabeled = 0, updates = 0, skipped = 0
    cdef bint finite, overflow = False, mistake
    cdef Py_ssize_t n, i, j, k, r, c, y, nnz, n_changed
    cdef double sq, xj, w_i, step, mean, check, loss_sum = 0.0
    cdef const double *row_data
    row_ind = view.indices
    cdef const double *next_data
    next_ind = view.indices
    cdef Py_ssize_t next_nnz
    cdef double *wrow
    cdef double *W0 = &W[0, 0]
    cdef const double *margins0 = &margins[0, 0]
    cdef double *scores = <double *> malloc(MK * sizeof(double))
    cdef double *delta = <double *> malloc(MK * sizeof(double))
    cdef Py_ssize_t *changed = <Py_ssize_t *> malloc(MK * sizeof(Py_ssize_t))
    cdef double *tau_buf = <double *> malloc(K * sizeof(double))
    cdef Candidate *cand = <Candidate *> malloc(K * sizeof(Candidate))
    cdef double *mix = <double *> malloc(M * sizeof(double))
    # weight_step: the copies solve the step with class weights of one
    cdef double *ones = <double *> malloc(max(K, 2) * sizeof(double))
    cdef const double *w_pos = ones if weight_step else &weight_pos[0]
    cdef const double *w_neg = ones if weight_step else &weight_neg[0]
    cdef Py_ssize_t n_copy
    cdef double factor
    if (scores == NULL or delta == NULL or tau_buf == NULL or changed == NULL
            or cand == NULL or mix == NULL or ones == NULL):
        free(scores); free(delta); free(tau_buf); free(changed); free(cand)
        free(mix); free(ones)
        raise MemoryError()
    for k in range(max(K, 2)):
        ones[k] = 1.0

    with nogil:
        for n in range(n_rows):
            i = order[n]
            get_row(&view, i, &row_data, &row_ind, &nnz)
            if n + 1 < n_rows and not dense:
                get_row(&view, order[n + 1], &next_data, &next_ind, &next_nnz)
                for j in range(0, min(next_nnz, 32), 8):
                    PA_PREFETCH(next_data + j)
                for j in range(0, min(next_nnz, 32), 16):
                    PA_PREFETCH(next_ind + j)

            y = labels[i]
            w_i = sample_weight[i]
            if y < 0:
                n_unlabeled += 1
                step = unlabeled_step * w_i
                if step > 2.0:
                    step = 2.0
                if not step > 0.0 and not want_scores:
                    continue
            else:
                n_labeled += 1

            # scores of every copy in one pass over the row
            sq = intercept_sq
            for c in range(MK):
                scores[c] = b[c]
            for j in range(min(nnz, PREFETCH_AHEAD)):
                prefetch_row(W0 + row_ind[j] * MK, 0, MK)
            for j in range(nnz):
                if j + PREFETCH_AHEAD < nnz:
                    prefetch_row(W0 + row_ind[j + PREFETCH_AHEAD] * MK, 0, MK)
                xj = row_data[j]
                sq += xj * xj
                wrow = W0 + row_ind[j] * MK
                for c in range(MK):
                    scores[c] += xj * wrow[c]
            finite = isfinite(sq)
            for c in range(MK):
                finite = finite and isfinite(scores[c])
            if want_scores:
                _record_mix(scores, M, K, finite, weight_by_mistakes,
                            &mistakes[0], mix, &scores_out[n, 0])
                if y < 0 and not step > 0.0:
                    continue
            if not finite:
                skipped += 1
                continue

            n_changed = 0
            if y >= 0:
                for r in range(M):
                    n_copy = copy_step(
                        scores + r * K, K, y, rule, slack,
                        C if weight_step else C * w_i, sq,
                        draws[n, r] != 0 and w_i > 0.0,
                        w_pos, w_neg, margins0,
                        cand, tau_buf, delta, changed + n_changed, r * K,
                        &loss_sum, &mistake,
                    )
                    if weight_step:
                        # scikit-learn's weighting: the step times the sample
                        # weight and the class weight (one-vs-rest: column
                        # k's own, as in _weighting.scale_step_by_weights)
                        for j in range(n_changed, n_changed + n_copy):
                            c = changed[j]
                            k = c - r * K
                            if rule == Rule.OVR:
                                factor = w_i * (
                                    weight_pos[k] if k == y else weight_neg[k])
                            else:
                                factor = w_i * weight_pos[y]
                            delta[c] *= factor
                    n_changed += n_copy
                    if mistake:
                        mistakes[r] += 1
            elif sq > 0.0:
                # every copy's scores move toward the copies' mean; every
                # column moves, so the update pass below runs over all of them
                # contiguously
                for k in range(K):
                    mean = 0.0
                    for r in range(M):
                        mean += scores[r * K + k]
                    mean /= M
                    for r in range(M):
                        c = r * K + k
                        delta[c] = step * (mean - scores[c]) / sq
                updates += 1
                for j in range(nnz):
                    if j + PREFETCH_AHEAD < nnz:
                        prefetch_row(W0 + row_ind[j + PREFETCH_AHEAD] * MK, 0, MK)
                    xj = row_data[j]
                    if xj == 0.0:
                        continue
                    wrow = W0 + row_ind[j] * MK
                    check = 0.0
                    for c in range(MK):
                        wrow[c] += delta[c] * xj
                        check += wrow[c] - wrow[c]  # NaN once a weight is not finite
                    if check != 0.0:
                        overflow = True
                if intercept_sq > 0.0:
                    for c in range(MK):
                        b[c] += intercept_sq * delta[c]
                        if not isfinite(b[c]):
                            overflow = True
                continue

            if n_changed == 0:
                continue
            updates += 1
            for j in range(nnz):
                xj = row_data[j]
                if xj == 0.0:
                    continue
                wrow = W0 + row_ind[j] * MK
                for r in range(n_changed):
                    c = changed[r]
                    wrow[c] += delta[c] * xj
                    if not isfinite(wrow[c]):
                        overflow = True
            if intercept_sq > 0.0:
                for r in range(n_changed):
                    c = changed[r]
                    b[c] += intercept_sq * delta[c]
                    if not isfinite(b[c]):
                        overflow = True

    free(scores)
    free(delta)
    free(tau_buf)
    free(changed)
    free(cand)
    free(mix)
    free(ones)
    loss_out[0] += loss_sum
    return n_labeled, n_unlabeled, updates, skipped, overflow
