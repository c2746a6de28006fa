"""A call is atomic and thread-safe whatever interrupts it.

A failing or interrupted call leaves the estimator as it was; the lock that
serialises the calls on an estimator is never left held; reads (``predict``,
a learned attribute, pickling) never write the estimator outside that lock;
``fit`` with averaging never writes into an array a published ``coef_``
views.
"""

import _thread
import copy
import pickle
import sys
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import discovered, estimators_for, learns
from sklearn import get_config, set_config
from sklearn.base import is_classifier, is_outlier_detector, is_regressor
from sklearn.utils.validation import check_is_fitted

from sklearn_pa import (
    AROWClassifier,
    KernelPassiveAggressiveClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    ROMMAClassifier,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)
from sklearn_pa._core.batch import current_journal, estimator_lock
from sklearn_pa.utils import all_estimators


@pytest.fixture(autouse=True)
def _sklearn_config():
    """scikit-learn's configuration put back after each test: an interrupt
    inside scikit-learn's own ``fit`` wrapper (its generator-based
    ``config_context``) can leave ``skip_parameter_validation`` set for the
    thread, which would skip the validation of every later test."""
    saved = get_config()
    yield
    set_config(**saved)


def _data(n_rows=200, n_features=8, seed=0, n_classes=3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_rows, n_features))
    y = rng.randint(n_classes, size=n_rows)
    return X, y


def _learn(est, X, y, **kwargs):
    if is_outlier_detector(est):
        return est.partial_fit(X, **kwargs)
    if is_regressor(est):
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
# every other public estimator, found by discovery, with its defaults
INTERRUPTED += [
    pytest.param(make, id=name)
    for name, make in discovered("interrupts", [p.values[0] for p in INTERRUPTED])
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
    if not is_classifier(est):
        return _learn(est, X, y)
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
    started = _started(factory, X[:20], y[:20])

    def streaming():
        # (a copy has no set-up of its own: a later call makes it, so that
        # the interrupted call takes the stream's fast path)
        est = copy.deepcopy(started)
        _learn(est, X[20:21], y[20:21])
        return est

    batch = X[30 : 30 + n_rows], y[30 : 30 + n_rows]
    after = streaming()
    _learn(after, *batch)
    expected = _scores(after, X[:10])
    counter, copied = _InterruptAt(), streaming()
    counter.run(lambda: _learn(copied, *batch))
    assert counter.count > 20
    before = _scores(streaming(), X[:10])
    # (every point of a short call; evenly spaced ones of a longer one)
    for at in range(1, counter.count + 1, max(1, counter.count // 600)):
        interrupted = streaming()
        if not _InterruptAt(at).run(lambda e=interrupted: _learn(e, *batch)):
            continue
        _assert_free(interrupted)
        scores = _scores(interrupted, X[:10])
        if np.array_equal(scores, expected):
            continue  # interrupted once the call was done
        np.testing.assert_array_equal(scores, before, err_msg=f"point {at}")
        # the call again gives the model (and the sample count) of an
        # uninterrupted one
        _learn(interrupted, *batch)
        assert interrupted.t_ == after.t_, f"t_ after point {at}"
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


# --------------------------------------------------------------------------
# Reads never write the estimator outside its lock


def _sentences(n_sentences, seed=0):
    rng = np.random.RandomState(seed)
    labels = np.array(["B", "I", "O"])
    X, y = [], []
    for _ in range(n_sentences):
        length = rng.randint(2, 6)
        X.append(
            [{f"f{k}": f"w{w}" for k, w in enumerate(rng.randint(50, size=4))}] * length
        )
        y.append(labels[rng.randint(3, size=length)].tolist())
    return X, y


# (name, factory, its data, the batch a failing call gets, the reads)
def _tabular(n):
    X, y = _data(n_rows=n, seed=1)
    return X, y


def _bad_rows(X, y):
    X = X.copy()
    X[-1, 0] = np.nan  # refused after the other rows were read
    return X, y


THREADED = [
    ("PA averaged", lambda: PassiveAggressiveClassifier(random_state=0)),
    ("PA average=3", lambda: PassiveAggressiveClassifier(average=3, random_state=0)),
    ("AROW averaged", lambda: AROWClassifier(average=True, random_state=0)),
    ("ROMMA", lambda: ROMMAClassifier(random_state=0)),
    ("BPM", lambda: OnlineBayesPointClassifier(n_estimators=3, random_state=0)),
    ("kernel PA", lambda: KernelPassiveAggressiveClassifier()),
    ("one-class", lambda: PassiveAggressiveOneClass()),
    ("regressor averaged", lambda: PassiveAggressiveRegressor(average=True)),
    ("tagger", lambda: StructuredPerceptron(random_state=0)),
]
# every other public estimator, found by discovery, with its defaults
THREADED += discovered("threads", [make for _, make in THREADED])


def _read(est, X):
    """The reads of the test: a published attribute, the scores (full path
    and lean path), the fitted check, a pickle."""
    check_is_fitted(est)
    for name in ("coef_", "center_", "dual_coef_"):
        if name in type(est).__dict__ or hasattr(est, name):
            getattr(est, name)
            break
    if isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive)):
        est.predict(X)
    else:
        est.predict(X.astype(np.float32))  # the full path
        est.predict(np.ascontiguousarray(X[:2]))
    pickle.loads(pickle.dumps(est))


@pytest.mark.parametrize("name, factory", THREADED, ids=[n for n, _ in THREADED])
def test_reads_in_threads_never_undo_nor_lose_a_call(name, factory):
    """Two threads read (the published weights, ``predict`` on both paths,
    ``check_is_fitted``, pickling) while two threads learn, one of whose
    calls fail half of the time: no read fails, and the model is the one a
    sequential replay of the successful calls gives."""
    est = factory()
    tagger = isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive))
    if tagger:
        X, y = _sentences(200)  # (the writers' batches reach sentence 180)
        kwargs = {"classes": ["B", "I", "O"]}
    else:
        X, y = _data(n_rows=240, seed=1)
        kwargs = {"classes": [0, 1, 2]} if is_classifier(est) else {}
    _learn(est, X[:20], y[:20], **kwargs)
    start = copy.deepcopy(est)
    order, errors, stop = [], [], threading.Event()
    order_lock = threading.Lock()

    def batch(i, failing):
        rows = slice(20 + 2 * i, 22 + 2 * i)
        if not failing:
            return X[rows], y[rows]
        if tagger:
            return X[rows], [labels[:-1] + ["Z"] for labels in y[rows]]
        return _bad_rows(X[rows], y[rows])

    def write(first, fail):
        try:
            for i in range(first, first + 40):
                failing = fail and i % 2 == 0
                Xb, yb = batch(i, failing)
                with order_lock:  # (the order the calls ran in, for the replay)
                    try:
                        _learn(est, Xb, yb)
                    except ValueError:
                        if not failing:
                            raise
                    else:
                        order.append(i)
        except BaseException as exc:  # (a writer's own error fails the test)
            errors.append(exc)
        stop.set()

    def read():
        try:
            while not stop.is_set():
                _read(est, X[:6] if tagger else X[:6])
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(0, False)),
        threading.Thread(target=write, args=(40, True)),
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
    for i in order:
        _learn(replay, *batch(i, False))
    check_is_fitted(est)
    if tagger:
        np.testing.assert_array_equal(
            np.concatenate(est.predict(X[:30])), np.concatenate(replay.predict(X[:30]))
        )
        np.testing.assert_array_equal(est.coef_, replay.coef_)
    else:
        np.testing.assert_array_equal(est.predict(X[:30]), replay.predict(X[:30]))
        np.testing.assert_allclose(
            _scores(est, X[:30]), _scores(replay, X[:30]), rtol=0, atol=0
        )


# --------------------------------------------------------------------------
# fit with averaging never writes into an array a published coef_ views


def _averaging_estimators():
    return [
        pytest.param(Estimator, id=name)
        for name, Estimator in all_estimators(type_filter="all")
        if "average" in Estimator().get_params()
    ]


def _fit_data(Estimator, seed):
    rng = np.random.RandomState(seed)
    if issubclass(Estimator, (StructuredPerceptron, StructuredPassiveAggressive)):
        return _sentences(30, seed=seed)
    X = rng.normal(size=(60, 5))
    if is_regressor(Estimator()):
        return X, X @ rng.normal(size=5)
    return X, rng.randint(3, size=60)


def _published(est):
    names = ("coef_", "intercept_", "transitions_")
    return {n: getattr(est, n) for n in names if hasattr(est, n)}


@pytest.mark.parametrize("Estimator", _averaging_estimators())
@pytest.mark.parametrize("average", [True, 5])
def test_a_failing_fit_with_averaging_leaves_the_published_weights(Estimator, average):
    """A second ``fit`` with averaging that fails after publishing (an
    interrupt at evenly spaced points of it) leaves ``coef_`` and
    ``intercept_`` bit-identical: the failing fit never wrote into the
    arrays they are, nor into an array they view."""
    try:
        Estimator(average=average)._validate_params()
    except ValueError:
        pytest.skip(f"{Estimator.__name__} takes average as a bool only")
    X, y = _fit_data(Estimator, 1)
    counter = _InterruptAt()
    counter.run(lambda: Estimator(average=average, random_state=0).fit(X, y))
    step = max(1, counter.count // 40)
    # (evenly spaced points, and every point of the fit's end, where it
    # publishes)
    points = set(range(1, counter.count + 1, step))
    points |= set(range(max(1, counter.count - 60), counter.count + 1))
    n_interrupted = 0
    for at in sorted(points):
        est = Estimator(average=average, random_state=0)
        est.fit(*_fit_data(Estimator, 0))
        published = _published(est)
        saved = {n: np.array(v, copy=True) for n, v in published.items()}
        if not _InterruptAt(at).run(lambda e=est: e.fit(X, y)):
            continue
        n_interrupted += 1
        current = _published(est)
        if not all(current[n] is published[n] for n in published):
            continue  # interrupted once the fit was done
        for name, value in saved.items():
            np.testing.assert_array_equal(
                published[name], value, err_msg=f"{name} at point {at}"
            )
    assert n_interrupted > 5


# --------------------------------------------------------------------------
# Every target kind learns from the same rows


def _multilabel_classifiers():
    return [
        pytest.param(Estimator, id=name)
        for name, Estimator in all_estimators(type_filter="classifier")
        if any(kind.multi_output for kind in getattr(Estimator, "_target_kinds", ()))
    ]


def _duplicated_csr(X, rng, dtype):
    """A CSR matrix equal to ``X`` whose rows give some entries twice (two
    parts that sum to the entry), in shuffled order."""
    X = sp.csr_matrix(X)
    indptr, indices, data = [0], [], []
    for i in range(X.shape[0]):
        start, end = X.indptr[i], X.indptr[i + 1]
        cols, vals = list(X.indices[start:end]), list(X.data[start:end])
        for j in range(len(cols)):
            if rng.rand() < 0.5:
                cols.append(cols[j])
                part = vals[j] * 0.25
                vals[j] -= part
                vals.append(part)
        order = rng.permutation(len(cols))
        indices += [cols[k] for k in order]
        data += [vals[k] for k in order]
        indptr.append(len(indices))
    dup = sp.csr_matrix(
        (np.asarray(data, dtype=dtype), np.asarray(indices), np.asarray(indptr)),
        shape=X.shape,
    )
    assert not dup.has_canonical_format
    return dup


@pytest.mark.parametrize("Estimator", _multilabel_classifiers())
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize("multilabel", [True, False])
def test_duplicate_csr_entries_are_summed_for_every_target_kind(
    Estimator, dtype, method, multilabel
):
    """A CSR matrix with duplicate entries gives the model of the same
    matrix with them summed, for a multilabel indicator ``y`` as for
    single labels, on ``fit`` and ``partial_fit``, float64 and float32."""
    rng = np.random.RandomState(0)
    X = sp.random(40, 12, density=0.3, format="csr", random_state=rng, dtype=dtype)
    Y = (rng.rand(40, 3) < 0.4).astype(int) if multilabel else rng.randint(3, size=40)
    dup = _duplicated_csr(X, rng, dtype)
    # (duplicates are summed in float64, as on the float64 conversion)
    summed = dup.astype(np.float64)
    summed.sum_duplicates()
    models = []
    for data in (dup, summed):
        est = Estimator(random_state=0)
        if method == "fit":
            est.fit(data, Y)
        else:
            est.partial_fit(data[:20], Y[:20], classes=[0, 1, 2])
            est.partial_fit(data[20:], Y[20:])
        models.append(est)
    np.testing.assert_allclose(models[0].coef_, models[1].coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        models[0].intercept_, models[1].intercept_, rtol=1e-6, atol=1e-9
    )


# --------------------------------------------------------------------------
# The fast path and the full path take the same batches


def _stream_of(Estimator, rng):
    X = rng.normal(size=(40, 4))
    y = rng.randint(2, size=40)
    est = Estimator()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    learns(est, X[:20], y[:20], first=True)
    learns(est, X[20:22], y[20:22])  # a later call (the stream's set-up)
    return est, X, y


@pytest.mark.parametrize("name, Estimator", estimators_for("weighted partial_fit"))
@pytest.mark.parametrize("form", ["dense", "float32", "csr", "list"])
@pytest.mark.parametrize("n_rows", [1, 3])
def test_an_all_zero_sample_weight_batch_is_a_no_op(name, Estimator, form, n_rows):
    """A later batch whose sample weights are all zero moves nothing:
    neither the weights nor ``t_`` nor the average, on the fast path
    (float64 rows) as on the full one (a list), and a batch of
    non-zero weights then gives the model of a stream without it."""
    rng = np.random.RandomState(0)
    est, X, y = _stream_of(Estimator, rng)
    other = copy.deepcopy(est)
    cast = {
        "dense": np.ascontiguousarray,
        "float32": lambda a: a.astype(np.float32),
        "csr": sp.csr_matrix,
        "list": lambda a: a.tolist(),  # (the full path)
    }[form]
    rows = slice(22, 22 + n_rows)
    t = est.t_
    learns(est, cast(X[rows]), y[rows], sample_weight=np.zeros(n_rows))
    assert est.t_ == t
    for model in (est, other):
        learns(model, X[30:33], y[30:33], sample_weight=np.full(3, 0.5))
    assert est.t_ == other.t_
    np.testing.assert_array_equal(_scores(est, X[:10]), _scores(other, X[:10]))


def test_a_classes_list_is_read_on_every_call():
    """A ``classes`` list changed in place between calls is checked again
    (the fast path compares what it holds, not only which object it is),
    as a list of other classes is."""
    X, y = _data()
    for classes_arg in ([0, 1, 2], np.array([0, 1, 2]), (0, 1, 2)):
        est = PassiveAggressiveClassifier(random_state=0)
        est.partial_fit(X[:20], y[:20], classes=classes_arg)
        est.partial_fit(X[20:21], y[20:21], classes=classes_arg)
        est.partial_fit(X[21:22], y[21:22], classes=classes_arg)
        if isinstance(classes_arg, tuple):
            classes_arg = (0, 1, 2, 3)
        elif isinstance(classes_arg, list):
            classes_arg.append(3)
        else:
            classes_arg[2] = 5
        t = est.t_
        with pytest.raises(ValueError, match="classes"):
            est.partial_fit(X[22:23], y[22:23], classes=classes_arg)
        assert est.t_ == t


@pytest.mark.parametrize(
    "factory",
    [
        lambda: PassiveAggressiveClassifier(random_state=0),
        lambda: PassiveAggressiveClassifier(average=False, random_state=0),
        lambda: AROWClassifier(random_state=0),
        lambda: PassiveAggressiveRegressor(random_state=0),
    ],
)
def test_a_reassigned_intercept_scaling_is_seen_by_a_stream(factory):
    """``intercept_scaling_`` assigned between calls is the value the next
    call learns with, on the stream's fast path as on a model that never
    took it."""
    X, y = _data()
    models = []
    for planned in (True, False):
        est = factory()
        _learn(
            est, X[:20], y[:20], **({} if is_regressor(est) else {"classes": [0, 1, 2]})
        )
        if planned:
            _learn(est, X[20:21], y[20:21])  # the stream's plan is made
        else:
            est = pickle.loads(pickle.dumps(est))  # (no plan)
            _learn(est, X[20:21], y[20:21])
            est = pickle.loads(pickle.dumps(est))
        est.intercept_scaling_ = 7.5
        _learn(est, X[21:24], y[21:24])
        models.append(est)
    np.testing.assert_array_equal(models[0].intercept_, models[1].intercept_)
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)


@pytest.mark.parametrize("form", ["dense", "float32"])
def test_kernel_pa_never_predicts_a_class_from_nan_scores(form):
    """A NaN written into ``dual_coef_`` is refused by ``predict`` with what
    to do, on both paths, instead of naming the first class."""
    X, y = _data(n_rows=60)
    est = KernelPassiveAggressiveClassifier().fit(X, y)
    est.dual_coef_.flat[0] = np.nan
    rows = X[:4] if form == "dense" else X[:4].astype(np.float32)
    with pytest.raises(ValueError, match="dual_coef_ .* NaN"):
        est.predict(rows)
    binary = KernelPassiveAggressiveClassifier().fit(X, y % 2)
    binary.dual_coef_.flat[0] = np.nan
    with pytest.raises(ValueError, match="dual_coef_ .* NaN"):
        binary.predict(rows)


@pytest.mark.parametrize(
    "factory",
    [
        lambda: PassiveAggressiveClassifier(average=False, random_state=0),
        lambda: PassiveAggressiveRegressor(average=False, random_state=0),
        lambda: AROWClassifier(random_state=0),
        lambda: AROWClassifier(covariance="full", random_state=0),
    ],
)
@pytest.mark.parametrize("attribute", ["coef_", "intercept_"])
@pytest.mark.parametrize("form", ["dense", "csr", "float32", "list"])
def test_a_nan_written_into_the_weights_is_refused_by_every_path(
    factory, attribute, form
):
    """A NaN or an infinity written in place into ``coef_`` or
    ``intercept_`` between calls is refused, with the message of the full
    check of an assigned array, by the stream's fast path (dense and CSR
    rows) as by the full one, and the model is left as it was."""
    X, y = _data()
    est = factory()
    kwargs = {} if is_regressor(est) else {"classes": [0, 1, 2]}
    _learn(est, X[:20], y[:20], **kwargs)
    _learn(est, X[20:21], y[20:21])
    cast = {
        "dense": np.ascontiguousarray,
        "csr": sp.csr_matrix,
        "float32": lambda a: a.astype(np.float32),
        "list": lambda a: a.tolist(),
    }[form]
    for bad in (np.nan, np.inf):
        weights = getattr(est, attribute)
        weights.flat[0] = bad
        t = est.t_
        with pytest.raises(ValueError, match=f"{attribute} of .* NaN or infinity"):
            _learn(est, cast(X[21:23]), y[21:23])
        assert est.t_ == t
        weights.flat[0] = 0.0
    _learn(est, cast(X[21:23]), y[21:23])
    assert est.t_ == t + 2


# --------------------------------------------------------------------------
# Two first calls in threads: the second sees the first's model


def _first_call_data(est):
    """Two batches and the ``partial_fit`` keywords of a first call (every
    class named, so that either batch may come first)."""
    if isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive)):
        X, y = _sentences(24)
        return (X[:12], y[:12]), (X[12:], y[12:]), {"classes": ["B", "I", "O"]}, X
    X, y = _data(n_rows=80, seed=3)
    kwargs = {"classes": [0, 1, 2]} if is_classifier(est) else {}
    return (X[:40], y[:40]), (X[40:], y[40:]), kwargs, X


def _outputs(est, X):
    """What a model says of ``X``: its predictions and, where it has them,
    its scores (a tagger: every sentence's tags, one after the other)."""
    if isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive)):
        return [np.concatenate([np.asarray(tags) for tags in est.predict(X)])]
    out = [np.asarray(est.predict(X))]
    for name in ("decision_function", "score_samples"):
        if hasattr(est, name):
            out.append(np.asarray(getattr(est, name)(X)))
    return out


@pytest.mark.parametrize("name, Estimator", estimators_for("concurrent first calls"))
def test_two_first_calls_in_threads_both_count(name, Estimator, monkeypatch):
    """Two threads make the first ``partial_fit`` call of one estimator at
    the same time (its batch check made slow, so that they overlap): the
    model is the one of the two calls one after the other, in one order or
    the other; the second call never starts a new model over the first's
    (which it did when it decided, before taking the lock, that it was the
    first call)."""
    import time

    est = Estimator()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    first, second, kwargs, X = _first_call_data(est)
    validate = type(est)._validate_batch

    def slow(self, *args, **kw):
        result = validate(self, *args, **kw)
        time.sleep(0.05)
        return result

    replays = []
    for batches in ((first, second), (second, first)):
        replay = copy.deepcopy(est)
        for batch in batches:
            _learn(replay, *batch, **kwargs)
        replays.append(_outputs(replay, X))
    monkeypatch.setattr(type(est), "_validate_batch", slow)
    errors = []

    def call(batch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _learn(est, *batch, **kwargs)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(b,)) for b in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    monkeypatch.undo()
    got = _outputs(est, X)
    assert any(
        all(np.array_equal(a, b) for a, b in zip(got, want)) for want in replays
    ), "the model is neither order's"
