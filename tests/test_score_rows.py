"""The first-order kernel's two scoring loops (``_compiled/_score_rows.h``)
give the same numbers to the last bit.

Where the processor has AVX2 the kernel scores a row with sums held in
registers; elsewhere (and for fewer than four columns) with the portable
loop.  Each column's sum is formed in the same order with the same
roundings, so a fit, its decision values and the progressive-validation
scores must be bit-identical whichever loop runs.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from sklearn_pa._compiled import _first_order

pytestmark = pytest.mark.skipif(
    not _first_order._simd_available(),
    reason="this processor has no AVX2: only the portable loop runs",
)


@pytest.fixture
def simd_switch():
    """Run with the AVX2 loop off, then on; restore the default after."""
    previous = _first_order._set_simd(True)

    def fit_both(make, fit):
        out = []
        for enabled in (False, True):
            _first_order._set_simd(enabled)
            out.append(fit(make()))
        return out

    yield fit_both
    _first_order._set_simd(previous)


def _data(n_classes, layout, seed=0, n_samples=240, n_features=30):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=12,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=seed,
    )
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.6] = 0.0  # sparse rows of varied length
    X *= rng.lognormal(0.0, 2.0, size=X.shape[1])  # features of many scales
    if layout == "dense":
        return X, y
    Xs = sp.csr_matrix(X)
    if layout == "csr64":
        Xs.indices = Xs.indices.astype(np.int64)
        Xs.indptr = Xs.indptr.astype(np.int64)
    return Xs, y


def _state(est, X):
    return (
        est.coef_.copy(),
        est.intercept_.copy(),
        est.decision_function(X),
    )


@pytest.mark.parametrize("layout", ["dense", "csr", "csr64"])
@pytest.mark.parametrize(
    "n_classes",
    [3, 4, 7, 20, 33, 70],
    ids=lambda k: f"K{k}",  # below 4 columns, groups of 4, a masked group,
)  # more than the 32 columns held in registers at once
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"multiclass": "max_loss"},
        {"multiclass": "prediction", "loss": "squared_hinge"},
        {"multiclass": "ovr", "average": True},
        {"multiclass": "ovr", "n_jobs": 2},
        {"average": 10, "fit_intercept": False},
    ],
    ids=["support", "max_loss", "prediction-II", "ovr-avg", "ovr-cols", "avg10"],
)
def test_fit_bit_identical(simd_switch, params, n_classes, layout):
    X, y = _data(n_classes, layout)
    plain, simd = simd_switch(
        lambda: PassiveAggressiveClassifier(
            max_iter=4, tol=None, random_state=0, **params
        ),
        lambda est: _state(est.fit(X, y), X),
    )
    for a, b in zip(plain, simd):
        np.testing.assert_array_equal(a, b)
    # the models are not trivial: the test would see a wrong column sum
    assert np.count_nonzero(plain[0]) > plain[0].size // 2


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_progressive_scores_bit_identical(simd_switch, layout):
    """The averaged model's scores recorded before each update (progressive
    validation) use the same loop on the averaging accumulators."""
    X, y = _data(9, layout, seed=3)
    classes = np.unique(y)

    def fit(est):
        est.partial_fit(X[:60], y[:60], classes=classes)
        return est.__sklearn_pa_prequential__(X[60:], y[60:])

    plain, simd = simd_switch(
        lambda: PassiveAggressiveClassifier(average=True, random_state=0), fit
    )
    assert np.isfinite(plain).all()
    np.testing.assert_array_equal(plain, simd)


def test_regressor_unchanged(simd_switch):
    """One column: the portable loop runs either way."""
    X, y = _data(2, "csr", seed=5)
    target = X @ np.linspace(-1.0, 1.0, X.shape[1])
    plain, simd = simd_switch(
        lambda: PassiveAggressiveRegressor(max_iter=3, tol=None, random_state=0),
        lambda est: est.fit(X, target).coef_.copy(),
    )
    np.testing.assert_array_equal(plain, simd)


def test_set_simd_reports_previous():
    previous = _first_order._set_simd(False)
    try:
        assert _first_order._set_simd(True) is False
        assert _first_order._set_simd(True) is True
    finally:
        _first_order._set_simd(previous)
