"""The per-call entry of a later call, compiled: the checks that accept a
batch already in the kernels' form in O(its size), and the journal's check
of the weights a batch reads.

These are the one copy of each check; the Python modules of the core
(:mod:`sklearn_pa._core.batch`, :mod:`sklearn_pa._core.session`,
:mod:`sklearn_pa._core.stream_plan`) import them from here.  A call on one
row is a few microseconds of checks around its compiled pass: written in
Python, the same checks cost as much as the pass itself (Python frames,
attribute lookups, small NumPy reductions).  The checks never raise
(except :func:`check_weights_read`): anything they do not accept returns
None, and the caller takes the full validation, which says what is wrong.
"""

import copy

import numpy as np
import scipy.sparse as sp

from libc.math cimport isfinite
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.string cimport memcpy

import warnings

from .._compiled._write_log import WriteLog
from ..utils._atomic import WRITTEN, RawWords, restore_entries, session_of
from ..utils._shuffle import mt19937_words

__all__ = [
    "Batch",
    "Journal",
    "RowView",
    "finite_inputs",
    "KERNEL_DTYPES",
    "check_batch",
    "check_weights_read",
    "check_writes",
    "encode_labels",
    "epoch_order",
    "lean_batch",
    "lean_fitted_labels",
    "lean_label_targets",
    "lean_labels",
    "lean_rows",
    "lean_sample_weight",
    "lean_targets",
    "nonnegative",
    "one_pass",
    "params_snapshot",
    "params_unchanged",
    "pass_margins",
    "record_history",
    "row_variances",
    "rows_finite",
    "stream_epoch",
    "touched_rows",
    "with_index",
]

#: The dtypes of ``X`` the first-order and second-order kernels read as
#: they are (float32 rows are read as doubles, with the same model as
#: from their float64 conversion, without that conversion's copy of ``X``).
KERNEL_DTYPES = (np.float64, np.float32)
cdef tuple _KERNEL_DTYPES = KERNEL_DTYPES

cdef object _ndarray = np.ndarray
cdef tuple _CSR_TYPES = (sp.csr_matrix, sp.csr_array)
cdef tuple _INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
cdef object _F64 = np.dtype(np.float64)
cdef object _F32 = np.dtype(np.float32)
cdef object _I32 = np.dtype(np.int32)
cdef object _I64 = np.dtype(np.int64)
cdef object _asarray = np.asarray
cdef object _ascontiguousarray = np.ascontiguousarray
cdef object _ones = np.ones
cdef object _empty = np.empty
cdef object _zeros = np.zeros


cdef inline bint _is_dtype(d, expected) except -1:
    """Whether the dtype ``d`` is ``expected``: by identity first (numpy 2
    has one object for each builtin dtype), else by equality (numpy 1.x
    also makes equal dtypes that are other objects: the values of a CSR
    matrix of scipy 1.9 built from a dense array)."""
    return d is expected or d == expected


cdef inline bint _one_of(d, a, b) except -1:
    """Whether the dtype ``d`` is ``a`` or ``b`` (identity first, as
    :func:`_is_dtype`)."""
    return d is a or d is b or d == a or d == b


# ----------------------------------------------------------------------------
# Finite values, in one pass and no temporary array


ctypedef fused _floating:
    float
    double


cdef bint _finite(const _floating *a, Py_ssize_t n) noexcept nogil:
    """Whether the ``n`` values at ``a`` are all finite."""
    # x * 0 is a zero for a finite x and NaN for a NaN or an infinity, so the
    # sum of the products is zero exactly when every value is finite: four
    # independent sums the processor runs side by side, without the branch
    # per value of an isfinite loop (twice as fast on a row's weights)
    cdef Py_ssize_t i = 0
    cdef _floating s0 = 0, s1 = 0, s2 = 0, s3 = 0
    while i + 4 <= n:
        s0 += a[i] * 0
        s1 += a[i + 1] * 0
        s2 += a[i + 2] * 0
        s3 += a[i + 3] * 0
        i += 4
    while i < n:
        s0 += a[i] * 0
        i += 1
    return (s0 + s1) + (s2 + s3) == 0


cdef bint _all_finite(object a) except -1:
    """Whether every value of the C-contiguous float64 or float32 array
    ``a`` is finite, read through the buffer protocol (any other dtype or
    layout: NumPy's test)."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    cdef char kind
    if type(a) is not _ndarray:
        return bool(np.isfinite(a).all())
    try:
        PyObject_GetBuffer(a, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError):  # (NumPy: not C-contiguous)
        return bool(np.isfinite(a).all())
    try:
        kind = view.format[0] if view.format[1] == 0 else 0
        if kind == b"d" and view.itemsize == 8:
            n = view.len // 8
            return n == 0 or _finite(<const double *> view.buf, n)
        if kind == b"f" and view.itemsize == 4:
            n = view.len // 4
            return n == 0 or _finite(<const float *> view.buf, n)
    finally:
        PyBuffer_Release(&view)
    return bool(np.isfinite(a).all())


def rows_finite(const double[:, ::1] a, rows=None):
    """Whether every value of the rows ``rows`` (indices into the first
    axis, each in range; None: every row) of the C-contiguous float64
    matrix ``a`` is finite, read in place (no copy of the rows)."""
    cdef Py_ssize_t i, j, r, n_rows = a.shape[0], n_cols = a.shape[1]
    cdef const long long[::1] index
    if rows is None:
        for i in range(n_rows):
            for j in range(n_cols):
                if not isfinite(a[i, j]):
                    return False
        return True
    index = _ascontiguousarray(rows, dtype=np.int64)
    for i in range(index.shape[0]):
        r = index[i]
        if r < 0 or r >= n_rows:
            raise IndexError(f"row {r} outside [0, {n_rows})")
        for j in range(n_cols):
            if not isfinite(a[r, j]):
                return False
    return True



# ----------------------------------------------------------------------------
# The rows as the kernels read them


cdef class RowView:
    """The kernel's view of a validated float64 or float32 dense or CSR
    matrix.

    The compiled kernels take one row layout for both kinds of input:
    ``data`` (float64, or float32 for float32 input, C-contiguous),
    ``indices`` and ``indptr`` (int32, or int64 when the CSR arrays need it),
    ``dense`` and ``n_features``.  A CSR matrix lends its own arrays (copied
    only when their dtype or layout must change); float32 values stay
    float32 (the first-order, second-order and scoring kernels read them as
    doubles; the other kernels refuse them, and their estimators validate
    ``X`` as float64 first); a dense ``X`` is flattened row-major, with
    ``indices = arange(n_features)`` shared by every row and a placeholder
    one-element ``indptr``.  An empty ``data`` is replaced by one zero,
    since the kernels take the address of element 0.  Each kernel reads these
    attributes once per call into its row struct (``Rows32`` or ``Rows64``,
    after the index dtype, ``Rows32F`` or ``Rows64F`` for float32 values;
    ``make_rows`` in ``_compiled/_dataset.pxd``).  ``checked_csr`` is set by
    the first kernel that verifies every CSR row; the arrays must not change
    while the view is in use.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Validated float64 or float32 input (other sparse formats are
        converted to CSR, other dtypes to float64).
    """

    cdef public object data, indices, indptr
    cdef public bint dense, checked_csr
    cdef public Py_ssize_t n_features

    def __init__(self, X):
        self.checked_csr = False
        kind = type(X)
        if kind is sp.csr_matrix or kind is sp.csr_array:
            data, indices, indptr = X.data, X.indices, X.indptr
            index_dtype = indices.dtype
            if (
                _one_of(data.dtype, _F64, _F32)
                and _is_dtype(index_dtype, indptr.dtype)
                and _one_of(index_dtype, _I32, _I64)
                and data.shape[0] > 0
                and data.flags.c_contiguous
                and indices.flags.c_contiguous
                and indptr.flags.c_contiguous
            ):
                # (a CSR batch in the kernels' form, as a stream sends it)
                self.data, self.indices, self.indptr = data, indices, indptr
                self.dense, self.n_features = False, X.shape[1]
                return
        dtype = np.float32 if X.dtype == _F32 else np.float64
        if sp.issparse(X):
            X = X.tocsr() if X.format != "csr" else X
            idx_dtype = np.int64 if X.indices.dtype == np.int64 else np.int32
            if X.indptr.dtype != X.indices.dtype:
                idx_dtype = np.int64
            self.data = _ascontiguousarray(X.data, dtype=dtype)
            self.indices = _ascontiguousarray(X.indices, dtype=idx_dtype)
            self.indptr = _ascontiguousarray(X.indptr, dtype=idx_dtype)
            self.dense = False
        else:
            n_features = X.shape[1]
            idx_dtype = np.int32 if n_features < np.iinfo(np.int32).max else np.int64
            self.data = _ascontiguousarray(X, dtype=dtype).reshape(-1)
            self.indices = np.arange(max(n_features, 1), dtype=idx_dtype)
            self.indptr = np.zeros(1, dtype=idx_dtype)
            self.dense = True
        self.n_features = X.shape[1]
        if self.data.shape[0] == 0:
            # the kernels take the address of element 0
            self.data = np.zeros(1, dtype=dtype)
            self.indices = np.zeros(1, dtype=self.indptr.dtype)

    cpdef Py_ssize_t n_values(self):
        """The values the rows hold: their non-zeros (CSR), every entry
        (dense)."""
        if self.dense:
            return self.data.shape[0]
        indptr = self.indptr
        n = indptr.shape[0]
        return int(indptr[n - 1]) - int(indptr[0]) if n > 1 else 0

# ----------------------------------------------------------------------------
# Rows


cdef bint _accepted_dtype(dtype, dtypes):
    """Whether ``dtype`` is one of ``dtypes`` (NumPy scalar types or
    dtypes); the kernels' own dtypes found by identity first (then by
    equality, :func:`_one_of`), without the conversion of each scalar type
    that ``dtype in dtypes`` makes."""
    if dtypes is _KERNEL_DTYPES:
        return _one_of(dtype, _F64, _F32)
    return dtype in dtypes


def lean_rows(X, Py_ssize_t n_features, dtypes=KERNEL_DTYPES):
    """``X`` as the kernels read it, checked in O(its size), or None.

    Accepted: a 2-D float64 (or integer) ndarray, made C-contiguous, or a
    float64 CSR matrix or array in canonical form (sorted, unique indices)
    with a consistent structure (``indptr`` from 0 to the data length,
    non-decreasing, every index in ``[0, n_features)``); at least one row,
    ``n_features`` columns and finite values; float32 in place of float64
    where ``dtypes`` (those the kernel reads, ``KERNEL_DTYPES``) has it.
    Anything else is None."""
    kind = type(X)
    if kind is _ndarray:
        if X.ndim != 2:
            return None
        shape = X.shape
        if shape[0] == 0 or shape[1] != n_features:
            return None
        if not _accepted_dtype(X.dtype, dtypes):
            if X.dtype.kind not in "iu":
                return None
            X = X.astype(np.float64)
        elif not X.flags.c_contiguous:
            X = _ascontiguousarray(X)
        if not _all_finite(X):
            return None
        return X
    if kind is not sp.csr_matrix and kind is not sp.csr_array:
        return None
    data, indices, indptr = X.data, X.indices, X.indptr
    if not _accepted_dtype(data.dtype, dtypes):
        return None
    shape = X.shape
    n_rows = shape[0]
    if n_rows == 0 or shape[1] != n_features:
        return None
    index_dtype = indices.dtype
    if (
        indptr.ndim != 1
        or indptr.shape[0] != n_rows + 1
        or not _is_dtype(indptr.dtype, index_dtype)
        or not _one_of(index_dtype, _I32, _I64)
    ):
        return None
    try:
        ok = csr_is_canonical(data, indices, indptr, n_features)
    except (TypeError, ValueError):  # a non-contiguous array: the full path
        return None
    return X if ok else None


ctypedef long long longlong


ctypedef fused _index_t:
    int
    longlong


ctypedef fused _value_t:
    float
    double




cdef bint _canonical(
    const _value_t *data,
    const _index_t *indices,
    const _index_t *indptr,
    Py_ssize_t nnz,
    Py_ssize_t n_indices,
    Py_ssize_t n_rows,
    Py_ssize_t n_features,
) noexcept nogil:
    cdef Py_ssize_t i, j, start, stop
    cdef int unsorted
    if n_rows < 0 or n_indices != nnz:
        return False
    if indptr[0] != 0 or indptr[n_rows] != nnz:
        return False
    for i in range(n_rows):
        start, stop = indptr[i], indptr[i + 1]
        if start > stop or stop > nnz:
            return False
        if start == stop:
            continue
        # strictly increasing from a first index >= 0 to a last one below
        # n_features: every index in range, no duplicate (one comparison a
        # value, without a branch each)
        if indices[start] < 0 or indices[stop - 1] >= n_features:
            return False
        unsorted = 0
        for j in range(start + 1, stop):
            unsorted |= indices[j] <= indices[j - 1]
        if unsorted:
            return False
    return nnz == 0 or _finite(data, nnz)


cdef int _contiguous(object a, Py_buffer *view) except -1:
    """Take ``view`` of the C-contiguous array ``a`` (else ``ValueError``)."""
    try:
        PyObject_GetBuffer(a, view, PyBUF_C_CONTIGUOUS)
    except BufferError as error:  # (NumPy raises ValueError itself)
        raise ValueError(str(error)) from None
    return 0


def csr_is_canonical(data, indices, indptr, Py_ssize_t n_features):
    """Whether ``(data, indices, indptr)`` are CSR rows the kernels read as
    they are, in one pass over the non-zeros: ``indptr`` from 0 to the
    length of ``data`` (and of ``indices``) and non-decreasing, each row's
    feature indices strictly increasing (sorted, no duplicate) inside
    ``[0, n_features)``, every value finite; float64 or float32 values,
    int32 or int64 indices (the same dtype for both index arrays), each
    C-contiguous (else ``ValueError`` or ``TypeError``).  (scikit-learn's
    and scipy's checks of a batch of a few rows cost several times that.)
    The arrays are read through the buffer protocol, which costs less than
    three memoryviews on a batch of one row."""
    value_dtype, index_dtype = data.dtype, indices.dtype
    if indptr.dtype != index_dtype:
        raise TypeError("indices and indptr must share their dtype")
    cdef bint wide = index_dtype == _I64, single = value_dtype == _F32
    if not (wide or index_dtype == _I32) or not (single or value_dtype == _F64):
        raise TypeError("float32 or float64 values and int32 or int64 indices only")
    cdef Py_buffer d, i, p
    cdef Py_ssize_t nnz, n_indices, n_rows
    cdef bint ok
    _contiguous(data, &d)
    try:
        _contiguous(indices, &i)
        try:
            _contiguous(indptr, &p)
            try:
                if d.ndim != 1 or i.ndim != 1 or p.ndim != 1:
                    raise ValueError("1-D CSR arrays only")
                nnz = d.len // (4 if single else 8)
                n_indices = i.len // (8 if wide else 4)
                n_rows = p.len // (8 if wide else 4) - 1
                if n_rows < 0:
                    return False
                if wide and single:
                    ok = _canonical(
                        <const float *> d.buf, <const long long *> i.buf,
                        <const long long *> p.buf, nnz, n_indices, n_rows,
                        n_features,
                    )
                elif wide:
                    ok = _canonical(
                        <const double *> d.buf, <const long long *> i.buf,
                        <const long long *> p.buf, nnz, n_indices, n_rows,
                        n_features,
                    )
                elif single:
                    ok = _canonical(
                        <const float *> d.buf, <const int *> i.buf,
                        <const int *> p.buf, nnz, n_indices, n_rows, n_features,
                    )
                else:
                    ok = _canonical(
                        <const double *> d.buf, <const int *> i.buf,
                        <const int *> p.buf, nnz, n_indices, n_rows, n_features,
                    )
                return ok
            finally:
                PyBuffer_Release(&p)
        finally:
            PyBuffer_Release(&i)
    finally:
        PyBuffer_Release(&d)


# ----------------------------------------------------------------------------
# Parameters


cdef dict _PARAM_NAMES = {}
_MISSING = object()
cdef object _missing = _MISSING


cdef tuple _param_names(cls):
    names = _PARAM_NAMES.get(cls)
    if names is None:
        names = _PARAM_NAMES[cls] = tuple(cls._get_param_names())
    return names


cdef object _frozen(value):
    """A copy of a mutable parameter value (dict, list, array), to tell an
    in-place change; None for any other value."""
    if isinstance(value, (dict, list)):
        return copy.deepcopy(value)
    if isinstance(value, _ndarray):
        return value.copy()
    return None


cdef bint _same_param(value, frozen):
    if frozen is None:
        return True
    try:
        if isinstance(frozen, _ndarray):
            return isinstance(value, _ndarray) and np.array_equal(
                value, frozen, equal_nan=value.dtype.kind in "fc"
            )
        return bool(value == frozen)
    except Exception:  # values that do not compare: changed
        return False


def params_snapshot(estimator):
    """The estimator's parameter values as they are now: each object, and a
    copy of the mutable ones (see :func:`params_unchanged`)."""
    cdef dict values = estimator.__dict__
    names = _param_names(type(estimator))
    objects = tuple([values.get(name, _missing) for name in names])
    mutable = []
    for i, value in enumerate(objects):
        frozen = _frozen(value)
        if frozen is not None:
            mutable.append((i, frozen))
    return names, objects, tuple(mutable)


cdef bint _params_unchanged(dict values, cls, snapshot) except -1:
    if snapshot is None:
        return False
    cdef tuple names, objects, mutable
    names, objects, mutable = snapshot
    if names is not _param_names(cls):
        return False  # (another class's snapshot)
    cdef Py_ssize_t i, n = len(names)
    for i in range(n):
        if values.get(names[i], _missing) is not objects[i]:
            return False
    for i, frozen in mutable:
        if not _same_param(values.get(names[i], _missing), frozen):
            return False
    return True


def params_unchanged(estimator, snapshot):
    """Whether every parameter of ``estimator`` is still the object of
    ``snapshot`` (:func:`params_snapshot`), with the same content for a
    mutable one: ``set_params`` or an assignment since then is a change.
    O(number of parameters)."""
    return _params_unchanged(estimator.__dict__, type(estimator), snapshot)


# ----------------------------------------------------------------------------
# Targets and weights


_ONES = np.ones(1024)
_ONES.flags.writeable = False
cdef object _ones_view = _ONES
cdef Py_ssize_t _N_ONES = 1024


def lean_sample_weight(sample_weight, Py_ssize_t n_samples):
    """Per-sample weights as float64 (ones for None), or None unless they
    are a 1-D array-like of ``n_samples`` finite non-negative numbers."""
    if sample_weight is None:
        if n_samples <= _N_ONES:
            return _ones_view[:n_samples]  # (read only: the kernels only read it)
        return _ones(n_samples)
    if type(sample_weight) is not _ndarray and not isinstance(sample_weight, _ndarray):
        return None
    if sample_weight.dtype.kind not in "fiu" or sample_weight.shape != (n_samples,):
        return None
    sample_weight = _asarray(sample_weight, dtype=np.float64)
    if not sample_weight.flags.c_contiguous:
        sample_weight = _ascontiguousarray(sample_weight)
    cdef const double[::1] w = sample_weight
    cdef Py_ssize_t i
    for i in range(w.shape[0]):
        if not (isfinite(w[i]) and w[i] >= 0):
            return None
    return sample_weight


#: A batch of at most this many labels is checked label by label, against
#: the set of the classes (no array operations).
cdef Py_ssize_t _FEW_LABELS = 16


def lean_labels(classes, y, Py_ssize_t n_samples, members=None):
    """``y`` as an array of labels of ``classes`` (sorted), or None unless
    it is 1-D, of ``n_samples`` labels, each one of ``classes``.
    ``members`` (the labels of ``classes.tolist()``: a set, or a dict of
    their indices) checks a few labels without array operations."""
    if type(y) is not _ndarray and not isinstance(y, _ndarray):
        y = _asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        return None
    kind, classes_kind = y.dtype.kind, classes.dtype.kind
    if kind == "O" or not (
        kind == classes_kind or (kind in "iuf" and classes_kind in "iuf")
    ):
        return None
    if members is not None and n_samples <= _FEW_LABELS:
        # (each value equal to a class, as the search below finds it)
        for label in y.tolist():
            if label not in members:
                return None
        return y
    # a label of the classes is found where it sorts (an index past the end
    # is clipped onto the last class, which then differs from it)
    found = classes.take(classes.searchsorted(y), mode="clip")
    if not (found == y).all():
        return None
    return y


def lean_targets(y, Py_ssize_t n_samples):
    """Regression targets as float64, or None unless ``y`` is a 1-D numeric
    array-like of ``n_samples`` finite values."""
    if type(y) is not _ndarray and not isinstance(y, _ndarray):
        y = _asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples or y.dtype.kind not in "fiu":
        return None
    y = _ascontiguousarray(y, dtype=np.float64)
    if not _all_finite(y):
        return None
    return y


def encode_labels(classes, y):
    """``(labels, targets)`` for the kernel: the int32 index in the sorted
    ``classes`` of each label of ``y`` (each one of them, as validated) and
    a dummy float64 target.  Classes ``0 .. n - 1`` of an integer dtype are
    their own indices (no search)."""
    if type(y) is not _ndarray:
        y = _asarray(y)
    cdef Py_ssize_t i, n = classes.shape[0], m
    cdef Py_buffer src, dst
    cdef const long long *y64
    cdef int *out
    if n > 0 and y.dtype.kind in "iu" and _are_indices(classes, n):
        if _is_dtype(y.dtype, _I64) and y.ndim == 1:
            # (the usual labels: one pass, no temporary array; read through
            # the buffer protocol, which costs less than a memoryview)
            m = y.shape[0]
            labels = _empty(m, _I32)
            try:
                PyObject_GetBuffer(y, &src, PyBUF_C_CONTIGUOUS)
            except (BufferError, ValueError):  # (a strided view: a copy)
                y = _ascontiguousarray(y)
                PyObject_GetBuffer(y, &src, PyBUF_C_CONTIGUOUS)
            try:
                PyObject_GetBuffer(labels, &dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
                y64, out = <const long long *> src.buf, <int *> dst.buf
                for i in range(m):
                    out[i] = <int> y64[i]
                PyBuffer_Release(&dst)
            finally:
                PyBuffer_Release(&src)
        else:
            labels = _ascontiguousarray(y.astype(np.int32))
    else:
        labels = _ascontiguousarray(np.searchsorted(classes, y).astype(np.int32))
    return labels, _NO_TARGETS


#: The regression targets of a classifier's batch: none (a read-only dummy
#: that the kernels, which read targets as a const view, accept)
_NO_TARGETS = np.zeros(1)
_NO_TARGETS.flags.writeable = False



cdef bint _are_indices(classes, Py_ssize_t n):
    """Whether the ``n`` sorted ``classes`` are the integers ``0 .. n -
    1`` (their first and last values tell; int64 classes, the usual ones,
    are read through the buffer protocol, without array scalars)."""
    cdef Py_buffer view
    cdef const long long *values
    cdef bint indices
    if _is_dtype(classes.dtype, _I64):
        PyObject_GetBuffer(classes, &view, PyBUF_STRIDES)
        try:
            values = <const long long *> view.buf
            indices = (
                values[0] == 0
                and (<const long long *> (<const char *> view.buf + (n - 1) * view.strides[0]))[0]
                == n - 1
            )
        finally:
            PyBuffer_Release(&view)
        return indices
    return (
        classes.dtype.kind in "iu" and classes[0] == 0 and classes[n - 1] == n - 1
    )


cdef object _contents(classes):
    """What :func:`_same_classes_arg` compares of a ``classes`` argument: a
    list's or tuple's items, an array's bytes (a few, read in O(k))."""
    if isinstance(classes, _ndarray):
        return (classes.dtype, classes.shape, classes.tobytes())
    return list(classes) if isinstance(classes, (list, tuple)) else None


cdef bint _same_classes_arg(classes, checked) except -1:
    """Whether ``classes`` is the object ``checked`` (an object and its
    :func:`_contents`) and still holds what it held then: the argument is
    read on every call (a list appended to between calls is seen)."""
    if checked is None or classes is not checked[0]:
        return False
    contents = checked[1]
    return contents is not None and _contents(classes) == contents


def lean_fitted_labels(estimator, y, classes, Py_ssize_t n_samples):
    """``y`` as labels of the fitted ``classes_`` of ``estimator``
    (:func:`lean_labels`), or None; ``classes`` (if given) must be the
    fitted ones (a stream that passes the same object every call has it
    checked once)."""
    classes_ = estimator.classes_
    cache = session_of(estimator)
    if classes is not None and not _same_classes_arg(classes, cache.classes_arg):
        given = _asarray(classes)
        if given.ndim != 1 or given.dtype.kind == "O":
            return None
        if not np.array_equal(np.unique(given), classes_):
            return None
        cache.classes_arg = (classes, _contents(classes))
    return lean_labels(classes_, y, n_samples, _members(cache, classes_))


def lean_label_targets(estimator, y, classes, Py_ssize_t n_samples):
    """A classifier's labels for the cheap branch of a batch's check
    (``LeanLabelsMixin._lean_targets``): single-label ``y`` of the fitted
    classes (:func:`lean_fitted_labels`) when the targets' strategy is
    single-label and the class weights do not depend on the batch; else
    None."""
    cdef dict values = estimator.__dict__
    strategy = values.get("_target_strategy")
    if (
        strategy is None
        or strategy.multi_output
        or isinstance(values.get("class_weight"), str)
    ):
        return None
    return lean_fitted_labels(estimator, y, classes, n_samples)


cdef dict _members(cache, classes_):
    """``{label: its index}`` of the fitted ``classes_``, kept in the
    estimator's session ``cache`` while ``classes_`` is the same object."""
    members = cache.members
    if members is None or members[0] is not classes_:
        members = cache.members = (
            classes_,
            {label: i for i, label in enumerate(classes_.tolist())},
        )
    return members[1]


cdef object _c_array(a, dtype):
    """``a`` as a C-contiguous array of ``dtype`` (itself when it is one)."""
    if type(a) is _ndarray and _is_dtype(a.dtype, dtype) and a.flags.c_contiguous:
        return a
    return _ascontiguousarray(a, dtype=dtype)


def pass_margins(recorded_scores, recorded_var, labels, order=None, n_columns=None):
    """The margins a pass recorded, without the rows the kernel skipped:
    ``(scores, variances, class indices)`` of the rows whose score and
    first variance are not NaN, the scores of one column as a vector (the
    variances stay one column per covariance block; with ``n_columns``, the
    number of score columns of the model, one variance per row, as
    :func:`row_variances` makes them); ``labels`` (int32) gives each row's
    class index, or, with ``order`` (int64), each row of the batch's, row
    ``i`` of the pass being row ``order[i]``.  New arrays, written in one
    pass (the arrays are read through the buffer protocol: a one-row call
    pays no memoryview)."""
    scores_a = _c_array(recorded_scores, _F64)
    var_a = _c_array(recorded_var, _F64)
    labels_a = _c_array(labels, _I32)
    cdef bint taken = order is not None
    order_a = _c_array(order, _I64) if taken else None
    cdef Py_ssize_t n = scores_a.shape[0], K = scores_a.shape[1], G = var_a.shape[1]
    cdef bint reduce = n_columns is not None
    cdef bint per_column = reduce and n_columns > 1 and G == n_columns
    cdef Py_buffer sb, vb, lb, ob, osb, ovb, oib
    cdef const double *sc
    cdef const double *va
    cdef const int *lab
    cdef const long long *at = NULL
    cdef double *out_s
    cdef double *out_v
    cdef Py_ssize_t *out_c
    cdef Py_ssize_t i, g, j = 0, kept = 0
    cdef double v
    if var_a.shape[0] != n or (not taken and labels_a.shape[0] < n):
        raise ValueError("the recorded scores, variances and labels differ in rows")
    if taken and order_a.shape[0] < n:
        raise ValueError("the recorded scores, variances and labels differ in rows")
    PyObject_GetBuffer(scores_a, &sb, PyBUF_C_CONTIGUOUS)
    PyObject_GetBuffer(var_a, &vb, PyBUF_C_CONTIGUOUS)
    PyObject_GetBuffer(labels_a, &lb, PyBUF_C_CONTIGUOUS)
    if taken:
        PyObject_GetBuffer(order_a, &ob, PyBUF_C_CONTIGUOUS)
        at = <const long long *> ob.buf
    try:
        sc, va, lab = <const double *> sb.buf, <const double *> vb.buf, <const int *> lb.buf
        for i in range(n):
            if sc[i * K] == sc[i * K] and va[i * G] == va[i * G]:
                kept += 1
        out_scores = _empty(kept) if K == 1 else _empty((kept, K))
        out_var = _empty(kept) if reduce else _empty((kept, G))
        out_idx = _empty(kept, dtype=np.intp)
        PyObject_GetBuffer(out_scores, &osb, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
        PyObject_GetBuffer(out_var, &ovb, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
        PyObject_GetBuffer(out_idx, &oib, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
        out_s, out_v = <double *> osb.buf, <double *> ovb.buf
        out_c = <Py_ssize_t *> oib.buf
        for i in range(n):
            if not (sc[i * K] == sc[i * K] and va[i * G] == va[i * G]):
                continue
            memcpy(&out_s[j * K], &sc[i * K], K * sizeof(double))
            if not reduce:
                memcpy(&out_v[j * G], &va[i * G], G * sizeof(double))
            else:
                if per_column:
                    v = 0.0
                    for g in range(G):
                        v += va[i * G + g]
                    v /= G
                else:
                    v = va[i * G]
                out_v[j] = v if (v > 0.0 or v != v) else 0.0
            out_c[j] = lab[at[i]] if taken else lab[i]
            j += 1
        PyBuffer_Release(&osb)
        PyBuffer_Release(&ovb)
        PyBuffer_Release(&oib)
    finally:
        PyBuffer_Release(&sb)
        PyBuffer_Release(&vb)
        PyBuffer_Release(&lb)
        if taken:
            PyBuffer_Release(&ob)
    return out_scores, out_var, out_idx


def row_variances(const double[:, :] var, Py_ssize_t n_columns):
    """One variance per row from the covariance blocks' ``(n, G)``
    variances ``var`` of a model of ``n_columns`` score columns: the mean
    over the blocks where each column has its own (``G == n_columns > 1``),
    else the first block's; negative ones (rounding) set to 0, NaN kept.
    One compiled pass, a new array."""
    cdef Py_ssize_t n = var.shape[0], G = var.shape[1], i, g
    cdef bint per_column = n_columns > 1 and G == n_columns
    cdef double v
    out = np.empty(n)
    cdef double[::1] o = out
    for i in range(n):
        if per_column:
            v = 0.0
            for g in range(G):
                v += var[i, g]
            v /= G
        else:
            v = var[i, 0]
        o[i] = v if (v > 0.0 or v != v) else 0.0
    return out


def nonnegative(a):
    """``np.maximum(a, 0.0)`` of a 1-D float64 array, as a new array, in one
    compiled pass, to the bit (NaN stays NaN; -0.0 becomes 0.0, as there)."""
    out = np.array(a, dtype=np.float64)
    cdef double[::1] v = out
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        if not v[i] > 0.0 and v[i] == v[i]:
            v[i] = 0.0
    return out


def lean_batch(estimator, X, y, classes, sample_weight):
    """``(X, y, sample_weight)`` of a later ``partial_fit`` call checked
    in O(batch), or None when the call needs the full validation.

    The lean path applies when the parameters are the objects (and
    contents) the last fully validated call saw, the fitted classes
    and feature count are unchanged, no feature names were fitted, and
    the batch is already in the kernels' form (:func:`lean_rows`, the
    estimator's ``_lean_targets``, :func:`lean_sample_weight`).  It never
    raises: a batch it does not accept goes through the full
    validation, which says what is wrong."""
    est = estimator
    cdef dict values = est.__dict__
    record = session_of(est).lean
    if (
        record is None
        or not est._lean_partial_fit
        or "feature_names_in_" in values
        or values.get("classes_") is not record[1]
        or not _params_unchanged(values, type(est), record[0])
    ):
        return None
    X = lean_rows(X, est.n_features_in_, est._input_dtypes())
    if X is None:
        return None
    n_samples = X.shape[0]
    y = est._lean_targets(y, classes, n_samples)
    if y is None:
        return None
    sample_weight = lean_sample_weight(sample_weight, n_samples)
    if sample_weight is None or not est._check_rows(X, lean=True):
        return None
    return X, y, sample_weight


cdef class Batch:
    """One batch of ``fit`` or ``partial_fit`` as :func:`check_batch` checked it: what
    every later step of the call reads, and nothing reads again.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The rows in the kernels' form: C-ordered dense or canonical CSR
        (duplicate entries summed), float64 or float32, finite, with the
        fitted number of features.
    y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        The targets: labels of the fitted classes (encoded by the pass's
        adapter, ``_targets``), or finite float64 values.
    sample_weight : ndarray of shape (n_samples,)
        Finite, non-negative float64 weights (ones when none were given).
    given : bool
        Whether the caller passed ``sample_weight``.
    snapshot : tuple or None
        The :func:`params_snapshot` of a ``partial_fit`` batch the full
        validation checked (the parameters it validated, which the next
        call's cheap branch compares against); None when the cheap branch
        accepted it, and in ``fit``.
    """

    cdef readonly object X
    cdef readonly object y
    cdef readonly object sample_weight
    cdef readonly bint given
    cdef readonly object snapshot

    def __init__(self, X, y, sample_weight, bint given, snapshot=None):
        self.X, self.y, self.sample_weight = X, y, sample_weight
        self.given, self.snapshot = given, snapshot

    @property
    def n_samples(self):
        """The number of rows."""
        return self.X.shape[0]

    @property
    def weighs_nothing(self):
        """Whether the caller's ``sample_weight`` is all zeros on at least
        one row: a later batch is then a no-op on every path (nothing moves,
        not even ``t_``); ``fit`` refused it already."""
        weights = self.sample_weight
        return self.given and weights.shape[0] > 0 and not weights.any()

    def __iter__(self):
        """``X, y, sample_weight = batch``."""
        return iter((self.X, self.y, self.sample_weight))


def check_batch(
    estimator, X, y, classes, sample_weight, bint first_call, bint fitting=False
):
    """The one check of a batch in ``fit`` and ``partial_fit``: the linear
    and confidence-weighted families, kernel PA, the Bayes point machine
    and the one-class PA (whose ``y`` is None); returns a :class:`Batch`.

    Its first branch is the cheap one: a later ``partial_fit`` call whose
    parameters are those the last full validation saw, and whose batch is
    already in the kernels' form, is checked in O(its size) (the
    estimator's ``_lean_batch``).  Anything else goes through the full
    validation, which says what is wrong before any weight moves: the
    parameters (``_validate_params``, a parameter changed mid-stream
    included; ``fit``'s were validated on entry), the rows and targets
    (``_validate_batch``: :func:`~sklearn_pa._core.batch.check_rows`, the
    sample weights, the family's own checks) and the targets against the
    model (``_prepare_targets``: the classes, the strategy; nothing for
    the one-class PA, and the Bayes point machine prepares its classes
    with its copies once the batch is checked).
    ``first_call`` (and ``fitting``, a ``fit``) sets the estimator's
    features and classes.
    """
    est = estimator
    given = sample_weight is not None
    if fitting:
        X, y, sample_weight = est._validate_batch(X, y, sample_weight, reset=True)
        est._prepare_targets(y, classes=classes, first_call=True, fitting=True)
        return Batch(X, y, sample_weight, given)
    if not first_call:
        lean = est._lean_batch(X, y, classes, sample_weight)
        if lean is not None:
            return Batch(lean[0], lean[1], lean[2], given)
    # scikit-learn skips parameter validation on later partial_fit calls; a
    # parameter changed mid-stream must be refused before any update too
    est._validate_params()
    snapshot = params_snapshot(est)
    X, y, sample_weight = est._validate_batch(X, y, sample_weight, reset=first_call)
    est._prepare_targets(y, classes=classes, first_call=first_call, fitting=False)
    return Batch(X, y, sample_weight, given, snapshot)


# ----------------------------------------------------------------------------
# The weights a batch reads


def check_weights_read(estimator, W_rows, b):
    """Refuse, with the message of the full check of an assigned array
    (:func:`~sklearn_pa._core.batch.check_state_array`), a weight a batch
    reads that is NaN or infinite, such as one written in place into
    ``coef_`` between calls: ``W_rows`` and ``b`` are the journal's copies
    of the rows of the weights the batch's features index and of the
    intercepts (None: not saved), so the check costs a pass over what the
    journal copied, in cache."""
    for name, values in (("coef_", W_rows), ("intercept_", b)):
        if values is None or values.size == 0:
            continue
        if not _all_finite(values):
            raise _nonfinite_weights(estimator, name)


cdef object _nonfinite_weights(estimator, name):
    """The error of a learned array ``name`` a call reads that holds NaN or
    infinity (the message of the full check of an assigned array)."""
    return ValueError(
        f"{name} of {type(estimator).__name__} contains NaN or "
        "infinity; assign finite values or refit with fit."
    )


def check_writes(estimator, writes):
    """After a pass that logged its writes in ``writes`` (a
    :class:`~sklearn_pa._compiled._write_log.WriteLog`), refuse what
    stopped it: a weight a row read that is NaN or infinite, such as one
    written in place into ``coef_`` between calls (the message of
    :func:`check_weights_read`), or a log that could not grow.  The call
    then fails and its journal writes the logged entries back."""
    if writes.nonfinite_read:
        raise _nonfinite_weights(estimator, "coef_")
    if writes.failed:
        raise MemoryError(
            "could not keep the pre-images of the weights a pass writes; "
            "learn from smaller batches"
        )


# ----------------------------------------------------------------------------
# The journal of a call


cdef object _RandomState = np.random.RandomState
cdef object _Generator = np.random.Generator


cdef object _generator_state(generator):
    if isinstance(generator, _RandomState):
        return generator.get_state(legacy=False)
    return generator.bit_generator.state


cdef class Journal:
    """The pre-images of the learned entries a ``partial_fit`` pass may
    write, to write back if the call fails.

    An epoch adapter saves, before its kernel runs, the rows of each
    learned array the batch can reach (:meth:`save` with ``rows``, the
    features the batch touches on a feature-major array) and the small
    arrays whole; :meth:`restore` writes them back in reverse order.  The
    cost is that of the batch's rows, not of the model.  The journal is
    also the call's own object: :attr:`call` holds the values one step of
    the call hands to a later one (``call_values``).
    """

    cdef public list _entries, _generators, _lists
    #: The call's own values (``call_values``): what one step of a call
    #: hands to a later step of the same call, never kept in the
    #: estimator's attributes.
    cdef public dict call

    def __init__(self):
        self._entries = []
        self._generators = []
        self._lists = []
        self.call = {}

    cdef object _save(self, array, rows, int *finite=NULL):
        # (finite: see _take_rows; -1 when the copy was not checked)
        if finite != NULL:
            finite[0] = -1
        if array is None or array.size == 0:
            return None
        content = array.copy() if rows is None else _take_rows(array, rows, finite)
        self._entries.append((array, rows, content))
        return content

    def save(self, array, rows=None):
        """Keep ``array[rows]`` (``rows`` indexes the first axis; ``None``:
        the whole array) as it is now; returns that copy (None for an
        empty or missing array)."""
        return self._save(array, rows)

    def save_weights(self, estimator, rows, W, b, U, bu):
        """Keep the rows ``rows`` of the feature-major weights ``W`` and of
        the averaging accumulators ``U``, and the intercepts ``b`` and
        ``bu`` whole (empty or None: nothing), then refuse a weight the
        batch reads that is NaN or infinite (:func:`check_weights_read`, on
        the copies just made: a value written in place since the last
        call)."""
        cdef int finite
        saved = self._save(W, rows, &finite)
        self._save(U, rows)
        saved_b = self._save(b, None)
        # (the copied rows were checked as they were copied)
        check_weights_read(estimator, saved if finite != 1 else None, saved_b)
        self._save(bu, None)

    def save_writes(self, estimator, W, b, U, bu, *others):
        """A write log for a compiled pass that writes ``W``, ``b``, ``U``
        and ``bu``, and the arrays ``others`` (a diagonal covariance)
        (:class:`~sklearn_pa._compiled._write_log.WriteLog`):
        the pass logs each entry just before it writes it, so the call
        keeps only what it writes, in cache, instead of every row its
        batch indexes.  The intercepts ``b``, which every row reads, are
        refused first when NaN or infinite (:func:`check_weights_read`);
        a weight of ``W`` that a row reads is checked by the pass
        (:func:`check_writes` after it)."""
        check_weights_read(estimator, None, b)
        writes = WriteLog((W, b, U, bu, *others))
        self._entries.append((writes, WRITTEN, writes))
        return writes

    cdef bint _has_generator(self, generator):
        for saved, _ in self._generators:
            if saved is generator:
                return True
        return False

    def save_generator(self, generator):
        """Keep the state of ``generator`` (a ``RandomState`` or
        ``Generator``; anything else is ignored) the first time it is
        given, before a draw."""
        if not isinstance(generator, (_RandomState, _Generator)):
            return
        if self._has_generator(generator):
            return
        self._generators.append((generator, _generator_state(generator)))

    def save_generator_draws(self, generator):
        """:meth:`save_generator` before draws of raw integers only (an
        epoch's shuffle, :func:`~sklearn_pa.utils._shuffle.shuffle_int64`):
        a ``RandomState`` on ``MT19937`` keeps its raw words, which such
        draws are all they change (its Gaussian cache stays as it is), at a
        small fraction of the cost of its state dictionary."""
        if self._has_generator(generator):
            return
        if type(generator) is _RandomState:
            words = mt19937_words(generator._bit_generator)
            if words is not None:
                self._generators.append((generator, RawWords(words)))
                return
        self.save_generator(generator)

    def save_length(self, items):
        """Keep the length of the list ``items`` (a history appended to in
        place), to cut it back to."""
        for saved, _ in self._lists:
            if saved is items:
                return
        self._lists.append((items, len(items)))

    def restore(self):
        """Write every saved entry back, the latest first, put every saved
        generator back in its state and cut every saved list back."""
        restore_entries(self._entries, self._generators, self._lists)

    def __len__(self):
        return len(self._entries)


cdef object _take_rows(array, rows, int *finite=NULL):
    """``array.take(rows, axis=0)``, as a loop of row copies for a
    C-contiguous float64 matrix and int32 or int64 indices (the features of
    a batch, on a feature-major weight array), read through the buffer
    protocol: NumPy's generic take, and typed memoryviews, cost more than
    the copy on a one-row batch.  With ``finite``, it is set to whether
    every value copied is finite (checked in cache, right after the copy),
    or to -1 when NumPy's take made the copy (not checked)."""
    cdef Py_buffer a, r, o
    cdef Py_ssize_t i, n_rows, n_cols, n
    cdef long long index
    cdef const char *base
    cdef double *out_p
    cdef bint ok = True, all_finite = True
    if finite != NULL:
        finite[0] = -1
    if type(array) is not _ndarray or type(rows) is not _ndarray:
        return array.take(rows, axis=0)
    try:
        PyObject_GetBuffer(array, &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError):  # (NumPy: not C-contiguous)
        return array.take(rows, axis=0)
    try:
        PyObject_GetBuffer(rows, &r, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError):  # (NumPy: not C-contiguous)
        PyBuffer_Release(&a)
        return array.take(rows, axis=0)
    try:
        if not (
            a.format != NULL and r.format != NULL
            and a.ndim == 2 and a.itemsize == 8 and a.format[0] == b"d"
            and a.format[1] == 0 and r.ndim == 1
            and (r.itemsize == 4 or r.itemsize == 8)
            and (r.format[0] == b"i" or r.format[0] == b"l" or r.format[0] == b"q")
            and r.format[1] == 0
        ):
            return array.take(rows, axis=0)
        n_rows, n_cols, n = a.shape[0], a.shape[1], r.shape[0]
        out = _empty((n, n_cols))
        PyObject_GetBuffer(out, &o, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
        base = <const char *> a.buf
        out_p = <double *> o.buf
        with nogil:
            for i in range(n):
                if r.itemsize == 4:
                    index = (<const int *> r.buf)[i]
                else:
                    index = (<const long long *> r.buf)[i]
                if index < 0 or index >= n_rows:
                    ok = False
                    break
                if n_cols > 0:
                    memcpy(out_p + i * n_cols, base + index * n_cols * 8,
                           n_cols * sizeof(double))
            if ok and finite != NULL:
                all_finite = _finite(out_p, n * n_cols)
        PyBuffer_Release(&o)
        if not ok:
            return array.take(rows, axis=0)  # (its IndexError)
        if finite != NULL:
            finite[0] = all_finite
        return out
    finally:
        PyBuffer_Release(&r)
        PyBuffer_Release(&a)


def touched_rows(rows, extra=None):
    """The feature indices a pass over every row of the row view ``rows``
    can write on a feature-major array (sorted, unique), ``None`` for dense
    rows (all of them); ``extra`` (an index such as the intercept's row
    ``n_features``) is added."""
    if rows.dense:
        return None
    indptr = rows.indptr
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t end = int(indptr[n_rows]) if n_rows > 0 else 0
    # (the kernels' rows are canonical: one row's indices are unique already)
    if n_rows == 1:
        features = rows.indices[:end]
    else:
        features = _distinct(rows.indices[:end], rows.n_features)
    if extra is not None:
        features = with_index(features, extra)
    return features


def with_index(features, extra):
    """The int64 indices ``features`` followed by the index ``extra`` (a
    new array; ``np.append`` without its frames).  (The positions are
    written out: this module is compiled without wraparound, so an index
    counted from the end would reach the array's item slot as it is, which
    numpy 2.5 refuses.)"""
    cdef Py_ssize_t n = features.shape[0]
    out = np.empty(n + 1, dtype=np.int64)
    out[:n] = features
    out[n] = extra
    return out


cdef object _distinct(indices, Py_ssize_t n_features):
    """The sorted distinct values of ``indices`` (all in ``[0,
    n_features)``): a sort for a few, a mark per feature for many (a
    sort of a batch's non-zeros would cost more than its pass)."""
    if indices.shape[0] * 16 < n_features:
        # (a sort and a comparison of neighbours: np.unique's hashing costs
        # 15 times more on a few thousand indices)
        ordered = np.sort(indices)
        distinct = np.empty(ordered.shape[0], dtype=bool)
        distinct[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=distinct[1:])
        return ordered[distinct]
    seen = np.zeros(n_features, dtype=bool)
    seen[indices] = True
    return np.flatnonzero(seen)


# ----------------------------------------------------------------------------
# scikit-learn's configuration around a call


try:  # scikit-learn's configuration of this thread (the dict config_context sets)
    from sklearn._config import _get_threadlocal_config
except ImportError:  # pragma: no cover - another layout: config_context
    _get_threadlocal_config = None


cdef class finite_inputs:
    """scikit-learn's ``config_context(assume_finite=True)`` at O(1) cost,
    around a scikit-learn call (``pairwise_kernels``) whose every input the
    caller checked already: the call then does not scan them for NaN again
    (a support set of the model on each call).  The previous value is put
    back on exit, even on an error.  (Compiled: no Python code runs between
    setting the value and putting it back, so that a fault or an interrupt
    can never leave the thread assuming finite inputs.)"""

    cdef object _config, _context, _previous

    def __enter__(self):
        self._context = None
        if _get_threadlocal_config is None:  # pragma: no cover - another layout
            from sklearn import config_context

            self._context = config_context(assume_finite=True)
            self._context.__enter__()
            return self
        self._config = _get_threadlocal_config()
        self._previous = self._config.get("assume_finite", _missing)
        self._config["assume_finite"] = True
        return self

    def __exit__(self, kind, value, traceback):
        if self._context is not None:  # pragma: no cover - another layout
            return self._context.__exit__(kind, value, traceback)
        if self._previous is _missing:
            self._config.pop("assume_finite", None)
        else:
            self._config["assume_finite"] = self._previous
        return False


# ----------------------------------------------------------------------------
# The pass of a call: what the epoch driver (``_core/driver.py``) runs for
# each epoch of ``run_epochs`` and once for ``stream_epoch``, compiled since
# a one-row call runs it around its compiled pass.  The driver's settings
# (``LOSS_CURVE_MAX_LENGTH``) and helpers are read from the driver module at
# each call.

cdef object _driver_module = None


cdef object _driver():
    global _driver_module
    if _driver_module is None:
        from . import driver

        _driver_module = driver
    return _driver_module


def epoch_order(rng, train_idx, bint shuffle, save_generator):
    """The rows of an epoch, as C-contiguous int64 indices: a fresh
    permutation of ``train_idx`` drawn from ``rng`` when ``shuffle`` (the
    generator first given to ``save_generator``, a journal's, unless it is
    None), else ``train_idx`` in its order (a permutation of one row draws
    nothing)."""
    if shuffle and train_idx.shape[0] > 1:
        if save_generator is not None:
            save_generator(rng)
        order = _driver()._permutation(rng, train_idx)
    else:
        order = train_idx
    if order.dtype != np.int64 or not order.flags.c_contiguous:
        order = np.ascontiguousarray(order, dtype=np.int64)
    return order


def stream_epoch(estimator, adapter, train_idx, t_start, rng, shuffle, journal):
    """The one pass of a ``partial_fit`` call that prints nothing and
    reports to no parameter mixing: what ``run_epochs`` does then, and
    what the lean path of a stream (:mod:`sklearn_pa._core.stream_plan`)
    runs with an adapter it keeps between calls.

    Saves the generator before it draws the order (with ``shuffle``) and
    the entries the pass may write in ``journal``, runs ``adapter`` over
    ``train_idx``, warns of skipped rows, raises on an overflow, appends
    the mean loss to ``loss_curve_`` and counts the call.  Returns ``(t,
    mean_loss)``: the sample counter after the pass and its mean loss."""
    cdef Py_ssize_t n_rows = train_idx.shape[0]
    # (the shuffle draws raw integers only: the generator's raw words are
    # what the journal keeps)
    order = epoch_order(rng, train_idx, shuffle, journal.save_generator_draws)
    _, _, mean_loss = one_pass(estimator, adapter, order, t_start, journal, n_rows, 1)
    record_history(estimator, (mean_loss,), None, journal, True)
    return int(t_start) + n_rows, mean_loss


def one_pass(estimator, adapter, order, t, journal, n_rows, epoch):
    """One pass of ``adapter`` over the rows ``order``, the sample counter
    being ``t`` before it: what every epoch of ``run_epochs`` and the pass
    of :func:`stream_epoch` run, once.

    With a ``journal`` (a ``partial_fit`` call) the entries the pass may
    write are saved first.  Reports the pass to parameter mixing, warns of
    skipped rows, raises on an overflow (after ``adapter.failed()``).
    Returns ``(stats, loss, mean_loss)``: the adapter's ``EpochStats``, its
    loss as a 1-D array, and the mean loss over ``n_rows`` (a loss too
    large for float64, from rows that overflowed, is the largest float, so
    that the history stays finite)."""
    if journal is not None:
        adapter.journal(journal, order)
    stats = adapter.run(order, t)
    loss = stats.loss
    if not (isinstance(loss, np.ndarray) and loss.ndim == 1):
        loss = np.atleast_1d(np.asarray(loss, dtype=np.float64))
    # (parameter mixing, sklearn_pa.distributed, asks for each epoch's
    # number of updates and summed loss by setting _epoch_stats to a list)
    recorded = estimator.__dict__.get("_epoch_stats")
    if recorded is not None:
        recorded.append((int(stats.n_updates), float(np.sum(loss)), int(n_rows)))
    if stats.n_skipped:
        warnings.warn(
            f"{stats.n_skipped} rows were skipped at epoch {epoch} "
            f"because {adapter.skipped_reason}",
            RuntimeWarning,
        )
    if stats.overflow:
        adapter.failed()
        raise ValueError(
            f"Floating-point overflow at epoch {epoch}: {adapter.overflow_message}"
        )
    cdef double mean_loss
    cdef double rows = <double> max(n_rows, 1)
    if loss.shape[0] == 1:  # (the same number, without array operations)
        mean_loss = float(loss[0]) / rows
    else:
        mean_loss = float((loss / rows).sum())
    if not isfinite(mean_loss):
        mean_loss = _driver()._BIG
    return stats, loss, mean_loss


def record_history(estimator, history, scores, journal, bint partial_fit):
    """Write a run's training history on ``estimator``: a ``fit`` starts
    ``loss_curve_`` anew and counts no call; a ``partial_fit`` call appends
    its mean loss in place (O(1) per call; with a ``journal``, a failed
    call cuts it back), counts the call and leaves the validation scores
    of the last ``fit`` as they are."""
    est = estimator
    cdef dict values = est.__dict__
    previous = values.get("loss_curve_")
    if partial_fit and isinstance(previous, list):
        driver = _driver()
        if len(previous) + len(history) > driver.LOSS_CURVE_MAX_LENGTH:
            previous = driver._room_in_curve(est, previous, len(history))
        if journal is not None:
            journal.save_length(previous)
        previous.extend(history)
    else:
        est.loss_curve_ = history if isinstance(history, list) else list(history)
    calls = int(values.get("_n_partial_fit_calls", 0)) + 1 if partial_fit else 0
    est._n_partial_fit_calls = calls
    # (a parameter is an attribute of the instance; hasattr on it would ask
    # the publications of an estimator that has none, __getattr__)
    stops_early = "early_stopping" in values or hasattr(type(est), "early_stopping")
    if stops_early and not (partial_fit and "validation_scores_" in values):
        est.validation_scores_ = scores
