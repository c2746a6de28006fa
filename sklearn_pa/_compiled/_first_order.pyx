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

from ._dataset cimport (
    Rows32, Rows64, Rows32F, Rows64F, RowsKind, rows_t, index_t, value_t,
    get_row, make_rows, rows_kind, check_rows, check_length, row_start,
)
from ._rules_linear cimport Rule, RuleParams, rule_params

from .._core.rules import check_linear_rule
from ._score_rows cimport pa_simd_available, score_row
from ._weighting cimport scale_step_by_weights, unit_weights
from ._steps cimport (
    Candidate, PA_PREFETCH, PA_PREFETCH_W, PREFETCH_AHEAD, prefetch_row,
)
from ._write_log cimport (
    WriteBuffer, WriteLog, log_write, reads_nonfinite, reserve_writes,
)

# how many non-zeros ahead an update asks for the rows of U it writes, how
# many rows ahead of a sparse row's learning its non-zeros are asked for,
# and how many rows ahead a row's label, target and weight are
cdef enum:
    UPDATE_AHEAD = 16
    ROW_AHEAD = 8
    LABEL_AHEAD = 8
from ._pa_rules cimport (
    binary_step, ovr_step, multiclass_step, regression_step, gradient_step,
    multilabel_threshold_step, multilabel_ranking_step, mira_step,
)
from ._margin_rules cimport perceptron_step, ogd_step


cdef bint _step_overflows(
    const value_t *row_data,
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


cdef inline void _prefetch_next(
    const value_t *next_data, const index_t *next_ind, Py_ssize_t next_nnz,
) noexcept nogil:
    """Start fetching the first non-zeros of the next row (elsewhere in X in a
    shuffled order) while the current row is scored.

    The caller finds the row (``get_row``): when this helper read the row
    struct itself, GCC took it for a function without effects (it only reads
    memory and prefetches) and dropped the call, which cost about 20% of a
    sparse fit."""
    cdef Py_ssize_t j
    for j in range(0, min(next_nnz, 32), 8):
        PA_PREFETCH(next_data + j)
    for j in range(0, min(next_nnz, 32), 16):
        PA_PREFETCH(next_ind + j)


cdef inline void _prefetch_weights(
    const index_t *next_ind, Py_ssize_t next_nnz, const double *W0,
    const double *U0, Py_ssize_t K, Py_ssize_t c0,
) noexcept nogil:
    """Start fetching the weights (and, when averaging, the accumulators) of
    the first features of the next row while the current row is learned: on
    short rows in a shuffled order their first reads would otherwise wait
    for memory at the start of the next row's scores.  Given the row's
    pointers, as :func:`_prefetch_next`."""
    cdef Py_ssize_t j
    for j in range(min(next_nnz, 32)):
        PA_PREFETCH(W0 + <Py_ssize_t> next_ind[j] * K + c0)
    if U0 != NULL:
        for j in range(min(next_nnz, 32)):
            PA_PREFETCH_W(U0 + <Py_ssize_t> next_ind[j] * K + c0)


# the AVX2 scoring of ``_score_rows.h`` where the processor has it (its sums
# are the portable loop's to the last bit); ``_set_simd`` switches it off
cdef int _simd = pa_simd_available()


def _simd_available():
    """Whether this processor runs the AVX2 scoring loop."""
    return bool(pa_simd_available())


def _set_simd(bint enabled):
    """Use the AVX2 scoring loop (where available) or the portable one;
    returns the previous setting.  Both give the same results to the last
    bit: tests compare them."""
    global _simd
    previous = bool(_simd)
    _simd = pa_simd_available() if enabled else 0
    return previous


cdef inline double _score_row(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
    Py_ssize_t c1, double intercept_sq, double *scores,
) noexcept nogil:
    """``scores[c0:c1] = b + x . W``; returns ``||x||^2 + a^2``
    (``_score_rows.pxd``, with this module's AVX2 setting)."""
    return score_row(row_data, row_ind, nnz, W0, b, K, c0, c1, intercept_sq,
                     scores, _simd)


cdef inline void _record_scores(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    const double *scores, bint finite, bint averaged, double n_avg_before,
    const double *U0, const double *bu, Py_ssize_t K, Py_ssize_t c0,
    Py_ssize_t c1, double *out,
) noexcept nogil:
    """The row's scores before its update into ``out[c0:c1]``: those of the
    averaged model ``s - (x . U + bu) / c`` when ``averaged`` (with ``c =
    n_avg_before >= 1``), else the current iterate's; NaN when not finite."""
    cdef Py_ssize_t k
    if finite and averaged and n_avg_before >= 1.0:
        _score_row(row_data, row_ind, nnz, U0, bu, K, c0, c1, 0.0, out)
        for k in range(c0, c1):
            out[k] = scores[k] - out[k] / n_avg_before
            if not isfinite(out[k]):
                out[k] = NAN
    else:
        for k in range(c0, c1):
            out[k] = scores[k] if finite else NAN


cdef inline void _prefetch_columns(
    double *row, const Py_ssize_t *changed, Py_ssize_t n_changed,
) noexcept nogil:
    """Ask for the cache lines of ``row`` that hold the changed columns (for
    writing): a step moves a few columns, and fetching the whole row would
    cost the memory traffic of the lines it does not write."""
    cdef Py_ssize_t r
    for r in range(n_changed):
        PA_PREFETCH_W(row + changed[r])


cdef inline bint _apply_step(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    double *W0, double *U0, double *b, double *bu, Py_ssize_t K,
    Py_ssize_t c0, Py_ssize_t c1, const double *delta,
    const Py_ssize_t *changed, Py_ssize_t n_changed, double intercept_sq,
    double avg_coef, WriteBuffer *log,
) noexcept nogil:
    """``W[:, k] += delta[k] x`` (and ``b[k] += a^2 delta[k]``) for the
    listed columns, with the lazy average ``U += avg_coef * Delta`` when
    ``avg_coef`` is not 0; returns whether a weight became non-finite.
    With a write ``log`` (room reserved for :func:`_step_writes` entries),
    each entry's value is logged before it is written."""
    cdef Py_ssize_t j, k, r
    cdef double xj
    cdef double *wrow
    cdef double *urow
    cdef bint overflow = False
    if avg_coef != 0.0:
        for j in range(min(nnz, UPDATE_AHEAD)):
            _prefetch_columns(U0 + row_ind[j] * K, changed, n_changed)
    for j in range(nnz):
        if avg_coef != 0.0 and j + UPDATE_AHEAD < nnz:
            _prefetch_columns(U0 + row_ind[j + UPDATE_AHEAD] * K, changed,
                              n_changed)
        xj = row_data[j]
        if xj == 0.0:
            continue
        wrow = W0 + row_ind[j] * K
        for r in range(n_changed):
            k = changed[r]
            if log != NULL:
                log_write(log, wrow + k)
            wrow[k] += delta[k] * xj
            if not isfinite(wrow[k]):
                overflow = True
        if avg_coef != 0.0:
            urow = U0 + row_ind[j] * K
            for r in range(n_changed):
                k = changed[r]
                if log != NULL:
                    log_write(log, urow + k)
                urow[k] += avg_coef * delta[k] * xj
    if intercept_sq > 0.0:
        # b = a * w_a for the constant feature a: it moves by a^2 * step
        for r in range(n_changed):
            k = changed[r]
            if log != NULL:
                log_write(log, b + k)
            b[k] += intercept_sq * delta[k]
            if not isfinite(b[k]):
                overflow = True
            if avg_coef != 0.0:
                if log != NULL:
                    log_write(log, bu + k)
                bu[k] += avg_coef * intercept_sq * delta[k]
    return overflow


cdef inline Py_ssize_t _step_writes(
    Py_ssize_t nnz, Py_ssize_t n_changed, bint averaged,
) noexcept nogil:
    """The most entries :func:`_apply_step` writes for one row."""
    return (nnz + 1) * n_changed * (2 if averaged else 1)


cdef inline Py_ssize_t _rule_step(
    const RuleParams *p, const double *scores, Py_ssize_t K,
    Py_ssize_t c0, Py_ssize_t c1, Py_ssize_t i,
    const int *labels, const double *targets, double sq, double w_i,
    const double *weight_pos, const double *weight_neg,
    const double *margins, Py_ssize_t margin_stride,
    const unsigned char *active, const unsigned char *relevant,
    Candidate *cand, double *tau_buf, double *delta, Py_ssize_t *changed,
    double *loss_out, bint *mistake, long long t,
) noexcept nogil:
    """The step of ``p.rule`` on row ``i``, the ``t``-th sample (rules in
    ``_pa_rules.pxd`` and ``_margin_rules.pxd``): one branch per rule that
    ``sklearn_pa/_core/rules.py`` lists for this kernel."""
    cdef Py_ssize_t y
    cdef bint learn = w_i > 0.0
    cdef int rule = p.rule, slack = p.slack
    cdef double C = p.C
    if rule == Rule.REGRESSION:
        return regression_step(scores[0], targets[i], p.epsilon, sq, C * w_i, slack,
                               learn, delta, changed, loss_out)
    if rule == Rule.GRADIENT or rule == Rule.NORMALIZED_GRADIENT:
        return gradient_step(scores[0], targets[i], p.learning_rate, w_i, sq,
                             rule == Rule.NORMALIZED_GRADIENT, delta, changed,
                             loss_out)
    if rule == Rule.MULTILABEL:
        return multilabel_threshold_step(scores, K, relevant, sq, C * w_i, slack,
                                         learn, delta, changed, loss_out, mistake)
    if rule == Rule.MULTILABEL_RANKING:
        return multilabel_ranking_step(scores, K, relevant, sq, C * w_i, slack,
                                       learn, delta, changed, loss_out, mistake)
    y = labels[i]
    if rule == Rule.BINARY:
        return binary_step(scores[0], y, sq, C * w_i * weight_pos[y], slack, learn,
                           delta, changed, 0, loss_out, mistake)
    if rule == Rule.OVR:
        return ovr_step(scores, K, c0, c1, y, sq, C * w_i, weight_pos, weight_neg,
                        active, slack, learn, delta, changed, 0, loss_out, 1,
                        mistake)
    # -- classical margin learners (_margin_rules.pxd) --
    if rule == Rule.OGD:
        return ogd_step(scores, K, y, p.learning_rate / sqrt(<double> t) * w_i
                        * weight_pos[y], delta, changed, loss_out, mistake)
    if (
        rule == Rule.PERCEPTRON_MAX or rule == Rule.PERCEPTRON_UNIFORM
        or rule == Rule.PERCEPTRON_SCORE
    ):
        return perceptron_step(rule, scores, K, y, w_i * weight_pos[y], delta,
                               changed, loss_out, mistake)
    # -- end --
    if rule == Rule.MIRA:
        return mira_step(scores, K, y, p.margin, sq, C * w_i * weight_pos[y], cand,
                         tau_buf, delta, changed, loss_out, mistake)
    if rule == Rule.MAX_LOSS or rule == Rule.PREDICTION or rule == Rule.SUPPORT:
        return multiclass_step(rule, scores, K, y, margins + y * margin_stride, sq,
                               C * w_i * weight_pos[y], slack, learn, cand, tau_buf,
                               delta, changed, 0, loss_out, mistake)
    # no other rule reaches the loop: the entry refuses a rule without a
    # branch here (``_core.rules.check_linear_rule``)
    return 0


def epoch(
    rows,
    order,
    W,
    b,
    U,
    bu,
    *,
    dict params,
    labels,
    targets,
    sample_weight,
    weight_pos,
    weight_neg,
    margins,
    active,
    double intercept_sq,
    long long t0,
    long long average_start,
    loss_out,
    Py_ssize_t col_start=0,
    Py_ssize_t col_stop=-1,
    scores_out=None,
    label_indptr=None,
    label_indices=None,
    bint score_average=False, bint weight_step=False,
    FirstOrderPass bound=None,
    WriteLog write_log=None,
):
    """Run the rule over the rows ``order`` once, updating W, b (and U, bu).

    Parameters (all validated by the caller)
    ----------------------------------------
    rows
        The row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (see ``_dataset.pxd`` and ``_linear_epochs._RowView``);
        float64 or float32 values, read as doubles (the same model).
    order : int64 row indices, in visiting order.
    params : dict
        The rule and its parameters (``RuleParams`` in ``_rules_linear.pxd``: rule,
        slack, C, epsilon, margin, learning_rate, total_weight), as the
        estimator's ``_kernel_params()`` states them.  REGRESSION reads
        ``epsilon``, MIRA ``margin`` (its beta) and ``C`` (the bound of the
        true class's step, 1 in the paper), GRADIENT and
        NORMALIZED_GRADIENT ``learning_rate``.
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
    MIRA bounds the true class's step by ``C * sample_weight *
        weight_pos[y]``; with one column it is binary MIRA on the difference
        of the two prototypes.
    weight_step : weights multiply the step, not ``C`` (``_weighting.pxd``).
    bound : None, or a :class:`FirstOrderPass` made with ``W``, ``b``,
        ``params``, ``weight_pos``, ``weight_neg``, ``margins``, ``active``
        (these objects) and the same ``intercept_sq`` and ``weight_step``:
        its conversions and checks of them are reused (an epoch adapter
        keeps one between passes); any other is ignored.
    write_log : None, or a :class:`~sklearn_pa._compiled._write_log.WriteLog`
        (made with ``W``, ``b``, ``U``, ``bu``): each entry the pass writes
        is logged, with its value, just before the write, so that the call
        can write them back; a row whose scores are not finite because a
        weight it reads is NaN or infinite then stops the pass
        (``write_log.nonfinite_read``), as does a log that cannot grow
        (``write_log.failed``).  The caller checks both after the pass.

    Returns
    -------
    (mistakes, updates, skipped, overflow) : online prediction mistakes (-1
        when not defined), the number of rows that took a non-zero step, the
        number of rows skipped because their norm or scores were not finite,
        and whether a weight this call wrote overflowed.
    """
    if bound is None or not bound.binds(
        W, b, params, weight_pos, weight_neg, margins, active, intercept_sq,
        weight_step,
    ):
        bound = FirstOrderPass(
            W, b, params=params, weight_pos=weight_pos, weight_neg=weight_neg,
            margins=margins, active=active, intercept_sq=intercept_sq,
            weight_step=weight_step,
        )
    return bound._run(
        rows, order, U, bu, labels, targets, sample_weight, t0, average_start,
        loss_out, col_start, col_stop, scores_out, label_indptr, label_indices,
        score_average, write_log,
    )


cdef class FirstOrderPass:
    """:func:`epoch` with the arguments that stay the same from one pass
    to the next bound once: the weights ``W``, ``b``, the rule (``params``,
    checked here), the class weights, the margins, the columns' activity
    and the intercept's constant.  :meth:`run` takes the rest, positionally,
    and runs the same loop as :func:`epoch` (which is this class, made and
    run once).  An epoch adapter keeps one while its weights and rule stay
    the objects it was made with: a call on one row then costs its row and
    the conversion of its batch's arrays, not that of every argument."""

    cdef double[:, ::1] W
    cdef double[::1] b
    cdef const double[::1] weight_pos
    cdef const double[::1] weight_neg
    cdef const double[:, ::1] margins
    cdef const unsigned char[::1] active
    cdef RuleParams p
    cdef object spec
    cdef double intercept_sq
    cdef bint weight_step
    # (the objects bound, for binds())
    cdef tuple objects

    def __init__(
        self,
        W,
        b,
        *,
        dict params,
        weight_pos,
        weight_neg,
        margins,
        active,
        double intercept_sq,
        bint weight_step=False,
    ):
        self.p = rule_params(params)
        self.spec = check_linear_rule("first_order", self.p.rule, self.p.slack)
        self.W, self.b = W, b
        self.weight_pos, self.weight_neg = weight_pos, weight_neg
        self.margins, self.active = margins, active
        self.intercept_sq, self.weight_step = intercept_sq, weight_step
        self.objects = (W, b, params, weight_pos, weight_neg, margins, active)

    cpdef bint binds(
        self, W, b, params, weight_pos, weight_neg, margins, active,
        double intercept_sq, bint weight_step,
    ):
        """Whether this pass was made with these objects (and values)."""
        cdef tuple o = self.objects
        return (
            W is o[0] and b is o[1] and params is o[2] and weight_pos is o[3]
            and weight_neg is o[4] and margins is o[5] and active is o[6]
            and intercept_sq == self.intercept_sq
            and weight_step == self.weight_step
        )

    def run(
        self,
        rows,
        order,
        U,
        bu,
        labels,
        targets,
        sample_weight,
        long long t0,
        long long average_start,
        loss_out,
        Py_ssize_t col_start=0,
        Py_ssize_t col_stop=-1,
        scores_out=None,
        label_indptr=None,
        label_indices=None,
        bint score_average=False,
        WriteLog write_log=None,
    ):
        """The pass over the rows ``order`` of the row view ``rows``
        (:func:`epoch`'s arguments of the same names); returns ``(mistakes,
        updates, skipped, overflow)``."""
        return self._run(
            rows, order, U, bu, labels, targets, sample_weight, t0,
            average_start, loss_out, col_start, col_stop, scores_out,
            label_indptr, label_indices, score_average, write_log,
        )

    cdef tuple _run(
        self, rows, order, U, bu, labels, targets, sample_weight, long long t0,
        long long average_start, loss_out, Py_ssize_t col_start,
        Py_ssize_t col_stop, scores_out, label_indptr, label_indices,
        bint score_average, WriteLog write_log,
    ):
        cdef WriteBuffer *log = NULL if write_log is None else &write_log.buffer
        cdef Rows32 rows32
        cdef Rows64 rows64
        cdef Rows32F rows32f
        cdef Rows64F rows64f
        cdef int kind = rows_kind(rows)
        if kind == RowsKind.ROWS64:
            arrays = make_rows(rows, &rows64)
            return _epoch[Rows64](
                &rows64, order, labels, targets, sample_weight, self.W, self.b,
                U, bu, self.weight_pos, self.weight_neg, self.margins,
                self.active, &self.p, self.spec, self.intercept_sq, t0,
                average_start, loss_out, col_start, col_stop, scores_out,
                label_indptr, label_indices, score_average, self.weight_step, log,
            )
        if kind == RowsKind.ROWS32F:
            arrays = make_rows(rows, &rows32f)
            return _epoch[Rows32F](
                &rows32f, order, labels, targets, sample_weight, self.W, self.b,
                U, bu, self.weight_pos, self.weight_neg, self.margins,
                self.active, &self.p, self.spec, self.intercept_sq, t0,
                average_start, loss_out, col_start, col_stop, scores_out,
                label_indptr, label_indices, score_average, self.weight_step, log,
            )
        if kind == RowsKind.ROWS64F:
            arrays = make_rows(rows, &rows64f)
            return _epoch[Rows64F](
                &rows64f, order, labels, targets, sample_weight, self.W, self.b,
                U, bu, self.weight_pos, self.weight_neg, self.margins,
                self.active, &self.p, self.spec, self.intercept_sq, t0,
                average_start, loss_out, col_start, col_stop, scores_out,
                label_indptr, label_indices, score_average, self.weight_step, log,
            )
        arrays = make_rows(rows, &rows32)
        return _epoch[Rows32](
            &rows32, order, labels, targets, sample_weight, self.W, self.b,
            U, bu, self.weight_pos, self.weight_neg, self.margins,
            self.active, &self.p, self.spec, self.intercept_sq, t0,
            average_start, loss_out, col_start, col_stop, scores_out,
            label_indptr, label_indices, score_average, self.weight_step, log,
        )


cdef int _check_epoch(
    object spec,
    const rows_t *rows,
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
    double[::1] loss_out,
    Py_ssize_t col_start,
    Py_ssize_t col_stop,
    double[:, ::1] scores_out,
    const long long[::1] label_indptr,
    const int[::1] label_indices,
) except -1:
    """The entry checks of :func:`epoch`: ValueError unless the rows, the
    weights and every per-row and per-column array fit the data and each
    other (the estimators check the learned state first; the loop runs
    without bounds checks)."""
    cdef Py_ssize_t K = W.shape[1]
    # what the rule reads is its entry in ``sklearn_pa/_core/rules.py``
    cdef bint labels_y = spec.y == "labels"
    # the only reads indexed by a label rather than a column: check them here,
    # since the loop runs without bounds checks (a rule of class labels on one
    # column, binary PA or binary MIRA, reads the weights of labels 0 and 1)
    cdef Py_ssize_t n_weights = 2 if labels_y and K == 1 else K
    if weight_pos.shape[0] < n_weights or weight_neg.shape[0] < n_weights:
        raise ValueError(
            f"class weights need {n_weights} entries for this rule; got "
            f"{weight_pos.shape[0]} and {weight_neg.shape[0]}"
        )
    if spec.margins and (margins.shape[0] < K or margins.shape[1] < K):
        raise ValueError(f"margins must be at least ({K}, {K})")
    cdef Py_ssize_t max_row = 0, q
    if spec.y == "label_sets":
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
    # the rows, the weights and every per-row and per-column array must fit
    # the data and each other (the estimators check the learned state first)
    cdef Py_ssize_t needed = check_rows(rows, order)
    if W.shape[0] != rows.n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {rows.n_features} features")
    check_length(b.shape[0], K, "b")
    if U.shape[0] > 0:
        if U.shape[0] != W.shape[0] or U.shape[1] != K:
            raise ValueError("U must have the shape of W")
        check_length(bu.shape[0], K, "bu")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(loss_out.shape[0], K if spec.one_vs_rest else 1, "loss_out")
    check_length(active.shape[0], K, "active")
    if col_start < 0 or col_stop > K:
        raise ValueError(f"the column range must lie in [0, {K}]")
    cdef Py_ssize_t n_labels = 2 if K == 1 else K
    if spec.y == "values":
        check_length(targets.shape[0], needed, "targets")
    elif labels_y:
        check_length(labels.shape[0], needed, "labels")
        for q in range(order.shape[0]):
            if q + LABEL_AHEAD < order.shape[0]:
                # (a shuffled order reads the labels anywhere)
                PA_PREFETCH(&labels[order[q + LABEL_AHEAD]])
            if labels[order[q]] < 0 or labels[order[q]] >= n_labels:
                raise ValueError(f"labels must lie in [0, {n_labels})")
    if scores_out is not None and (
        scores_out.shape[0] < order.shape[0] or scores_out.shape[1] < K
    ):
        raise ValueError(f"scores_out must be at least ({order.shape[0]}, {K})")
    return 0


cdef tuple _epoch(
    const rows_t *rows,
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
    const RuleParams *params,
    object spec,
    double intercept_sq,
    long long t0,
    long long average_start,
    double[::1] loss_out,
    Py_ssize_t col_start,
    Py_ssize_t col_stop,
    double[:, ::1] scores_out,
    const long long[::1] label_indptr,
    const int[::1] label_indices,
    bint score_average,
    bint weight_step,
    WriteBuffer *log,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    and value dtype)."""
    cdef RuleParams p = params[0]
    cdef int rule = p.rule
    cdef bint label_sets = spec.y == "label_sets"
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t K = W.shape[1]
    _check_epoch(spec, rows, order, labels, targets, sample_weight, W, b, U, bu,
                 weight_pos, weight_neg, margins, active, loss_out, col_start,
                 col_stop, scores_out, label_indptr, label_indices)
    cdef bint averaging = U.shape[0] > 0
    cdef bint want_scores = scores_out is not None
    cdef const long long *lptr = NULL
    cdef const int *lind = NULL
    if label_sets:
        lptr = &label_indptr[0]
        if label_indices.shape[0] > 0:
            lind = &label_indices[0]
    cdef Py_ssize_t c0 = col_start
    cdef Py_ssize_t c1 = K if col_stop < 0 else col_stop
    cdef long long mistakes = 0, updates = 0, skipped = 0
    cdef bint finite, overflow = False
    cdef Py_ssize_t n, i, j, k, nnz, n_changed
    cdef long long t
    cdef double sq, avg_coef
    cdef bint miss
    # the loop reads a local copy of the row view, which the compiler keeps in
    # registers (through the pointer it would reload the fields after each
    # store that might alias them)
    cdef rows_t view = rows[0]
    cdef Py_ssize_t next_nnz
    row_data = view.data         # const double * or const float *
    next_data = view.data
    row_ind = view.indices
    next_ind = view.indices
    cdef double *W0 = &W[0, 0]
    cdef const int *labels_p = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const double *targets_p = &targets[0] if targets.shape[0] > 0 else NULL
    cdef double *U0 = &U[0, 0] if averaging else NULL
    cdef double *bu_p = &bu[0] if averaging else NULL
    cdef double *scores = <double *> malloc(K * sizeof(double))
    cdef double *delta = <double *> malloc(K * sizeof(double))
    cdef double *tau_buf = <double *> malloc(K * sizeof(double))
    cdef Py_ssize_t *changed = <Py_ssize_t *> malloc(K * sizeof(Py_ssize_t))
    cdef Candidate *cand = <Candidate *> malloc(K * sizeof(Candidate))
    cdef unsigned char *relevant = <unsigned char *> malloc(K * sizeof(unsigned char))
    cdef double *ones = unit_weights(K)
    cdef const double *w_pos = ones if weight_step else &weight_pos[0]
    cdef const double *w_neg = ones if weight_step else &weight_neg[0]
    if scores == NULL or delta == NULL or tau_buf == NULL or changed == NULL or cand == NULL or relevant == NULL or ones == NULL:
        free(scores); free(delta); free(tau_buf); free(changed); free(cand)
        free(relevant); free(ones)
        raise MemoryError()

    with nogil:
        for n in range(n_rows):
            i = order[n]
            t = t0 + n + 1
            get_row(&view, i, &row_data, &row_ind, &nnz)
            if n + LABEL_AHEAD < n_rows:
                # a row's label and weight lie where the order points (a
                # shuffled order: anywhere in their arrays, a miss each that
                # cost as much as the row's own non-zeros): asked for rows
                # before they are read
                if labels_p != NULL:
                    PA_PREFETCH(labels_p + order[n + LABEL_AHEAD])
                if targets_p != NULL and targets.shape[0] > 1:
                    PA_PREFETCH(targets_p + order[n + LABEL_AHEAD])
                PA_PREFETCH(&sample_weight[order[n + LABEL_AHEAD]])
            if not view.dense:
                # rows in a shuffled order lie anywhere in X: ask for a row's
                # non-zeros ROW_AHEAD rows before it is learned, and for the
                # weights of its features one row before
                if n + 2 * ROW_AHEAD < n_rows:
                    # (the row's entry of indptr, to find its non-zeros then)
                    PA_PREFETCH(row_start(&view, order[n + 2 * ROW_AHEAD]))
                if n + ROW_AHEAD < n_rows:
                    get_row(&view, order[n + ROW_AHEAD], &next_data, &next_ind,
                            &next_nnz)
                    _prefetch_next(next_data, next_ind, next_nnz)
                if n + 1 < n_rows:
                    get_row(&view, order[n + 1], &next_data, &next_ind,
                            &next_nnz)
                    _prefetch_weights(next_ind, next_nnz, W0,
                                      U0 if averaging and t + 1 >= average_start
                                      else NULL, K, c0)
            sq = _score_row(row_data, row_ind, nnz, W0, &b[0], K, c0, c1,
                            intercept_sq, scores)
            # a row whose scores overflow cannot be learned from safely
            finite = isfinite(sq)
            for k in range(c0, c1):
                finite = finite and isfinite(scores[k])
            if want_scores:
                _record_scores(row_data, row_ind, nnz, scores, finite,
                               score_average and averaging,
                               <double> (t - average_start), U0, bu_p, K, c0, c1,
                               &scores_out[n, 0])
            if not finite:
                if log != NULL and reads_nonfinite(row_ind, nnz, W0, K, c0, c1):
                    log.nonfinite_read = True
                    break
                skipped += 1
                continue

            if label_sets:
                for k in range(K):
                    relevant[k] = 0
                for j in range(<Py_ssize_t> lptr[i], <Py_ssize_t> lptr[i + 1]):
                    relevant[lind[j]] = 1
            miss = False
            n_changed = _rule_step(  # weight_step: unweighted, scaled below
                &p, scores, K, c0, c1, i, labels_p, targets_p, sq,
                (sample_weight[i] > 0.0) if weight_step else sample_weight[i],
                w_pos, w_neg, &margins[0, 0], margins.shape[1], &active[0], relevant,
                cand, tau_buf, delta, changed, &loss_out[0], &miss, t,
            )
            if weight_step:
                scale_step_by_weights(rule, labels_p, i, sample_weight[i], &weight_pos[0],
                                      &weight_neg[0], delta, changed, n_changed)
            if miss:
                mistakes += 1
            if n_changed == 0:
                continue
            avg_coef = 0.0
            if averaging and t >= average_start:
                avg_coef = <double> (t - average_start)
            if _step_overflows(row_data, row_ind, nnz, W0, U0, b, bu, K, delta,
                               changed, n_changed, sq, intercept_sq, avg_coef):
                # a finite row whose step would make a weight infinite: skip it
                # before writing anything, as a row whose scores overflow
                skipped += 1
                continue
            if log != NULL and not reserve_writes(
                log, _step_writes(nnz, n_changed, avg_coef != 0.0)
            ):
                break  # (log.failed: nothing of this row written)
            updates += 1
            overflow |= _apply_step(row_data, row_ind, nnz, W0, U0, &b[0], bu_p, K,
                                    c0, c1, delta, changed, n_changed,
                                    intercept_sq, avg_coef, log)

    free(scores)
    free(delta)
    free(tau_buf)
    free(changed)
    free(cand)
    free(relevant)
    free(ones)
    if spec.y == "values" or (spec.one_vs_rest and not (c0 == 0 and c1 == K)):
        mistakes = -1
    return mistakes, updates, skipped, overflow
