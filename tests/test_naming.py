"""One naming rule: ``C`` for the step bound, descriptive names elsewhere;
the old names keep working for two releases with a FutureWarning."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from sklearn_pa import AROWClassifier, ErrorProportionalRegressor


def _binary():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:200], y[:200]


def _boolean():
    rng = np.random.RandomState(0)
    X = (rng.uniform(size=(120, 10)) < 0.3).astype(float)
    return X, X @ rng.uniform(-2, 2, 10)


@pytest.mark.parametrize(
    "cls, new, old, value, data",
    [
        (AROWClassifier, "regularization", "r", 3.0, _binary),
        (ErrorProportionalRegressor, "C", "c", 0.3, _boolean),
    ],
)
def test_deprecated_alias_works_and_warns(cls, new, old, value, data):
    X, y = data()
    params = dict(random_state=0, max_iter=3, tol=None)
    with pytest.warns(FutureWarning, match=f"renamed '{new}'"):
        legacy = cls(**{old: value}, **params).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        current = cls(**{new: value}, **params).fit(X, y)
        # the new name alone does not warn, and clone keeps both
        clone(current).fit(X, y)
    assert_allclose(legacy.coef_, current.coef_)
    # and the value matters: another value gives another model
    other = cls(**{new: value / 3}, **params).fit(X, y)
    assert not np.allclose(other.coef_, current.coef_)
    with pytest.raises(ValueError, match=f"both {new}="):
        cls(**{old: value, new: value / 2}, **params).fit(X, y)
    assert cls().get_params()[old] == "deprecated"


def test_the_new_names_are_tunable():
    X, y = _binary()
    search = GridSearchCV(
        AROWClassifier(max_iter=2, tol=None, random_state=0),
        {"regularization": [0.1, 1.0, 10.0]},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["regularization"] in (0.1, 1.0, 10.0)
