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
    when ``Z`` leaves ``[1e-100, 1e100]`` (checked before the next row is
    read).  No step can overflow or produce NaN; a weight can only underflow
    to 0 when it is below 1e-300 of the total.  Between the calls of a
    stream the kernel's ``state`` keeps ``s`` and ``Z``, so that a call on
    a few sparse rows costs what they cost; a step that writes every weight
    (the entry's normalisation, the log domain, a rescale) is taken only
    where the caller saved the whole model (``state[3]``), else the kernel
    stops before it (see :func:`epoch`).

``ERROR_PROPORTIONAL_MULT`` (DPMU)
    w+_i <- w+_i beta^{x_i}, w-_i <- w-_i / beta^{x_i} for Boolean x, with
    beta > 0 the positive root of  yhat+ beta^2 - T beta - yhat- = 0,
    T = yhat + c (y - yhat), so that the new prediction is exactly T.
    The caller checks that x is Boolean.

The model is the weight matrix ``W`` of shape ``(n_features, 2)`` (row
``i`` is the pair ``(w+_i, w-_i)``) and, when present, the intercept's pair
``b = (b+, b-)``, the weights of a constant feature 1.
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

# the entries of ``state`` (see :func:`epoch`)
cdef enum:
    _SCALE = 0
    _TOTAL = 1
    _ENTRY = 2
    _WHOLE = 3
    _DONE = 4
    _STATE_SIZE = 5


cdef inline double *_pair(double *w, double *bb, Py_ssize_t idx, Py_ssize_t n) noexcept nogil:
    """The pair ``(w+, w-)`` of weight ``idx``: row ``idx`` of ``W``, or the
    intercept's ``b`` for ``idx == n``."""
    if idx == n:
        return bb
    return w + 2 * idx


cdef inline double _exact_total(double *w, double *bb, Py_ssize_t n, bint intercept) noexcept nogil:
    cdef double z = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        z += w[2 * i] + w[2 * i + 1]
    if intercept:
        z += bb[0] + bb[1]
    return z


cdef inline void _rescale(double *w, double *bb, Py_ssize_t n, bint intercept, double factor) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(2 * n):
        w[i] *= factor
    if intercept:
        bb[0] *= factor
        bb[1] *= factor


def new_state():
    """A fresh ``state`` for :func:`epoch`: the weights as given (scale 1),
    normalised at the next entry (which computes their total)."""
    import numpy as np
    return np.array([1.0, 0.0, 1.0, 0.0, 0.0])


def epoch(
    rows,
    const long long[::1] order,
    double[:, ::1] W,
    double[::1] b,
    *,
    dict params,
    targets,
    sample_weight,
    bint intercept,
    loss_out,
    scores_out=None,
    state=None,
):
    """Run the rule over the rows ``order`` once, updating ``W`` and ``b``.

    Parameters (validated by the caller)
    ------------------------------------
    rows
        The row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (see ``_dataset.pxd`` and ``_linear_epochs._RowView``).
    order : int64 row indices, in visiting order.
    W : (n_features, 2), C-contiguous: row ``i`` is ``(w+_i, w-_i)``.
    b : (2,), the intercept's pair ``(b+, b-)`` (used when ``intercept``).
    params : dict
        ``RuleParams`` (``_rules_linear.pxd``) as the estimator's
        ``_kernel_params()`` states them: ``rule`` (EXPONENTIATED or
        ERROR_PROPORTIONAL_MULT), ``learning_rate`` (eta of EG+-, c of DPMU)
        and ``total_weight`` (U, EG+- only); the others are unused.
    targets, sample_weight : per row; the weight multiplies ``rate``.
    loss_out : [0] receives the sum of the squared online errors.
    scores_out : None, or (len(order), >= 1): row n receives the prediction
        for row ``order[n]`` made before the update on it (NaN when skipped).
    state : None, or float64 ``[s, Z, entry, whole, done]`` (EG+- only)
        None: one self-contained pass (``fit``): the weights, of any positive
        total, are normalised at entry and renormalised exactly to ``U`` on
        return.  Otherwise the pass of a stream, the weights being
        ``s * (W, b)`` with ``Z`` their running total: with ``entry`` set
        the arrays hold the weights themselves (scale 1) and are normalised
        first (then ``entry`` is cleared), and on return they are left as
        ``s * (W, b)``, ``s`` and ``Z`` in ``state``.  Without ``whole`` (the
        caller has not saved the whole model) the pass stops before a step
        that writes every weight, before anything of that row is written;
        ``done`` receives the number of rows of ``order`` it completed.

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
            &rows64, order, targets, sample_weight, W, b, intercept, params,
            loss_out, scores_out, state,
        )
    arrays = make_rows(rows, &rows32)
    return _epoch[Rows32](
        &rows32, order, targets, sample_weight, W, b, intercept, params, loss_out,
        scores_out, state,
    )


cdef tuple _epoch(
    const rows_t *rows,
    const long long[::1] order,
    const double[::1] targets,
    const double[::1] sample_weight,
    double[:, ::1] W,
    double[::1] b,
    bint intercept,
    dict params,
    double[::1] loss_out,
    double[:, ::1] scores_out,
    double[::1] state,
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
    if W.shape[0] != n_features or W.shape[1] != 2 or b.shape[0] < 2:
        raise ValueError(f"W must be ({n_features}, 2) and b (2,)")
    cdef Py_ssize_t needed = check_rows(rows, order)
    check_length(targets.shape[0], needed, "targets")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(loss_out.shape[0], 1, "loss_out")
    cdef bint want_scores = scores_out is not None
    if want_scores and (scores_out.shape[0] < order.shape[0] or scores_out.shape[1] < 1):
        raise ValueError(f"scores_out must be at least ({order.shape[0]}, 1)")
    cdef bint stream = state is not None
    if stream and state.shape[0] < _STATE_SIZE:
        raise ValueError(f"state needs {_STATE_SIZE} entries")
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t n_active = n_features + (1 if intercept else 0)
    cdef bint eg = rule == Rule.EXPONENTIATED
    # whether a step may write every weight (always, outside a stream)
    cdef bint whole = not stream or state[_WHOLE] != 0.0
    cdef long long updates = 0, skipped = 0
    cdef bint overflow = False
    cdef Py_ssize_t n, i, j, idx, nnz
    cdef double yhat, yp, ym, resid, w_i, a, e, emax, z_old, z, s, dz
    cdef double old_p, old_m, new_p, new_m, T, disc, beta, log_max
    cdef const double *row_data
    row_ind = view.indices
    cdef double *w = &W[0, 0] if n_features > 0 else &b[0]
    cdef double *bb = &b[0]
    cdef double *q
    cdef double *logs = NULL

    z = 0.0
    s = 1.0
    n = 0
    if stream:
        state[_DONE] = 0.0
    if eg:
        if not stream or state[_ENTRY] != 0.0:
            if not whole:
                # the normalisation writes every weight: the caller saves
                # them first
                return -1, 0, 0, False
            z = _exact_total(w, bb, n_features, intercept)
            if not (z > 0.0 and isfinite(z)):
                raise ValueError("EG weights must be positive with a finite total")
            # keep the stored arrays near unit total
            _rescale(w, bb, n_features, intercept, 1.0 / z)
            z = _exact_total(w, bb, n_features, intercept)
            s = total / z
            if stream:
                state[_ENTRY] = 0.0
        else:
            s = state[_SCALE]
            z = state[_TOTAL]
            if not (z > 0.0 and isfinite(z) and s > 0.0 and isfinite(s)):
                raise ValueError("EG weights must be positive with a finite total")

    with nogil:
        for n in range(n_rows):
            if eg and (z > _Z_HIGH or z < _Z_LOW):
                # the previous step moved the total out of range: bring the
                # arrays back near unit total
                if not whole:
                    break
                _rescale(w, bb, n_features, intercept, 1.0 / z)
                z = _exact_total(w, bb, n_features, intercept)
                s = total / z
            i = order[n]
            get_row(&view, i, &row_data, &row_ind, &nnz)
            yp = 0.0
            ym = 0.0
            emax = 0.0
            for j in range(nnz):
                if row_data[j] == 0.0:
                    continue
                q = w + 2 * row_ind[j]
                if eg:
                    yp += row_data[j] * q[0]
                    ym += row_data[j] * q[1]
                    if fabs(row_data[j]) > emax:
                        emax = fabs(row_data[j])
                else:
                    yp += q[0]
                    ym += q[1]
            if intercept:
                yp += bb[0]
                ym += bb[1]
                if emax < 1.0:
                    emax = 1.0
            if eg:
                yhat = s * (yp - ym)
            else:
                yhat = yp - ym
            if eg and not whole and isfinite(yhat):
                # a step in the log domain writes every weight: stop before
                # this row unless they are saved
                resid = targets[i] - yhat
                w_i = sample_weight[i]
                a = 2.0 * rate * w_i * resid * total
                if (
                    w_i > 0.0 and resid != 0.0 and isfinite(a)
                    and isfinite(a * emax) and a * emax != 0.0
                    and fabs(a) * emax > _EXP_SAFE
                ):
                    break
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
                        q = _pair(w, bb, idx, n_features)
                        old_p = q[0]
                        old_m = q[1]
                        new_p = old_p * exp(e)
                        new_m = old_m * exp(-e)
                        q[0] = new_p
                        q[1] = new_m
                        dz += (new_p - old_p) + (new_m - old_m)
                    z = z_old + dz
                    if not (z > 0.5 * z_old):
                        # the update removed most of the mass: the running
                        # sum lost its precision, recount it
                        z = _exact_total(w, bb, n_features, intercept)
                else:
                    # exponent too large for the incremental path: apply it
                    # in the log domain, shifted by the largest new log weight
                    if logs == NULL:
                        logs = <double *> malloc(2 * (n_features + 1) * sizeof(double))
                        if logs == NULL:
                            with gil:
                                raise MemoryError()
                    for idx in range(n_active):
                        q = _pair(w, bb, idx, n_features)
                        logs[2 * idx] = log(q[0]) if q[0] > 0.0 else -INFINITY
                        logs[2 * idx + 1] = log(q[1]) if q[1] > 0.0 else -INFINITY
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
                        q = _pair(w, bb, idx, n_features)
                        q[0] = exp(logs[2 * idx] - log_max)
                        q[1] = exp(logs[2 * idx + 1] - log_max)
                    z = _exact_total(w, bb, n_features, intercept)
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
                    q = _pair(w, bb, idx, n_features)
                    q[0] *= beta
                    q[1] /= beta
                    if not (isfinite(q[0]) and isfinite(q[1])
                            and q[0] > 0.0 and q[1] > 0.0):
                        overflow = True
        else:
            # (every row done: the loop ran to its end)
            n = n_rows

        if eg and not stream:
            # publish exact weights: renormalise to the total U
            if z > _Z_HIGH or z < _Z_LOW:
                _rescale(w, bb, n_features, intercept, 1.0 / z)
            z = _exact_total(w, bb, n_features, intercept)
            _rescale(w, bb, n_features, intercept, total / z)
    if logs != NULL:
        free(logs)
    if stream:
        state[_DONE] = n
        if eg:
            state[_SCALE] = s
            state[_TOTAL] = z
    return -1, updates, skipped, overflow
