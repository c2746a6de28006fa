"""Fit and predict time, peak memory and test R^2 of the square-loss online
regressors (GD, EG+-, DPAU, DPMU), dense and sparse.

The data are the preference-prediction stand-ins of ``common``: Boolean
keyword rows (about 45 keywords per row, of 20000 sparse or 256 dense
features) and an interest in {-2, ..., 2} planted as a sparse linear
function, rounded and clipped.  scikit-learn's ``SGDRegressor`` with a
constant learning rate (the same rule as GD with ``eta_scaling="constant"``)
runs in the same suite.  Only the public API is used.
"""

from .common import (
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
)

#: Regressors of the benchmark command's registry.
ESTIMATORS = {
    name: (lambda name=name: registry_estimator(name))
    for name in ["GD", "GD-constant", "EG", "DPAU", "DPMU", "sklearn-SGD-constant"]
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
