"""The fixed cost of a later ``partial_fit`` call, cut without losing a
promise: scikit-learn's configuration inside the call, the callbacks, the
parameters validated again when they changed, and the calibration margins
a confidence-weighted learner keeps.  Timings live in the benchmarks
(``python -m sklearn_pa.benchmark --dataset stream-latency``), never here.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
import sklearn.base
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_pa import (
    AROWClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa._core.session import params_snapshot, params_unchanged
from sklearn_pa.linear import _base as _base
from sklearn_pa.second_order._calibration import CALIBRATION_SIZE, MARGIN_BLOCKS


def _data(n_rows=40, n_features=30, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(n_rows, n_features, density=0.3, format="csr", random_state=rng)
    y = rng.randint(3, size=n_rows)
    return X, y


FACTORIES = [
    lambda: PassiveAggressiveClassifier(random_state=0),
    lambda: AROWClassifier(random_state=0),
]


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("global_skip", [False, True])
def test_nested_validation_is_skipped_inside_a_later_call(
    factory, global_skip, monkeypatch
):
    """Inside a later call ``skip_parameter_validation`` is set, as
    scikit-learn's ``_fit_context`` sets it, and the caller's value is back
    afterwards, on success and on error."""
    X, y = _data()
    est = factory().partial_fit(X[:10], y[:10], classes=np.unique(y))
    seen = []
    original = _base.BaseOnlineLinear._partial_fit

    def spy(self, *args, **kwargs):
        seen.append(sklearn.get_config()["skip_parameter_validation"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(_base.BaseOnlineLinear, "_partial_fit", spy)
    with sklearn.config_context(skip_parameter_validation=global_skip):
        est.partial_fit(X[10:11], y[10:11])
        assert sklearn.get_config()["skip_parameter_validation"] is global_skip
        with pytest.raises(ValueError):
            est.partial_fit(X[11:12, :5], y[11:12])  # wrong width
        assert sklearn.get_config()["skip_parameter_validation"] is global_skip
    assert seen == [True, True]
    assert sklearn.get_config()["skip_parameter_validation"] is False


def test_first_calls_and_callbacks_take_scikit_learns_wrapper(monkeypatch):
    """The first call (nothing learned yet) and an estimator with callbacks
    go through scikit-learn's ``_fit_context``; a later call without them
    does not list the estimator's attributes."""
    X, y = _data()
    calls = []
    original = sklearn.base._is_fitted

    def counting(estimator, *args, **kwargs):
        calls.append(estimator)
        return original(estimator, *args, **kwargs)

    monkeypatch.setattr(sklearn.base, "_is_fitted", counting)
    est = PassiveAggressiveClassifier(random_state=0)
    est.partial_fit(X[:10], y[:10], classes=np.unique(y))
    assert len(calls) == 1
    est.partial_fit(X[10:11], y[10:11])
    assert len(calls) == 1
    est.__dict__["_skl_callbacks"] = []
    est.partial_fit(X[11:12], y[11:12])
    assert len(calls) == 2


def test_params_snapshot_sees_every_change():
    """A parameter assigned, set again to an equal object, or changed in
    place (a dict) is a change; the same objects are not."""
    est = PassiveAggressiveClassifier(class_weight={0: 1.0, 1: 2.0})
    snapshot = params_snapshot(est)
    assert params_unchanged(est, snapshot)
    est.class_weight[1] = 3.0
    assert not params_unchanged(est, snapshot)
    est.class_weight[1] = 2.0
    assert params_unchanged(est, snapshot)
    est.set_params(class_weight=dict(est.class_weight))  # equal, another object
    assert not params_unchanged(est, snapshot)
    snapshot = params_snapshot(est)
    est.C = 0.5
    assert not params_unchanged(est, snapshot)
    del est.C
    assert not params_unchanged(est, snapshot)
    assert not params_unchanged(PassiveAggressiveRegressor(), snapshot)
    assert not params_unchanged(est, None)


def _reference_record(old, new):
    """The calibration record as it was kept before: every old entry and
    every new one, then the latest ``CALIBRATION_SIZE``."""
    if old is not None and old[0].ndim == new[0].ndim:
        new = tuple(np.concatenate([o, n]) for o, n in zip(old, new))
    return tuple(a[-CALIBRATION_SIZE:].copy() for a in new)


@pytest.mark.parametrize("n_old", [0, 1, 700, CALIBRATION_SIZE])
@pytest.mark.parametrize("n_new", [1, 300, CALIBRATION_SIZE, CALIBRATION_SIZE + 5])
@pytest.mark.parametrize("columns", [None, 3])
def test_calibration_record_keeps_the_latest_margins(n_old, n_new, columns):
    """The calibration margins keep the latest ``CALIBRATION_SIZE``
    samples, with one copy of the entries kept."""
    rng = np.random.RandomState(n_old + n_new)
    est = AROWClassifier()

    def batch(n):
        shape = (n,) if columns is None else (n, columns)
        return rng.normal(size=shape), rng.uniform(size=n), rng.randint(3, size=n)

    old = batch(n_old) if n_old else None
    if old is not None:
        est._calibration = old
    new = batch(n_new)
    expected = _reference_record(old, new)
    est._record_margins(*new)
    for got, want in zip(est._calibration, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert got.base is None  # owns its data: no view of a caller's array


@settings(deadline=None, max_examples=30)
@given(
    st.lists(st.integers(1, CALIBRATION_SIZE + 20), min_size=1, max_size=12),
    st.sampled_from([None, 3]),
    st.integers(0, 2**31 - 1),
)
def test_a_stream_of_records_keeps_the_latest_margins(sizes, columns, seed):
    """Calls of any sizes (one row, a few, more than the window) keep what
    joining every entry and keeping the latest ``CALIBRATION_SIZE`` keeps;
    the record holds at most ``MARGIN_BLOCKS`` blocks and twice the
    window's rows, and no array larger than that (a batch over the window is
    not kept alive by a view)."""
    rng = np.random.RandomState(seed)
    est = AROWClassifier()
    expected, total = None, 0
    for n in sizes:
        shape = (n,) if columns is None else (n, columns)
        new = rng.normal(size=shape), rng.uniform(size=n), rng.randint(3, size=n)
        expected = _reference_record(expected, new)
        est._record_margins(*new)
        for got, want in zip(est._calibration, expected):
            np.testing.assert_array_equal(got, want)
        n_rows, blocks = est._margin_blocks
        assert len(blocks) <= MARGIN_BLOCKS
        assert n_rows == sum(block[0].shape[0] for block in blocks)
        total += n
        assert min(total, CALIBRATION_SIZE) <= n_rows <= 2 * CALIBRATION_SIZE
        for block in blocks:
            for a in block:
                base = a if a.base is None else a.base
                assert base.shape[0] <= CALIBRATION_SIZE


def test_one_row_calls_copy_the_window_once_every_margin_blocks_calls():
    """A stream of one-row records adds a block a call, and joins the
    blocks into the latest window only when they exceed ``MARGIN_BLOCKS``."""
    rng = np.random.RandomState(0)
    est = AROWClassifier()
    est._calibration = (
        rng.normal(size=CALIBRATION_SIZE),
        rng.uniform(size=CALIBRATION_SIZE),
        rng.randint(2, size=CALIBRATION_SIZE),
    )
    lengths = []
    for _ in range(3 * MARGIN_BLOCKS):
        est._record_margins(rng.normal(size=1), rng.uniform(size=1), np.ones(1, int))
        lengths.append(len(est._margin_blocks[1]))
    assert max(lengths) == MARGIN_BLOCKS
    assert lengths[: MARGIN_BLOCKS - 1] == list(range(2, MARGIN_BLOCKS + 1))
    assert lengths.count(1) == 3
