# cython: language_level=3
"""One epoch of the rules that rescale the whole model, ``W <- c W + d phi``.

ROMMA, aggressive ROMMA (Li & Long 2002) and ALMA_2 (Gentile 2001) move the
model to ``c W + d phi``, ``phi`` the row with the sign of its label (binary,
one column) or, multiclass, ``x`` in the true class's column and ``-x`` in
the rival's (the Kesler construction LIBOL's ``M_ROMMA`` uses; the rival is
the highest-scoring wrong class).  The coefficients are the rules'
(``_margin_rules.pxd``: ``romma_coefficients``, ``alma_coefficients``).

Scaling every weight at each update would cost the model's size per row.
As scikit-learn's SGD does with its ``wscale``, the weights are held here as
``W = s V`` (``V`` the arrays the caller passes, ``s`` a scalar) and the
squared norm ``||W||^2`` is kept up to date from the row alone:

    ||c W + d phi||^2 = c^2 ||W||^2 + 2 c d (W . phi) + d^2 ||phi||^2,

so an update costs the row's non-zeros: ``s <- c s`` and ``V += (d / s) phi``.
``s`` is folded into ``V`` whenever it leaves [1e-9, 1e9] (and ``V``
zeroed when the rule starts afresh from ``phi / q``, ``s = 0``).  A
self-contained call (``fit``'s passes) computes the norm at entry and folds
``s`` back at exit; a call given ``state`` (``partial_fit``) takes ``s`` and
``||W||^2`` in and hands them out, so that it costs its rows alone.  The intercept is the weight of a constant feature ``a``
(``intercept_sq = a^2``): ``b = a w_a`` counts ``b^2 / a^2`` in the norm.
Without an intercept ``b`` stays as it is (unscaled).
"""

from libc.math cimport isfinite, sqrt, NAN
from libc.stdlib cimport malloc, free

from ._dataset cimport (
    Rows32, Rows64, Rows32F, Rows64F, RowsKind, rows_t, get_row, make_rows,
    rows_kind, check_rows,
    check_length,
)
from ._rules_linear cimport Rule
from ._params cimport check_param_names

from .._core.rules import check_kernel_rule
from ._score_rows cimport pa_simd_available, score_row
from ._margin_rules cimport (
    ScaledParams, top_rival, romma_coefficients, alma_coefficients,
)

cdef int _simd = pa_simd_available()


cdef inline ScaledParams scaled_params(dict params) except *:
    """The struct of a parameter dict; ValueError on a missing or unknown key
    or a rule this kernel has no branch for (``sklearn_pa/_core/rules.py``)."""
    check_param_names(params, ("rule", "alpha", "B", "C", "normalize"))
    cdef ScaledParams p = params
    check_kernel_rule("scaled", "rule", p.rule)
    return p


def epoch(
    rows,
    const long long[::1] order,
    double[:, ::1] W,
    double[::1] b,
    double[:, ::1] U,
    double[::1] bu,
    *,
    dict params,
    labels,
    sample_weight,
    weight_pos,
    double intercept_sq,
    loss_out,
    counter,
    scores_out=None,
    targets=None,
    weight_neg=None,
    margins=None,
    active=None,
    long long t0=0,
    long long average_start=0,
    Py_ssize_t col_start=0,
    Py_ssize_t col_stop=-1,
    bint score_average=False,
    bint weight_step=False,
    state=None,
):
    """Run ROMMA, aggressive ROMMA or ALMA over the rows ``order`` once,
    updating ``W`` and ``b`` in place.

    ``params`` holds ``rule``, ``alpha``, ``B``, ``C`` and ``normalize``
    (``ScaledParams`` in ``_margin_rules.pxd``; ROMMA reads none of the last
    four).  With ``normalize`` ALMA learns from the unit row ``x / ||x||``
    (the intercept's constant feature included), as Gentile's pseudo-code.
    ``labels`` are class indices (0 / 1 with one column); ``sample_weight``
    times ``weight_pos[label]`` multiplies ALMA's step, and a zero product
    skips the row (ROMMA's step has no size to scale: only zero counts).
    ``counter`` is ALMA's update count ``k`` (one int64, read and written).
    ``loss_out[0]`` receives the summed hinge loss ``[1 - m]_+`` of the
    margins ``m`` before each update; ``scores_out`` as in
    ``_first_order.epoch``.  The rules have no averaged form: ``U`` and
    ``bu`` must be empty, and the arguments the first-order kernel reads
    beyond these (``targets``, ``weight_neg``, ``margins``, ``active``,
    ``t0``, ``average_start``, the column range) are accepted and unused.

    ``state`` (float64, length 4; None: a self-contained call) carries the
    representation across calls: ``state[0]`` the scale ``s`` with
    ``W = s V`` (``V`` the arrays passed), ``state[1]`` the squared norm
    ``||W||^2`` (NaN: computed at entry), both read and written; the scale
    is then folded into ``V`` only when it leaves [1e-9, 1e9], so a call
    costs its rows alone.  A step that must write every weight (that fold,
    or ROMMA's restart from ``phi / q``) is only taken when ``state[2]`` is
    non-zero (the caller saved the whole model for its rollback); otherwise
    the call stops before that row.  ``state[3]`` receives the number of
    rows of ``order`` processed.  Without ``state`` the scale is folded
    back at the end of the call and the norm computed at its entry.

    Returns ``(mistakes, updates, skipped, overflow)`` as
    ``_first_order.epoch``.
    """
    cdef Rows32 rows32
    cdef Rows64 rows64
    cdef Rows32F rows32f
    cdef Rows64F rows64f
    if U.shape[0] > 0 or score_average or weight_step:
        raise ValueError("the scaled rules have no averaging nor step weighting")
    if col_start != 0 or (col_stop != -1 and col_stop != W.shape[1]):
        raise ValueError("the scaled rules update every column at once")
    cdef double[::1] st = None
    if state is not None:
        st = state
        check_length(st.shape[0], 4, "state")
        if not (isfinite(st[0]) and st[0] != 0.0):
            raise ValueError("the scale state[0] must be finite and non-zero")
    cdef int kind = rows_kind(rows)
    if kind == RowsKind.ROWS64:
        arrays = make_rows(rows, &rows64)
        return _epoch[Rows64](&rows64, order, W, b, labels, sample_weight,
                              weight_pos, params, intercept_sq, loss_out,
                              counter, scores_out, st)
    if kind == RowsKind.ROWS32F:
        arrays = make_rows(rows, &rows32f)
        return _epoch[Rows32F](&rows32f, order, W, b, labels, sample_weight,
                               weight_pos, params, intercept_sq, loss_out,
                               counter, scores_out, st)
    if kind == RowsKind.ROWS64F:
        arrays = make_rows(rows, &rows64f)
        return _epoch[Rows64F](&rows64f, order, W, b, labels, sample_weight,
                               weight_pos, params, intercept_sq, loss_out,
                               counter, scores_out, st)
    arrays = make_rows(rows, &rows32)
    return _epoch[Rows32](&rows32, order, W, b, labels, sample_weight,
                          weight_pos, params, intercept_sq, loss_out, counter,
                          scores_out, st)


cdef int _check_epoch(
    const rows_t *rows, const long long[::1] order, double[:, ::1] W,
    double[::1] b, const int[::1] labels, const double[::1] sample_weight,
    const double[::1] weight_pos, double[::1] loss_out,
    long long[::1] counter, double[:, ::1] scores_out,
) except -1:
    """The entry checks of :func:`epoch` (the loop runs without bounds
    checks)."""
    cdef Py_ssize_t K = W.shape[1], q
    cdef Py_ssize_t n_labels = 2 if K == 1 else K
    cdef Py_ssize_t needed = check_rows(rows, order)
    if K < 1:
        raise ValueError("W needs at least one column")
    if W.shape[0] != rows.n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {rows.n_features} features")
    check_length(b.shape[0], K, "b")
    check_length(weight_pos.shape[0], n_labels, "weight_pos")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(labels.shape[0], needed, "labels")
    check_length(loss_out.shape[0], 1, "loss_out")
    check_length(counter.shape[0], 1, "counter")
    if counter[0] < 1:
        raise ValueError("ALMA's update count starts at 1")
    for q in range(order.shape[0]):
        if labels[order[q]] < 0 or labels[order[q]] >= n_labels:
            raise ValueError(f"labels must lie in [0, {n_labels})")
    if scores_out is not None and (
        scores_out.shape[0] < order.shape[0] or scores_out.shape[1] < K
    ):
        raise ValueError(f"scores_out must be at least ({order.shape[0]}, {K})")
    return 0


cdef inline void _fold(double *W0, Py_ssize_t size, double *b, Py_ssize_t K,
                       double s, bint scale_b) noexcept nogil:
    """``V *= s`` (and ``b`` with the intercept): the scale into the arrays."""
    cdef Py_ssize_t j
    for j in range(size):
        W0[j] *= s
    if scale_b:
        for j in range(K):
            b[j] *= s


cdef tuple _epoch(
    const rows_t *rows,
    const long long[::1] order,
    double[:, ::1] W,
    double[::1] b,
    const int[::1] labels,
    const double[::1] sample_weight,
    const double[::1] weight_pos,
    dict params,
    double intercept_sq,
    double[::1] loss_out,
    long long[::1] counter,
    double[:, ::1] scores_out,
    double[::1] st,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    dtype)."""
    cdef ScaledParams p = scaled_params(params)
    _check_epoch(rows, order, W, b, labels, sample_weight, weight_pos, loss_out,
                 counter, scores_out)
    cdef int rule = p.rule
    cdef Py_ssize_t K = W.shape[1], n_rows = order.shape[0]
    cdef Py_ssize_t size = W.shape[0] * K
    cdef bint with_b = intercept_sq > 0.0
    cdef bint want_scores = scores_out is not None
    cdef double *W0 = &W[0, 0] if size > 0 else NULL
    cdef double *b0 = &b[0]
    cdef double *scores = <double *> malloc(K * sizeof(double))
    cdef double *zeros = <double *> malloc(K * sizeof(double))
    if scores == NULL or zeros == NULL:
        free(scores); free(zeros)
        raise MemoryError()
    cdef Py_ssize_t n, i, j, k, y, r, nnz
    cdef long long mistakes = 0, updates = 0, skipped = 0
    cdef long long alma_k = counter[0]
    cdef bint finite, learn, overflow = False
    cdef double s = 1.0, s_new, N = 0.0, N_new, sq, q, m, ysign, w, c, d, e
    cdef double threshold, inv
    cdef bint stream = st is not None
    cdef Py_ssize_t done = n_rows
    cdef bint whole = False
    cdef bint norm_known = False
    if stream:
        s = st[0]
        whole = st[2] != 0.0
        norm_known = isfinite(st[1])
        if norm_known:
            N = st[1]
    cdef rows_t view = rows[0]
    row_data = view.data         # const double * or const float *
    row_ind = view.indices
    with nogil:
        for k in range(K):
            zeros[k] = 0.0
        if not norm_known:
            for j in range(size):
                N += W0[j] * W0[j]
            if with_b:
                for k in range(K):
                    N += b0[k] * b0[k] / intercept_sq
            N = s * s * N
        for n in range(n_rows):
            i = order[n]
            get_row(&view, i, &row_data, &row_ind, &nnz)
            sq = score_row(row_data, row_ind, nnz, W0, b0 if with_b else zeros,
                           K, 0, K, intercept_sq, scores, _simd)
            finite = isfinite(sq)
            for k in range(K):
                scores[k] = s * scores[k] + (0.0 if with_b else b0[k])
                finite = finite and isfinite(scores[k])
            if want_scores:
                for k in range(K):
                    scores_out[n, k] = scores[k] if finite else NAN
            if not finite:
                skipped += 1
                continue
            y = labels[i]
            if K == 1:
                ysign = 1.0 if y == 1 else -1.0
                m = ysign * scores[0]
                q = sq
                r = -1
            else:
                r = top_rival(scores, K, y)
                m = scores[y] - scores[r]
                q = 2.0 * sq
            if m <= 0.0:
                mistakes += 1
            if m < 1.0:
                loss_out[0] += 1.0 - m
            w = sample_weight[i] * weight_pos[y]
            if not w > 0.0:
                continue
            inv = 1.0
            if rule == Rule.ALMA:
                if p.normalize:
                    # the paper's x / ||x||: margin and norm of the unit row
                    if not sq > 0.0:
                        continue
                    inv = 1.0 / sqrt(sq)
                    m = m * inv
                    q = q * inv * inv
                threshold = (1.0 - p.alpha) * p.B / sqrt(<double> alma_k)
                learn = m <= threshold and alma_coefficients(
                    m, q, N, p.C / sqrt(<double> alma_k) * w, &c, &d)
            elif rule == Rule.ROMMA:
                learn = m <= 0.0 and romma_coefficients(m, q, N, &c, &d)
            elif rule == Rule.AGGRESSIVE_ROMMA:
                learn = m < 1.0 and romma_coefficients(m, q, N, &c, &d)
            else:
                # no other rule reaches the loop: the entry refuses a rule
                # without a branch here (``_core.rules.check_kernel_rule``)
                learn = False
            if not learn or d == 0.0:
                continue
            # (products ordered so that d = 1 / q of a tiny row does not overflow)
            N_new = c * (c * N) + 2.0 * c * (d * m) + d * (d * q)
            if not (isfinite(N_new) and isfinite(c) and isfinite(d)):
                skipped += 1
                continue
            s_new = s * c
            if stream and not whole and (
                s_new == 0.0 or s_new < 1e-9 or s_new > 1e9
            ):
                # a step that writes every weight: stop before this row
                # (the caller saves the whole model, then goes on from here)
                done = n
                break
            if s_new == 0.0:
                # the rule starts afresh from phi / q: the old weights vanish
                for j in range(size):
                    W0[j] = 0.0
                if with_b:
                    for k in range(K):
                        b0[k] = 0.0
                s_new = 1.0
            elif s_new < 1e-9 or s_new > 1e9:
                _fold(W0, size, b0, K, s_new, with_b)
                s_new = 1.0
            e = d * inv / s_new
            if K == 1:
                e = ysign * e
            for j in range(nnz):
                if K == 1:
                    W0[row_ind[j]] += e * row_data[j]
                else:
                    W0[row_ind[j] * K + y] += e * row_data[j]
                    W0[row_ind[j] * K + r] -= e * row_data[j]
            if with_b:
                b0[0 if K == 1 else y] += intercept_sq * e
                if K > 1:
                    b0[r] -= intercept_sq * e
            if stream:
                # the entries this step wrote (a call checks its rows only)
                for j in range(nnz):
                    if K == 1:
                        overflow = overflow or not isfinite(W0[row_ind[j]])
                    else:
                        overflow = overflow or not (
                            isfinite(W0[row_ind[j] * K + y])
                            and isfinite(W0[row_ind[j] * K + r]))
                for k in range(K):
                    overflow = overflow or not isfinite(b0[k])
            s = s_new
            N = N_new
            updates += 1
            if rule == Rule.ALMA:
                alma_k += 1
        if stream:
            overflow = overflow or not (isfinite(s) and isfinite(N))
        else:
            if s != 1.0:
                _fold(W0, size, b0, K, s, with_b)
            for j in range(size):
                if not isfinite(W0[j]):
                    overflow = True
                    break
            for k in range(K):
                if not isfinite(b0[k]):
                    overflow = True
    free(scores)
    if stream:
        st[0] = s
        st[1] = N
        st[3] = done

    free(zeros)
    counter[0] = alma_k
    return mistakes, updates, skipped, overflow
