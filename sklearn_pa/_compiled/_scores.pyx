# cython: language_level=3
"""Scores of rows against feature-major weights, and the one-pass check of a
CSR batch, for the lean path of a call on a few rows
(``sklearn_pa/_core/_calls.pyx``).

``score_rows`` reads only the weights of each row's features, so that a
``predict`` on a few rows costs what its rows cost, never the size of the
model; it sums as the first-order kernel scores a row (``_score_rows.h``,
whose AVX2 version gives the same numbers as the plain one).
``value_range`` counts a matrix's
non-zeros and finds its extremes in one pass (``typical_feature_value``).
"""

from libc.math cimport isfinite
from libc.stdlib cimport calloc, free

from ._dataset cimport (
    Rows32, Rows64, Rows32F, Rows64F, RowsKind, rows_t, index_t, value_t,
    get_row, make_rows, rows_kind, check_length, check_view, all_rows_fit,
    with_values,
)
from ._score_rows cimport pa_simd_available, score_row


cdef int _simd = pa_simd_available()


cdef inline double _score_row(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
    Py_ssize_t c1, double intercept_sq, double *scores,
) noexcept nogil:
    """``scores[c0:c1] = b + x . W`` (``_score_rows.pxd``)."""
    return score_row(row_data, row_ind, nnz, W0, b, K, c0, c1, intercept_sq,
                     scores, _simd)


def score_rows(
    rows,
    const double[:, ::1] W,
    const double[::1] b,
    *,
    const double[:, ::1] U,
    const double[::1] bu,
    double n_avg,
    double[:, ::1] out,
):
    """The decision values of every row of a row view, reading only the
    weights of each row's features.

    ``out[i] = x_i . W + b``; when ``U`` has rows (the lazy averaging
    accumulators of ``W``, as the epochs keep them), the scores of the
    averaged model ``W - U / n_avg``, ``b - bu / n_avg`` without forming it:
    each weight of the row's features is averaged as the published average
    is (``U * (-1 / n_avg) + W``), so that the scores are those of the
    average once it is published.  A call costs what its rows cost (their
    non-zeros times the columns), never the size of the model.  Each dot
    product sums its terms in the order of the row's features and the
    intercept is added last, as scipy's sparse product and ``X @ coef_.T +
    intercept_`` on a row of few terms do, so that the scores of a model's
    own weights are those scikit-learn's linear mixin gives.

    Parameters
    ----------
    rows
        The row view (``_linear_epochs._RowView``), float64 or float32
        values (read as doubles); every CSR row is
        verified to lie inside its arrays, with feature indices in
        ``[0, n_features)``.
    W : (n_features, n_columns) weights, feature-major.
    b : (n_columns,) intercepts.
    U, bu : (n_features, n_columns) and (n_columns,) accumulators, or
        arrays with no rows (no averaging).
    n_avg : the number of averaged steps (>= 1 when ``U`` has rows).
    out : (n_rows, n_columns), written.

    Raises ``ValueError`` when an array does not fit the rows or ``W``.
    """
    cdef Rows32 rows32
    cdef Rows64 rows64
    cdef Rows32F rows32f
    cdef Rows64F rows64f
    cdef int kind = rows_kind(rows)
    if kind == RowsKind.ROWS64:
        arrays = make_rows(rows, &rows64)
        _score_rows[Rows64](&rows64, W, b, U, bu, n_avg, out)
    elif kind == RowsKind.ROWS32F:
        arrays = make_rows(rows, &rows32f)
        _score_rows[Rows32F](&rows32f, W, b, U, bu, n_avg, out)
    elif kind == RowsKind.ROWS64F:
        arrays = make_rows(rows, &rows64f)
        _score_rows[Rows64F](&rows64f, W, b, U, bu, n_avg, out)
    else:
        arrays = make_rows(rows, &rows32)
        _score_rows[Rows32](&rows32, W, b, U, bu, n_avg, out)


cdef int _score_rows(
    const rows_t *rows,
    const double[:, ::1] W,
    const double[::1] b,
    const double[:, ::1] U,
    const double[::1] bu,
    double n_avg,
    double[:, ::1] out,
) except -1:
    check_view(rows)
    if not rows.dense and not rows.checked:
        if not all_rows_fit(rows):
            raise ValueError(
                "the rows do not lie inside their arrays, or a feature index "
                f"lies outside [0, {rows.n_features})"
            )
    cdef Py_ssize_t n_rows = rows.n_rows if rows.n_rows > 0 else 0
    cdef Py_ssize_t K = W.shape[1]
    if W.shape[0] != rows.n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {rows.n_features} features")
    check_length(b.shape[0], K, "b")
    cdef bint averaged = U.shape[0] > 0
    if averaged:
        if U.shape[0] != W.shape[0] or U.shape[1] != K:
            raise ValueError("U must have the shape of W")
        check_length(bu.shape[0], K, "bu")
        if not n_avg >= 1.0:
            raise ValueError("n_avg must be >= 1 with averaging accumulators")
    if out.shape[0] != n_rows or out.shape[1] != K:
        raise ValueError(f"out must be ({n_rows}, {K})")
    if n_rows == 0 or K == 0:
        return 0
    cdef rows_t view = rows[0]
    row_data = view.data         # const double * or const float *
    row_ind = view.indices
    cdef Py_ssize_t i, j, k, nnz
    cdef const double *W0 = &W[0, 0] if W.shape[0] > 0 else NULL
    cdef const double *U0 = &U[0, 0] if averaged and U.shape[0] > 0 else NULL
    cdef const double *wrow
    cdef const double *urow
    cdef double xj, inv = -1.0 / n_avg if averaged else 0.0
    cdef double *zero = <double *> calloc(K, sizeof(double))
    if zero == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n_rows):
            get_row(&view, i, &row_data, &row_ind, &nnz)
            if not averaged:
                # the sums start at 0; b is added last
                _score_row(
                    row_data, row_ind, nnz, W0, zero, K, 0, K, 0.0, &out[i, 0]
                )
                for k in range(K):
                    out[i, k] += b[k]
                continue
            for k in range(K):
                out[i, k] = 0.0
            for j in range(nnz):
                xj = row_data[j]
                wrow = W0 + <Py_ssize_t> row_ind[j] * K
                urow = U0 + <Py_ssize_t> row_ind[j] * K
                for k in range(K):
                    out[i, k] += xj * (urow[k] * inv + wrow[k])
            for k in range(K):
                out[i, k] += b[k] - bu[k] / n_avg
    free(zero)
    return 0


def margin_rows(
    rows,
    const double[:, ::1] sigma,
    double intercept_sq,
    double[:, ::1] var_out,
    *,
    W=None,
    b=None,
    U=None,
    bu=None,
    double n_avg=0.0,
    scores_out=None,
):
    """The variances ``x~^T Sigma_g x~`` of every row of a row view under
    a diagonal covariance (and, with ``scores_out``, the rows' scores, as
    :func:`score_rows` gives them), reading only each row's features.

    ``sigma`` is ``(n_features + 1, G)``: the variance of each feature
    and, in its last row, of the intercept's constant feature, whose square
    is ``intercept_sq`` (0 without an intercept).  ``var_out[i, g]`` is the
    score of the squared row ``x_i ** 2`` (each value squared in float64)
    against ``sigma[:n_features]`` with intercepts ``intercept_sq *
    sigma[n_features]``, summed as :func:`score_rows` sums.  With
    ``scores_out``, ``score_rows(rows, W, b, U=U, bu=bu, n_avg=n_avg,
    out=scores_out)`` first: the margins a confidence-weighted model's
    probabilities read, in one call.
    """
    cdef Rows32 rows32
    cdef Rows64 rows64
    cdef Rows32F rows32f
    cdef Rows64F rows64f
    if scores_out is not None:
        score_rows(rows, W, b, U=U, bu=bu, n_avg=n_avg, out=scores_out)
    cdef int kind = rows_kind(rows)
    if kind == RowsKind.ROWS64:
        arrays = make_rows(rows, &rows64)
        _variances[Rows64](&rows64, sigma, intercept_sq, var_out)
    elif kind == RowsKind.ROWS32F:
        arrays = make_rows(rows, &rows32f)
        _variances[Rows32F](&rows32f, sigma, intercept_sq, var_out)
    elif kind == RowsKind.ROWS64F:
        arrays = make_rows(rows, &rows64f)
        _variances[Rows64F](&rows64f, sigma, intercept_sq, var_out)
    else:
        arrays = make_rows(rows, &rows32)
        _variances[Rows32](&rows32, sigma, intercept_sq, var_out)


cdef int _variances(
    const rows_t *rows,
    const double[:, ::1] sigma,
    double intercept_sq,
    double[:, ::1] var_out,
) except -1:
    """:func:`margin_rows`'s variances: the rows with their values squared
    (float64, the same indices) scored by :func:`_score_rows`."""
    cdef Py_ssize_t n_features = rows.n_features
    if sigma.shape[0] != n_features + 1:
        raise ValueError(
            f"sigma has {sigma.shape[0]} rows for {n_features} features and "
            "the intercept"
        )
    cdef Py_ssize_t G = sigma.shape[1], g, j
    intercepts = _np_empty(G)
    cdef double[::1] bvar = intercepts
    for g in range(G):
        bvar[g] = intercept_sq * sigma[n_features, g]
    squares = _np_empty(max(rows.n_data, 1))
    cdef double[::1] sq = squares
    cdef double v
    for j in range(rows.n_data):
        v = rows.data[j]
        sq[j] = v * v
    cdef Rows32 squared32
    cdef Rows64 squared64
    with_values(rows, &sq[0], &squared32, &squared64)
    if rows_t is Rows32 or rows_t is Rows32F:
        return _score_rows[Rows32](
            &squared32, sigma[:n_features], bvar, _NO_ROWS, _NO_COLUMNS, 0.0, var_out
        )
    return _score_rows[Rows64](
        &squared64, sigma[:n_features], bvar, _NO_ROWS, _NO_COLUMNS, 0.0, var_out
    )


import numpy as _np

cdef object _np_empty = _np.empty
cdef object _NO_ROWS = _np.zeros((0, 1))
cdef object _NO_COLUMNS = _np.zeros(0)


def value_range(const double[::1] data):
    """``(n_nonzero, largest, smallest)`` of ``data`` in one pass: the
    counts and extremes ``np.count_nonzero``, ``np.max`` and ``np.min``
    give (NaN extremes when a value is NaN; ``(0, 0.0, 0.0)`` when empty),
    for ``typical_feature_value``, whose three passes over a large matrix's
    values were a noticeable part of a fit's set-up."""
    cdef Py_ssize_t j, n = data.shape[0], n_nonzero = 0
    cdef double v, largest = 0.0, smallest = 0.0
    cdef bint nan = False
    if n == 0:
        return 0, 0.0, 0.0
    largest = smallest = data[0]
    with nogil:
        for j in range(n):
            v = data[j]
            n_nonzero += v != 0.0
            if v > largest:
                largest = v
            if v < smallest:
                smallest = v
            nan |= v != v
    if nan:
        return n_nonzero, float("nan"), float("nan")
    return n_nonzero, largest, smallest
