"""The peer second-order classifiers (SOP, IELLIP, NHERD, NAROW) as
estimators: what each rule promises, sample weights, parameters."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.datasets import load_digits

from sklearn_pa import (
    IELLIPClassifier,
    NAROWClassifier,
    NHERDClassifier,
    SOPClassifier,
)

ALL = [SOPClassifier, IELLIPClassifier, NHERDClassifier, NAROWClassifier]


def _rows(seed=0, n=30, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X @ rng.normal(size=d) > 0).astype(int)


@pytest.mark.parametrize("cls", [SOPClassifier, IELLIPClassifier])
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_mistake_driven_rules_leave_a_correct_row_alone(cls, covariance):
    X, y = _rows()
    clf = cls(covariance=covariance, fit_intercept=False).partial_fit(
        X, y, classes=[0, 1]
    )
    scores = clf.decision_function(X)
    right = np.flatnonzero((scores > 0) == (y == 1))
    assert right.size
    i = right[0]
    coef, cov = clf.coef_.copy(), clf.covariance_.copy()
    clf.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_allclose(clf.coef_, coef, rtol=0, atol=0)
    assert_allclose(clf.covariance_, cov, rtol=0, atol=0)


def test_narow_brings_the_variance_down_to_the_floor():
    X, y = _rows(1)
    clf = NAROWClassifier(variance_floor=0.25, covariance="full", fit_intercept=False)
    clf.partial_fit(X[:1], y[:1], classes=[0, 1])
    x = X[0]
    assert_allclose(x @ clf.covariance_[0] @ x, 0.25, rtol=1e-12)
    # and below the floor nothing moves
    before = clf.coef_.copy()
    clf.set_params(variance_floor=1.0).partial_fit(X[:1], 1 - y[:1])
    assert_allclose(clf.coef_, before)


def test_nherd_sample_weight_multiplies_C():
    X, y = _rows(2)
    a = NHERDClassifier(C=0.3, covariance="full", shuffle=False)
    b = NHERDClassifier(C=0.6, covariance="full", shuffle=False)
    a.partial_fit(X, y, classes=[0, 1], sample_weight=np.full(len(y), 2.0))
    b.partial_fit(X, y, classes=[0, 1])
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    assert_allclose(a.covariance_, b.covariance_, rtol=1e-12)


def test_sop_sample_weight_is_a_weighted_mistake():
    """Weight s: A += s x x^T and v += s y x on a mistake (Fig. 2 of the
    paper with the example counted s times at once)."""
    X, y = _rows(3, n=12, d=3)
    w = np.random.default_rng(3).uniform(0.2, 3.0, size=12)
    clf = SOPClassifier(regularization=0.5, covariance="full", fit_intercept=False)
    clf.set_params(shuffle=False).partial_fit(X, y, classes=[0, 1], sample_weight=w)
    A, v = 0.5 * np.eye(3), np.zeros(3)
    for x, label, s in zip(X, y, w):
        sign = 1.0 if label == 1 else -1.0
        if sign * (v @ np.linalg.solve(A + s * np.outer(x, x), x)) <= 0:
            A += s * np.outer(x, x)
            v += s * sign * x
    assert_allclose(clf.coef_[0], 0.5 * np.linalg.solve(A, v), rtol=1e-10)


@pytest.mark.parametrize("cls", ALL)
def test_dense_and_csr_fit_the_same_model(cls):
    X, y = load_digits(return_X_y=True)
    X = X[:300] / 16
    y = y[:300]
    dense = cls(max_iter=2, tol=None, random_state=0).fit(X, y)
    sparse = cls(max_iter=2, tol=None, random_state=0).fit(sp.csr_matrix(X), y)
    assert_allclose(dense.coef_, sparse.coef_, rtol=1e-10, atol=1e-12)
    assert dense.score(X, y) > 0.8


@pytest.mark.parametrize(
    "cls, params",
    [
        (SOPClassifier, {"regularization": 0.0}),
        (IELLIPClassifier, {"shrinkage": 1.0}),
        (IELLIPClassifier, {"shrinkage_decay": 0.0}),
        (NHERDClassifier, {"C": -1.0}),
        (NAROWClassifier, {"variance_floor": 0.0}),
    ],
)
def test_parameters_are_validated(cls, params):
    X, y = _rows()
    with pytest.raises(ValueError):
        cls(**params).fit(X, y)


@pytest.mark.parametrize("cls", ALL)
def test_support_class_rule_is_not_offered(cls):
    """The peer rules take one constraint (k = 1): their estimators have no
    ``multiclass`` parameter, and the kernel refuses SO_SUPPORT."""
    assert "multiclass" not in cls().get_params()


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_state_protocol_epoch_equals_partial_fit(cls, covariance):
    """The state protocol (parameter mixing) runs the same pass as
    ``partial_fit``, IELLIP's round counter included."""
    import copy

    X, y = load_digits(return_X_y=True)
    X, y = X[:200] / 16, y[:200]
    est = cls(covariance=covariance, random_state=0)
    est.partial_fit(X[:100], y[:100], classes=np.unique(y))
    learner = est.__sklearn_pa_state__()
    state = learner.get()
    block = learner.prepare(X[100:], y[100:])
    new, stats = learner.epoch(block, state, copy.deepcopy(est._rng))
    reference = copy.deepcopy(est).partial_fit(X[100:], y[100:])
    expected = reference.__sklearn_pa_state__().get()
    assert expected.keys() == new.keys()
    for key, value in expected.items():
        if isinstance(value, np.ndarray):
            assert_allclose(new[key], value, rtol=1e-12, atol=1e-12, err_msg=key)
    assert stats.n_updates > 0


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_iellip_failed_partial_fit_restores_the_whole_covariance(
    covariance, monkeypatch
):
    """IELLIP rescales every variance, not only those of the batch's
    features: a partial_fit call that fails puts all of them back."""
    from sklearn_pa.second_order._epochs import _SecondOrderEpochs

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 6))
    y = (X[:, 0] > 0).astype(int)
    clf = IELLIPClassifier(covariance=covariance, shrinkage_decay=1.0)
    clf.partial_fit(X[:10], y[:10], classes=[0, 1])
    before = clf.covariance_.copy()
    # a sparse batch that touches the first two features only
    batch = np.zeros((5, 6))
    batch[:, :2] = rng.normal(size=(5, 2))
    batch = sp.csr_matrix(batch)

    run = _SecondOrderEpochs.run

    def fail(self, order, t):
        run(self, order, t)
        raise RuntimeError("after the pass")

    monkeypatch.setattr(_SecondOrderEpochs, "run", fail)
    with pytest.raises(RuntimeError, match="after the pass"):
        clf.partial_fit(batch, np.array([0, 1, 0, 1, 0]))
    assert_allclose(clf.covariance_, before, rtol=0, atol=0)
