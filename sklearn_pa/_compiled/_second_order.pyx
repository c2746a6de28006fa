# cython: language_level=3
"""One epoch of second-order online updates: the mean *and* the covariance move.

The weights are Gaussian, ``w ~ N(mu, Sigma)``; after each example the new
(mu, Sigma) is the closest to the old one in KL divergence under a constraint
(CW, SCCW) or the minimiser of KL plus a loss (AROW, SCW).  Every rule has the
shape

    mu_c  += coef_c * Sigma_g x          (one or more mean columns c)
    Sigma_g -= beta * (Sigma_g x)(Sigma_g x)^T    (Sherman-Morrison form)

so one pass computes ``Sigma_g x`` and ``v = x^T Sigma_g x`` for the covariance
block(s) g the row touches, a scalar step rule gives the coefficients, and the
updates follow.  ``Sigma`` is stored either

- diagonal: ``S_diag[n_features + 1, G]`` (feature-major like W); a row touches
  only its non-zeros (and the intercept's entry, row ``n_features``), or
- full: ``S_full[G, D', D']`` with ``D' = n_features + 1`` when an intercept is
  fitted, upper triangle (C order) valid; ``Sigma x`` is a BLAS ``dsymv`` and
  the update a BLAS ``dsyr``.

``G`` is 1 (binary; the matrix-Gaussian multiclass model of SCCW, whose
covariance ``Sigma (x) I`` is shared by the classes) or the number of classes
(the single-constraint and sequential multiclass rules, with one block per
class as in Crammer, Dredze and Pereira 2009).

The intercept is the weight of a constant feature ``a`` (``intercept``; 0
without intercept): ``b = a * w_a``, so ``b`` moves by ``a`` times the step of
``w_a``.  Averaging of the mean is lazy, as in the first-order kernel:
``U += (t - start) * Delta`` and the average is ``W - U / (t - start + 1)``.
"""

from libc.math cimport sqrt, isfinite, INFINITY, NAN
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ._dataset cimport (
    Rows32, Rows64, Rows32F, Rows64F, RowsKind, rows_t, index_t, value_t,
    get_row, make_rows, rows_kind, check_rows, check_length,
)
from ._rules_second_order cimport (
    SecondOrderParams, SecondOrderRule, SecondOrderStep, init_step,
    second_order_param_names, second_order_params,
)
from ._steps cimport PA_PREFETCH, PREFETCH_AHEAD, prefetch_row
from ._write_log cimport (
    WriteBuffer, WriteLog, log_write, reads_nonfinite, reserve_writes,
)
from ._cw_rules cimport Cand, cw_loss, cw_pair_step, sccw_support_step, sort_pairs
from ._second_order_blocks cimport (
    _avg, _clear_x, _cov, _fill_x, _floor_cov, _mean, _sigma_x,
)
from ._peer_rules cimport (
    is_peer_step, peer_cov_block, peer_loss, peer_pair_step, peer_precondition,
    peer_scale_all,
)
from ._cw_regression_rules cimport (
    diagonal_in_precision, regression_loss, regression_step,
)

from .._core.rules import check_combination

cdef tuple _PARAM_NAMES = second_order_param_names()


def epoch(
    rows,
    const long long[::1] order,
    *,
    dict params,
    labels,
    sample_weight,
    class_weight,
    W,
    b,
    S_diag,
    S_full,
    U,
    bu,
    double intercept,
    long long t0,
    long long average_start,
    loss_out,
    scores_out=None,
    var_out=None,
    targets=None,
    SecondOrderPass bound=None,
    WriteLog write_log=None,
):
    """Run the rule over the rows ``order`` once, updating W, b, Sigma (U, bu).

    Parameters (validated by the caller)
    ------------------------------------
    rows : the row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (``_dataset.pxd``, ``_linear_epochs._RowView``);
        float64 or float32 values, read as doubles (the same model).
    order : int64 row indices, in visiting order.
    params : dict, ``SecondOrderParams`` (``_rules_second_order.pxd``, every
        field, whose comments say which step reads which): ``rule`` and
        ``step``, a ``SecondOrderRule`` of each kind, a pair whose entries in
        ``sklearn_pa/_core/rules.py`` agree on what a row carries, the
        multiclass mode and the covariance layout of ``S_diag`` / ``S_full``
        (``check_combination``; e.g. ``SO_REGRESSION`` runs the
        ``STEP_*_REGRESSION`` steps and no other rule does, the peer steps
        have no ``SO_SUPPORT`` form).  ``floor`` (every rule; 0: none) is
        the covariance floor, applied after each step to the variances of
        the row's non-zero features (``_second_order_blocks._floor_cov``;
        diagonal covariance only, in [0, 1]).
    labels : class index per row (SO_BINARY: 0 / 1); not read by a rule
        whose row carries a value (``SO_REGRESSION``; may be empty).
    sample_weight : per row; scales the step (0 skips the row).
    W, b : means (n_features, n_columns) and intercepts, updated in place.
    S_diag : (n_features + 1, G) diagonal covariance, or shape (0, *) when full.
    S_full : (G, D', D') full covariance (upper triangle), or (0, *, *).
    U, bu : lazy-averaging accumulators, or arrays of length 0.
    class_weight : per class; multiplies the sample weight.
    intercept : the constant feature a (0: no intercept).
    t0, average_start : as in the first-order kernel.
    loss_out : [0] receives the summed loss measured before each update
        (the constraint violation ``max(0, phi sqrt(v) - m)``, AROW's hinge).
    scores_out : None, or (len(order), K): row n receives the scores of row
        ``order[n]`` before its update (progressive validation): those of the
        averaged model ``mu - U / (t - average_start)`` when averaging (once
        an average exists), else of the current mean; NaN when not finite.
    var_out : None, or (len(order), G): row n receives ``x~^T Sigma_g x~``
        for each covariance block g before the row's update (NaN when the row
        is skipped), what ``predict_proba`` needs besides the scores.
    targets : None, or the float64 target per row: read by a rule whose row
        carries a value (``y="values"`` in ``_core/rules.py``: SO_REGRESSION,
        whose ``class_weight`` may be empty and whose ``mistakes`` are -1).
    bound : SecondOrderPass or None
        A pass made before, run when it was made with these ``W``, ``b``,
        ``S_diag``, ``S_full``, ``params``, ``class_weight`` (the same
        objects) and ``intercept``; otherwise a new one is made.
    write_log : WriteLog or None
        When given (diagonal covariance only), the pass logs there each
        entry of ``W``, ``U``, ``b``, ``bu`` and ``S_diag`` just before a
        step may write it (``_write_log.pxd``), so that a failed call can
        write them back.  A row whose scores are not finite because a weight
        it reads is NaN or infinite stops the pass
        (``write_log.nonfinite_read``), as does a log that cannot grow
        (``write_log.failed``): the caller checks both after the pass.

    Returns
    -------
    (mistakes, updates, skipped, overflow)
    """
    cdef SecondOrderPass p = bound
    if p is None or not p.binds(W, b, S_diag, S_full, params, class_weight, intercept):
        p = SecondOrderPass(
            W, b, S_diag, S_full, params=params, class_weight=class_weight,
            intercept=intercept,
        )
    return p._run(
        rows, order, labels, sample_weight, U, bu, t0, average_start, loss_out,
        scores_out, var_out, targets, write_log,
    )


cdef class SecondOrderPass:
    """:func:`epoch` with the arguments that stay the same from one pass to
    the next bound once: the mean ``W``, ``b``, the covariance, the rule
    (``params``, checked here against the registry and the covariance
    layout), the class weights and the intercept's constant.  :meth:`run`
    takes the rest, positionally, and runs the same loop as :func:`epoch`
    (which is this class, made and run once).  An epoch adapter keeps one
    while its arrays and rule stay the objects it was made with: a call on
    one row then costs its row and the conversion of its batch's arrays,
    not that of every argument."""

    cdef double[:, ::1] W
    cdef double[::1] b
    cdef double[:, ::1] S_diag
    cdef double[:, :, ::1] S_full
    cdef const double[::1] class_weight
    cdef SecondOrderParams prm
    cdef double intercept
    cdef bint full
    cdef bint regression
    cdef Py_ssize_t n_classes
    # (the objects bound, for binds())
    cdef tuple objects

    def __init__(
        self, W, b, S_diag, S_full, *, dict params, class_weight, double intercept
    ):
        self.prm = second_order_params(params, _PARAM_NAMES)
        self.W, self.b, self.S_diag, self.S_full = W, b, S_diag, S_full
        self.class_weight, self.intercept = class_weight, intercept
        self.objects = (W, b, S_diag, S_full, params, class_weight)
        cdef bint full = self.S_full.shape[0] > 0
        self.full = full
        # the covariance floor (``_floor_cov``): a variance, at most the
        # prior's 1, on the diagonal covariance only (the projection of a
        # full one needs its eigenvalues, O(D^3) a row)
        if not (0.0 <= self.prm.floor <= 1.0):
            raise ValueError(f"floor must lie in [0, 1], got {self.prm.floor!r}")
        if full and self.prm.floor > 0.0:
            raise ValueError("a covariance floor needs the diagonal covariance")
        # the rule and the step have a branch each in the loop and in the
        # step files, and what the registry declares of them agrees (what a
        # row carries, the multiclass mode, the covariance layout): any
        # other pair is refused here, since the loop cannot raise
        rule_spec, _ = check_combination(
            "second_order",
            {"rule": self.prm.rule, "step": self.prm.step},
            covariance="full" if full else "diagonal",
        )
        # a row carries a label or, for a regression rule, a value
        self.regression = rule_spec.y == "values"
        cdef Py_ssize_t n_features = self.W.shape[0], K = self.W.shape[1]
        cdef Py_ssize_t G = self.S_full.shape[0] if full else self.S_diag.shape[1]
        cdef Py_ssize_t Dp = n_features + (1 if intercept != 0.0 else 0)
        # the labels, covariance blocks and weight columns the rule declares
        self.n_classes = 2 if rule_spec.columns == "one" else K
        if self.regression:  # targets, no labels, no class weights
            self.n_classes = 0
        if self.class_weight.shape[0] < self.n_classes:
            raise ValueError(f"class_weight needs {self.n_classes} entries")
        if full:
            if self.S_full.shape[1] != Dp or self.S_full.shape[2] != Dp:
                raise ValueError(f"S_full must be ({G}, {Dp}, {Dp})")
        elif self.S_diag.shape[0] < n_features + 1:
            raise ValueError(f"S_diag needs {n_features + 1} rows")
        if rule_spec.blocks == "per_class" and G != K:
            raise ValueError(f"this rule needs one covariance block per class ({K})")
        if rule_spec.blocks == "one" and G != 1:
            raise ValueError("this rule needs one shared covariance block")
        if rule_spec.columns == "one" and K != 1:
            raise ValueError("this rule needs one weight column")
        check_length(self.b.shape[0], K, "b")

    cpdef bint binds(
        self, W, b, S_diag, S_full, params, class_weight, double intercept
    ):
        """Whether this pass was made with these objects (and value)."""
        cdef tuple o = self.objects
        return (
            W is o[0] and b is o[1] and S_diag is o[2] and S_full is o[3]
            and params is o[4] and class_weight is o[5]
            and intercept == self.intercept
        )

    def run(
        self, rows, order, labels, sample_weight, U, bu, long long t0,
        long long average_start, loss_out, scores_out=None, var_out=None,
        targets=None, WriteLog write_log=None,
    ):
        """The pass over the rows ``order`` of the row view ``rows``
        (:func:`epoch`'s arguments of the same names); returns ``(mistakes,
        updates, skipped, overflow)``."""
        return self._run(
            rows, order, labels, sample_weight, U, bu, t0, average_start,
            loss_out, scores_out, var_out, targets, write_log,
        )

    cdef tuple _run(
        self, rows, order, labels, sample_weight, U, bu, long long t0,
        long long average_start, loss_out, scores_out, var_out, targets,
        WriteLog write_log,
    ):
        cdef WriteBuffer *log = NULL
        if write_log is not None:
            if self.full:
                raise ValueError("a write log needs the diagonal covariance")
            log = &write_log.buffer
        cdef Rows32 rows32
        cdef Rows64 rows64
        cdef Rows32F rows32f
        cdef Rows64F rows64f
        cdef int kind = rows_kind(rows)
        if kind == RowsKind.ROWS64:
            arrays = make_rows(rows, &rows64)
            return _epoch[Rows64](
                self, &rows64, order, labels, sample_weight, U, bu, t0,
                average_start, loss_out, scores_out, var_out, targets, log,
            )
        if kind == RowsKind.ROWS32F:
            arrays = make_rows(rows, &rows32f)
            return _epoch[Rows32F](
                self, &rows32f, order, labels, sample_weight, U, bu, t0,
                average_start, loss_out, scores_out, var_out, targets, log,
            )
        if kind == RowsKind.ROWS64F:
            arrays = make_rows(rows, &rows64f)
            return _epoch[Rows64F](
                self, &rows64f, order, labels, sample_weight, U, bu, t0,
                average_start, loss_out, scores_out, var_out, targets, log,
            )
        arrays = make_rows(rows, &rows32)
        return _epoch[Rows32](
            self, &rows32, order, labels, sample_weight, U, bu, t0,
            average_start, loss_out, scores_out, var_out, targets, log,
        )


cdef tuple _epoch(
    SecondOrderPass P,
    const rows_t *rows,
    const long long[::1] order,
    const int[::1] labels,
    const double[::1] sample_weight,
    double[:, ::1] U,
    double[::1] bu,
    long long t0,
    long long average_start,
    double[::1] loss_out,
    double[:, ::1] scores_out,
    double[:, ::1] var_out,
    const double[::1] targets,
    WriteBuffer *log,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    and value dtype); ``log`` (or NULL) receives the pre-image of each entry
    a step may write, before it writes (:func:`_log_step`)."""
    # the loop reads a local copy of the row view, which the compiler keeps in
    # registers (through the pointer it would reload the fields after each
    # store that might alias them)
    cdef rows_t view = rows[0]
    cdef bint dense = view.dense
    cdef Py_ssize_t n_features = view.n_features
    # the arrays and the rule the pass was made with (checked there)
    cdef double[:, ::1] W = P.W
    cdef double[::1] b = P.b
    cdef double[:, ::1] S_diag = P.S_diag
    cdef double[:, :, ::1] S_full = P.S_full
    cdef const double[::1] class_weight = P.class_weight
    cdef double intercept = P.intercept
    cdef SecondOrderParams prm = P.prm
    cdef int rule = prm.rule, step = prm.step
    cdef bint full = P.full
    cdef bint regression = P.regression
    # the peer steps (``_peer_rules.pxd``) solve one constraint at a time
    cdef bint peer = is_peer_step(step)
    cdef SecondOrderStep st
    init_step(&st)
    cdef double phi = prm.phi
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t K = W.shape[1]
    cdef Py_ssize_t G = S_full.shape[0] if full else S_diag.shape[1]
    cdef Py_ssize_t Dp = n_features + (1 if intercept != 0.0 else 0)
    cdef Py_ssize_t n_classes = P.n_classes
    if regression and targets is None:
        raise ValueError("a regression rule needs targets")
    # the rows, the weights and every per-row array must fit the data
    cdef Py_ssize_t needed = check_rows(rows, order)
    cdef Py_ssize_t q
    if W.shape[0] != n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {n_features} features")
    if U.shape[0] > 0:
        if U.shape[0] != W.shape[0] or U.shape[1] != K:
            raise ValueError("U must have the shape of W")
        check_length(bu.shape[0], K, "bu")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    if regression:
        check_length(targets.shape[0], needed, "targets")
    else:
        check_length(labels.shape[0], needed, "labels")
    check_length(loss_out.shape[0], 1, "loss_out")
    cdef bint want_scores = scores_out is not None
    cdef bint want_var = var_out is not None
    if want_scores and (scores_out.shape[0] < n_rows or scores_out.shape[1] < K):
        raise ValueError(f"scores_out must be at least ({n_rows}, {K})")
    if want_var and (var_out.shape[0] < n_rows or var_out.shape[1] < G):
        raise ValueError(f"var_out must be at least ({n_rows}, {G})")
    for q in range(0 if regression else order.shape[0]):
        if labels[order[q]] < 0 or labels[order[q]] >= n_classes:
            raise ValueError(f"labels must lie in [0, {n_classes})")
    cdef bint averaging = U.shape[0] > 0
    cdef long long mistakes = 0, updates = 0, skipped = 0
    cdef bint finite, overflow = False, stepped
    cdef Py_ssize_t n, i, j, p, k, r, y, nnz, n_cand, n_buf
    cdef long long t
    cdef double w_i, m, v, vy, vr, alpha, beta, ysign, best, xj, avg_coef, A, loss
    cdef double Kd = <double> K
    row_data = view.data         # const double * or const float *
    row_ind = view.indices
    next_data = view.data
    next_ind = view.indices
    cdef Py_ssize_t next_nnz
    cdef double *wrow
    cdef double *W0 = &W[0, 0]
    cdef double *U0 = &U[0, 0] if averaging else NULL
    cdef double *Sd = NULL if full else &S_diag[0, 0]
    cdef double *Sf = &S_full[0, 0, 0] if full else NULL
    cdef Py_ssize_t blk = Dp * Dp
    cdef int n_blas = <int> Dp, one = 1
    cdef double d_one = 1.0, d_zero = 0.0, neg_beta
    cdef char *uplo = b'L'   # Fortran lower == C upper triangle
    # the work rows: the dense x~ and Sigma x~ of the full covariance (D'
    # entries), or Sigma x~ aligned with a row's non-zeros and the
    # intercept's entry (the longest row's, plus one): a buffer of the
    # model's width would cost a call on a wide model more than its rows
    if full:
        n_buf = Dp + 1
    else:
        n_buf = 2
        for n in range(n_rows):
            get_row(&view, order[n], &row_data, &row_ind, &nnz)
            if nnz + 2 > n_buf:
                n_buf = nnz + 2
    cdef double *scores = <double *> malloc(K * sizeof(double))
    cdef double *alphas = <double *> malloc(K * sizeof(double))
    cdef Cand *cand = <Cand *> malloc(K * sizeof(Cand))
    cdef const double *tgt = &targets[0] if regression and needed > 0 else NULL
    cdef double *xbuf = <double *> malloc(n_buf * sizeof(double))
    cdef double *sx_a = <double *> malloc(n_buf * sizeof(double))
    cdef double *sx_b = <double *> malloc(n_buf * sizeof(double))
    if (scores == NULL or alphas == NULL or cand == NULL or xbuf == NULL
            or sx_a == NULL or sx_b == NULL):
        free(scores); free(alphas); free(cand); free(xbuf); free(sx_a); free(sx_b)
        raise MemoryError()
    if full:
        memset(xbuf, 0, n_buf * sizeof(double))
    cdef PairCtx ctx
    ctx.full = full
    ctx.Sf = Sf
    ctx.Sd = Sd
    ctx.G = G
    ctx.blk = blk
    ctx.n_blas = n_blas
    ctx.uplo = uplo
    ctx.xbuf = xbuf
    ctx.sx_a = sx_a
    ctx.sx_b = sx_b
    ctx.n_features = n_features
    ctx.Dp = Dp
    ctx.intercept = intercept
    ctx.W0 = W0
    ctx.U0 = U0
    ctx.b = &b[0]
    ctx.bu = &bu[0] if averaging else NULL
    ctx.K = K
    ctx.averaging = averaging
    ctx.average_start = average_start
    ctx.prm = prm
    ctx.log = log

    with nogil:
        for n in range(n_rows):
            i = order[n]
            t = t0 + n + 1
            get_row(&view, i, &row_data, &row_ind, &nnz)
            if n + 1 < n_rows and not dense:
                # the next row is elsewhere in X (shuffled order): start
                # fetching its first non-zeros while this one is processed
                get_row(&view, order[n + 1], &next_data, &next_ind, &next_nnz)
                for p in range(0, min(next_nnz, 32), 8):
                    PA_PREFETCH(next_data + p)
                for p in range(0, min(next_nnz, 32), 16):
                    PA_PREFETCH(next_ind + p)
            for k in range(K):
                scores[k] = b[k]
            finite = True
            # the rows of W and (diagonal) Sigma of upcoming non-zeros are
            # scattered: ask for them ahead of use
            for p in range(min(nnz, PREFETCH_AHEAD)):
                prefetch_row(W0 + row_ind[p] * K, 0, K)
                if not full:
                    prefetch_row(Sd + row_ind[p] * G, 0, G)
            for p in range(nnz):
                if p + PREFETCH_AHEAD < nnz:
                    prefetch_row(W0 + row_ind[p + PREFETCH_AHEAD] * K, 0, K)
                    if not full:
                        prefetch_row(Sd + row_ind[p + PREFETCH_AHEAD] * G, 0, G)
                xj = row_data[p]
                finite = finite and isfinite(xj * xj)
                wrow = W0 + row_ind[p] * K
                for k in range(K):
                    scores[k] += xj * wrow[k]
            for k in range(K):
                finite = finite and isfinite(scores[k])
            if want_scores:
                _record_scores(row_data, row_ind, nnz, scores, finite, averaging,
                               <double> (t - average_start), U0,
                               &bu[0] if averaging else NULL, K, &scores_out[n, 0])
            if want_var:
                _record_variances(finite, full, &view, i, Sf, Sd, G, blk, n_blas,
                                  uplo, xbuf, sx_b, intercept, &var_out[n, 0])
            if not finite:
                if log != NULL and reads_nonfinite(row_ind, nnz, W0, K, 0, K):
                    log.nonfinite_read = True
                    break
                skipped += 1
                continue
            w_i = sample_weight[i]
            if rule == SecondOrderRule.SO_REGRESSION:
                # a target, not a label: the row's own routine
                if _regression_row(&ctx, &view, row_data, row_ind, nnz, scores[0],
                                   tgt[i], w_i, t, &loss, &overflow):
                    updates += 1
                loss_out[0] += loss
                if log != NULL and log.failed:
                    break
                continue
            y = labels[i]
            if rule == SecondOrderRule.SO_BINARY:
                ysign = 1.0 if y == 1 else -1.0
                if ysign * scores[0] <= 0.0:
                    mistakes += 1
            else:
                for k in range(K):
                    if k != y and scores[k] >= scores[y]:
                        mistakes += 1
                        break
            w_i = w_i * class_weight[y]
            if not w_i > 0.0:
                continue
            if full:
                _fill_x(xbuf, &view, row_data, row_ind, nnz, Dp, intercept)

            stepped = False
            if rule == SecondOrderRule.SO_BINARY:
                v = _sigma_x(full, Sf, Sd, 0, G, blk, n_blas, uplo, xbuf, sx_a,
                             row_data, row_ind, nnz, n_features, intercept)
                m = ysign * scores[0]
                if peer:
                    loss = peer_loss(step, m)
                    peer_pair_step(&prm, m, v, w_i, t, &st)
                else:
                    loss = cw_loss(step, m, v, phi)
                    cw_pair_step(&prm, m, v, w_i, &st)
                alpha = st.alpha
                beta = st.beta
                loss_out[0] += loss
                if alpha > 0.0 or beta > 0.0:
                    if not (_log_step(log, &ctx, 0, 0, True, row_ind, nnz)
                            and _log_covariance(log, &ctx, st.scale if peer else 1.0)):
                        break  # (log.failed: nothing of this row written)
                    stepped = True
                    avg_coef = _avg(averaging, t, average_start)
                    if peer:
                        # (AdaGrad: the diagonal first, sx_a with it)
                        peer_precondition(&st, Sd, 0, G, sx_a, row_data, row_ind,
                                          nnz, n_features, intercept)
                    overflow |= _mean(full, W0, U0, &b[0], &bu[0] if averaging else NULL,
                                      K, 0, ysign * alpha, avg_coef, sx_a,
                                      row_ind, nnz, n_features, intercept)
                    if peer:
                        peer_cov_block(full, Sf, Sd, 0, G, blk, n_blas, uplo, &st,
                                       sx_a, row_data, row_ind, nnz, n_features,
                                       intercept)
                        peer_scale_all(full, Sf, Sd, G, blk, n_features + 1, st.scale)
                    else:
                        _cov(full, Sf, Sd, 0, G, blk, n_blas, uplo, beta, sx_a,
                             row_ind, nnz, n_features, intercept)
                    if not full:
                        _floor_cov(Sd, 0, G, prm.floor, row_data, row_ind, nnz,
                                   n_features, intercept)

            elif rule == SecondOrderRule.SO_SUPPORT:
                n_cand = 0
                best = INFINITY
                for k in range(K):
                    if k != y:
                        cand[n_cand].l = scores[y] - scores[k]
                        cand[n_cand].k = k
                        if cand[n_cand].l < best:
                            best = cand[n_cand].l
                        n_cand += 1
                v = _sigma_x(full, Sf, Sd, 0, G, blk, n_blas, uplo, xbuf, sx_a,
                             row_data, row_ind, nnz, n_features, intercept)
                loss = phi * sqrt(2.0 * v) - best
                if loss > 0.0:
                    loss_out[0] += loss
                A = sccw_support_step(cand, n_cand, v, phi, Kd, w_i, alphas, &beta)
                if A > 0.0:
                    if not _log_step(log, &ctx, y, 0, True, row_ind, nnz):
                        break  # (log.failed: nothing of this row written)
                    for j in range(n_cand):
                        if alphas[j] > 0.0 and not _log_step(
                            log, &ctx, cand[j].k, 0, False, row_ind, nnz
                        ):
                            break
                    if log != NULL and log.failed:
                        break
                    stepped = True
                    avg_coef = _avg(averaging, t, average_start)
                    overflow |= _mean(full, W0, U0, &b[0], &bu[0] if averaging else NULL,
                                      K, y, A, avg_coef, sx_a,
                                      row_ind, nnz, n_features, intercept)
                    for j in range(n_cand):
                        if alphas[j] > 0.0:
                            overflow |= _mean(full, W0, U0, &b[0],
                                              &bu[0] if averaging else NULL,
                                              K, cand[j].k, -alphas[j], avg_coef, sx_a,
                                              row_ind, nnz, n_features, intercept)
                    _cov(full, Sf, Sd, 0, G, blk, n_blas, uplo, beta, sx_a,
                         row_ind, nnz, n_features, intercept)
                    if not full:
                        _floor_cov(Sd, 0, G, prm.floor, row_data, row_ind, nnz,
                                   n_features, intercept)

            elif rule == SecondOrderRule.SO_SINGLE or rule == SecondOrderRule.SO_SEQUENTIAL:
                # pairs (y, r): SO_SINGLE takes the top-scoring wrong class,
                # SO_SEQUENTIAL every wrong class, highest score first
                n_cand = 0
                for k in range(K):
                    if k != y:
                        cand[n_cand].l = scores[y] - scores[k]
                        cand[n_cand].k = k
                        n_cand += 1
                sort_pairs(cand, n_cand)
                if rule == SecondOrderRule.SO_SINGLE:
                    n_cand = 1 if n_cand > 0 else 0
                stepped = cw_sequential_steps(&ctx, row_data, row_ind, nnz, scores, y,
                                              cand, n_cand, w_i, t, &loss, &overflow)
                loss_out[0] += loss
                if log != NULL and log.failed:
                    break

            if full and not dense:
                _clear_x(xbuf, row_ind, nnz)
            if stepped:
                updates += 1

    free(scores)
    free(alphas)
    free(cand)
    free(xbuf)
    free(sx_a)
    free(sx_b)
    if regression:  # no mistakes, as in the first-order kernel
        mistakes = -1
    return mistakes, updates, skipped, overflow


cdef inline bint _log_step(
    WriteBuffer *log, const PairCtx *c, Py_ssize_t col, Py_ssize_t g, bint cov,
    const index_t *row_ind, Py_ssize_t nnz,
) noexcept nogil:
    """Log, before a step of one row writes them, the entries of the mean
    column ``col`` (``W``, its intercept ``b`` and their averages ``U``,
    ``bu``) and, with ``cov``, of the diagonal covariance block ``g`` that
    the step may write; False (``log.failed``) when the log could not grow,
    and then the step must not write.  Nothing without a log."""
    cdef Py_ssize_t p, K = c.K, G = c.G
    cdef bint averaging = c.U0 != NULL
    if log == NULL:
        return True
    if not reserve_writes(log, (nnz + 1) * (1 + averaging + cov)):
        return False
    for p in range(nnz):
        log_write(log, c.W0 + row_ind[p] * K + col)
        if averaging:
            log_write(log, c.U0 + row_ind[p] * K + col)
        if cov:
            log_write(log, c.Sd + row_ind[p] * G + g)
    log_write(log, c.b + col)
    if averaging:
        log_write(log, c.bu + col)
    if cov:
        log_write(log, c.Sd + c.n_features * G + g)
    return True


cdef inline bint _log_covariance(
    WriteBuffer *log, const PairCtx *c, double scale
) noexcept nogil:
    """Log every entry of the diagonal covariance before a step scales it
    whole (``scale`` other than 1: IELLIP early in a stream); False when
    the log could not grow."""
    cdef Py_ssize_t p, n = (c.n_features + 1) * c.G
    if log == NULL or scale == 1.0:
        return True
    if not reserve_writes(log, n):
        return False
    for p in range(n):
        log_write(log, c.Sd + p)
    return True


cdef inline void _record_scores(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    const double *scores, bint finite, bint averaged, double n_avg_before,
    const double *U0, const double *bu, Py_ssize_t K, double *out,
) noexcept nogil:
    """The row's scores before its update into ``out[:K]``: those of the
    averaged model ``s - (x . U + bu) / c`` when ``averaged`` (with ``c =
    n_avg_before >= 1``), else the current mean's; NaN when not finite."""
    cdef Py_ssize_t j, k
    cdef double xj
    cdef const double *urow
    if finite and averaged and n_avg_before >= 1.0:
        for k in range(K):
            out[k] = bu[k]
        for j in range(nnz):
            xj = row_data[j]
            urow = U0 + row_ind[j] * K
            for k in range(K):
                out[k] += xj * urow[k]
        for k in range(K):
            out[k] = scores[k] - out[k] / n_avg_before
            if not isfinite(out[k]):
                out[k] = NAN
    else:
        for k in range(K):
            out[k] = scores[k] if finite else NAN


cdef inline void _record_variances(
    bint finite, bint full, const rows_t *rows, Py_ssize_t i, double *Sf,
    double *Sd, Py_ssize_t G, Py_ssize_t blk, int n_blas, char *uplo,
    double *xbuf, double *work, double intercept, double *out,
) noexcept nogil:
    """``x~^T Sigma_g x~`` of every block g for row ``i`` of ``rows`` into
    ``out[:G]`` (NaN when the row is not finite); ``work`` is scratch.  The
    full covariance reads the dense ``x~`` from ``xbuf``, filled here and
    cleared again."""
    cdef Py_ssize_t g, p, nnz
    cdef Py_ssize_t n_features = rows.n_features
    row_data = rows.data
    row_ind = rows.indices
    if not finite:
        for g in range(G):
            out[g] = NAN
        return
    get_row(rows, i, &row_data, &row_ind, &nnz)
    cdef double xj
    cdef const double *srow
    if not full:
        # every block at once, feature by feature (a feature's variances
        # are contiguous); each block's sum in the order of _sigma_x, to
        # the bit: x_j * (Sigma_jj x_j) over the non-zeros, then the
        # intercept's
        for g in range(G):
            out[g] = 0.0
        for p in range(nnz):
            xj = row_data[p]
            srow = Sd + row_ind[p] * G
            for g in range(G):
                out[g] += xj * (srow[g] * xj)
        if intercept != 0.0:
            srow = Sd + n_features * G
            for g in range(G):
                out[g] += intercept * (srow[g] * intercept)
        return
    _fill_x(xbuf, rows, row_data, row_ind, nnz, n_blas, intercept)
    for g in range(G):
        out[g] = _sigma_x(full, Sf, Sd, g, G, blk, n_blas, uplo, xbuf, work,
                          row_data, row_ind, nnz, n_features, intercept)
    if not rows.dense:
        _clear_x(xbuf, row_ind, nnz)


cdef struct PairCtx:
    # what the pair rules read and update besides the row: the covariance
    # blocks (full or diagonal), the means, the averaging accumulators, the
    # work buffers and the rule's parameters
    bint full
    double *Sf
    double *Sd
    Py_ssize_t G
    Py_ssize_t blk
    int n_blas
    char *uplo
    double *xbuf
    double *sx_a
    double *sx_b
    Py_ssize_t n_features
    Py_ssize_t Dp
    double intercept
    double *W0
    double *U0
    double *b
    double *bu
    Py_ssize_t K
    bint averaging
    long long average_start
    SecondOrderParams prm  # the rule's parameters, read by the steps
    WriteBuffer *log  # the pre-images of what the steps write (or NULL)


cdef inline bint cw_sequential_steps(
    PairCtx *c,
    const value_t *row_data,
    const index_t *row_ind,
    Py_ssize_t nnz,
    double *scores,
    Py_ssize_t y,
    const Cand *cand,
    Py_ssize_t n_cand,
    double w_i,
    long long t,
    double *loss_out,
    bint *overflow,
) noexcept nogil:
    """The sequential multiclass CW rule (k = inf; Crammer, Dredze and
    Pereira 2009): single-constraint CW pair steps (y, r) against every wrong
    class r of ``cand`` in turn (sorted by :func:`sort_pairs`, highest score
    first), each step seeing the mean and covariance the previous one left:
    the score of y and ``Sigma_y x`` are refreshed after each step (exactly
    ``(1 - beta v) Sigma x`` for the full covariance's rank-one update; the
    diagonal covariance's ``Sigma_y x`` is recomputed).  The scores of the
    other classes are unchanged by a pair step on (y, r).  With ``n_cand`` 1
    (the top-scoring rival only) it is the single-constraint rule.

    ``loss_out[0]`` receives the loss of the first pair, measured before any
    step; returns whether any step moved the state (``overflow`` set when a
    mean stopped being finite)."""
    cdef Py_ssize_t j, p, r
    cdef double vy, vr, m, v, alpha, beta, avg_coef = 0.0
    cdef bint stepped = False
    cdef bint peer = is_peer_step(c.prm.step)
    cdef SecondOrderStep ps
    init_step(&ps)
    # the context's fields in locals: the updates write through double
    # pointers, which could otherwise alias them and force reloads
    cdef bint full = c.full
    cdef double *Sf = c.Sf
    cdef double *Sd = c.Sd
    cdef Py_ssize_t G = c.G, blk = c.blk, K = c.K, Dp = c.Dp
    cdef Py_ssize_t n_features = c.n_features
    cdef int n_blas = c.n_blas, step = c.prm.step
    cdef char *uplo = c.uplo
    cdef double *xbuf = c.xbuf
    cdef double *sx_a = c.sx_a
    cdef double *sx_b = c.sx_b
    cdef double intercept = c.intercept, phi = c.prm.phi
    cdef double *W0 = c.W0
    cdef double *U0 = c.U0
    cdef double *b = c.b
    cdef double *bu = c.bu
    loss_out[0] = 0.0
    vy = _sigma_x(full, Sf, Sd, y, G, blk, n_blas, uplo, xbuf, sx_a,
                  row_data, row_ind, nnz, n_features, intercept)
    for j in range(n_cand):
        r = cand[j].k
        vr = _sigma_x(full, Sf, Sd, r, G, blk, n_blas, uplo, xbuf, sx_b,
                      row_data, row_ind, nnz, n_features, intercept)
        m = scores[y] - scores[r]
        v = vy + vr
        if peer:
            if j == 0:
                loss_out[0] = peer_loss(step, m)
            peer_pair_step(&c.prm, m, v, w_i, t, &ps)
        else:
            if j == 0:
                loss_out[0] = cw_loss(step, m, v, phi)
            cw_pair_step(&c.prm, m, v, w_i, &ps)
        alpha = ps.alpha
        beta = ps.beta
        if not (alpha > 0.0 or beta > 0.0):
            continue
        if not (_log_step(c.log, c, y, y, True, row_ind, nnz)
                and _log_step(c.log, c, r, r, True, row_ind, nnz)
                and _log_covariance(c.log, c, ps.scale if peer else 1.0)):
            return stepped  # (c.log.failed: this pair writes nothing)
        if not stepped:
            avg_coef = _avg(c.averaging, t, c.average_start)
        stepped = True
        if peer:
            # (AdaGrad: each block's diagonal first, its Sigma x with it)
            peer_precondition(&ps, Sd, y, G, sx_a, row_data, row_ind, nnz,
                              n_features, intercept)
            peer_precondition(&ps, Sd, r, G, sx_b, row_data, row_ind, nnz,
                              n_features, intercept)
        overflow[0] |= _mean(full, W0, U0, b, bu, K, y, alpha, avg_coef,
                             sx_a, row_ind, nnz, n_features, intercept)
        overflow[0] |= _mean(full, W0, U0, b, bu, K, r, -alpha, avg_coef,
                             sx_b, row_ind, nnz, n_features, intercept)
        if peer:
            peer_cov_block(full, Sf, Sd, y, G, blk, n_blas, uplo, &ps, sx_a,
                           row_data, row_ind, nnz, n_features, intercept)
            peer_cov_block(full, Sf, Sd, r, G, blk, n_blas, uplo, &ps, sx_b,
                           row_data, row_ind, nnz, n_features, intercept)
            peer_scale_all(full, Sf, Sd, G, blk, n_features + 1, ps.scale)
        else:
            _cov(full, Sf, Sd, y, G, blk, n_blas, uplo, beta, sx_a,
                 row_ind, nnz, n_features, intercept)
            _cov(full, Sf, Sd, r, G, blk, n_blas, uplo, beta, sx_b,
                 row_ind, nnz, n_features, intercept)
        if not full:
            _floor_cov(Sd, y, G, c.prm.floor, row_data, row_ind, nnz, n_features,
                       intercept)
            _floor_cov(Sd, r, G, c.prm.floor, row_data, row_ind, nnz, n_features,
                       intercept)
        if j + 1 < n_cand:
            # the next pair sees the mean and covariance this one left
            scores[y] += alpha * vy
            if full:
                # Sigma' x = (1 - beta v) Sigma x for the rank-one update; it
                # does not hold for the diagonal one
                # (times IELLIP's scale; 1 for the other rules)
                for p in range(Dp):
                    sx_a[p] *= (1.0 - beta * vy) * ps.scale
                vy = (vy - beta * vy * vy) * ps.scale
            else:
                vy = _sigma_x(full, Sf, Sd, y, G, blk, n_blas, uplo,
                              xbuf, sx_a, row_data, row_ind, nnz,
                              n_features, intercept)
    return stepped


cdef inline bint _regression_row(
    PairCtx *c,
    const rows_t *rows,
    const value_t *row_data,
    const index_t *row_ind,
    Py_ssize_t nnz,
    double score,
    double target,
    double w_i,
    long long t,
    double *loss_out,
    bint *overflow,
) noexcept nogil:
    """One row of the regression rule (``SO_REGRESSION``): the residual
    ``e = target - score`` and the variance ``v = x~^T Sigma x~`` give the
    step of ``_cw_regression_rules.pxd``, ``mu += alpha Sigma x~`` and the
    precision ``+= d x~ x~^T`` (full: ``Sigma -= d / (1 + d v) (Sigma x~)
    (Sigma x~)^T``; diagonal: see ``diagonal_in_precision``).
    ``loss_out[0]`` receives the epsilon-insensitive loss before the step (0
    for a zero weight); returns whether the state moved."""
    cdef Py_ssize_t p, j
    cdef double e = target - score, v, alpha, prec, xj
    cdef SecondOrderStep st
    cdef bint full = c.full, stepped
    cdef double *Sd = c.Sd
    cdef Py_ssize_t G = c.G
    loss_out[0] = 0.0
    if not w_i > 0.0:
        return False
    loss_out[0] = regression_loss(e, c.prm.epsilon)
    if full:
        _fill_x(c.xbuf, rows, row_data, row_ind, nnz, c.Dp, c.intercept)
    v = _sigma_x(full, c.Sf, Sd, 0, G, c.blk, c.n_blas, c.uplo, c.xbuf, c.sx_a,
                 row_data, row_ind, nnz, c.n_features, c.intercept)
    regression_step(&c.prm, e, v, w_i, &st)
    alpha = st.alpha
    prec = st.prec
    # (a collapsed covariance, v near 0, can make CW's multiplier overflow,
    # or its product with the intercept's feature: no step then, the model
    # stays finite)
    stepped = ((alpha != 0.0 or prec > 0.0) and isfinite(prec)
               and isfinite(alpha * (1.0 if c.intercept == 0.0 else c.intercept)))
    if stepped and not _log_step(c.log, c, 0, 0, True, row_ind, nnz):
        stepped = False  # (c.log.failed: nothing of this row written)
    if stepped:
        overflow[0] |= _mean(full, c.W0, c.U0, c.b, c.bu, 1, 0, alpha,
                             _avg(c.averaging, t, c.average_start), c.sx_a,
                             row_ind, nnz, c.n_features, c.intercept)
        if full or not diagonal_in_precision(c.prm.step):
            _cov(full, c.Sf, Sd, 0, G, c.blk, c.n_blas, c.uplo,
                 prec / (1.0 + prec * v), c.sx_a, row_ind, nnz, c.n_features,
                 c.intercept)
        else:
            # 1 / Sigma_jj += d x_j^2
            for p in range(nnz):
                j = row_ind[p] * G
                xj = row_data[p]
                Sd[j] = Sd[j] / (1.0 + prec * Sd[j] * xj * xj)
            if c.intercept != 0.0:
                j = c.n_features * G
                xj = c.intercept
                Sd[j] = Sd[j] / (1.0 + prec * Sd[j] * xj * xj)
        if not full:
            _floor_cov(Sd, 0, G, c.prm.floor, row_data, row_ind, nnz, c.n_features,
                       c.intercept)
    if full and not rows.dense:
        _clear_x(c.xbuf, row_ind, nnz)
    return stepped
