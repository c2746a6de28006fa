# The building blocks of the second-order kernel (``_second_order.pyx``): the
# dense row ``x~ = [x, a]`` of the full covariance, ``Sigma x~`` and
# ``x~^T Sigma x~``, the mean step ``mu += coef Sigma x~`` with its lazy
# average, the rank-one covariance step and the covariance floor.  Each
# reads a row's values as doubles (``const value_t *``).

from libc.math cimport isfinite
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dsymv, dsyr

from ._dataset cimport rows_t, index_t, value_t


cdef inline void _fill_x(
    double *xbuf, const rows_t *rows, const value_t *row_data,
    const index_t *row_ind, Py_ssize_t nnz, Py_ssize_t D, double intercept,
) noexcept nogil:
    """The dense ``x~ = [x, a]`` of one row of ``rows`` into ``xbuf`` (of
    length ``D``: ``n_features``, plus one with an intercept), whose other
    entries are 0; a sparse row is cleared again with :func:`_clear_x`."""
    cdef Py_ssize_t p, n_features = rows.n_features
    if rows.dense and value_t is double:
        memcpy(xbuf, row_data, n_features * sizeof(double))
    elif rows.dense:
        for p in range(n_features):
            xbuf[p] = row_data[p]
    else:
        for p in range(nnz):
            xbuf[row_ind[p]] = row_data[p]
    if D > n_features:
        xbuf[n_features] = intercept


cdef inline void _clear_x(
    double *xbuf, const index_t *row_ind, Py_ssize_t nnz
) noexcept nogil:
    """Zero the entries :func:`_fill_x` wrote for a sparse row."""
    cdef Py_ssize_t p
    for p in range(nnz):
        xbuf[row_ind[p]] = 0.0


cdef inline double _avg(bint averaging, long long t, long long start) noexcept nogil:
    if averaging and t >= start:
        return <double> (t - start)
    return 0.0


cdef inline double _sigma_x(
    bint full, double *Sf, double *Sd, Py_ssize_t g, Py_ssize_t G, Py_ssize_t blk,
    int n_blas, char *uplo, double *xbuf, double *sx,
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """Fill ``sx = Sigma_g x~`` and return ``v = x~^T Sigma_g x~``.

    Full: dense over D' entries.  Diagonal: aligned with the row's non-zeros,
    then the intercept's entry at position nnz."""
    cdef Py_ssize_t p
    cdef double v = 0.0, d_one = 1.0, d_zero = 0.0
    cdef int one = 1
    if full:
        dsymv(uplo, &n_blas, &d_one, Sf + g * blk, &n_blas, xbuf, &one,
              &d_zero, sx, &one)
        for p in range(n_blas):
            v += xbuf[p] * sx[p]
        return v
    for p in range(nnz):
        sx[p] = Sd[row_ind[p] * G + g] * row_data[p]
        v += row_data[p] * sx[p]
    if intercept != 0.0:
        sx[nnz] = Sd[n_features * G + g] * intercept
        v += intercept * sx[nnz]
    return v


cdef inline bint _mean(
    bint full, double *W0, double *U0, double *b, double *bu, Py_ssize_t K,
    Py_ssize_t c, double coef, double avg_coef, const double *sx,
    const index_t *row_ind, Py_ssize_t nnz, Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """``mu_c += coef * Sigma x~`` (and the lazy average); True on overflow."""
    cdef Py_ssize_t p, j
    cdef double d
    cdef bint overflow = False
    cdef Py_ssize_t n = n_features if full else nnz
    for p in range(n):
        d = coef * sx[p]
        if d == 0.0:
            continue
        j = p if full else <Py_ssize_t> row_ind[p]
        W0[j * K + c] += d
        if not isfinite(W0[j * K + c]):
            overflow = True
        if avg_coef != 0.0:
            U0[j * K + c] += avg_coef * d
    if intercept != 0.0:
        # b = a * w_a
        d = intercept * coef * sx[n]
        b[c] += d
        if not isfinite(b[c]):
            overflow = True
        if avg_coef != 0.0:
            bu[c] += avg_coef * d
    return overflow


cdef inline void _cov(
    bint full, double *Sf, double *Sd, Py_ssize_t g, Py_ssize_t G, Py_ssize_t blk,
    int n_blas, char *uplo, double beta, double *sx,
    const index_t *row_ind, Py_ssize_t nnz, Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """``Sigma_g -= beta (Sigma_g x~)(Sigma_g x~)^T`` (its diagonal when
    diagonal)."""
    cdef Py_ssize_t p
    cdef double neg_beta = -beta
    cdef int one = 1
    if beta == 0.0:
        return
    if full:
        dsyr(uplo, &n_blas, &neg_beta, sx, &one, Sf + g * blk, &n_blas)
        return
    for p in range(nnz):
        Sd[row_ind[p] * G + g] -= beta * sx[p] * sx[p]
    if intercept != 0.0:
        Sd[n_features * G + g] -= beta * sx[nnz] * sx[nnz]


cdef inline void _floor_cov(
    double *Sd, Py_ssize_t g, Py_ssize_t G, double floor,
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    Py_ssize_t n_features, double intercept,
) noexcept nogil:
    """The covariance floor of a diagonal block ``g``: ``Sigma_jj <-
    max(Sigma_jj, floor)`` for the features of the row (its non-zero
    entries, dense or sparse alike) and the intercept's entry, after the
    rule's step wrote them.

    This is the projection of ARCOR (Vaits and Crammer 2011; Moroshko,
    Vaits and Crammer 2015), which keeps every eigenvalue of the covariance
    at or above a bound: the eigenvalues of a diagonal covariance are its
    entries.  The covariance starts at the identity (``floor <= 1``) and a
    step writes only the variances of its row's features, so floored there
    it stays floored everywhere: the projection of the whole matrix at
    O(nnz) per row.  Nothing with ``floor`` 0 (not a single write: the
    models without a floor are those of the kernel without one).  The
    entries are among those ``_log_step`` journals for the block's step."""
    cdef Py_ssize_t p
    cdef double *s
    if not floor > 0.0:
        return
    for p in range(nnz):
        s = Sd + row_ind[p] * G + g
        if s[0] < floor and row_data[p] != 0:
            s[0] = floor
    if intercept != 0.0:
        s = Sd + n_features * G + g
        if s[0] < floor:
            s[0] = floor
