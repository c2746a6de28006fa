"""Warnings of this package (scikit-learn's own are used where they fit)."""

__all__ = ["InactiveWeightsWarning", "NoisyLabelsWarning"]


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


class InactiveWeightsWarning(UserWarning):
    """``sample_weight`` or ``class_weight`` has little or no effect on a fit.

    Raised from ``fit`` by a learner whose rule gives the weights no say at
    the parameters and data given, with the parameter (or the learner) that
    would make them count: :class:`~sklearn_pa.MIRAClassifier`, whose
    weights scale a bound on the step that steps of rows of large norm do
    not reach (a larger ``margin`` makes it bind), and
    :class:`~sklearn_pa.ROMMAClassifier`, whose step has no size (a weight
    only skips the row when zero).

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import ROMMAClassifier
    >>> from sklearn_pa.exceptions import InactiveWeightsWarning
    >>> X, y = make_classification(random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ROMMAClassifier().fit(X, y, sample_weight=1.0 + y)
    >>> any(issubclass(w.category, InactiveWeightsWarning) for w in caught)
    True
    """
