"""A call is atomic and thread-safe whatever interrupts it.

A failing or interrupted call leaves the estimator as it was; the lock that
serialises the calls on an estimator is never left held; reads (``predict``,
a learned attribute, pickling) never write the estimator outside that lock;
``fit`` with averaging never writes into an array a published ``coef_``
views.
"""

import _thread
import copy
import sys
import threading

import numpy as np
import pytest
from sklearn import get_config

from sklearn_pa import (
    AROWClassifier,
    KernelPassiveAggressiveClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    ROMMAClassifier,
)
from sklearn_pa._validation import current_journal, estimator_lock


def _data(n_rows=200, n_features=8, seed=0, n_classes=3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_rows, n_features))
    y = rng.randint(n_classes, size=n_rows)
    return X, y


def _learn(est, X, y, **kwargs):
    if isinstance(est, PassiveAggressiveOneClass):
        return est.partial_fit(X, **kwargs)
    if isinstance(est, PassiveAggressiveRegressor):
        return est.partial_fit(X, y.astype(float), **kwargs)
    return est.partial_fit(X, y, **kwargs)


INTERRUPTED = [
    pytest.param(lambda: PassiveAggressiveClassifier(random_state=0), id="PA"),
    pytest.param(
        lambda: PassiveAggressiveClassifier(average=False, random_state=0),
        id="PA-unaveraged",
    ),
    pytest.param(lambda: AROWClassifier(random_state=0), id="AROW"),
    pytest.param(lambda: ROMMAClassifier(random_state=0), id="ROMMA"),
    pytest.param(lambda: KernelPassiveAggressiveClassifier(), id="kernel-PA"),
    pytest.param(lambda: OnlineBayesPointClassifier(random_state=0), id="BPM"),
    pytest.param(lambda: PassiveAggressiveOneClass(), id="one-class"),
]


def _other_thread_learns(est, X, y, timeout=20.0):
    """Whether a ``partial_fit`` from another thread finishes in time."""
    done = []
    worker = threading.Thread(target=lambda: done.append(_learn(est, X, y)))
    worker.start()
    worker.join(timeout)
    return bool(done)


def _scores(est, X):
    if hasattr(est, "decision_function"):
        return est.decision_function(X)
    return est.predict(X)


def _started(factory, X, y):
    est = factory()
    if isinstance(est, PassiveAggressiveOneClass):
        return est.partial_fit(X)
    return est.partial_fit(X, y, classes=[0, 1, 2])


def _assert_free(est):
    # the main thread would own the lock had it been left held
    assert not estimator_lock(est)._is_owned(), "the lock was left held"
    assert current_journal() is None
    assert not get_config()["skip_parameter_validation"]


class _InterruptAt:
    """A profile function that raises ``KeyboardInterrupt`` at the
    ``at``-th point where CPython may run a signal handler: the start of a
    Python frame, and right after any call (Python or compiled) returns,
    where the exception is raised at the caller's call instruction, as a
    handler's would be; ``at=None`` counts the points."""

    def __init__(self, at=None):
        self.at, self.count = at, 0

    def __call__(self, frame, event, arg):
        if event in ("call", "return", "c_return"):
            self.count += 1
            if self.count == self.at:
                raise KeyboardInterrupt

    def run(self, call):
        sys.setprofile(self)
        try:
            call()
        except KeyboardInterrupt:
            return True
        finally:
            sys.setprofile(None)
        return False


@pytest.mark.parametrize(
    "factory, n_rows",
    [pytest.param(p.values[0], 1 + i % 2, id=p.id) for i, p in enumerate(INTERRUPTED)],
)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_at_any_point_of_a_call_leaves_the_lock_free(factory, n_rows):
    """``KeyboardInterrupt`` raised in turn at every point of a later call
    where a signal handler may run (between taking the lock and the ``try``
    that gives it back, at the start of the block's exit, anywhere else):
    afterwards the lock is free, no journal is left current, scikit-learn's
    parameter validation is on again, the model is the one before the call
    or the one after it, and another thread's call does not block."""
    X, y = _data()
    est = _started(factory, X[:20], y[:20])
    _learn(est, X[20:21], y[20:21])
    batch = X[30 : 30 + n_rows], y[30 : 30 + n_rows]
    after = copy.deepcopy(est)
    _learn(after, *batch)
    expected = _scores(after, X[:10])
    counter, copied = _InterruptAt(), copy.deepcopy(est)
    counter.run(lambda: _learn(copied, *batch))
    assert counter.count > 20
    before = _scores(est, X[:10])
    # (every point of a short call; evenly spaced ones of a longer one)
    for at in range(1, counter.count + 1, max(1, counter.count // 600)):
        interrupted = copy.deepcopy(est)
        if not _InterruptAt(at).run(lambda e=interrupted: _learn(e, *batch)):
            continue
        _assert_free(interrupted)
        scores = _scores(interrupted, X[:10])
        if np.array_equal(scores, expected):
            continue  # interrupted once the call was done
        np.testing.assert_array_equal(scores, before, err_msg=f"point {at}")
        # the call again gives the model of an uninterrupted one
        _learn(interrupted, *batch)
        np.testing.assert_array_equal(_scores(interrupted, X[:10]), expected)
    assert _other_thread_learns(interrupted, *batch)


@pytest.mark.parametrize("factory", INTERRUPTED[:3])
def test_timed_interrupts_leave_the_lock_free(factory):
    """Real ``KeyboardInterrupt`` signals at random offsets into a stream of
    calls: the lock is free after each, and another thread's call does not
    block."""
    X, y = _data()
    est = _started(factory, X[:20], y[:20])
    rng = np.random.RandomState(0)
    for attempt in range(150):
        i = attempt % 190
        rows = slice(i, i + 1 + attempt % 3)
        timer = threading.Timer(rng.uniform(0, 1e-3), _thread.interrupt_main)
        try:
            timer.start()
            while True:
                _learn(est, X[rows], y[rows])
        except KeyboardInterrupt:
            pass
        timer.join()
        _assert_free(est)
    assert _other_thread_learns(est, X[:5], y[:5])
