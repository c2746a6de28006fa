# Row view over dense (C-contiguous) and CSR matrices.
#
# A dense matrix is passed as its flat data, a shared ``arange(n_features)`` as
# ``indices`` and an empty ``indptr``: row i starts at ``i * n_features`` in the
# data and at 0 in the indices.  A CSR matrix passes its own three arrays.  The
# kernels only ever see (data pointer, index pointer, nnz), so one loop serves
# both layouts, with int32 or int64 indices (``indices`` and ``indptr`` share a
# dtype, as scipy guarantees for CSR).

ctypedef fused index_t:
    int
    long long


cdef inline void get_row(
    const double *data,
    const index_t *indices,
    const index_t *indptr,
    bint dense,
    Py_ssize_t n_features,
    Py_ssize_t i,
    const double **row_data,
    const index_t **row_ind,
    Py_ssize_t *nnz,
) noexcept nogil:
    cdef Py_ssize_t start
    if dense:
        row_data[0] = data + i * n_features
        row_ind[0] = indices
        nnz[0] = n_features
    else:
        start = <Py_ssize_t> indptr[i]
        row_data[0] = data + start
        row_ind[0] = indices + start
        nnz[0] = <Py_ssize_t> indptr[i + 1] - start
