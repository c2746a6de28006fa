"""The atomic block of an estimator's call, compiled.

Python runs its signal handlers (``KeyboardInterrupt``, a handler that
raises) between any two bytecodes of a Python function, including the
first one: a lock taken in Python code is left held if an interrupt falls
between ``acquire()`` and the ``try`` that releases it, or at the start of an
``__exit__`` written in Python.  Compiled code runs no handler between its
own statements, so :class:`AtomicBlock` takes the estimator's lock and enters
the ``try`` that gives it back with nothing in between, and its ``__exit__``
gives it back whatever is raised while it puts the estimator back: an
interrupt at any bytecode of the caller leaves the lock free.  Putting the
journal's entries back (:func:`restore_entries`) runs no Python code
either, so an interrupt cannot cut it short.
"""

import contextvars
import functools
import threading
import weakref

import numpy as np

from ._shuffle import set_mt19937_words

__all__ = [
    "AtomicBlock",
    "JOURNAL",
    "RawWords",
    "estimator_lock",
    "locked_read",
    "restore_entries",
]

#: The journal of the innermost atomic block of this thread (or None).
JOURNAL = contextvars.ContextVar("sklearn_pa_journal", default=None)

_LOCKS = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()
# (the weak dictionary's own table, read as its get() does, without its
# Python frame: a read of one row takes the lock too)
cdef dict _LOCK_TABLE = _LOCKS.data
_ref = weakref.ref


def estimator_lock(estimator):
    """The re-entrant lock that serialises the calls on ``estimator`` (held
    by its atomic blocks and by its reads): one per live estimator, kept
    outside it, so that pickling and cloning are unaffected."""
    lock = _LOCK_TABLE.get(_ref(estimator))
    if lock is None:
        with _LOCKS_GUARD:
            lock = _LOCKS.get(estimator)
            if lock is None:
                lock = _LOCKS[estimator] = threading.RLock()
    return lock


class RawWords:
    """The raw state of a ``RandomState``'s ``MT19937`` bit generator, saved
    by a journal."""

    __slots__ = ("words",)

    def __init__(self, words):
        self.words = words


def restore_entries(list entries, list generators, list lists):
    """Write the journal's saved entries back (the latest first), put every
    saved generator back in its state, cut every saved list back, and
    empty the three lists."""
    for array, rows, content in reversed(entries):
        if rows is None:
            array[...] = content
        else:
            array[rows] = content
    for generator, state in generators:
        if isinstance(state, RawWords):
            set_mt19937_words(generator._bit_generator, state.words)
        elif isinstance(generator, np.random.RandomState):
            generator.set_state(state)
        else:
            generator.bit_generator.state = state
    for items, length in lists:
        del items[length:]
    entries.clear()
    generators.clear()
    lists.clear()


cdef class AtomicBlock:
    """Leave an estimator exactly as it was if the block raises, holding
    its lock meanwhile (see the module docstring).

    A subclass names the class of the journal (``journal_type``: a class
    with ``save_generator`` and the lists ``_entries``, ``_generators``,
    ``_lists`` that :func:`restore_entries` reads).
    """

    cdef object _estimator, _lock, _saved, _journal, _token

    def __init__(self, estimator):
        self._estimator = estimator

    def __enter__(self):
        lock = estimator_lock(self._estimator)
        lock.acquire()
        # (no handler can run here: compiled code)
        try:
            saved = dict(self._estimator.__dict__)
            journal = self.journal_type()
            journal.save_generator(saved.get("random_state"))
            self._token = JOURNAL.set(journal)
        except BaseException:
            lock.release()
            raise
        self._lock, self._saved, self._journal = lock, saved, journal
        return journal

    def __exit__(self, kind, value, traceback):
        lock, saved, journal = self._lock, self._saved, self._journal
        self._lock = self._saved = self._journal = None
        try:
            JOURNAL.reset(self._token)
            if kind is not None:
                restore_entries(journal._entries, journal._generators, journal._lists)
                values = self._estimator.__dict__
                values.clear()
                values.update(saved)
        finally:
            lock.release()
        return False


def locked_read(method):
    """A read method (``predict``, ``decision_function``, ...) run holding
    the estimator's lock (:func:`estimator_lock`): it never sees a call of
    another thread half done (its kernel pass, its restore after a
    failure), and what it publishes (an average left pending) is written
    under the lock, never over a call in progress.  (Compiled: the lock
    costs a read of one row no Python frame.)"""

    def read(self, *args, **kwargs):
        with estimator_lock(self):
            return method(self, *args, **kwargs)

    functools.update_wrapper(read, method)
    return read
