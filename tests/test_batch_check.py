"""One check of a batch per call, whose first branch is the cheap one
(``_core/_calls.pyx``: :class:`Batch`, :func:`check_batch`), over every
public estimator found by discovery."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import estimators_for, learns
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import is_regressor

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from sklearn_pa._core.batch import Batch, check_batch
from sklearn_pa._core.session import session_of


def _rows(seed=0, n=12, n_features=6):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, n_features))
    y = np.arange(n) % 3
    return X, y


def _count(monkeypatch, Estimator, counter):
    """Count the calls of the estimator's full check of a batch and of its
    cheap branch."""
    for name in ("_validate_batch", "_lean_batch"):
        original = getattr(Estimator, name, None)
        if original is None:
            continue

        def counted(self, *args, _name=name, _original=original, **kwargs):
            counter[_name] = counter.get(_name, 0) + 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Estimator, name, counted)


@pytest.mark.parametrize("name, Estimator", estimators_for("one batch check"))
def test_every_call_checks_its_batch_once_cheap_branch_first(
    name, Estimator, monkeypatch
):
    """``fit`` and the first ``partial_fit`` validate their batch once; a
    later call on rows already in the kernels' form is accepted by the
    cheap branch with no full validation; a later call on other input (a
    list of lists) goes through the full validation once, after the cheap
    branch declined it; both learn the same model."""
    X, y = _rows()
    counter = {}
    _count(monkeypatch, Estimator, counter)
    est = Estimator()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(X, y.astype(float) if is_regressor(est) else y)
    assert counter.get("_validate_batch") == 1, counter
    assert not counter.get("_lean_batch"), counter
    est = Estimator(**est.get_params())
    counter.clear()
    learns(est, X[:6], y[:6], first=True)
    assert counter.get("_validate_batch") == 1, counter
    learns(est, X[6:8], y[6:8])  # (the record of a validated call is set)
    twin = copy.deepcopy(est)
    counter.clear()
    learns(est, np.ascontiguousarray(X[8:10]), y[8:10])
    assert counter.get("_lean_batch") == 1, counter
    assert not counter.get("_validate_batch"), counter
    counter.clear()
    learns(twin, X[8:10].tolist(), y[8:10])
    assert counter.get("_validate_batch") == 1, counter
    assert counter.get("_lean_batch", 0) <= 1, counter
    np.testing.assert_array_equal(est.predict(X), twin.predict(X))
    assert est.t_ == twin.t_


def _with_duplicates(rows, n_features):
    """A CSR matrix whose every entry is written as two halves (duplicate
    entries), and the same matrix summed."""
    indptr, indices, data = [0], [], []
    for row in rows:
        for j, v in row:
            indices += [j, j]
            data += [v / 2, v / 2]
        indptr.append(len(indices))
    dup = sp.csr_matrix(
        (np.array(data, dtype=float), np.array(indices, dtype=np.int32), indptr),
        shape=(len(rows), n_features),
    )
    return dup, sp.csr_matrix(dup.toarray())


_ROW = st.lists(
    st.tuples(st.integers(0, 4), st.floats(-3, 3, allow_nan=False).filter(lambda v: v)),
    max_size=3,
    unique_by=lambda e: e[0],
)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(_ROW, min_size=2, max_size=6),
    weights=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=6, max_size=6),
    regression=st.booleans(),
)
def test_both_branches_give_the_same_batch(rows, weights, regression):
    """Whichever branch checks it, a batch reaches the pass in the same
    form: the full validation sums duplicate CSR entries into the
    canonical rows the cheap branch accepts as they are, and both give the
    same targets and weights; a batch whose weights are all zero weighs
    nothing (a no-op on a later call), on both branches."""
    dup, summed = _with_duplicates(rows, n_features=5)
    n = dup.shape[0]
    y = (np.arange(n) % 2).astype(float if regression else int)
    w = np.asarray(weights[:n])
    Estimator = (
        PassiveAggressiveRegressor if regression else PassiveAggressiveClassifier
    )
    est = Estimator(random_state=0)
    kwargs = {} if regression else {"classes": [0, 1]}
    est.partial_fit(np.eye(2, 5), np.array([0, 1], dtype=y.dtype), **kwargs)
    est.partial_fit(np.eye(2, 5), np.array([1, 0], dtype=y.dtype))
    # (entries written twice: the cheap branch declines, the full
    # validation sums them)
    full = check_batch(est, dup, y, None, w, False)
    assert (full.snapshot is None) == (dup.nnz == 0)
    cheap = check_batch(est, summed, y, None, w, False)
    assert cheap.snapshot is None  # (the parameters did not change)
    session_of(est).lean = None  # (no record: the full validation)
    validated = check_batch(est, summed, y, None, w, False)
    assert validated.snapshot is not None
    for batch in (full, cheap, validated):
        assert isinstance(batch, Batch)
        assert batch.n_samples == n
        assert batch.X.has_canonical_format
        np.testing.assert_array_equal(batch.X.toarray(), summed.toarray())
        np.testing.assert_array_equal(batch.y, y)
        np.testing.assert_array_equal(batch.sample_weight, w)
        assert batch.given
        assert batch.weighs_nothing == (not w.any())
        X, y_, sw = batch
        assert X is batch.X and y_ is batch.y and sw is batch.sample_weight
    assert not check_batch(est, summed, y, None, None, False).weighs_nothing


def test_fit_checks_its_batch_without_the_cheap_branch():
    """``fit`` takes the full validation whatever the estimator holds, and
    refuses what it refuses (all-zero weights), before any weight moves."""
    X, y = _rows()
    est = PassiveAggressiveClassifier(random_state=0).fit(X, y)
    before = est.coef_.copy()
    batch = check_batch(est, X, y, None, None, True, fitting=True)
    assert batch.snapshot is None and not batch.given
    np.testing.assert_array_equal(batch.sample_weight, np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="at least one non-zero"):
        est.fit(X, y, sample_weight=np.zeros(X.shape[0]))
    np.testing.assert_array_equal(est.coef_, before)
