"""Fit time, peak memory and online loss of the square-loss online regressors.

The data are a synthetic stand-in for the preference-prediction setting:
Boolean sparse keyword rows (about 45 keywords of 20000 per row, 10000 rows)
and an interest in {-2, ..., 2} planted as a sparse linear function, rounded
and clipped.  GD, EG+-, DPAU and DPMU are compared with scikit-learn's
``SGDRegressor`` with a constant learning rate (the same rule as GD with
``eta_scaling="constant"``) in the same run.  Only the public API is used.
"""

from functools import cache

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import SGDRegressor

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)

RANDOM_STATE = 0
EPOCHS = 3


@cache
def preference_problem(n_samples=10_000, n_features=20_000, n_relevant=100):
    """Boolean CSR rows and integer interests in {-2, ..., 2}."""
    rng = np.random.RandomState(RANDOM_STATE)
    X = sp.random(
        n_samples,
        n_features,
        density=45.0 / n_features,
        random_state=rng,
        data_rvs=np.ones,
        format="csr",
    )
    w = np.zeros(n_features)
    w[rng.choice(n_features, n_relevant, replace=False)] = rng.normal(size=n_relevant)
    y = np.clip(np.round(X @ w - 1.5 + 0.5 * rng.normal(size=n_samples)), -2, 2)
    return X, y


def _ours(cls, **params):
    return lambda: cls(max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE, **params)


ESTIMATORS = {
    "GD": _ours(GradientDescentRegressor, eta=0.1),
    "GD-constant": _ours(GradientDescentRegressor, eta=0.005, eta_scaling="constant"),
    "EG": _ours(ExponentiatedGradientRegressor, eta=1e-3, total_weight=20.0),
    "DPAU": _ours(ErrorProportionalRegressor, c=0.2),
    "DPMU": _ours(ErrorProportionalRegressor, c=0.2, update="multiplicative"),
    "sklearn-SGD-constant": lambda: SGDRegressor(
        penalty=None,
        learning_rate="constant",
        eta0=0.01,
        max_iter=EPOCHS,
        tol=None,
        random_state=RANDOM_STATE,
    ),
}


class OnlineRegressionSuite:
    """Three epochs of fit on sparse Boolean rows."""

    param_names = ["estimator"]
    params = (list(ESTIMATORS),)

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, estimator):
        self.X, self.y = preference_problem()
        self.estimator = ESTIMATORS[estimator]()

    def time_fit(self, estimator):
        self.estimator.fit(self.X, self.y)

    def peakmem_fit(self, estimator):
        self.estimator.fit(self.X, self.y)

    def track_train_mse(self, estimator):
        fitted = clone(self.estimator).fit(self.X, self.y)
        return float(np.mean((fitted.predict(self.X) - self.y) ** 2))

    track_train_mse.unit = "squared error"


class ProgressiveValidationSuite:
    """One predict-then-learn pass over the stream (the package's one-pass
    kernel path; scikit-learn's SGD would need a per-sample Python loop, so
    it is not timed here: ``python -m sklearn_pa.benchmark --dataset
    preference-synthetic`` reports that loop)."""

    param_names = ["estimator"]
    params = ([name for name in ESTIMATORS if not name.startswith("sklearn")],)

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, estimator):
        from sklearn_pa.model_selection import progressive_val_score

        self.score = progressive_val_score
        self.X, self.y = preference_problem()
        self.estimator = ESTIMATORS[estimator]().set_params(shuffle=False)

    def time_progressive_val_score(self, estimator):
        self.score(self.estimator, self.X, self.y)

    def track_online_mse(self, estimator):
        return -float(self.score(self.estimator, self.X, self.y))

    track_online_mse.unit = "squared error"
