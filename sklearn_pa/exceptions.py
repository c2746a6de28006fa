"""Warnings of this package (scikit-learn's own are used where they fit)."""

__all__ = ["NoisyLabelsWarning"]


class NoisyLabelsWarning(UserWarning):
    """The training data look noisy for a learner that assumes they are not.

    :class:`~sklearn_pa.ConfidenceWeightedClassifier` raises it from ``fit``
    when more than 20 % of the training samples are still mispredicted in
    its last epoch (of two or more): with noisy labels or overlapping
    classes CW's updates keep moving the model.  :class:`~sklearn_pa.AROWClassifier` and
    :class:`~sklearn_pa.SCWClassifier` are made for that case.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import ConfidenceWeightedClassifier
    >>> from sklearn_pa.exceptions import NoisyLabelsWarning
    >>> X, y = make_classification(n_samples=1000, flip_y=0.3, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ConfidenceWeightedClassifier(random_state=0).fit(X, y)
    >>> any(issubclass(w.category, NoisyLabelsWarning) for w in caught)
    True
    """
