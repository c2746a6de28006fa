# Row view over dense (C-contiguous) and CSR matrices.
#
# The kernels see a matrix as one struct, ``Rows32`` or ``Rows64`` after the
# dtype of its indices (``indices`` and ``indptr`` share it, as scipy
# guarantees for CSR), with float64 values; ``Rows32F`` and ``Rows64F`` are
# the same with float32 values.  ``rows_t`` is the fused type over the four,
# so a kernel is written once and compiled for each width and value type.
# A kernel that reads float32 rows declares its row pointer by inference
# (``row_data = view.data``) and its helpers take ``const value_t *``; it
# converts each value to a double as it reads it (``xj = row_data[j]``), so
# every sum and product is the one of the float64 rows of the same values.
# ``rows_kind`` says which struct a view needs; a kernel that only takes
# float64 rows calls ``wide_rows`` and ``make_rows`` with ``Rows32`` or
# ``Rows64``, which refuse float32 data.  ``make_rows`` fills the struct
# from the Python row view (``_linear_epochs._RowView``, ``SequenceBatch``, or
# any object with ``data``, ``indices``, ``indptr``, ``dense`` and
# ``n_features``), the same way for every kernel.
#
# A dense matrix is its flat data, a shared ``arange(n_features)`` as
# ``indices`` and an unused ``indptr``: row i starts at ``i * n_features`` in
# the data and at 0 in the indices.  A CSR matrix lends its own three arrays.
# ``get_row`` hands a kernel (data pointer, index pointer, nnz) for row i, so
# one loop serves both layouts; the index pointer has the type of the struct's
# indices (a kernel declares it as ``row_ind = rows.indices``, which Cython
# types after ``rows_t``).
#
# Each kernel's Python-facing function fills the struct of the view's width
# (``wide_rows``, ``make_rows``), holds the arrays ``make_rows`` returns and
# calls its private epoch of that width (``_epoch[Rows32]``); the epoch and
# its helpers take ``const rows_t *``.  An epoch's ``nogil`` loop reads a local
# copy of the struct, which the compiler keeps in registers (through the
# pointer it would reload the fields after every store that may alias them).
# A helper that only reads memory and prefetches must be given the row's
# pointers, not find the row itself: GCC may take such a helper for a function
# without effects and drop the call (``_first_order._prefetch_next``).

ctypedef fused index_t:
    int
    long long


ctypedef fused value_t:
    float
    double


ctypedef struct Rows32:
    const double *data       # the values (NULL when empty)
    const int *indices       # feature index of each value; dense: arange
    const int *indptr        # CSR: row i is data[indptr[i]:indptr[i + 1]]
    bint dense
    Py_ssize_t n_features
    Py_ssize_t n_rows        # rows in the view; -1: dense without features
    Py_ssize_t n_data        # lengths of data and indices (entry checks)
    Py_ssize_t n_indices
    bint checked             # every CSR row verified once (make_rows)


ctypedef struct Rows64:
    const double *data
    const long long *indices
    const long long *indptr
    bint dense
    Py_ssize_t n_features
    Py_ssize_t n_rows
    Py_ssize_t n_data
    Py_ssize_t n_indices
    bint checked


ctypedef struct Rows32F:
    const float *data        # float32 values; otherwise as Rows32
    const int *indices
    const int *indptr
    bint dense
    Py_ssize_t n_features
    Py_ssize_t n_rows
    Py_ssize_t n_data
    Py_ssize_t n_indices
    bint checked


ctypedef struct Rows64F:
    const float *data
    const long long *indices
    const long long *indptr
    bint dense
    Py_ssize_t n_features
    Py_ssize_t n_rows
    Py_ssize_t n_data
    Py_ssize_t n_indices
    bint checked


ctypedef fused rows_t:
    Rows32
    Rows64
    Rows32F
    Rows64F


cdef enum RowsKind:
    ROWS32 = 0
    ROWS64 = 1
    ROWS32F = 2
    ROWS64F = 3


cdef inline bint wide_rows(object view) except -1:
    """Whether the row view ``view`` has int64 indices (``Rows64``)."""
    return getattr(view.indices, "itemsize", 4) == 8


cdef inline int rows_kind(object view) except -1:
    """The struct the row view ``view`` needs (a ``RowsKind``): after the
    width of its indices and whether its values are float32."""
    cdef int kind = ROWS64 if wide_rows(view) else ROWS32
    if getattr(view.data, "itemsize", 8) == 4:
        kind += ROWS32F
    return kind


cdef inline object make_rows(object view, rows_t *rows):
    """Fill ``rows`` from the Python row view ``view``; return the
    memoryviews ``rows`` points into, which the caller holds as long as it
    uses ``rows``.  Raises ValueError or TypeError when an array does not
    have the dtype of the struct (float64 or float32 data, int32 or int64
    indices and indptr of one dtype, all C-contiguous)."""
    cdef const double[::1] data
    cdef const float[::1] data32
    cdef const int[::1] indices32
    cdef const int[::1] indptr32
    cdef const long long[::1] indices64
    cdef const long long[::1] indptr64
    cdef Py_ssize_t n_indptr
    # the arrays themselves are held (a referenced ndarray cannot be
    # resized, nor freed): making memoryview objects of them would cost more
    # than a one-row call's pass
    cdef object data_array = view.data
    cdef object indices_array = view.indices
    cdef object indptr_array = view.indptr
    if rows_t is Rows32 or rows_t is Rows64:
        data = data_array
        rows.data = &data[0] if data.shape[0] > 0 else NULL
        rows.n_data = data.shape[0]
    else:
        data32 = data_array
        rows.data = &data32[0] if data32.shape[0] > 0 else NULL
        rows.n_data = data32.shape[0]
    if rows_t is Rows32 or rows_t is Rows32F:
        indices32 = indices_array
        indptr32 = indptr_array
        rows.indices = &indices32[0] if indices32.shape[0] > 0 else NULL
        rows.indptr = &indptr32[0] if indptr32.shape[0] > 0 else NULL
        rows.n_indices = indices32.shape[0]
        n_indptr = indptr32.shape[0]
    else:
        indices64 = indices_array
        indptr64 = indptr_array
        rows.indices = &indices64[0] if indices64.shape[0] > 0 else NULL
        rows.indptr = &indptr64[0] if indptr64.shape[0] > 0 else NULL
        rows.n_indices = indices64.shape[0]
        n_indptr = indptr64.shape[0]
    cdef tuple keep = (data_array, indices_array, indptr_array)
    rows.dense = view.dense
    rows.n_features = view.n_features
    if not rows.dense:
        rows.n_rows = n_indptr - 1 if n_indptr > 0 else 0
    elif rows.n_features > 0:
        rows.n_rows = rows.n_data // rows.n_features
    else:
        rows.n_rows = -1
    rows.checked = False
    if not rows.dense and rows.n_features >= 0:
        # a view that remembers it (``checked_csr``) has all its CSR rows
        # verified once, in one sequential pass, instead of the rows of each
        # epoch's order at every entry (a random walk over the indices that
        # cost a sixtieth of a fit on 20 Newsgroups per epoch)
        flag = getattr(view, "checked_csr", None)
        if flag is True:
            rows.checked = True
        elif flag is False and all_rows_fit(rows):
            view.checked_csr = True
            rows.checked = True
    return keep


cdef inline void with_values(
    const rows_t *rows, const double *data, Rows32 *out32, Rows64 *out64
) noexcept nogil:
    """The rows of ``rows`` with the float64 values ``data`` instead of
    theirs (as many, in the same places): filled into ``out32`` for int32
    indices, ``out64`` for int64 (the other is left alone)."""
    if rows_t is Rows32 or rows_t is Rows32F:
        out32.data = data
        out32.indices = rows.indices
        out32.indptr = rows.indptr
        out32.dense = rows.dense
        out32.n_features = rows.n_features
        out32.n_rows = rows.n_rows
        out32.n_data = rows.n_data
        out32.n_indices = rows.n_indices
        out32.checked = rows.checked
    else:
        out64.data = data
        out64.indices = rows.indices
        out64.indptr = rows.indptr
        out64.dense = rows.dense
        out64.n_features = rows.n_features
        out64.n_rows = rows.n_rows
        out64.n_data = rows.n_data
        out64.n_indices = rows.n_indices
        out64.checked = rows.checked


cdef inline void get_row(
    const rows_t *rows,
    Py_ssize_t i,
    const value_t **row_data,
    const index_t **row_ind,
    Py_ssize_t *nnz,
) noexcept nogil:
    """Point ``row_data``, ``row_ind`` at row ``i`` of ``rows`` and set its
    number of entries ``nnz`` (``value_t`` and ``index_t`` are the value and
    index types of ``rows``)."""
    cdef Py_ssize_t start
    if (value_t is double and (
        (rows_t is Rows32 and index_t is int)
        or (rows_t is Rows64 and index_t is "long long")
    )) or (value_t is float and (
        (rows_t is Rows32F and index_t is int)
        or (rows_t is Rows64F and index_t is "long long")
    )):
        if rows.dense:
            row_data[0] = rows.data + i * rows.n_features
            row_ind[0] = rows.indices
            nnz[0] = rows.n_features
        else:
            start = <Py_ssize_t> rows.indptr[i]
            row_data[0] = rows.data + start
            row_ind[0] = rows.indices + start
            nnz[0] = <Py_ssize_t> rows.indptr[i + 1] - start
    else:
        # a pointer of the other width or value type: Cython specialises
        # every combination of the fused types, but no kernel calls these
        # (its pointers take the struct's types); an empty row
        row_data[0] = NULL
        row_ind[0] = NULL
        nnz[0] = 0


cdef inline const void *row_start(const rows_t *rows, Py_ssize_t i) noexcept nogil:
    """The address where CSR row ``i`` is found (its entry of ``indptr``),
    for a kernel to prefetch it rows before ``get_row`` reads it; NULL for a
    dense view.  (The kernel prefetches the address itself: a helper that
    only prefetches may be dropped as a function without effects.)"""
    if rows.dense:
        return NULL
    return <const void *> (rows.indptr + i)


# Checks at every kernel entry (defence in depth: the estimators validate
# first).  The epoch loops run without bounds checks, so a row, feature or
# weight array that does not fit raises ValueError here instead of being
# read or written out of bounds.

cdef inline int csr_row_fault(const rows_t *rows, Py_ssize_t i) noexcept nogil:
    """0 when CSR row ``i`` (with ``0 <= i < rows.n_rows``) lies inside
    ``data`` and ``indices`` with feature indices in [0, n_features); 2 when
    its ``indptr`` entries do not, 3 when a feature index does not."""
    cdef Py_ssize_t j
    if (rows.indptr[i] < 0 or rows.indptr[i] > rows.indptr[i + 1]
            or rows.indptr[i + 1] > rows.n_data
            or rows.indptr[i + 1] > rows.n_indices):
        return 2
    for j in range(<Py_ssize_t> rows.indptr[i], <Py_ssize_t> rows.indptr[i + 1]):
        if rows.indices[j] < 0 or rows.indices[j] >= rows.n_features:
            return 3
    return 0


cdef inline bint all_rows_fit(const rows_t *rows) noexcept:
    """Whether every row of the CSR view passes :func:`csr_row_fault`."""
    cdef Py_ssize_t i
    cdef int bad = 0
    with nogil:
        for i in range(rows.n_rows):
            if csr_row_fault(rows, i):
                bad = 1
                break
    return not bad


cdef inline int raise_csr_fault(int bad, Py_ssize_t n_features) except -1:
    """Raise the ValueError of a :func:`csr_row_fault` code (0: nothing)."""
    if bad == 2:
        raise ValueError("indptr does not describe rows inside data and indices")
    if bad == 3:
        raise ValueError(f"a feature index lies outside [0, {n_features})")
    return 0


cdef inline int check_view(const rows_t *rows) except -1:
    """Raise ValueError unless ``n_features`` is >= 0 and a dense view has
    its ``n_features`` indices."""
    if rows.n_features < 0:
        raise ValueError("n_features must be >= 0")
    if rows.dense and rows.n_indices < rows.n_features:
        raise ValueError(f"the dense row view needs {rows.n_features} indices")
    return 0


cdef inline Py_ssize_t check_rows(
    const rows_t *rows, const long long[::1] order
) except -1:
    """Raise ValueError unless every row named in ``order`` lies inside the
    row view, with its feature indices in [0, n_features); return the number
    of rows the per-row arrays (labels, targets, weights) must cover."""
    cdef Py_ssize_t q, i, n_rows, needed = 0
    cdef int bad = 0
    check_view(rows)
    n_rows = rows.n_rows if rows.n_rows >= 0 else order.shape[0]
    with nogil:
        for q in range(order.shape[0]):
            i = <Py_ssize_t> order[q]
            if i < 0 or i >= n_rows:
                bad = 1
                break
            if i + 1 > needed:
                needed = i + 1
            if rows.dense or rows.checked:
                continue
            bad = csr_row_fault(rows, i)
            if bad:
                break
    if bad == 1:
        raise ValueError(f"order names a row outside the {n_rows} rows of the data")
    raise_csr_fault(bad, rows.n_features)
    return needed


cdef inline int check_length(Py_ssize_t length, Py_ssize_t needed, str name) except -1:
    """Raise ValueError unless an array of ``length`` covers ``needed``."""
    if length < needed:
        raise ValueError(f"{name} has {length} entries; {needed} are needed")
    return 0
