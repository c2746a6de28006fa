"""The one-time passes of a sequence tagger's batch, compiled: the token
feature dicts of a list of sentences to the canonical CSR rows the sequence
kernels read (:func:`map_sentences`), string label sequences to class codes
(:func:`encode_str_labels`), and the public emission weights from the
kernel's feature-major arrays (:func:`publish_emissions`).

Each takes the common form only (exact ``dict`` tokens with ``str`` or
``float`` values, exact ``str`` labels) and says so when its input is
another: the caller then takes the general path of
``sequence/_validation.py``, which gives the same results and the errors it
always gave.  The results are those of that path, bit for bit."""

from cpython.dict cimport PyDict_Next, PyDict_SetDefault
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.long cimport PyLong_AsLongLong
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.unicode cimport PyUnicode_Check
from libc.math cimport isfinite
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

import numpy as np

cdef extern from "Python.h":
    Py_hash_t PyObject_Hash(PyObject *o) except -1
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject *o)
    unsigned int PyUnicode_KIND(PyObject *o)
    void *PyUnicode_DATA(PyObject *o)

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    #define SEQ_POSIX 1
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    #define SEQ_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define SEQ_PREFETCH(p) ((void)0)
    #endif
    /* zeroed memory for a table of n bytes; a large one on huge pages
       where the system lends them (its slots are read at random); freed
       with free() */
    static void *seq_table_alloc(size_t n) {
        void *p = NULL;
    #ifdef SEQ_POSIX
        if (n < ((size_t)4 << 20))
            return calloc(n, 1);
        if (posix_memalign(&p, (size_t)2 << 20, n) != 0)
            return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
        memset(p, 0, n);
        return p;
    #else
        (void)p;
        return calloc(n, 1);
    #endif
    }
    /* ask for small pages on the n bytes at p, written once from start to
       end: a huge page saves little there, and the kernel may stall to
       compact memory for one (numpy asks for huge pages on large arrays) */
    static void seq_small_pages(void *p, size_t n) {
    #if defined(SEQ_POSIX) && defined(MADV_NOHUGEPAGE)
        size_t page = 4096;
        size_t start = ((size_t)p + page - 1) / page * page;
        size_t end = ((size_t)p + n) / page * page;
        if (n >= ((size_t)4 << 20) && end > start)
            madvise((void *)start, end - start, MADV_NOHUGEPAGE);
    #endif
    }
    """
    void SEQ_PREFETCH(const void *p) nogil
    void *seq_table_alloc(size_t n) nogil
    void seq_small_pages(void *p, size_t n) nogil

# largest index an int32 CSR array holds (scipy keeps int32 indices below it)
cdef long long _INT32_MAX = 2147483647
# string values of at most this many one-byte characters are kept in the
# table's slot, compared there without reading the key object
cdef enum:
    INLINE = 16


cdef struct Slot:
    Py_hash_t h          # the pair's hash (key NULL: an empty slot)
    PyObject *key        # the value string (a reference the table holds)
    int column           # its column, -1 when it has none (not grown)
    int name             # the feature name's id
    int length           # the inline length, -1 when not inline
    char data[INLINE]


cdef struct Table:
    Slot *slots
    size_t mask
    size_t used


cdef inline Py_hash_t _pair_hash(Py_hash_t h, int name) noexcept nogil:
    cdef unsigned long long x = <unsigned long long>h ^ (
        <unsigned long long>(name + 1) * 0x9E3779B97F4A7C15ULL)
    x ^= x >> 31
    x *= 0xBF58476D1CE4E5B9ULL
    x ^= x >> 29
    return <Py_hash_t>x


cdef inline int _inline_length(PyObject *v) noexcept:
    if PyUnicode_KIND(v) == 1 and PyUnicode_GET_LENGTH(v) <= INLINE:
        return <int>PyUnicode_GET_LENGTH(v)
    return -1


cdef int _find(Table *table, Py_hash_t h, int name, PyObject *v,
               int length, Slot **out) except -1:
    """Point ``out`` at the slot of the pair (name, v): the pair's own when
    it is in the table (returns 1), else the empty slot it would take
    (returns 0).  Equal strings are those Python calls equal: one kind,
    one length, the same code units."""
    cdef size_t i = <size_t>h & table.mask
    cdef Slot *slot
    while True:
        slot = &table.slots[i]
        if slot.key == NULL:
            out[0] = slot
            return 0
        if slot.h == h and slot.name == name:
            if slot.key == v:
                out[0] = slot
                return 1
            if slot.length >= 0 or length >= 0:
                if slot.length == length and memcmp(
                        slot.data, PyUnicode_DATA(v), length) == 0:
                    out[0] = slot
                    return 1
            elif <str><object>slot.key == <str><object>v:
                out[0] = slot
                return 1
        i = (i + 1) & table.mask


cdef int _grow(Table *table) except -1:
    """Double the table's capacity, moving every slot."""
    cdef size_t n_old = table.mask + 1, i, j, mask = 2 * n_old - 1
    cdef Slot *old = table.slots
    cdef Slot *slots = <Slot *>seq_table_alloc(2 * n_old * sizeof(Slot))
    if slots == NULL:
        raise MemoryError()
    for i in range(n_old):
        if old[i].key != NULL:
            j = <size_t>old[i].h & mask
            while slots[j].key != NULL:
                j = (j + 1) & mask
            slots[j] = old[i]
    free(old)
    table.slots = slots
    table.mask = mask
    return 0


cdef void _clear(Table *table) noexcept:
    cdef size_t i
    if table.slots == NULL:
        return
    for i in range(table.mask + 1):
        if table.slots[i].key != NULL:
            Py_DECREF(<object>table.slots[i].key)
    free(table.slots)
    table.slots = NULL


# the kinds of a feature, read ahead of its lookup
cdef enum:
    PAIR = 0      # exact str name, exact str value: the table
    NAMED = 1     # another string value: "name=value" in the vocabulary
    NUMBER = 2    # a float value: the name in the vocabulary


def map_sentences(list X, dict vocab, bint grow):
    """Map the sentences ``X`` (each a list or tuple of ``dict`` tokens) to
    canonical CSR rows in one pass, as ``FeatureDictMapper`` maps their
    tokens followed by ``sum_duplicates`` (a string value ``v`` of feature
    ``f`` is the feature ``"f=v"`` of value 1, a ``float`` the feature
    ``f``'s own; with ``grow`` a new feature takes the next column of
    ``vocab``, else a feature it lacks is left out).

    The (name, string value) pairs are looked up in a table of this call
    (open addressing, the value's hash and short strings kept in the slot),
    a sentence at a time: its slots are fetched from memory ahead of the
    lookups, in order of appearance, so that the columns are those of the
    first appearance.  ``vocab`` is read and grown for the pairs met the
    first time only.

    Returns ``(values, columns, row_starts, offsets)``: float64 values,
    int32 columns sorted within each row, int32 row starts, and the int64
    sentence offsets (sentence ``s`` owns rows ``offsets[s]:offsets[s +
    1]``).  Returns None, with ``vocab`` possibly grown, when the input is
    not of the common form (another sequence or token type, a value neither
    ``str`` nor ``float``, a value that is not finite, two features of a
    token in one column, sizes past int32): the general path then says
    what is wrong or handles it."""
    cdef Py_ssize_t n_sent = len(X), s, n_tokens = 0, total = 0, longest = 0
    cdef Py_ssize_t size
    cdef object seq, tok
    # pass 1: the types and the sizes
    for s in range(n_sent):
        seq = X[s]
        if type(seq) is not list and type(seq) is not tuple:
            return None
        size = 0
        for tok in seq:
            if type(tok) is not dict:
                return None
            size += len(<dict>tok)
        total += size
        longest = max(longest, size, len(seq))
        n_tokens += len(seq)
    if n_tokens == 0 or total > _INT32_MAX or n_tokens > _INT32_MAX:
        return None
    values_arr = np.empty(max(total, 1), dtype=np.float64)
    columns_arr = np.empty(max(total, 1), dtype=np.int32)
    starts_arr = np.empty(n_tokens + 1, dtype=np.int32)
    offsets_arr = np.empty(n_sent + 1, dtype=np.int64)
    cdef double[::1] values = values_arr
    cdef int[::1] columns = columns_arr
    cdef int[::1] starts = starts_arr
    cdef long long[::1] offsets = offsets_arr
    cdef Table table
    cdef size_t capacity = 64
    while capacity < 2 * <size_t>min(total, 1 << 17):
        capacity *= 2
    table.slots = <Slot *>seq_table_alloc(capacity * sizeof(Slot))
    table.mask = capacity - 1
    table.used = 0
    # a sentence's features read ahead: their kind, name id, key, value,
    # hash, and the end of each token among them (references held)
    cdef Py_ssize_t cap = max(longest, 1) + 1
    cdef unsigned char *kinds = <unsigned char *>malloc(cap)
    cdef int *names = <int *>malloc(2 * cap * sizeof(int))
    cdef PyObject **keys = <PyObject **>malloc(cap * sizeof(PyObject *))
    cdef PyObject **vals = <PyObject **>malloc(cap * sizeof(PyObject *))
    cdef Py_hash_t *hashes = <Py_hash_t *>malloc(cap * sizeof(Py_hash_t))
    cdef Py_ssize_t *ends = <Py_ssize_t *>malloc(cap * sizeof(Py_ssize_t))
    cdef Py_ssize_t n_read = 0
    try:
        if (table.slots == NULL or kinds == NULL or names == NULL or keys == NULL
                or vals == NULL or hashes == NULL or ends == NULL):
            raise MemoryError()
        if not _map(X, vocab, grow, &table, kinds, names, keys, vals, hashes,
                    ends, cap, &n_read, &values[0], &columns[0], &starts[0],
                    &offsets[0], total, n_tokens):
            return None
        n = starts[n_tokens]
        return values_arr[:n], columns_arr[:n], starts_arr, offsets_arr
    finally:
        for s in range(n_read):
            Py_DECREF(<object>keys[s])
            Py_DECREF(<object>vals[s])
        _clear(&table)
        free(kinds); free(names); free(keys); free(vals); free(hashes); free(ends)


cdef bint _map(list X, dict vocab, bint grow, Table *table,
               unsigned char *kinds, int *names, PyObject **keys,
               PyObject **vals, Py_hash_t *hashes, Py_ssize_t *ends,
               Py_ssize_t cap, Py_ssize_t *n_read, double *out_values,
               int *out_columns, int *row_starts, long long *sent_offsets,
               Py_ssize_t total, Py_ssize_t n_tokens) except -1:
    """The mapping of :func:`map_sentences`, a sentence at a time (False:
    not the common form).  ``n_read`` counts the references held in
    ``keys`` and ``vals``, released by the caller."""
    cdef Py_ssize_t n_sent = len(X), s, q, n = 0, t = 0, pos, k, tok_end
    cdef PyObject *key
    cdef PyObject *value
    cdef object tok, seq, f, v, found
    cdef dict name_ids = {}
    # the names of the previous token, position by position, with their
    # ids: tokens made by one template repeat their names in order
    cdef list last_names = [None] * cap
    cdef int *last_ids = names + cap
    # the column of each float feature's name met, by name id
    cdef list number_columns = []
    cdef int name, length
    cdef Py_hash_t h
    cdef long long j
    cdef double x
    cdef Slot *slot
    row_starts[0] = 0
    sent_offsets[0] = 0
    for s in range(n_sent):
        seq = X[s]
        if type(seq) is not list and type(seq) is not tuple:
            return False
        # read ahead: every feature of the sentence, its slot fetched
        for q in range(n_read[0]):
            Py_DECREF(<object>keys[q])
            Py_DECREF(<object>vals[q])
        n_read[0] = 0
        tok_end = 0
        for tok in seq:
            if type(tok) is not dict or tok_end >= cap - 1:
                return False
            pos = 0
            k = 0
            while PyDict_Next(<dict>tok, &pos, &key, &value):
                if n_read[0] >= cap - 1:
                    return False  # (a dict that grew since pass 1)
                q = n_read[0]
                Py_INCREF(<object>key)
                Py_INCREF(<object>value)
                keys[q] = key
                vals[q] = value
                n_read[0] = q + 1
                f = <object>key
                v = <object>value
                if PyUnicode_Check(v):
                    if type(f) is str and type(v) is str:
                        name = _name_id(<str>f, k, last_names, last_ids, name_ids)
                        h = _pair_hash(PyObject_Hash(value), name)
                        kinds[q] = PAIR
                        names[q] = name
                        hashes[q] = h
                        # (both cache lines a slot may straddle)
                        slot = &table.slots[<size_t>h & table.mask]
                        SEQ_PREFETCH(slot)
                        SEQ_PREFETCH((<char *>slot) + sizeof(Slot) - 1)
                    else:
                        kinds[q] = NAMED
                elif PyFloat_CheckExact(v):
                    kinds[q] = NUMBER
                    names[q] = -1
                    if type(f) is str:
                        names[q] = _name_id(<str>f, k, last_names, last_ids, name_ids)
                else:
                    return False
                k += 1
            ends[tok_end] = n_read[0]
            tok_end += 1
        # the lookups, in order of appearance
        q = 0
        for k in range(tok_end):
            if t >= n_tokens:
                return False
            while q < ends[k]:
                f = <object>keys[q]
                v = <object>vals[q]
                if kinds[q] == PAIR:
                    length = _inline_length(vals[q])
                    if _find(table, hashes[q], names[q], vals[q], length, &slot):
                        j = slot.column
                    else:
                        j = _new_column(vocab, f"{f}={v}", grow)
                        if j > _INT32_MAX:
                            return False
                        # (_new_column may run no code of the input: the
                        # slot found is still the one to fill)
                        Py_INCREF(v)
                        slot.key = vals[q]
                        slot.h = hashes[q]
                        slot.name = names[q]
                        slot.column = <int>j
                        slot.length = length
                        if length > 0:
                            memcpy(slot.data, PyUnicode_DATA(vals[q]), length)
                        table.used += 1
                        if 10 * table.used > 7 * (table.mask + 1):
                            _grow(table)
                    x = 1.0
                elif kinds[q] == NAMED:
                    j = _new_column(vocab, f"{f}={v}", grow)
                    x = 1.0
                else:
                    name = names[q]
                    if name >= 0 and name < len(number_columns) and (
                            number_columns[name] is not None):
                        # (a name's column does not change within a call)
                        j = PyLong_AsLongLong(number_columns[name])
                    else:
                        found = vocab.get(f)
                        if found is None:
                            if grow:
                                j = len(vocab)
                                vocab[f] = j
                            else:
                                j = -1
                        else:
                            j = PyLong_AsLongLong(found)
                        if name >= 0:
                            while len(number_columns) <= name:
                                number_columns.append(None)
                            number_columns[name] = j
                    x = PyFloat_AS_DOUBLE(v)
                q += 1
                if j < 0:
                    continue
                if j > _INT32_MAX or n >= total:
                    return False
                out_columns[n] = <int>j
                out_values[n] = x
                n += 1
            # (sorted while the row is in cache)
            if not _sort_row(out_values, out_columns, row_starts[t], n):
                return False
            t += 1
            row_starts[t] = <int>n
        sent_offsets[s + 1] = t
    return t == n_tokens


cdef inline int _name_id(str f, Py_ssize_t k, list last_names, int *last_ids,
                         dict name_ids) except -1:
    """The id of the feature name ``f`` at position ``k`` of its token: the
    previous token's at that position when the name is the same (one
    string comparison), else from ``name_ids`` (a new name a new id)."""
    cdef object last = last_names[k]
    cdef object found
    if last is not None and <str>last == f:
        return last_ids[k]
    found = name_ids.get(f)
    if found is None:
        found = name_ids[f] = len(name_ids)
    last_names[k] = f
    last_ids[k] = <int>PyLong_AsLongLong(found)
    return last_ids[k]


cdef long long _new_column(dict vocab, str name, bint grow) except -2:
    """The column of the feature ``name``: its column in ``vocab``, the next
    one (added) with ``grow``, else -1."""
    cdef object j
    if grow:  # (one lookup: the column it has, or the next one, added)
        return PyLong_AsLongLong(<object>PyDict_SetDefault(vocab, name, len(vocab)))
    j = vocab.get(name)
    if j is None:
        return -1
    return PyLong_AsLongLong(j)


cdef bint _sort_row(double *values, int *columns, Py_ssize_t lo,
                   Py_ssize_t hi) noexcept nogil:
    """Sort the entries ``lo:hi`` of a row by column (a stable insertion
    sort: rows are short); False when the row holds a column twice or a
    value that is not finite."""
    cdef Py_ssize_t a, b
    cdef int c
    cdef double x
    for a in range(lo, hi):
        c = columns[a]
        x = values[a]
        if not isfinite(x):
            return False
        b = a
        while b > lo and columns[b - 1] > c:
            columns[b] = columns[b - 1]
            values[b] = values[b - 1]
            b -= 1
        columns[b] = c
        values[b] = x
    for a in range(lo + 1, hi):
        if columns[a] == columns[a - 1]:
            return False
    return True


def encode_str_labels(list y, const long long[::1] offsets, dict index):
    """The class codes of the label sequences ``y`` (each a list or tuple
    of exact ``str``, one per token of the sentence ``offsets`` says).

    With ``index`` (label to code) the codes are its; without, each label
    gets the code of its first appearance.  Returns ``(codes, seen)``:
    int32 codes and the dict of the labels met (label to code); or None
    when a sequence is of another type, is empty, has another length, or a
    label is not in ``index``."""
    cdef Py_ssize_t n_seq = offsets.shape[0] - 1, s, i, t = 0, length
    if len(y) != n_seq or n_seq == 0:
        return None
    codes_arr = np.empty(offsets[n_seq], dtype=np.int32)
    cdef int[::1] codes = codes_arr
    cdef dict seen = {} if index is None else index
    cdef object yi, label, code
    for s in range(n_seq):
        yi = y[s]
        if type(yi) is not list and type(yi) is not tuple:
            return None
        length = len(yi)
        if length == 0 or length != offsets[s + 1] - offsets[s]:
            return None
        for i in range(length):
            label = yi[i]
            if type(label) is not str:
                return None
            code = seen.get(label)
            if code is None:
                if index is not None:
                    return None
                code = seen[label] = len(seen)
            codes[t] = <int>PyLong_AsLongLong(code)
            t += 1
    return codes_arr, seen


def publish_emissions(const double[:, ::1] W, const double[:, ::1] U, double t,
                      bint average, double[:, ::1] out):
    """``out[k, f] = W[f, k] - U[f, k] / t`` (``W[f, k]`` without
    ``average``): the public emission weights ``coef_`` (class-major) from
    the kernel's feature-major ones, in one blocked pass, the values
    NumPy's ``W - U / t`` gives."""
    cdef Py_ssize_t n_features = W.shape[0], L = W.shape[1], f, k, f0, f1
    cdef Py_ssize_t block = 256
    if out.shape[0] != L or out.shape[1] != n_features:
        raise ValueError("out must be (n_classes, n_features)")
    if average and (U.shape[0] != n_features or U.shape[1] != L):
        raise ValueError("U must have the shape of W")
    with nogil:
        if L > 0 and n_features > 0:
            seq_small_pages(&out[0, 0], L * n_features * sizeof(double))
        f0 = 0
        while f0 < n_features:
            f1 = f0 + block if f0 + block < n_features else n_features
            for k in range(L):
                if average:
                    for f in range(f0, f1):
                        out[k, f] = W[f, k] - U[f, k] / t
                else:
                    for f in range(f0, f1):
                        out[k, f] = W[f, k]
            f0 = f1
