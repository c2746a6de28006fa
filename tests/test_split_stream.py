"""The split-weight learners between ``partial_fit`` calls: EG+- keeps its
weights as a scale times the kernel's arrays, with a running total, and
publishes ``coef_`` (and the pair) when read."""

import copy
import time

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from sklearn_pa import ErrorProportionalRegressor, ExponentiatedGradientRegressor
from sklearn_pa.linear import _base

PUBLISHED = ("coef_", "intercept_", "_split_coef", "_split_intercept")


def _rows(n_rows=120, n_features=50, seed=0, scale=1.0, boolean=False):
    rng = np.random.RandomState(seed)
    X = sp.random(n_rows, n_features, density=0.2, format="csr", random_state=rng)
    X.data = np.ones_like(X.data) if boolean else rng.uniform(-1, 1, X.data.size)
    y = scale * np.asarray(X @ rng.normal(size=n_features)).ravel() + 0.3
    return X, y


FACTORIES = {
    "eg": lambda: ExponentiatedGradientRegressor(
        eta=0.05, total_weight=5.0, random_state=0
    ),
    # exponents far above the incremental path's bound: log-domain steps and
    # rescales of the whole model within a call
    "eg-log-domain": lambda: ExponentiatedGradientRegressor(
        eta=50.0, total_weight=20.0, random_state=0
    ),
    "eg-no-intercept": lambda: ExponentiatedGradientRegressor(
        eta=0.05, total_weight=5.0, fit_intercept=False, random_state=0
    ),
    "dpmu": lambda: ErrorProportionalRegressor(
        C=0.5, update="multiplicative", random_state=0
    ),
}


def _data(name):
    if name == "dpmu":
        return _rows(boolean=True)
    return _rows(scale=30.0 if name == "eg-log-domain" else 1.0)


def _stream(est, X, y, read, batches=(1, 3, 7, 1, 2)):
    start, k = 0, 0
    while start < X.shape[0]:
        stop = start + batches[k % len(batches)]
        est.partial_fit(X[start:stop], y[start:stop])
        if read:
            est.coef_  # noqa: B018
            est.predict(X[:5])
        start, k = stop, k + 1
    return est


@pytest.mark.parametrize("name", FACTORIES)
def test_reading_coef_between_calls_changes_nothing(name):
    """A stream that reads ``coef_`` after every call learns bit for bit
    what the same stream learns reading it once at the end."""
    X, y = _data(name)
    lazy = _stream(FACTORIES[name](), X, y, read=False)
    read = _stream(FACTORIES[name](), X, y, read=True)
    for attr in PUBLISHED:
        assert_array_equal(getattr(lazy, attr), getattr(read, attr))
    assert_array_equal(lazy.predict(X), read.predict(X))


@pytest.mark.parametrize("name", ["eg", "eg-log-domain", "eg-no-intercept"])
def test_the_published_pair_sums_to_the_total(name):
    """Published when read, the pair is renormalised to ``U`` and ``coef_``
    is its difference; the predictions of the pending state are those of
    the published weights."""
    X, y = _data(name)
    est = _stream(FACTORIES[name](), X, y, read=False)
    assert "_split_pending" in est.__dict__ and "coef_" not in est.__dict__
    lean = est.predict(X)
    total = est._split_coef.sum() + est._split_intercept.sum()
    np.testing.assert_allclose(total, est.total_weight, rtol=1e-13)
    assert_array_equal(est.coef_, est._split_coef[:, 0] - est._split_coef[:, 1])
    assert np.all(est._split_coef >= 0)
    np.testing.assert_allclose(
        lean, X @ est.coef_ + est.intercept_, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("name", FACTORIES)
def test_a_stream_continues_the_fit_it_starts_from(name):
    """``partial_fit`` after ``fit`` continues from the fitted pair, and a
    ``fit`` after a stream (``warm_start``) starts from the pair the stream
    left, as the published one."""
    X, y = _data(name)
    est = FACTORIES[name]().set_params(max_iter=2, tol=None, warm_start=True)
    est.fit(X, y)
    twin = copy.deepcopy(est)
    _stream(est, X[:40], y[:40], read=False)
    _stream(twin, X[:40], y[:40], read=True)
    assert_array_equal(est.coef_, twin.coef_)
    est.fit(X, y)
    twin.fit(X, y)
    assert_array_equal(est.coef_, twin.coef_)
    if name.startswith("eg"):
        total = est._split_coef.sum() + est._split_intercept.sum()
        np.testing.assert_allclose(total, est.total_weight, rtol=1e-12)


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("how", ["assigned", "in place"])
@pytest.mark.parametrize("after", ["fit", "partial_fit"])
def test_an_assigned_coef_is_refused(name, how, after):
    """The multiplicative update continues from the pair: a ``coef_``
    assigned (or written in place) after ``fit`` or a stream is refused by
    the next ``partial_fit``, which moves nothing; the same values assigned
    as a copy are accepted."""
    X, y = _data(name)
    est = FACTORIES[name]()
    if after == "fit":
        est.set_params(max_iter=2, tol=None).fit(X, y)
    else:
        _stream(est, X[:30], y[:30], read=False)
    twin = copy.deepcopy(est)
    est.coef_ = est.coef_.copy()  # the same values: accepted
    est.partial_fit(X[30:33], y[30:33])
    twin.partial_fit(X[30:33], y[30:33])
    assert_array_equal(est.coef_, twin.coef_)
    before = copy.deepcopy(est._split_kernel)
    if how == "assigned":
        est.coef_ = est.coef_ + 1.0
    else:
        est.coef_[0] += 1.0
    with pytest.raises(ValueError, match="was assigned"):
        est.partial_fit(X[33:35], y[33:35])
    for array, saved in zip(est._split_kernel, before):
        assert_array_equal(array, saved)


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("read", [False, True])
def test_an_interrupted_call_restores_the_scale(name, read, monkeypatch):
    """A ``KeyboardInterrupt`` right after the kernel pass puts the pair,
    the scale and the running total back bit for bit (also when the pass
    rewrote the whole model), and the stream goes on as if the call never
    happened."""
    X, y = _data(name)
    est = _stream(FACTORIES[name](), X[:60], y[:60], read=read)
    before = copy.deepcopy(est.__dict__)
    run_epochs = _base.run_epochs

    def interrupted(estimator, adapter, **kwargs):
        run_epochs(estimator, adapter, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(_base, "run_epochs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        est.partial_fit(X[60:90], y[60:90])
    monkeypatch.undo()
    kernel, state = est.__dict__["_split_kernel"], est.__dict__["_split_state"]
    for array, saved in zip(kernel, before["_split_kernel"]):
        assert_array_equal(array, saved)
    assert_array_equal(state, before["_split_state"])
    twin = _stream(FACTORIES[name](), X[:60], y[:60], read=read)
    est.partial_fit(X[60:90], y[60:90])
    twin.partial_fit(X[60:90], y[60:90])
    for attr in PUBLISHED:
        assert_array_equal(getattr(est, attr), getattr(twin, attr))


def _one_row_seconds(n_features, n_calls=300):
    rng = np.random.RandomState(0)
    X = sp.random(
        n_calls + 20,
        n_features,
        density=20 / n_features,
        format="csr",
        random_state=rng,
    )
    X.data = rng.uniform(-1, 1, X.data.size)
    y = rng.normal(size=X.shape[0])
    est = ExponentiatedGradientRegressor(eta=0.01, total_weight=4.0)
    est.partial_fit(X[:20], y[:20])
    est.partial_fit(X[:20], y[:20])
    rows = [(X[i : i + 1], y[i : i + 1]) for i in range(20, 20 + n_calls)]
    best = np.inf
    for part in range(3):
        start = time.process_time()
        for Xi, yi in rows[part::3]:
            est.partial_fit(Xi, yi)
        best = min(best, time.process_time() - start)
    return best


def test_a_one_row_call_does_not_grow_with_the_model():
    """A one-row EG+- call on 400,000 features costs about what it costs on
    2,000 (a pass over the model per call would cost many times more)."""
    small = _one_row_seconds(2_000)
    large = _one_row_seconds(400_000)
    assert large < 3.0 * small + 0.01, (large, small)


@pytest.mark.parametrize("name", FACTORIES)
def test_a_stream_goes_on_from_read_only_arrays(name):
    """Arrays that cannot be written in place (a pickle loaded from a
    memory map) are continued from as new ones, to the same model."""
    X, y = _data(name)
    est = _stream(FACTORIES[name](), X[:60], y[:60], read=False)
    twin = copy.deepcopy(est)
    for array in (*est._split_kernel, est._split_state):
        array.flags.writeable = False
    est.partial_fit(X[60:90], y[60:90])
    twin.partial_fit(X[60:90], y[60:90])
    np.testing.assert_allclose(est.coef_, twin.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(est.intercept_, twin.intercept_, rtol=1e-12)
