# cython: language_level=3
"""One epoch of multiplicative online updates on split weights ``w = w+ - w-``.

A separate kernel from ``_first_order.pyx`` because the state and the shape
of the update differ: the model is a pair of positive weight vectors, every
step multiplies weights instead of adding to them, and EG+- renormalises the
pair to a fixed total after each step.

Rules (``Rule`` in ``_rules_linear.pxd``):

``EXPONENTIATED`` (EG+-, Kivinen & Warmuth 1997)
    v+_i = w+_i exp(2 eta r U x_i),  v-_i = w-_i exp(-2 eta r U x_i),
    w+- = U v+- / ||v||_1,  with r = y - yhat and U = ``total``.
    The weights are kept as ``s * (p, m)`` with a global scale
    ``s = U / Z`` and ``Z = sum(p) + sum(m)`` maintained incrementally, so a
    sparse row costs O(nnz): only the row's own ``p_j, m_j`` and ``Z``
    change; the renormalisation is the new ``s``.  Numerical safety: a row
    whose largest exponent exceeds ``_EXP_SAFE`` is applied in the log
    domain (one O(n_features) pass: logs, shift by their maximum,
    exponentiate), ``Z`` is recomputed exactly when an update removed more
    than half of it (cancellation) and the arrays are rescaled by ``1 / Z``
    when ``Z`` leaves ``[1e-100, 1e100]``.  No step can overflow or produce
    NaN; a weight can only underflow to 0 when it is below 1e-300 of the
    total.

``ERROR_PROPORTIONAL_MULT`` (DPMU)
    w+_i <- w+_i beta^{x_i}, w-_i <- w-_i / beta^{x_i} for Boolean x, with
    beta > 0 the positive root of  yhat+ beta^2 - T beta - yhat- = 0,
    T = yhat + c (y - yhat), so that the new prediction is exactly T.
    The caller checks that x is Boolean.

The intercept, when present, is the weight pair of a constant feature 1
stored after the ``n_features`` feature weights.
"""

from libc.math cimport exp, log, sqrt, hypot, fabs, isfinite, NAN, INFINITY
from libc.stdlib cimport malloc, free

from ._dataset cimport (
    Rows32, Rows64, rows_t, get_row, make_rows, wide_rows, check_rows, check_length,
)
from ._rules_linear cimport Rule, RuleParams, rule_params

from .._core.rules import check_kernel_rule

# largest |exponent| applied incrementally (exp(50) ~ 5e21: weights stay far
# from overflow while Z is kept within [1e-100, 1e100])
cdef double _EXP_SAFE = 50.0
cdef double _Z_HIGH = 1e100
cdef double _Z_LOW = 1e-100


cdef inline double _exact_total(const double *p, const double *m, Py_ssize_t n) noexcept nogil:
    cdef double z = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        z += p[i] + m[i]
    return z


cdef inline void _rescale(double *p, double *m, Py_ssize_t n, double factor) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        p[i] *= factor
        m[i] *= factor


def epoch(
    rows,
    const long long[::1] order,
    double[::1] pos,
    double[::1] neg,
    *,
    dict params,
    targets,
    sample_weight,
    bint intercept,
    loss_out,
    scores_out=None,
):
    """Run the rule over the rows ``order`` once, updating ``pos`` and ``neg``.

    Parameters (validated by the caller)
    ------------------------------------
    rows
        The row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (see ``_dataset.pxd`` and ``_linear_epochs._RowView``).
    order : int64 row indices, in visiting order.
    params : dict
        ``RuleParams`` (``_rules_linear.pxd``) as the estimator's
        ``_kernel_params()`` states them: ``rule`` (EXPONENTIATED or
        ERROR_PROPORTIONAL_MULT), ``learning_rate`` (eta of EG+-, c of DPMU)
        and ``total_weight`` (U, EG+- only); the others are unused.
    targets, sample_weight : per row; the weight multiplies ``rate``.
    pos, neg : length ``n_features + 1``, the positive weights w+ and w-
        (the last entry is the intercept's pair, used when ``intercept``).
        For EG+- they must sum to ``total`` on entry; on return they do
        again (renormalised exactly).  Updated in place.
    loss_out : [0] receives the sum of the squared online errors.
    scores_out : None, or (len(order), >= 1): row n receives the prediction
        for row ``order[n]`` made before the update on it (NaN when skipped).

    Returns
    -------
    (mistakes, updates, skipped, overflow) : mistakes is always -1 (a
        regression kernel); the rows that moved the weights; the rows skipped
        because their prediction or step was not finite; whether a weight
        became non-finite (DPMU weights are not renormalised and can).
    """
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _epoch[Rows64](
            &rows64, order, targets, sample_weight, pos, neg, intercept, params,
            loss_out, scores_out,
        )
    arrays = make_rows(rows, &rows32)
    return _epoch[Rows32](
        &rows32, order, targets, sample_weight, pos, neg, intercept, params, loss_out,
        scores_out,
    )


cdef tuple _epoch(
    const rows_t *rows,
    const long long[::1] order,
    const double[::1] targets,
    const double[::1] sample_weight,
    double[::1] pos,
    double[::1] neg,
    bint intercept,
    dict params,
    double[::1] loss_out,
    double[:, ::1] scores_out,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    dtype)."""
    # the loop reads a local copy of the row view, which the compiler keeps in
    # registers (through the pointer it would reload the fields after each
    # store that might alias them)
    cdef rows_t view = rows[0]
    cdef bint dense = view.dense
    cdef Py_ssize_t n_features = view.n_features
    cdef RuleParams prm = rule_params(params)
    cdef int rule = prm.rule
    cdef double rate = prm.learning_rate, total = prm.total_weight
    # EXPONENTIATED or ERROR_PROPORTIONAL_MULT: the two rules this kernel
    # runs (``eg`` below picks one), any other refused
    check_kernel_rule("multiplicative", "rule", rule)
    cdef Py_ssize_t n_weights = n_features + 1
    if pos.shape[0] < n_weights or neg.shape[0] < n_weights:
        raise ValueError(f"pos and neg need {n_weights} entries")
    cdef Py_ssize_t needed = check_rows(rows, order)
    check_length(targets.shape[0], needed, "targets")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(loss_out.shape[0], 1, "loss_out")
    cdef bint want_scores = scores_out is not None
    if want_scores and (scores_out.shape[0] < order.shape[0] or scores_out.shape[1] < 1):
        raise ValueError(f"scores_out must be at least ({order.shape[0]}, 1)")
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t n_active = n_features + (1 if intercept else 0)
    cdef bint eg = rule == Rule.EXPONENTIATED
    cdef long long updates = 0, skipped = 0
    cdef bint overflow = False
    cdef Py_ssize_t n, i, j, idx, nnz
    cdef double yhat, yp, ym, resid, w_i, a, e, emax, z_old, z, s, dz
    cdef double old_p, old_m, new_p, new_m, T, disc, beta, log_max
    cdef const double *row_data
    row_ind = view.indices
    cdef double *p = &pos[0]
    cdef double *m = &neg[0]
    cdef double *logs = NULL

    z = 0.0
    s = 1.0
    if eg:
        z = _exact_total(p, m, n_active)
        if not (z > 0.0 and isfinite(z)):
            raise ValueError("EG weights must be positive with a finite total")
        # keep the stored arrays near unit total
        _rescale(p, m, n_active, 1.0 / z)
        z = _exact_total(p, m, n_active)
        s = total / z
    if eg:
        logs = <double *> malloc(2 * n_weights * sizeof(double))
        if logs == NULL:
            raise MemoryError()

    with nogil:
        for n in range(n_rows):
            i = order[n]
            get_row(&view, i, &row_data, &row_ind, &nnz)
            yp = 0.0
            ym = 0.0
            emax = 0.0
            for j in range(nnz):
                if row_data[j] == 0.0:
                    continue
                idx = row_ind[j]
                if eg:
                    yp += row_data[j] * p[idx]
                    ym += row_data[j] * m[idx]
                    if fabs(row_data[j]) > emax:
                        emax = fabs(row_data[j])
                else:
                    yp += p[idx]
                    ym += m[idx]
            if intercept:
                yp += p[n_features]
                ym += m[n_features]
                if emax < 1.0:
                    emax = 1.0
            if eg:
                yhat = s * (yp - ym)
            else:
                yhat = yp - ym
            if want_scores:
                scores_out[n, 0] = yhat if isfinite(yhat) else NAN
            if not isfinite(yhat):
                skipped += 1
                continue
            resid = targets[i] - yhat
            loss_out[0] += resid * resid
            w_i = sample_weight[i]
            if w_i <= 0.0 or resid == 0.0:
                continue

            if eg:
                a = 2.0 * rate * w_i * resid * total
                if not isfinite(a) or not isfinite(a * emax):
                    skipped += 1
                    continue
                if a * emax == 0.0:
                    continue
                updates += 1
                if fabs(a) * emax <= _EXP_SAFE:
                    z_old = z
                    dz = 0.0
                    for j in range(nnz + (1 if intercept else 0)):
                        if j < nnz:
                            e = a * row_data[j]
                            idx = row_ind[j]
                        else:
                            e = a
                            idx = n_features
                        if e == 0.0:
                            continue
                        old_p = p[idx]
                        old_m = m[idx]
                        new_p = old_p * exp(e)
                        new_m = old_m * exp(-e)
                        p[idx] = new_p
                        m[idx] = new_m
                        dz += (new_p - old_p) + (new_m - old_m)
                    z = z_old + dz
                    if not (z > 0.5 * z_old):
                        # the update removed most of the mass: the running
                        # sum lost its precision, recount it
                        z = _exact_total(p, m, n_active)
                else:
                    # exponent too large for the incremental path: apply it
                    # in the log domain, shifted by the largest new log weight
                    for idx in range(n_active):
                        logs[2 * idx] = log(p[idx]) if p[idx] > 0.0 else -INFINITY
                        logs[2 * idx + 1] = log(m[idx]) if m[idx] > 0.0 else -INFINITY
                    for j in range(nnz + (1 if intercept else 0)):
                        if j < nnz:
                            e = a * row_data[j]
                            idx = row_ind[j]
                        else:
                            e = a
                            idx = n_features
                        logs[2 * idx] += e
                        logs[2 * idx + 1] -= e
                    log_max = -INFINITY
                    for idx in range(2 * n_active):
                        if logs[idx] > log_max:
                            log_max = logs[idx]
                    for idx in range(n_active):
                        p[idx] = exp(logs[2 * idx] - log_max)
                        m[idx] = exp(logs[2 * idx + 1] - log_max)
                    z = _exact_total(p, m, n_active)
                if z > _Z_HIGH or z < _Z_LOW:
                    _rescale(p, m, n_active, 1.0 / z)
                    z = _exact_total(p, m, n_active)
                s = total / z
            else:
                if yp <= 0.0:
                    # no active feature (and no intercept): nothing can move
                    continue
                T = yhat + rate * w_i * resid
                disc = hypot(T, 2.0 * sqrt(yp) * sqrt(ym))
                if T >= 0.0:
                    beta = (T + disc) / (2.0 * yp)
                else:
                    # the same root, written without cancellation
                    beta = 2.0 * ym / (disc - T)
                if not (isfinite(beta) and beta > 0.0):
                    skipped += 1
                    continue
                updates += 1
                for j in range(nnz + (1 if intercept else 0)):
                    if j < nnz:
                        if row_data[j] == 0.0:
                            continue
                        idx = row_ind[j]
                    else:
                        idx = n_features
                    p[idx] *= beta
                    m[idx] /= beta
                    if not (isfinite(p[idx]) and isfinite(m[idx])
                            and p[idx] > 0.0 and m[idx] > 0.0):
                        overflow = True

        if eg:
            # publish exact weights: renormalise to the total U
            z = _exact_total(p, m, n_active)
            _rescale(p, m, n_active, total / z)
    if logs != NULL:
        free(logs)
    return -1, updates, skipped, overflow
