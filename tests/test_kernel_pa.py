"""Kernel Passive-Aggressive classifier and regressor."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import cross_val_score

from sklearn_pa import (
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa.kernel import _base as _kernel_base


@pytest.fixture(params=["one block", "small blocks"])
def block_size(request, monkeypatch):
    """Run with the default block size, and with blocks of 7 rows so that
    support vectors cross block boundaries and calls."""
    if request.param == "small blocks":
        monkeypatch.setattr(_kernel_base, "_MAX_BLOCK_ROWS", 7)
    return request.param


def _data(n_classes, n=240, seed=0):
    X, y = make_classification(
        n_samples=n,
        n_features=8,
        n_informative=5,
        n_classes=n_classes,
        n_clusters_per_class=1,
        flip_y=0.05,
        random_state=seed,
    )
    return X, y


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("C", [np.inf, 0.05, 1.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_equals_linear_pa(n_classes, loss, C, sparse, block_size):
    X, y = _data(n_classes)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    lin = PassiveAggressiveClassifier(
        average=False,  # kernel PA keeps its last iterate
        C=C,
        loss=loss,
        multiclass="max_loss",
        fit_intercept=False,
        shuffle=False,
        max_iter=3,
        tol=None,
    ).fit(X, y)
    ker = KernelPassiveAggressiveClassifier(
        C=C, loss=loss, kernel="linear", shuffle=False, max_iter=3
    ).fit(X, y)
    assert_allclose(ker.decision_function(X), lin.decision_function(X), atol=1e-8)
    assert_array_equal(ker.predict(X), lin.predict(X))
    # the primal weights are the dual expansion
    coef = ker.dual_coef_ @ (
        ker.support_vectors_.toarray() if sparse else ker.support_vectors_
    )
    assert_allclose(coef, lin.coef_, atol=1e-8)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_kernel_equals_linear_pa_over_partial_fit(n_classes, block_size):
    X, y = _data(n_classes)
    classes = np.unique(y)
    lin = PassiveAggressiveClassifier(
        average=False,  # kernel PA keeps its last iterate
        multiclass="max_loss",
        fit_intercept=False,
        shuffle=False,
    )
    ker = KernelPassiveAggressiveClassifier(kernel="linear", shuffle=False)
    for batch in np.array_split(np.arange(len(y)), 6):
        lin.partial_fit(X[batch], y[batch], classes=classes)
        ker.partial_fit(X[batch], y[batch], classes=classes)
        assert_allclose(ker.decision_function(X), lin.decision_function(X), atol=1e-8)


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
@pytest.mark.parametrize("C", [np.inf, 0.1])
def test_linear_kernel_equals_linear_pa_regressor(loss, C, block_size):
    X, y = make_regression(n_samples=200, n_features=6, noise=5.0, random_state=0)
    y = y / 50.0
    lin = PassiveAggressiveRegressor(
        C=C, loss=loss, fit_intercept=False, shuffle=False, max_iter=2, tol=None
    ).fit(X, y)
    ker = KernelPassiveAggressiveRegressor(
        C=C, loss=loss, kernel="linear", shuffle=False, max_iter=2
    ).fit(X, y)
    assert_allclose(ker.predict(X), lin.predict(X), atol=1e-8)


def _xor(n=400, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    return X, y


def test_rbf_separates_xor_where_linear_pa_cannot():
    X, y = _xor()
    Xt, yt = _xor(seed=1)
    rbf = KernelPassiveAggressiveClassifier(gamma=3.0, random_state=0).fit(X, y)
    lin = PassiveAggressiveClassifier(random_state=0, max_iter=20).fit(X, y)
    assert rbf.score(Xt, yt) > 0.9
    assert lin.score(Xt, yt) < 0.7


def reference_budget(X, y, gamma, C, budget, policy, epochs):
    """Budgeted binary kernel PA-I in plain numpy, one row at a time."""
    K = rbf_kernel(X, X, gamma=gamma)
    ys = np.where(y == 1, 1.0, -1.0)
    alpha, stamp = {}, {}
    clock = 0
    for _ in range(epochs):
        for i in range(len(y)):
            f = sum(a * K[j, i] for j, a in alpha.items())
            loss = 1.0 - ys[i] * f
            if loss <= 0:
                continue
            tau = min(C, loss / K[i, i])
            if i not in alpha:
                alpha[i] = 0.0
                stamp[i] = clock
                clock += 1
            alpha[i] += ys[i] * tau
            if len(alpha) > budget:
                others = [j for j in alpha if j != i]
                if policy == "oldest":
                    victim = min(others, key=lambda j: stamp[j])
                else:
                    victim = min(
                        others,
                        key=lambda j: (abs(alpha[j]) * np.sqrt(K[j, j]), stamp[j]),
                    )
                del alpha[victim]
    return alpha


@pytest.mark.parametrize("policy", ["oldest", "smallest"])
def test_budget_is_exact_online_removal(policy, block_size):
    X, y = _xor(n=150)
    budget = 20
    ker = KernelPassiveAggressiveClassifier(
        gamma=3.0, budget=budget, budget_policy=policy, shuffle=False, max_iter=2
    ).fit(X, y)
    ref = reference_budget(X, y, 3.0, 1.0, budget, policy, epochs=2)
    assert ker.support_vectors_.shape[0] == len(ref) <= budget
    idx = sorted(ref)
    assert_allclose(np.sort(ker.support_vectors_, axis=0), np.sort(X[idx], axis=0))
    f_ref = rbf_kernel(X, X[idx], gamma=3.0) @ np.array([ref[j] for j in idx])
    assert_allclose(ker.decision_function(X), f_ref, atol=1e-10)


def test_budget_holds_on_a_long_stream_and_across_calls():
    X, y = _xor(n=2000)
    clf = KernelPassiveAggressiveClassifier(gamma=3.0, budget=50, random_state=0)
    for batch in np.array_split(np.arange(len(y)), 10):
        clf.partial_fit(X[batch], y[batch], classes=[0, 1])
        assert clf.support_vectors_.shape[0] <= 50
        assert clf.dual_coef_.shape == (1, clf.support_vectors_.shape[0])
    Xt, yt = _xor(seed=1)
    assert clf.score(Xt, yt) > 0.85
    # a lowered budget shrinks the model on the next call
    clf.set_params(budget=10).partial_fit(X[:5], y[:5])
    assert clf.support_vectors_.shape[0] <= 10


def test_sparse_and_dense_input_agree():
    X, y = _data(3)
    X = np.where(np.abs(X) < 0.5, 0.0, X)
    dense = KernelPassiveAggressiveClassifier(gamma=0.2, random_state=0).fit(X, y)
    csr = KernelPassiveAggressiveClassifier(gamma=0.2, random_state=0).fit(
        sp.csr_matrix(X), y
    )
    assert sp.issparse(csr.support_vectors_)
    assert_allclose(csr.decision_function(X), dense.decision_function(X), atol=1e-10)


def test_callable_kernel_equals_named_kernel():
    X, y = _data(2, n=60)

    def k(a, b):
        return np.exp(-0.3 * np.sum((a - b) ** 2))

    named = KernelPassiveAggressiveClassifier(gamma=0.3, random_state=0).fit(X, y)
    func = KernelPassiveAggressiveClassifier(kernel=k, random_state=0).fit(X, y)
    assert_allclose(func.decision_function(X), named.decision_function(X), atol=1e-10)
    with pytest.raises(ValueError, match="kernel_params"):
        KernelPassiveAggressiveClassifier(kernel=k, gamma=1.0).fit(X, y)


def _bad_batches(X, y):
    nan = X.copy()
    nan[3, 2] = np.nan
    inf = X.copy()
    inf[5, 1] = np.inf
    unknown = y.copy()
    unknown[7] = 99
    return {
        "NaN": (nan, y, {}),
        "inf": (inf, y, {}),
        "wrong width": (X[:, :-1], y, {}),
        "unknown label": (X, unknown, {}),
        "wrong sample_weight length": (X, y, {"sample_weight": np.ones(3)}),
        "negative sample_weight": (X, y, {"sample_weight": -np.ones(len(y))}),
        "changed classes": (X, y, {"classes": np.array([0, 1, 2, 3, 4])}),
        "NaN in sparse": (sp.csr_matrix(nan), y, {}),
        "2-D y": (X, np.c_[y, y], {}),
    }


def _same_state(before, est):
    after = est.__dict__
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert value.tobytes() == after[key].tobytes(), key


@pytest.mark.parametrize("case", list(_bad_batches(np.zeros((10, 3)), np.zeros(10))))
@pytest.mark.parametrize("budget", [None, 15])
def test_rejected_batch_leaves_model_byte_identical(case, budget):
    X, y = _data(3)
    clf = KernelPassiveAggressiveClassifier(budget=budget, random_state=0)
    clf.partial_fit(X[:100], y[:100], classes=np.unique(y))
    before = copy.deepcopy(clf.__dict__)
    Xb, yb, kw = _bad_batches(X[100:150], y[100:150])[case]
    with pytest.raises(ValueError):
        clf.partial_fit(Xb, yb, **kw)
    _same_state(before, clf)
    clf.partial_fit(X[100:150], y[100:150])


def test_rejected_batch_regressor():
    X, y = make_regression(n_samples=120, n_features=4, random_state=0)
    reg = KernelPassiveAggressiveRegressor(random_state=0).partial_fit(X[:60], y[:60])
    before = copy.deepcopy(reg.__dict__)
    bad_y = y[60:].copy()
    bad_y[3] = np.nan
    for Xb, yb in [(X[60:, :-1], y[60:]), (X[60:], bad_y)]:
        with pytest.raises(ValueError):
            reg.partial_fit(Xb, yb)
        _same_state(before, reg)


def test_first_partial_fit_needs_classes_and_leaves_nothing():
    X, y = _data(3)
    clf = KernelPassiveAggressiveClassifier()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    assert clf.__dict__ == KernelPassiveAggressiveClassifier().__dict__


@pytest.mark.parametrize(
    "params, match",
    [({"C": -1.0}, "C"), ({"budget": 0}, "budget"), ({"kernel": "nope"}, "kernel")],
)
def test_invalid_parameters_leave_fitted_model_unchanged(params, match):
    X, y = _data(2)
    clf = KernelPassiveAggressiveClassifier(random_state=0).fit(X, y)
    before = copy.deepcopy(clf.__dict__)
    clf.set_params(**params)
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(X, y)
    _same_state(before, clf)


def test_zero_rows_make_no_nan():
    X = np.zeros((10, 3))
    y = np.array([0, 1] * 5)
    clf = KernelPassiveAggressiveClassifier(kernel="linear").fit(X, y)
    assert clf.support_vectors_.shape[0] == 0
    assert np.all(np.isfinite(clf.decision_function(X)))


def test_verbose_and_cross_val_score(capsys):
    X, y = _xor(n=200)
    KernelPassiveAggressiveClassifier(gamma=3.0, max_iter=2, verbose=2).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("-- Epoch") == 2 and "Support vectors" in out
    scores = cross_val_score(
        KernelPassiveAggressiveClassifier(gamma=3.0, random_state=0), X, y, cv=3
    )
    assert scores.mean() > 0.85


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("class_weight", ["balanced", "dict"])
def test_class_weight_equals_linear_pa(n_classes, class_weight):
    X, y = _data(n_classes)
    if class_weight == "dict":
        class_weight = {k: 0.5 + k for k in range(n_classes)}
    lin = PassiveAggressiveClassifier(
        average=False,  # kernel PA keeps its last iterate
        C=0.1,
        multiclass="max_loss",
        fit_intercept=False,
        shuffle=False,
        max_iter=2,
        tol=None,
        class_weight=class_weight,
        weight_scaling="C",  # kernel PA's weights multiply C
    ).fit(X, y)
    ker = KernelPassiveAggressiveClassifier(
        C=0.1, kernel="linear", shuffle=False, max_iter=2, class_weight=class_weight
    ).fit(X, y)
    assert_allclose(ker.decision_function(X), lin.decision_function(X), atol=1e-8)
    with pytest.raises(ValueError, match="balanced"):
        KernelPassiveAggressiveClassifier(class_weight="balanced").partial_fit(
            X, y, classes=np.unique(y)
        )


@pytest.mark.realdata
def test_usps_one_epoch_accuracy(data_dir):
    """USPS train/test, one epoch of RBF kernel PA-I (gamma="scale").
    Measured: 0.937 with 2664 support vectors, 0.916 with a budget of 1000
    (the linear PA-I reaches about 0.92 after 3 epochs)."""
    from sklearn.datasets import load_svmlight_files

    X, y, X_test, y_test = load_svmlight_files(
        [data_dir / "usps/usps_esl.bz2", data_dir / "usps/usps_esl.t.bz2"],
        n_features=256,
    )
    # USPS is dense: dense kernel blocks are several times faster than CSR ones
    X, X_test = X.toarray(), X_test.toarray()
    full = KernelPassiveAggressiveClassifier(max_iter=1, random_state=0).fit(X, y)
    assert full.score(X_test, y_test) >= 0.93
    small = KernelPassiveAggressiveClassifier(
        max_iter=1, budget=1000, random_state=0
    ).fit(X, y)
    assert small.support_vectors_.shape[0] == 1000
    assert small.score(X_test, y_test) >= 0.91


def test_polynomial_kernel_equals_linear_pa_on_its_feature_map(block_size):
    """(x.y + 1)^2 = phi(x).phi(y) with phi(x) = [x_i x_j, sqrt(2) x_i, 1]:
    kernel PA must be the linear PA run on phi(X), step for step."""
    X, y = _data(3, n=150)
    X = X / 3.0
    n = X.shape[1]
    phi = np.hstack(
        [
            (X[:, :, None] * X[:, None, :]).reshape(len(X), n * n),
            np.sqrt(2.0) * X,
            np.ones((len(X), 1)),
        ]
    )
    ker = KernelPassiveAggressiveClassifier(
        kernel="poly", degree=2, gamma=1.0, coef0=1.0, shuffle=False, max_iter=2
    ).fit(X, y)
    lin = PassiveAggressiveClassifier(
        average=False,  # kernel PA keeps its last iterate
        multiclass="max_loss",
        fit_intercept=False,
        shuffle=False,
        max_iter=2,
        tol=None,
    ).fit(phi, y)
    assert_allclose(ker.decision_function(X), lin.decision_function(phi), atol=1e-8)
