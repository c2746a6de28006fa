"""The write log of a compiled pass: the pre-image of each entry the pass
writes, logged just before the write (``_write_log.pxd``), to write back in
reverse order if the call fails.

A :class:`WriteLog` is a journal entry (``Journal.save_writes`` in
``_core/_calls.pyx``); the pass fills it without the GIL.  Undoing it runs
no Python code.
"""

from libc.math cimport isfinite
from libc.stdlib cimport free

__all__ = ["WriteLog"]


cdef class WriteLog:
    """The entries a pass wrote into ``arrays`` (the float64 arrays it may
    write), with their values before the pass; see the module docstring."""

    def __cinit__(self, tuple arrays=()):
        self.buffer.entries = NULL
        self.buffer.n = self.buffer.capacity = 0
        self.buffer.failed = self.buffer.nonfinite_read = False
        self.arrays = arrays

    def __dealloc__(self):
        free(self.buffer.entries)
        self.buffer.entries = NULL

    def undo(self):
        """Write every logged value back, the latest first, and empty the
        log."""
        cdef Py_ssize_t i
        cdef WriteEntry *entries = self.buffer.entries
        with nogil:
            for i in range(self.buffer.n - 1, -1, -1):
                entries[i].address[0] = entries[i].value
        self.buffer.n = 0

    def written_finite(self, const double[:, ::1] array):
        """Whether every entry of ``array`` (C-contiguous float64) that the
        pass logged holds a finite value now: what the pass wrote there did
        not overflow."""
        cdef Py_ssize_t i, n = array.shape[0] * array.shape[1]
        cdef const double *start
        cdef const double *end
        cdef WriteEntry *entries = self.buffer.entries
        cdef bint finite = True
        if n == 0:
            return True
        start = &array[0, 0]
        end = start + n
        with nogil:
            for i in range(self.buffer.n):
                if (start <= entries[i].address < end
                        and not isfinite(entries[i].address[0])):
                    finite = False
                    break
        return finite

    @property
    def failed(self):
        """Whether the log could not grow, so that the pass stopped."""
        return bool(self.buffer.failed)

    @property
    def nonfinite_read(self):
        """Whether the pass read a weight that is NaN or infinite (and
        stopped there)."""
        return bool(self.buffer.nonfinite_read)

    def __len__(self):
        return self.buffer.n
