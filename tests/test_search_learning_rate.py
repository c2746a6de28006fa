"""``search_learning_rate`` against a brute-force grid of progressive passes."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from sklearn_pa import (
    ErrorProportionalRegressor,
    GradientDescentRegressor,
    PassiveAggressiveClassifier,
)
from sklearn_pa.model_selection import progressive_val_score, search_learning_rate


def stream(seed=0, n=400, d=8, noise=0.3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + noise * rng.normal(size=n)
    return X, y


def grid_losses(estimator, X, y, param_name, values):
    return np.array(
        [
            progressive_val_score(
                estimator.set_params(**{param_name: v}), X, y, return_curve=True
            ).cumulative_loss[-1]
            for v in values
        ]
    )


@pytest.mark.parametrize("method", ["bisection", "golden"])
@pytest.mark.parametrize(
    "estimator, param_name, bounds",
    [
        (GradientDescentRegressor(shuffle=False), "eta", (1e-3, 1.0)),
        (ErrorProportionalRegressor(shuffle=False), "C", (1e-3, 1.0)),
    ],
)
def test_search_finds_the_grid_minimum(estimator, param_name, bounds, method):
    X, y = stream()
    grid = np.geomspace(*bounds, 161)
    losses = grid_losses(estimator, X, y, param_name, grid)
    best = int(np.argmin(losses))
    # the premise of both searches: the loss is unimodal on the bracket
    assert np.all(np.diff(losses[: best + 1]) <= 0)
    assert np.all(np.diff(losses[best:]) >= 0)
    result = search_learning_rate(
        estimator,
        X,
        y,
        param_name=param_name,
        bounds=bounds,
        method=method,
        n_iter=20 if method == "bisection" else 30,
    )
    step = np.log(grid[1] / grid[0])
    assert abs(np.log(result.best_value / grid[best])) <= step
    assert result.best_loss <= losses[best] * (1 + 1e-6)
    # the returned curve is the progressive validation of the chosen value
    again = progressive_val_score(
        estimator.set_params(**{param_name: result.best_value}),
        X,
        y,
        return_curve=True,
    )
    assert_allclose(result.cumulative_loss, again.cumulative_loss)
    assert result.loss == "squared_error"
    assert len(result.param_values) == len(result.losses) == result.n_evaluations
    assert_allclose(
        result.losses, grid_losses(estimator, X, y, param_name, result.param_values)
    )


def test_bisection_is_the_seed_procedure():
    """Two passes per step (the loss at the middle and a step delta to the
    right), then the middle of the last bracket."""
    X, y = stream(1)
    result = search_learning_rate(
        GradientDescentRegressor(shuffle=False),
        X,
        y,
        param_name="eta",
        bounds=(1e-2, 1.0),
        n_iter=5,
        delta=1e-3,
    )
    lo, hi = np.log(1e-2), np.log(1.0)
    expected = []
    for _ in range(5):
        mid = 0.5 * (lo + hi)
        expected += [np.exp(mid + 1e-3), np.exp(mid)]
        right, here = grid_losses(
            GradientDescentRegressor(shuffle=False),
            X,
            y,
            "eta",
            [np.exp(mid + 1e-3), np.exp(mid)],
        )
        if right > here:
            hi = mid
        else:
            lo = mid
    expected.append(np.exp(0.5 * (lo + hi)))
    assert_allclose(result.param_values, expected)
    assert_allclose(result.best_value, expected[-1])


def test_scan_then_search_a_classifier_C():
    """Any estimator and parameter: PA-I's C on the mistake count, with a
    coarse scan first."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    est = PassiveAggressiveClassifier(shuffle=False)
    result = search_learning_rate(
        est, X, y, param_name="C", bounds=(1e-3, 10.0), method="golden", n_scan=7
    )
    assert result.loss == "mistakes"
    grid = np.geomspace(1e-3, 10.0, 7)
    assert_allclose(result.param_values[:7], grid)
    assert result.best_loss == min(result.losses)
    assert result.best_loss <= grid_losses(est, X, y, "C", grid).min()


def _binary_sparse_stream(seed=0, n=300, d=40, noise=0.0):
    rng = np.random.RandomState(seed)
    X = sp.csr_matrix((rng.uniform(size=(n, d)) < 0.2).astype(float))
    y = X @ rng.uniform(0.5, 1.5, size=d) / d + noise * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("method", ["bisection", "golden"])
@pytest.mark.parametrize(
    "noise, bound", [(0.0, "high"), (5.0, "low")], ids=["upper", "lower"]
)
def test_search_never_leaves_its_bounds(method, noise, bound):
    """DPAU refuses C > 1: a search whose best value is at a bound evaluates
    nothing beyond it (the slope step is taken inside the bracket)."""
    X, y = _binary_sparse_stream(noise=noise)
    bounds = (1e-3, 1.0)
    est = ErrorProportionalRegressor(shuffle=False)
    losses = grid_losses(est, X, y, "C", np.geomspace(*bounds, 9))
    # the premise: the best value of the scan is at the bound tested
    assert np.argmin(losses) == (8 if bound == "high" else 0)
    result = search_learning_rate(
        est, X, y, param_name="C", bounds=bounds, n_scan=9, method=method
    )
    assert result.param_values.min() >= bounds[0]
    assert result.param_values.max() <= bounds[1]
    edge = bounds[1] if bound == "high" else bounds[0]
    assert abs(np.log(result.best_value / edge)) < np.log(np.sqrt(10))
    with pytest.raises(ValueError):  # the estimator does refuse beyond 1
        est.set_params(C=1.0 + 1e-9).fit(X[:5], y[:5])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"param_name": "alpha", "bounds": (0.1, 1.0)}, "no parameter 'alpha'"),
        ({"param_name": "eta", "bounds": (1.0, 0.1)}, "low < high"),
        ({"param_name": "eta", "bounds": (0.0, 1.0)}, "positive"),
        ({"param_name": "eta", "bounds": (0.1, 1.0), "method": "grid"}, "method"),
        ({"param_name": "eta", "bounds": (0.1, 1.0), "n_iter": -1}, "n_iter"),
        ({"param_name": "eta", "bounds": "wide"}, "pair of numbers"),
    ],
)
def test_arguments_are_validated(kwargs, match):
    X, y = stream(n=20)
    with pytest.raises(ValueError, match=match):
        search_learning_rate(GradientDescentRegressor(), X, y, **kwargs)
