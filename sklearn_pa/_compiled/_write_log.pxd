# The pre-images of the entries a compiled pass writes, logged by the pass
# itself just before each write, so that a call that fails afterwards can
# write them back (``_core/_calls.pyx``, ``Journal.save_writes``).
#
# A one-row call on a wide model writes the few entries of its step: logging
# them, in cache, costs less than copying beforehand every row of the
# weights the batch's features index.

from libc.math cimport isfinite
from libc.stdlib cimport realloc

from ._dataset cimport index_t


cdef struct WriteEntry:
    double *address
    double value


cdef struct WriteBuffer:
    WriteEntry *entries
    Py_ssize_t n
    Py_ssize_t capacity
    bint failed          # the log could not grow: the pass stopped
    bint nonfinite_read  # a weight the pass read was NaN or infinite


cdef inline bint reserve_writes(WriteBuffer *log, Py_ssize_t more) noexcept nogil:
    """Room for ``more`` entries; False (and ``failed`` set) when memory
    ran out: the pass must then stop before it writes."""
    cdef Py_ssize_t capacity = log.capacity
    cdef WriteEntry *entries
    if log.n + more <= capacity:
        return True
    if capacity < 256:
        capacity = 256
    while capacity < log.n + more:
        capacity *= 2
    entries = <WriteEntry *> realloc(log.entries, capacity * sizeof(WriteEntry))
    if entries == NULL:
        log.failed = True
        return False
    log.entries, log.capacity = entries, capacity
    return True


cdef inline void log_write(WriteBuffer *log, double *address) noexcept nogil:
    """Keep the value at ``address`` before it is written (room reserved
    by :func:`reserve_writes`)."""
    cdef WriteEntry *entry = &log.entries[log.n]
    entry.address = address
    entry.value = address[0]
    log.n += 1


cdef inline bint reads_nonfinite(
    const index_t *row_ind, Py_ssize_t nnz, const double *W0, Py_ssize_t K,
    Py_ssize_t c0, Py_ssize_t c1,
) noexcept nogil:
    """Whether a weight of the columns ``c0:c1`` of a row's features (its
    ``nnz`` indices ``row_ind`` into the feature-major ``W0`` of ``K``
    columns) is NaN or infinite: read by a logging pass only for a row
    whose scores were not finite, which then stops (``nonfinite_read``)."""
    cdef Py_ssize_t j, k
    cdef const double *wrow
    for j in range(nnz):
        wrow = W0 + row_ind[j] * K
        for k in range(c0, c1):
            if not isfinite(wrow[k]):
                return True
    return False


cdef class WriteLog:
    cdef WriteBuffer buffer
    # (the arrays the logged addresses point into, kept alive with the log)
    cdef readonly tuple arrays
