"""The row order of an epoch, drawn without holding the GIL.

``numpy.random.RandomState.shuffle`` holds the GIL for its whole loop (about
18 ns a row), so that threads running partitions of parameter mixing queue
for the GIL at the start of every epoch before their compiled passes (which
release it) can begin.  :func:`shuffle_int64` is the same Fisher-Yates loop
over the same draws of the same bit generator (``random_interval`` of
numpy's legacy distributions), so the permutation and the generator's state
afterwards are those of ``RandomState.shuffle``, to the last bit; it holds
the generator's lock instead of the GIL.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memcpy

from numpy.random import MT19937


cdef extern from *:
    """
    #include <stdint.h>
    /* numpy/random/bitgen.h: a stable layout shared with numpy's BitGenerator */
    typedef struct sklearn_pa_bitgen {
      void *state;
      uint64_t (*next_uint64)(void *st);
      uint32_t (*next_uint32)(void *st);
      double (*next_double)(void *st);
      uint64_t (*next_raw)(void *st);
    } sklearn_pa_bitgen_t;
    """
    ctypedef struct sklearn_pa_bitgen_t:
        void *state
        uint64_t (*next_uint64)(void *st) noexcept nogil
        uint32_t (*next_uint32)(void *st) noexcept nogil


cdef inline uint64_t _interval(sklearn_pa_bitgen_t *bitgen, uint64_t max_value) noexcept nogil:
    """A uniform integer in [0, max_value] by masked rejection, as numpy's
    ``random_interval`` draws it."""
    cdef uint64_t mask = max_value, value
    if max_value == 0:
        return 0
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    if max_value <= 0xffffffffUL:
        value = bitgen.next_uint32(bitgen.state) & mask
        while value > max_value:
            value = bitgen.next_uint32(bitgen.state) & mask
    else:
        value = bitgen.next_uint64(bitgen.state) & mask
        while value > max_value:
            value = bitgen.next_uint64(bitgen.state) & mask
    return value


def shuffle_int64(bit_generator, int64_t[::1] x):
    """Shuffle ``x`` in place as ``RandomState.shuffle`` would with the
    legacy generator whose bit generator is ``bit_generator``, without the
    GIL."""
    cdef sklearn_pa_bitgen_t *bitgen = <sklearn_pa_bitgen_t *> PyCapsule_GetPointer(
        bit_generator.capsule, "BitGenerator"
    )
    cdef Py_ssize_t i, n = x.shape[0]
    cdef int64_t j, tmp
    with bit_generator.lock:
        with nogil:
            for i in range(n - 1, 0, -1):
                j = <int64_t> _interval(bitgen, <uint64_t> i)
                tmp = x[j]
                x[j] = x[i]
                x[i] = tmp


cdef extern from *:
    """
    /* numpy/random/src/mt19937/mt19937.h: the state of MT19937 */
    typedef struct sklearn_pa_mt19937_state {
      uint32_t key[624];
      int pos;
    } sklearn_pa_mt19937_state_t;
    """
    ctypedef struct sklearn_pa_mt19937_state_t:
        uint32_t key[624]
        int pos


def mt19937_words(bit_generator):
    """The raw state (key and position) of an ``MT19937`` bit generator as
    bytes, or None for another bit generator: what :func:`shuffle_int64`'s
    draws change, read without building numpy's state dictionary (which
    costs more than a small batch's pass)."""
    if type(bit_generator) is not MT19937:
        return None
    cdef sklearn_pa_bitgen_t *bitgen = <sklearn_pa_bitgen_t *> PyCapsule_GetPointer(
        bit_generator.capsule, "BitGenerator"
    )
    with bit_generator.lock:
        return (<char *> bitgen.state)[:sizeof(sklearn_pa_mt19937_state_t)]


def set_mt19937_words(bit_generator, bytes words):
    """Put the raw state ``words`` (:func:`mt19937_words`) back into the
    ``MT19937`` bit generator."""
    if type(bit_generator) is not MT19937:
        raise TypeError("not an MT19937 bit generator")
    if len(words) != sizeof(sklearn_pa_mt19937_state_t):
        raise ValueError("not the state of an MT19937 bit generator")
    cdef sklearn_pa_bitgen_t *bitgen = <sklearn_pa_bitgen_t *> PyCapsule_GetPointer(
        bit_generator.capsule, "BitGenerator"
    )
    cdef const char *source = words
    with bit_generator.lock:
        memcpy(bitgen.state, source, sizeof(sklearn_pa_mt19937_state_t))
