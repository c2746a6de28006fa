"""One naming rule: ``C`` for the step bound, descriptive names elsewhere."""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from sklearn_pa import AROWClassifier


def _binary():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:200], y[:200]


def test_the_new_names_are_tunable():
    X, y = _binary()
    search = GridSearchCV(
        AROWClassifier(max_iter=2, tol=None, random_state=0),
        {"regularization": [0.1, 1.0, 10.0]},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["regularization"] in (0.1, 1.0, 10.0)
