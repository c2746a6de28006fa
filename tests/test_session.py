"""One session per estimator: everything a later call reuses lives in one
object (:class:`sklearn_pa._core.session.Session`), restored with the estimator
when a call fails, never written by a read outside the lock, never carried
by a pickle, a copy or a clone.

Every test runs over every public estimator, found by discovery.
"""

import copy
import importlib
import pickle
import pkgutil
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest
from _capabilities import estimators_for, learns
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import get_config, set_config
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

import sklearn_pa
from sklearn_pa._core.session import Session, session_of
from sklearn_pa.utils import _atomic

ALL = estimators_for("session")


@pytest.fixture(autouse=True)
def _sklearn_config():
    """scikit-learn's configuration put back after each test (an exception
    raised inside scikit-learn's own ``fit`` wrapper may leave it set)."""
    saved = get_config()
    yield
    set_config(**saved)


def _is_tagger(Estimator):
    return Estimator.__module__.startswith("sklearn_pa.sequence")


def _stream_data(Estimator, n_rows=40, seed=0):
    """Rows (or sentences) and labels for a stream of ``Estimator``."""
    rng = np.random.RandomState(seed)
    if _is_tagger(Estimator):
        labels = np.array(["B", "I", "O"])
        X, y = [], []
        for _ in range(n_rows):
            length = rng.randint(2, 5)
            words = rng.randint(30, size=(length, 2))
            X.append([{"w": f"w{a}", "p": f"p{b}"} for a, b in words])
            y.append(labels[rng.randint(3, size=length)].tolist())
        return X, y
    X = rng.normal(size=(n_rows, 5))
    y = rng.randint(3, size=n_rows)
    return X, y


def _make(Estimator):
    est = Estimator()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


def _batch(X, y, i, size=2):
    rows = slice(10 + size * i, 10 + size * (i + 1))
    return X[rows], y[rows]


def _failing_batch(Estimator, X, y):
    """A batch every estimator refuses after reading part of it."""
    if _is_tagger(Estimator):
        return X, [labels[:-1] + ["Z"] for labels in y]
    X = np.array(X, dtype=float)
    X[-1, 0] = np.nan
    return X, y


def _first_call(est, X, y):
    if _is_tagger(type(est)):
        return est.partial_fit(X, y, classes=["B", "I", "O"])
    return learns(est, X, y, first=True)


def _streamed(Estimator, X, y, n_calls=2):
    """An estimator after a first ``partial_fit`` call and ``n_calls``
    later ones (the stream's set-up made)."""
    est = _make(Estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _first_call(est, X[:10], y[:10])
        for i in range(n_calls):
            learns(est, *_batch(X, y, i))
    return est


def _outputs(est, X):
    """What the model says of ``X`` and its public learned arrays (reading
    them publishes what a call left pending)."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predicted = est.predict(X)
        out.append(
            np.concatenate(predicted) if isinstance(predicted, list) else predicted
        )
        for method in ("decision_function", "score_samples"):
            if hasattr(est, method):
                out.append(getattr(est, method)(X))
    # every name a call may leave to be formed when read (``coef_``,
    # ``center_``, a tagger's weights, ...), so that a model whose reader
    # formed one and a model nobody read compare alike
    published = {"coef_", "intercept_"}
    for _, names, _ in getattr(type(est), "_pending_publications", ()):
        published.update(names)
    for name in sorted(published):
        getattr(est, name, None)  # (publishes what a call left pending)
    for name in sorted(vars(est)):
        value = vars(est)[name]
        if name.endswith("_") and not name.startswith("_"):
            if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
                out.append(value)
    return out


def _assert_same_outputs(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def _state(est):
    """The attributes (objects, and a copy of each array's content) and
    the session's entries of ``est``."""
    values = dict(vars(est))
    contents = {
        name: value.copy()
        for name, value in values.items()
        if isinstance(value, np.ndarray)
    }
    return values, contents, session_of(est).saved()


def _assert_state(est, state):
    values, contents, session = state
    assert vars(est).keys() == values.keys()
    for name, value in values.items():
        assert vars(est)[name] is value, name
    for name, content in contents.items():
        np.testing.assert_array_equal(vars(est)[name], content, err_msg=name)
    now = session_of(est).saved()
    for slot, before, after in zip(Session.saved_slots, session, now):
        assert after is before, f"session.{slot}"


# ---------------------------------------------------------------------------
# (a) no registry of per-estimator state outside the session


def test_no_module_level_registry_of_estimators_but_the_sessions():
    """The only weak-key dictionary among the package's modules is the
    registry of sessions (:mod:`sklearn_pa.utils._atomic`)."""
    found = []
    for info in pkgutil.walk_packages(sklearn_pa.__path__, "sklearn_pa."):
        if ".tests" in info.name or info.name.startswith("sklearn_pa.benchmark"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency
            continue
        for name, value in vars(module).items():
            if isinstance(
                value, (weakref.WeakKeyDictionary, weakref.WeakValueDictionary)
            ):
                found.append(f"{info.name}.{name}")
    assert found == ["sklearn_pa.utils._atomic._SESSIONS"]


@pytest.mark.parametrize("name, Estimator", ALL)
def test_a_stream_keeps_its_reused_state_in_its_session_only(name, Estimator):
    """A streamed estimator holds no session object in its attributes; its
    session is the one registered for it, holding its lock."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    session = session_of(est)
    assert isinstance(session, Session)
    assert _atomic._SESSIONS[est] is session
    assert _atomic.estimator_lock(est) is session.lock
    assert not any(isinstance(v, Session) for v in vars(est).values())


# ---------------------------------------------------------------------------
# (b) a failing later call restores the estimator and its session


@pytest.mark.parametrize("name, Estimator", ALL)
def test_a_refused_later_batch_restores_estimator_and_session(name, Estimator):
    """A later batch refused after part of it was read leaves the estimator
    and its session as they were (the same objects, the same contents), and
    the next call gives what it gives on an estimator that never saw the
    refused batch."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    twin = _streamed(Estimator, X, y)
    state = _state(est)
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learns(est, *_failing_batch(Estimator, *_batch(X, y, 2)))
    _assert_state(est, state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learns(est, *_batch(X, y, 3))
        learns(twin, *_batch(X, y, 3))
    _assert_same_outputs(_outputs(est, X[:8]), _outputs(twin, X[:8]))


class _Injected(Exception):
    """The error injected into a call."""


class _FailAt:
    """A profile function that raises :class:`_Injected` at the ``at``-th
    Python frame start or call return of the call it runs (``at=None``
    counts them)."""

    def __init__(self, at=None):
        self.at, self.count = at, 0

    def __call__(self, frame, event, arg):
        if event in ("call", "return", "c_return"):
            self.count += 1
            if self.count == self.at:
                raise _Injected

    def run(self, call):
        sys.setprofile(self)
        try:
            call()
        except _Injected:
            return True
        finally:
            sys.setprofile(None)
        return False


def _check_failure_at(Estimator, at, X, y):
    """Inject an error at point ``at`` of a later call; the estimator is
    then either as before (objects, contents and session) or as after the
    call, and the next call agrees with the matching twin."""
    est = _streamed(Estimator, X, y)
    before = _state(est)
    batch, after = _batch(X, y, 2), _batch(X, y, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failed = _FailAt(at).run(lambda: learns(est, *batch))
    assert not _atomic.estimator_lock(est)._is_owned()
    values = before[0]
    restored = vars(est).keys() == values.keys() and all(
        vars(est)[k] is v for k, v in values.items()
    )
    if failed and restored:
        _assert_state(est, before)
    twin = _streamed(Estimator, X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not restored:  # the call had completed when the error came
            learns(twin, *batch)
        learns(est, *after)
        learns(twin, *after)
    _assert_same_outputs(_outputs(est, X[:8]), _outputs(twin, X[:8]))


def _n_points(Estimator, X, y):
    est = _streamed(Estimator, X, y)
    counter = _FailAt()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counter.run(lambda: learns(est, *_batch(X, y, 2)))
    return counter.count


@pytest.mark.parametrize("name, Estimator", ALL)
def test_an_error_at_any_point_of_a_later_call_restores_the_session(name, Estimator):
    """An error raised at points spread over a later call (validation, the
    set-up, the compiled pass's neighbours, the publication) leaves the
    estimator and its session as they were, or the call complete; the next
    call then gives what it gives on an estimator that never saw it (or
    saw it complete)."""
    X, y = _stream_data(Estimator)
    n = _n_points(Estimator, X, y)
    for at in sorted({1, 2, 3, n // 4, n // 2, (3 * n) // 4, n - 1, n}):
        if at >= 1:
            _check_failure_at(Estimator, at, X, y)


_FEW = [
    p
    for p in ALL
    if p.id
    in ("PassiveAggressiveClassifier", "AROWClassifier", "OnlineBayesPointClassifier")
]


@pytest.mark.parametrize("name, Estimator", _FEW)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(fraction=st.floats(0.0, 1.0), seed=st.integers(0, 5))
def test_an_error_anywhere_restores_the_session_hypothesis(
    name, Estimator, fraction, seed
):
    """:func:`test_an_error_at_any_point_of_a_later_call_restores_the_session`
    at points and data drawn by hypothesis."""
    X, y = _stream_data(Estimator, seed=seed)
    n = _n_points(Estimator, X, y)
    _check_failure_at(Estimator, max(1, int(round(fraction * n))), X, y)


# ---------------------------------------------------------------------------
# (c) reads write neither the attributes nor the session


def _reads(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_is_fitted(est)
        est.predict(X)
        est.predict(X[:1])
        for method in ("decision_function", "score_samples", "predict_proba"):
            if hasattr(est, method):
                try:
                    getattr(est, method)(X)
                except (AttributeError, NotImplementedError, ValueError):
                    pass
        for attribute in ("coef_", "intercept_", "center_", "dual_coef_"):
            getattr(est, attribute, None)
        pickle.dumps(est)


@pytest.mark.parametrize("name, Estimator", ALL)
def test_reads_change_neither_the_attributes_nor_the_session(name, Estimator):
    """Once a stream's publications are read, further reads (``predict`` on
    both paths, the scores, probabilities, learned attributes, pickling,
    ``check_is_fitted``) change neither the attributes nor the session.
    The one entry a read may make, holding the lock, is the probabilities'
    calibration fitted to the recorded margins (made by the first read)."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    _reads(est, X[:6])  # (publishes what the last call left pending)
    state = _state(est)
    _reads(est, X[:6])
    _reads(est, X[:3])
    _assert_state(est, state)


@pytest.mark.parametrize("name, Estimator", ALL)
def test_predict_on_a_pending_stream_leaves_the_session(name, Estimator):
    """``predict`` right after a ``partial_fit`` call (a publication left
    pending) never writes the session."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    session = session_of(est).saved()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.predict(X[:1])
        est.predict(X[:6])
    assert all(a is b for a, b in zip(session, session_of(est).saved()))


# ---------------------------------------------------------------------------
# (d) pickles, copies and clones carry no session


def _has_session(est):
    return _atomic._SESSIONS.get(est) is not None


@pytest.mark.parametrize("name, Estimator", ALL)
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_copies_carry_no_session_and_continue_identically(name, Estimator, how):
    """A pickled, deep-copied or copied streamed estimator has no session
    (nor a session object among its attributes) until its own first call,
    never shares the original's, and continues the stream exactly as the
    original does."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    twin = _streamed(Estimator, X, y)
    other = {
        "pickle": lambda e: pickle.loads(pickle.dumps(e)),
        "deepcopy": copy.deepcopy,
        "copy": copy.copy,
    }[how](est)
    assert not _has_session(other)
    assert not any(isinstance(v, Session) for v in vars(other).values())
    if how == "copy":
        other = copy.deepcopy(other)  # (shares arrays with est otherwise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learns(other, *_batch(X, y, 2))
        learns(twin, *_batch(X, y, 2))
    assert session_of(other) is not session_of(est)
    _assert_same_outputs(_outputs(other, X[:8]), _outputs(twin, X[:8]))


@pytest.mark.parametrize("name, Estimator", ALL)
def test_a_clone_carries_no_session(name, Estimator):
    """A clone of a streamed estimator has no session and learns as a new
    estimator does."""
    X, y = _stream_data(Estimator)
    est = _streamed(Estimator, X, y)
    fresh = clone(est)
    assert not _has_session(fresh)
    assert not any(isinstance(v, Session) for v in vars(fresh).values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _first_call(fresh, X[:10], y[:10])
        for i in range(2):
            learns(fresh, *_batch(X, y, i))
    _assert_same_outputs(
        _outputs(fresh, X[:8]), _outputs(_streamed(Estimator, X, y), X[:8])
    )


# ---------------------------------------------------------------------------
# (e) threads: two writers (one failing half of the time), two readers


@pytest.mark.parametrize("name, Estimator", ALL)
def test_threads_never_lose_the_model(name, Estimator):
    """Two threads learn (one's batches refused half of the time) while two
    read (``predict``, the scores, learned attributes, pickling,
    ``check_is_fitted``): no read fails, the model is never lost, and it is
    the one a sequential replay of the successful calls gives."""
    X, y = _stream_data(Estimator, n_rows=60)
    est = _streamed(Estimator, X, y, n_calls=0)
    start = _streamed(Estimator, X, y, n_calls=0)
    order, errors, stop = [], [], threading.Event()
    order_lock = threading.Lock()

    def batch(i, failing):
        Xb, yb = _batch(X, y, i, size=1)
        return _failing_batch(Estimator, Xb, yb) if failing else (Xb, yb)

    def write(first, fail):
        try:
            for i in range(first, first + 20):
                failing = fail and i % 2 == 0
                with order_lock:  # (the order the calls ran in, for the replay)
                    try:
                        learns(est, *batch(i, failing))
                    except ValueError:
                        if not failing:
                            raise
                    else:
                        order.append(i)
        except BaseException as exc:
            errors.append(exc)
        finally:
            stop.set()

    def read():
        try:
            while not stop.is_set():
                _reads(est, X[:4])
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(0, False)),
        threading.Thread(target=write, args=(20, True)),
        threading.Thread(target=read),
        threading.Thread(target=read),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    for exc in errors[:1]:
        raise exc
    replay = start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in order:
            learns(replay, *batch(i, False))
    check_is_fitted(est)
    _assert_same_outputs(_outputs(est, X[:8]), _outputs(replay, X[:8]))
