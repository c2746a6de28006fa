"""ROMMA and ALMA between ``partial_fit`` calls: the weights stay a scale
times a vector (``linear/_scaled.py``), so a one-row call costs its row.

The cost itself is checked with the other families in ``test_per_call.py``
(``LEAN_FAMILIES``); here: the scale and the norm carried across calls give
the model of one call over the same rows, reading ``coef_`` between calls
changes nothing, and a failing batch restores the vector, the scale and the
norm bit for bit, including after a step that rewrote the whole model.
"""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from test_robustness import _assert_same

from sklearn_pa import ALMAClassifier, ROMMAClassifier
from sklearn_pa._core import batch as _validation
from sklearn_pa.linear import _base as _base

FACTORIES = {
    "ROMMA": lambda: ROMMAClassifier(intercept_scaling=1.0, shuffle=False),
    "aROMMA": lambda: ROMMAClassifier(
        aggressive=True, intercept_scaling=1.0, shuffle=False
    ),
    "ALMA": lambda: ALMAClassifier(intercept_scaling=1.0, shuffle=False),
    "ALMA raw": lambda: ALMAClassifier(
        normalize=False, intercept_scaling=1.0, shuffle=False
    ),
}


def _stream(n_features=2000, n_rows=80, n_classes=4, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(n_rows, n_features, density=0.01, format="csr", random_state=rng)
    X.data = rng.uniform(-1, 1, X.data.shape[0])
    return X, rng.randint(n_classes, size=n_rows)


@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.parametrize("read", [False, True])
def test_one_row_calls_give_the_model_of_one_call(name, read):
    """One-row calls carry the scale and the norm from call to call: the
    model is bit for bit that of one call over the same rows, whether or
    not ``coef_`` and the scores are read in between."""
    X, y = _stream()
    classes = np.unique(y)
    batch = FACTORIES[name]().partial_fit(X, y, classes=classes)
    rows = FACTORIES[name]()
    for i in range(X.shape[0]):
        rows.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
        if read:
            coef = rows.coef_.copy()
            np.testing.assert_allclose(
                rows.decision_function(X[:5]),
                X[:5] @ coef.T + rows.intercept_,
                rtol=1e-12,
                atol=1e-12,
            )
    assert rows.n_updates_ == batch.n_updates_ > 0
    np.testing.assert_array_equal(rows.coef_, batch.coef_)
    np.testing.assert_array_equal(rows.intercept_, batch.intercept_)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_a_failing_batch_restores_vector_scale_and_norm(name, monkeypatch):
    """A ``KeyboardInterrupt`` right after the kernel pass leaves the vector,
    the scale ``s`` and the norm ``N`` as they were, bit for bit, and the
    stream goes on as if the call never happened."""
    X, y = _stream()
    est = FACTORIES[name]().partial_fit(X[:40], y[:40], classes=np.unique(y))
    est.partial_fit(X[40:41], y[40:41])
    assert "_scale_pending" in est.__dict__
    before = copy.deepcopy(est.__dict__)
    scale_norm = est._scale_state[:2].copy()
    run_epochs = _base.run_epochs

    def interrupted(estimator, adapter, **kwargs):
        run_epochs(estimator, adapter, **kwargs)
        assert not np.array_equal(estimator._scale_stream[:2], scale_norm)
        raise KeyboardInterrupt

    monkeypatch.setattr(_base, "run_epochs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        est.partial_fit(X[41:60], y[41:60])
    monkeypatch.undo()
    _assert_same(est.__dict__, before)
    np.testing.assert_array_equal(est._scale_state[:2], scale_norm)
    twin = copy.deepcopy(est)
    est.partial_fit(X[41:60], y[41:60])
    twin.partial_fit(X[41:60], y[41:60])
    _assert_same(est.__dict__, twin.__dict__)


def test_a_step_that_rewrites_the_model_is_journaled_whole(monkeypatch):
    """Aggressive ROMMA restarts from ``phi / q`` when the half-space does
    not bind (a row along small weights): the step writes every weight, so
    the whole model is saved first, and a failure after it restores every
    weight, not only the rows' features."""
    n_features = 5000
    x0 = sp.csr_matrix(([1.0, 2.0], ([0, 0], [3, 7])), shape=(1, n_features))
    est = ROMMAClassifier(aggressive=True, fit_intercept=False)
    est.partial_fit(x0, [1], classes=[0, 1])  # w = x0 / ||x0||^2
    # a large row on another feature: a weight -1/100 there
    est.partial_fit(sp.csr_matrix(([100.0], ([0], [11])), shape=(1, n_features)), [0])
    # a row along w, of margin 1/2 < 1, not below q N (about 1/4): c = 0
    batch = (0.5 * x0).tocsr()
    before = copy.deepcopy(est.__dict__)
    whole = []
    save = _validation.Journal.save

    def spy(self, array, rows=None):
        if rows is None and array.size >= n_features:
            whole.append(array.shape)
        return save(self, array, rows)

    monkeypatch.setattr(_validation.Journal, "save", spy)
    run_epochs = _base.run_epochs

    def interrupted(estimator, adapter, **kwargs):
        run_epochs(estimator, adapter, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(_base, "run_epochs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        est.partial_fit(batch, [1])
    assert whole == [(n_features, 1)]
    _assert_same(est.__dict__, before)
    monkeypatch.undo()
    # the same call, completed: the old weights vanished (feature 11's too)
    est.partial_fit(batch, [1])
    coef = est.coef_.ravel()
    assert coef[11] == 0.0
    np.testing.assert_allclose(coef[[3, 7]], [0.4, 0.8], rtol=1e-12)
