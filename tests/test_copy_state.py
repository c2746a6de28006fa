"""A pickle or a deepcopy leaves the estimator as its copy is, on every
Python (from 3.11 ``object.__getstate__`` returns the instance's own
``__dict__``; before, a copy of it)."""

import copy
import pickle

import numpy as np

from sklearn_pa import PassiveAggressiveClassifier, SCWClassifier


def test_a_copy_has_the_attributes_of_the_estimator():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y = (X[:, 0] > 0).astype(int)
    for est in (
        PassiveAggressiveClassifier(random_state=0),
        SCWClassifier(average=True, random_state=0),
    ):
        est.fit(X, y)
        est.coef_  # noqa: B018 (publishes a pending average)
        before = set(est.__dict__)
        copied = copy.deepcopy(est)
        assert set(copied.__dict__) == set(est.__dict__)
        loaded = pickle.loads(pickle.dumps(est))
        assert set(loaded.__dict__) == set(est.__dict__) == before
        np.testing.assert_array_equal(loaded.coef_, est.coef_)
        # the next average is the same, whether the buffer was kept or not
        est.partial_fit(X, y)
        loaded.partial_fit(X, y)
        np.testing.assert_array_equal(loaded.coef_, est.coef_)
