"""scikit-learn's estimator checks over every public estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pa.utils import all_estimators, expected_failed_checks


def _instances():
    for _, Estimator in all_estimators():
        yield Estimator()
    # the meta-estimators, around the classifier they take by default
    for _, Estimator in all_estimators("meta_estimator"):
        yield Estimator()


def test_all_estimators_found():
    names = {name for name, _ in all_estimators()}
    assert {"PassiveAggressiveClassifier", "PassiveAggressiveRegressor"} <= names


@parametrize_with_checks(
    list(_instances()), expected_failed_checks=expected_failed_checks
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_docstring_has_example(name, Estimator):
    assert ">>> " in Estimator.__doc__, f"{name} needs an Examples section"


def test_expected_failed_checks_are_the_ones_that_fail():
    """The helper's list is exact for the two sample-weight checks: each
    fails, and a user's ``check_estimator`` passes with the list."""
    from sklearn.utils.estimator_checks import check_estimator

    from sklearn_pa import PassiveAggressiveClassifier

    clf = PassiveAggressiveClassifier()
    expected = expected_failed_checks(clf)
    assert set(expected) == {
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
    }
    results = check_estimator(clf, expected_failed_checks=expected, on_fail=None)
    outcome = {r["check_name"]: r["status"] for r in results}
    assert {outcome[name] for name in expected} == {"xfail"}
    assert "failed" not in outcome.values()
    # and without the list, exactly those fail
    results = check_estimator(clf, on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == set(expected)
