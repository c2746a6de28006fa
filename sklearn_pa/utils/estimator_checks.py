"""The checks of scikit-learn's estimator suite that cannot apply to an
estimator of this package, each with its reason."""

__all__ = ["expected_failed_checks"]

# Online learners visit samples one at a time: a sample's weight scales its
# step, and repeating or removing samples changes the sequence of
# intermediate models, so no per-sample weighting can make the two fits equal
# (scikit-learn marks the same checks as expected failures for its SGD models).
_ONLINE_SAMPLE_WEIGHT = (
    "an online learner's sample_weight scales that sample's step (it multiplies "
    "C, or the step itself); repeating or removing samples changes the sequence "
    "of updates, so the fits cannot be equal"
)

_EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": _ONLINE_SAMPLE_WEIGHT,
    "check_sample_weight_equivalence_on_sparse_data": _ONLINE_SAMPLE_WEIGHT,
}

# The Gaussian models' probability Phi(mu.x / sqrt(c x^T Sigma x + s^2))
# divides each score by that sample's own standard deviation: by design it is
# not a monotone function of decision_function (mu.x) across samples (the
# check passes where the fitted noise s^2 dominates the variance).
_GAUSSIAN_PROBA = (
    "predict_proba is Phi(mu.x / sqrt(c x^T Sigma x + s^2)): the variance "
    "differs per sample, so its ranking may differ from that of "
    "decision_function (mu.x)"
)

_PER_ESTIMATOR = {
    name: {"check_decision_proba_consistency": _GAUSSIAN_PROBA}
    for name in ("AROWClassifier", "ConfidenceWeightedClassifier", "SCWClassifier")
}


def expected_failed_checks(estimator):
    """The checks of scikit-learn's suite an estimator is expected to fail.

    Online learners cannot pass the two sample-weight equivalence checks
    (repeating a sample is not weighting it once the samples are visited in
    turn; scikit-learn's SGD estimators fail them too), the Gaussian models'
    ``predict_proba`` need not rank as ``decision_function`` does, and an
    estimator may name checks that do not apply to it (its class attribute
    ``_expected_failed_checks``).  The result is the form the
    ``expected_failed_checks`` argument of
    :func:`~sklearn.utils.estimator_checks.check_estimator` and
    :func:`~sklearn.utils.estimator_checks.parametrize_with_checks` takes.

    Parameters
    ----------
    estimator : estimator instance
        An estimator of this package (another estimator gets the two
        sample-weight checks only if it defines ``partial_fit``).

    Returns
    -------
    checks : dict
        Check name -> the reason it is expected to fail.

    Examples
    --------
    >>> from sklearn.utils.estimator_checks import check_estimator
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.utils import expected_failed_checks
    >>> clf = PassiveAggressiveClassifier()
    >>> sorted(expected_failed_checks(clf))
    ['check_sample_weight_equivalence_on_dense_data', \
'check_sample_weight_equivalence_on_sparse_data']
    >>> check_estimator(
    ...     clf, expected_failed_checks=expected_failed_checks(clf)
    ... )  # doctest: +SKIP
    """
    checks = {}
    if hasattr(estimator, "partial_fit"):
        checks.update(_EXPECTED_FAILED_CHECKS)
    checks.update(_PER_ESTIMATOR.get(type(estimator).__name__, {}))
    checks.update(getattr(type(estimator), "_expected_failed_checks", {}))
    return checks
