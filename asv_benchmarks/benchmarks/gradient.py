"""Fit and predict time, peak memory and test R^2 of the square-loss online
regressors (GD, EG+-, DPAU, DPMU), dense and sparse.

The data are the preference-prediction stand-ins of ``common``: Boolean
keyword rows (about 45 keywords per row, of 20000 sparse or 256 dense
features) and an interest in {-2, ..., 2} planted as a sparse linear
function, rounded and clipped.  scikit-learn's ``SGDRegressor`` with a
constant learning rate (the same rule as GD with ``eta_scaling="constant"``)
runs in the same suite.  Only the public API is used.
"""

from sklearn.linear_model import SGDRegressor

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)

from .common import (
    EPOCHS,
    RANDOM_STATE,
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    score_tracker,
)


def _ours(cls, **params):
    return lambda: cls(max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE, **params)


ESTIMATORS = {
    "GD": _ours(GradientDescentRegressor, eta=0.1),
    "GD-constant": _ours(GradientDescentRegressor, eta=0.005, eta_scaling="constant"),
    "EG": _ours(ExponentiatedGradientRegressor, eta=1e-3, total_weight=20.0),
    "DPAU": _ours(ErrorProportionalRegressor, C=0.2),
    "DPMU": _ours(ErrorProportionalRegressor, C=0.2, update="multiplicative"),
    "sklearn-SGD-constant": lambda: SGDRegressor(
        penalty=None,
        learning_rate="constant",
        eta0=0.01,
        max_iter=EPOCHS,
        tol=None,
        random_state=RANDOM_STATE,
    ),
}


class OnlineRegressionSuite(Predictor, Estimator, Benchmark):
    """Three epochs of fit on Boolean keyword rows."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(ESTIMATORS))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return get_data(f"regression-{representation}")

    def make_estimator(self, representation, estimator):
        return ESTIMATORS[estimator]()

    track_test_score = score_tracker("R2")


class ProgressiveValidationSuite(Benchmark):
    """One predict-then-learn pass over the training stream (the package's
    one-pass kernel path; scikit-learn's SGD would need a per-sample Python
    loop, so it is not timed here: ``python -m sklearn_pa.benchmark --dataset
    preference-synthetic`` reports that loop)."""

    param_names = ["representation", "estimator"]
    params = (
        ["dense", "sparse"],
        [name for name in ESTIMATORS if not name.startswith("sklearn")],
    )

    def setup(self, representation, estimator):
        from sklearn_pa.model_selection import progressive_val_score

        self.score = progressive_val_score
        self.X, _, self.y, _ = get_data(f"regression-{representation}")
        self.estimator = ESTIMATORS[estimator]().set_params(shuffle=False)

    def time_progressive_val_score(self, representation, estimator):
        self.score(self.estimator, self.X, self.y)

    def track_online_mse(self, representation, estimator):
        return -float(self.score(self.estimator, self.X, self.y))

    track_online_mse.unit = "squared error"
