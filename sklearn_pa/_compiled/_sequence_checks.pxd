# The entry checks of the sequence kernels (``_sequence.pyx``): the sentences
# must be rows of the view with feature indices in [0, n_features), and the
# weights, labels and averages must fit them, since the loops run without
# bounds checks.

from ._dataset cimport (
    check_length, check_view, csr_row_fault, raise_csr_fault, rows_t,
)


cdef inline int check_sentences(
    const rows_t *rows,
    const long long[::1] offsets,
    const double[:, ::1] W,
    const double[:, ::1] Tr,
) except -1:
    """Raise ValueError unless every sentence's tokens are rows of the view
    with feature indices in [0, n_features), and W, Tr fit the features and
    labels (the loops below run without bounds checks)."""
    cdef Py_ssize_t L = W.shape[1], m, i, n_rows, n_tokens
    cdef int bad = 0
    cdef Py_ssize_t n_features = rows.n_features
    if W.shape[0] != n_features:
        raise ValueError(f"W has {W.shape[0]} rows for {n_features} features")
    if Tr.shape[0] != L + 1 or Tr.shape[1] != L + 1:
        raise ValueError(f"Tr must be ({L + 1}, {L + 1}) for {L} labels")
    if offsets.shape[0] < 1 or offsets[0] < 0:
        raise ValueError("offsets must start at a token index >= 0")
    for m in range(offsets.shape[0] - 1):
        if offsets[m + 1] < offsets[m]:
            raise ValueError("offsets must not decrease")
    n_tokens = offsets[offsets.shape[0] - 1]
    check_view(rows)
    n_rows = rows.n_rows if rows.n_rows >= 0 else n_tokens
    if n_tokens > n_rows:
        raise ValueError(f"offsets name {n_tokens} tokens; the data has {n_rows}")
    if not rows.dense:
        with nogil:
            for i in range(n_tokens):
                bad = csr_row_fault(rows, i)
                if bad:
                    break
        raise_csr_fault(bad, n_features)
    return 0


cdef inline int check_training(
    const long long[::1] offsets,
    const long long[::1] order,
    const int[::1] labels,
    Py_ssize_t L,
    const double[:, ::1] W,
    const double[:, ::1] Tr,
    const double[:, ::1] U,
    const double[:, ::1] UT,
    bint average,
) except -1:
    """The training epochs' extra arrays: sentence ids, labels, averages."""
    cdef Py_ssize_t q, i, n_sent = offsets.shape[0] - 1
    cdef Py_ssize_t n_tokens = offsets[n_sent]
    for q in range(order.shape[0]):
        if order[q] < 0 or order[q] >= n_sent:
            raise ValueError(f"order names a sentence outside [0, {n_sent})")
    check_length(labels.shape[0], n_tokens, "labels")
    for i in range(n_tokens):
        if labels[i] < 0 or labels[i] >= L:
            raise ValueError(f"labels must lie in [0, {L})")
    if average and (
        U.shape[0] != W.shape[0] or U.shape[1] != W.shape[1]
        or UT.shape[0] != Tr.shape[0] or UT.shape[1] != Tr.shape[1]
    ):
        raise ValueError("U and UT must have the shapes of W and Tr")
    return 0
