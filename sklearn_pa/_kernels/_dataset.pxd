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


# Checks at every kernel entry (defence in depth: the estimators validate
# first).  The epoch loops run without bounds checks, so a row, feature or
# weight array that does not fit raises ValueError here instead of being
# read or written out of bounds.

cdef inline int csr_row_fault(
    const double[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    Py_ssize_t n_features,
    Py_ssize_t i,
) noexcept nogil:
    """0 when CSR row ``i`` (with ``i + 1 < indptr.shape[0]``) lies inside
    ``data`` and ``indices`` with feature indices in [0, n_features); 2 when
    its ``indptr`` entries do not, 3 when a feature index does not."""
    cdef Py_ssize_t j
    if (indptr[i] < 0 or indptr[i] > indptr[i + 1]
            or indptr[i + 1] > data.shape[0]
            or indptr[i + 1] > indices.shape[0]):
        return 2
    for j in range(<Py_ssize_t> indptr[i], <Py_ssize_t> indptr[i + 1]):
        if indices[j] < 0 or indices[j] >= n_features:
            return 3
    return 0


cdef inline int raise_csr_fault(int bad, Py_ssize_t n_features) except -1:
    """Raise the ValueError of a :func:`csr_row_fault` code (0: nothing)."""
    if bad == 2:
        raise ValueError("indptr does not describe rows inside data and indices")
    if bad == 3:
        raise ValueError(f"a feature index lies outside [0, {n_features})")
    return 0


cdef inline Py_ssize_t check_rows(
    const double[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    bint dense,
    Py_ssize_t n_features,
    const long long[::1] order,
) except -1:
    """Raise ValueError unless every row named in ``order`` lies inside the
    row view, with its feature indices in [0, n_features); return the number
    of rows the per-row arrays (labels, targets, weights) must cover."""
    cdef Py_ssize_t q, i, n_rows, needed = 0
    cdef int bad = 0
    if n_features < 0:
        raise ValueError("n_features must be >= 0")
    if dense:
        if indices.shape[0] < n_features:
            raise ValueError(f"the dense row view needs {n_features} indices")
        n_rows = data.shape[0] // n_features if n_features > 0 else order.shape[0]
    else:
        n_rows = indptr.shape[0] - 1
    with nogil:
        for q in range(order.shape[0]):
            i = <Py_ssize_t> order[q]
            if i < 0 or i >= n_rows:
                bad = 1
                break
            if i + 1 > needed:
                needed = i + 1
            if dense:
                continue
            bad = csr_row_fault(data, indices, indptr, n_features, i)
            if bad:
                break
    if bad == 1:
        raise ValueError(f"order names a row outside the {n_rows} rows of the data")
    raise_csr_fault(bad, n_features)
    return needed


cdef inline int check_length(Py_ssize_t length, Py_ssize_t needed, str name) except -1:
    """Raise ValueError unless an array of ``length`` covers ``needed``."""
    if length < needed:
        raise ValueError(f"{name} has {length} entries; {needed} are needed")
    return 0
