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

The lock is that of the estimator's session (:func:`session_of`): the one
object, kept outside the estimator in the one registry here, that holds
everything a later call reuses.  A block saves the session's entries on
entry and puts them back with the estimator's attributes when it fails.
"""

import contextvars
import functools
import operator
import threading
import weakref

import numpy as np

from ._shuffle import set_mt19937_words

__all__ = [
    "AtomicBlock",
    "JOURNAL",
    "RawWords",
    "WRITTEN",
    "estimator_lock",
    "locked_read",
    "restore_entries",
    "session_of",
    "set_session_type",
]

#: The ``rows`` of a journal entry whose saved content is a write log
#: (``_compiled/_write_log.pyx``): the entries a compiled pass wrote, each
#: with its value before the write; restoring it undoes the writes.
WRITTEN = object()

#: The journal of the innermost atomic block of this thread (or None).
JOURNAL = contextvars.ContextVar("sklearn_pa_journal", default=None)

#: estimator -> its session (the lock that serialises its calls and what a
#: later call reuses): the one registry of per-estimator state, keyed by
#: identity and held weakly, so that a pickle, a copy or a clone of an
#: estimator never carries, nor shares, the session of another.
_SESSIONS = weakref.WeakKeyDictionary()
_SESSIONS_GUARD = threading.Lock()
# (the weak dictionary's own table, read as its get() does, without its
# Python frame: a read of one row takes the lock too)
cdef dict _SESSION_TABLE = _SESSIONS.data
_ref = weakref.ref


class LockOnlySession:
    """The session of an estimator when no richer session type was
    registered (:func:`set_session_type`): its lock only."""

    __slots__ = ("lock",)

    #: the slots an atomic block saves and puts back (none)
    saved_slots = ()

    def __init__(self):
        self.lock = threading.RLock()


cdef object _session_type = LockOnlySession
cdef tuple _saved_slots = ()
# (the saved slots read in one call: operator.attrgetter of their names)
cdef object _read_slots = None


def set_session_type(session_type):
    """Make ``session_type()`` the session of every estimator seen from now
    on: a class with the slot ``lock`` (a fresh ``threading.RLock``) and the
    tuple ``saved_slots`` of the slots an atomic block saves on entry and
    puts back when the block fails."""
    global _session_type, _saved_slots, _read_slots
    _session_type = session_type
    _saved_slots = tuple(session_type.saved_slots)
    _read_slots = operator.attrgetter(*_saved_slots) if _saved_slots else None


def session_of(estimator):
    """The session of ``estimator``: one per live estimator, made the first
    time it is asked for, kept outside the estimator (by identity, weakly)
    so that its attributes, pickles, copies and clones are those of a model
    without it."""
    session = _SESSION_TABLE.get(_ref(estimator))
    if session is None:
        with _SESSIONS_GUARD:
            session = _SESSIONS.get(estimator)
            if session is None:
                session = _SESSIONS[estimator] = _session_type()
    return session


def estimator_lock(estimator):
    """The re-entrant lock that serialises the calls on ``estimator`` (held
    by its atomic blocks and by its reads): that of its session
    (:func:`session_of`)."""
    return session_of(estimator).lock


cdef tuple _save_session(session):
    """The values of the session's saved slots (missing ones as None)."""
    if _read_slots is None:
        return ()
    try:
        saved = _read_slots(session)
    except AttributeError:  # (a slot never set)
        return tuple([getattr(session, name, None) for name in _saved_slots])
    return saved if len(_saved_slots) > 1 else (saved,)


cdef _restore_session(session, tuple saved):
    """Put back the values :func:`_save_session` returned (compiled: no
    Python code runs in between, an interrupt cannot cut it short)."""
    cdef Py_ssize_t i
    if len(saved) != len(_saved_slots):
        return
    for i in range(len(saved)):
        setattr(session, _saved_slots[i], saved[i])


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
        elif rows is WRITTEN:
            content.undo()
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

    cdef object _estimator, _lock, _saved, _journal, _token, _session, _saved_session

    def __init__(self, estimator):
        self._estimator = estimator

    def __enter__(self):
        session = session_of(self._estimator)
        lock = session.lock
        lock.acquire()
        # (no handler can run here: compiled code)
        try:
            saved_session = _save_session(session)
            values = self._estimator.__dict__
            saved = values.copy()
            journal = self.journal_type()
            journal.save_generator(saved.get("random_state"))
            self._token = JOURNAL.set(journal)
        except BaseException:
            lock.release()
            raise
        self._lock, self._saved, self._journal = lock, saved, journal
        self._session, self._saved_session = session, saved_session
        return journal

    def __exit__(self, kind, value, traceback):
        lock, saved, journal = self._lock, self._saved, self._journal
        session, saved_session = self._session, self._saved_session
        self._lock = self._saved = self._journal = None
        self._session = self._saved_session = None
        try:
            JOURNAL.reset(self._token)
            if kind is not None:
                restore_entries(journal._entries, journal._generators, journal._lists)
                values = self._estimator.__dict__
                values.clear()
                values.update(saved)
                _restore_session(session, saved_session)
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
