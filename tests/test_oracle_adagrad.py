"""AdaGradClassifier against a NumPy transcription of SOL's update.

SOL (Wu, Hoi et al., "SOL: A Library for Scalable Online Learning
Algorithms") implements diagonal AdaGrad on the hinge loss as ``ada-fobos``
(``src/sol/model/olm/ada_fobos.cc``, ``AdaFOBOS::Update``), on the loop and
the losses of ``src/sol/model/online_linear_model.cc`` (``Iterate``,
``TrainPredict``) and ``src/sol/loss/hinge_loss.cc`` (``HingeLoss``,
``MaxScoreHingeLoss``).  :func:`sol_adagrad` transcribes them row by row in
SOL's own variables: ``H = delta + sqrt(G)`` per coordinate (``delta`` its
start), the bias as coordinate 0 of each weight vector with the rate
``bias_eta * eta``, one classifier for two classes and one per class
otherwise, the max-score hinge against the highest-scoring wrong class
(first index among ties).  The package keeps ``delta / H`` in the place of
the covariance and the intercept as the weight of the constant feature
``intercept_scaling``: SOL's ``bias_eta=1`` is ``intercept_scaling=1`` and
its default ``bias_eta=0`` is ``fit_intercept=False``.

``fit`` (``shuffle=False``) over one or more epochs and a stream of
``partial_fit`` calls equal the transcription to 1e-12, dense and CSR,
binary and multiclass; hypothesis draws further streams.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_pa import AdaGradClassifier

TOL = dict(rtol=1e-12, atol=1e-12)


def sol_adagrad(X, y, K, *, eta, delta, bias_eta, epochs=1, weights=None):
    """SOL's ``ada-fobos`` (L1 weight 0) on the rows of ``X`` in order.

    Returns ``(W, H)``, each of shape ``(n_classifiers, 1 + n_features)``,
    column 0 the bias.  ``weights`` (an extension SOL has not): each
    multiplies its row's gradient."""
    n, d = X.shape
    C = 1 if K == 2 else K
    W = np.zeros((C, d + 1))
    H = np.full((C, d + 1), float(delta))
    s_all = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    for _ in range(epochs):
        for i in range(n):
            x = X[i]
            s = s_all[i]
            # TrainPredict: predicts[c] = w(c) . x + w(c)[0]
            predicts = W[:, 1:] @ x + W[:, 0]
            g = np.zeros(C)
            if C == 1:
                # HingeLoss::gradient, labels +1 / -1
                label = 1.0 if y[i] == 1 else -1.0
                if 1.0 - predicts[0] * label > 0.0:
                    g[0] = -label
            else:
                # MaxScoreHingeLoss::gradient: the top-scoring wrong class
                label = int(y[i])
                rival = predicts.copy()
                rival[label] = -np.inf
                r = int(np.argmax(rival))
                if 1.0 - predicts[label] + predicts[r] > 0.0:
                    g[r] = 1.0
                    g[label] = -1.0
            g = g * s
            # AdaFOBOS::Update (Iterate calls it when the loss is positive)
            for c in range(C):
                if g[c] == 0.0:
                    continue
                H[c, 1:] = np.sqrt((H[c, 1:] - delta) ** 2 + (g[c] * x) ** 2) + delta
                H[c, 0] = np.sqrt((H[c, 0] - delta) ** 2 + g[c] * g[c]) + delta
                W[c, 1:] -= eta * g[c] * x / H[c, 1:]
                W[c, 0] -= bias_eta * eta * g[c] / H[c, 0]
    return W, H


def _data(seed, n, d, K):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    X[np.abs(X).sum(axis=1) == 0, 0] = 1.0
    return X, rng.integers(K, size=n)


def _estimator(eta, delta, fit_intercept, **kwargs):
    return AdaGradClassifier(
        eta=eta,
        delta=delta,
        fit_intercept=fit_intercept,
        intercept_scaling=1.0,
        shuffle=False,
        tol=None,
        **kwargs,
    )


def _check(clf, W, H, delta, fit_intercept, d):
    assert_allclose(clf.coef_, W[:, 1:], **TOL)
    # delta / H in the covariance's place, the intercept's last
    assert_allclose(clf.covariance_[:, :d], delta / H[:, 1:], **TOL)
    if fit_intercept:
        assert_allclose(clf.intercept_, W[:, 0], **TOL)
        assert_allclose(clf.covariance_[:, d], delta / H[:, 0], **TOL)
    else:
        assert_allclose(clf.intercept_, 0.0)


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("epochs", [1, 3])
def test_fit_is_sol(K, fit_intercept, sparse_input, epochs):
    X, y = _data(K + epochs, 30, 6, K)
    eta, delta = 0.7, 2.0
    clf = _estimator(eta, delta, fit_intercept, max_iter=epochs)
    clf.fit(sp.csr_matrix(X) if sparse_input else X, y)
    W, H = sol_adagrad(
        X, y, K, eta=eta, delta=delta, bias_eta=float(fit_intercept), epochs=epochs
    )
    _check(clf, W, H, delta, fit_intercept, X.shape[1])


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("K", [2, 4])
def test_partial_fit_rows_are_sol(K, sparse_input):
    """One ``partial_fit`` call per row is the same stream, and so is
    ``fit`` with ``max_iter=1``; SOL's defaults (``eta=1``, ``delta=10``)."""
    X, y = _data(11 + K, 25, 5, K)
    Xin = sp.csr_matrix(X) if sparse_input else X
    clf = _estimator(1.0, 10.0, True)
    for i in range(X.shape[0]):
        clf.partial_fit(Xin[i : i + 1], y[i : i + 1], classes=np.arange(K))
    W, H = sol_adagrad(X, y, K, eta=1.0, delta=10.0, bias_eta=1.0)
    _check(clf, W, H, 10.0, True, X.shape[1])
    fitted = _estimator(1.0, 10.0, True, max_iter=1).fit(Xin, y)
    assert_allclose(fitted.coef_, clf.coef_, **TOL)
    assert_allclose(fitted.intercept_, clf.intercept_, **TOL)
    assert_allclose(fitted.covariance_, clf.covariance_, **TOL)


def test_defaults_are_sols():
    clf = AdaGradClassifier()
    assert clf.eta == 1.0 and clf.delta == 10.0


def test_float32_rows_are_the_same_model():
    X, y = _data(3, 30, 6, 3)
    X32 = X.astype(np.float32)
    clf = _estimator(0.5, 1.0, True, max_iter=2).fit(X32, y)
    W, H = sol_adagrad(
        X32.astype(np.float64), y, 3, eta=0.5, delta=1.0, bias_eta=1.0, epochs=2
    )
    _check(clf, W, H, 1.0, True, X.shape[1])


def test_sample_weight_multiplies_the_gradient():
    X, y = _data(4, 30, 5, 3)
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=30)
    clf = _estimator(0.5, 1.0, True, max_iter=2).fit(X, y, sample_weight=w)
    W, H = sol_adagrad(X, y, 3, eta=0.5, delta=1.0, bias_eta=1.0, epochs=2, weights=w)
    _check(clf, W, H, 1.0, True, X.shape[1])


def test_full_layout_is_refused():
    """AdaGrad's registry entry declares the diagonal layout only."""
    from sklearn_pa._compiled._rules import SecondOrderRule as R
    from sklearn_pa._core.rules import check_combination

    with pytest.raises(ValueError, match="covariance"):
        check_combination(
            "second_order",
            {"rule": R.SO_BINARY, "step": R.STEP_ADAGRAD},
            covariance="full",
        )
    with pytest.raises(ValueError, match="multiclass"):
        check_combination(
            "second_order", {"rule": R.SO_SUPPORT, "step": R.STEP_ADAGRAD}
        )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    K=st.sampled_from([2, 3, 4]),
    n=st.integers(1, 25),
    d=st.integers(1, 7),
    density=st.floats(0.1, 1.0),
    eta=st.floats(0.01, 10.0),
    delta=st.floats(0.01, 20.0),
    fit_intercept=st.booleans(),
    sparse_input=st.booleans(),
    n_calls=st.integers(1, 4),
)
def test_random_streams_are_sol(
    seed, K, n, d, density, eta, delta, fit_intercept, sparse_input, n_calls
):
    """Random streams cut into ``partial_fit`` calls: the transcription, row
    by row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    y = rng.integers(K, size=n)
    Xin = sp.csr_matrix(X) if sparse_input else X
    clf = _estimator(eta, delta, fit_intercept)
    for part in np.array_split(np.arange(n), min(n_calls, n)):
        clf.partial_fit(Xin[part], y[part], classes=np.arange(K))
    W, H = sol_adagrad(X, y, K, eta=eta, delta=delta, bias_eta=float(fit_intercept))
    scale = max(1.0, float(np.abs(W).max()))
    assert_allclose(clf.coef_, W[:, 1:], rtol=1e-12, atol=1e-12 * scale)
    if fit_intercept:
        assert_allclose(clf.intercept_, W[:, 0], rtol=1e-12, atol=1e-12 * scale)
    assert_allclose(clf.covariance_[:, :d], delta / H[:, 1:], **TOL)
