"""Find every public estimator of the package (as ``sklearn.utils.discovery``)."""

import inspect

from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)

__all__ = ["all_estimators", "is_meta_estimator", "is_sequence_tagger"]

_TYPES = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "outlier_detector": OutlierMixin,
    "transformer": TransformerMixin,
}


def is_sequence_tagger(estimator):
    """Whether ``estimator`` (a class or an instance) takes ``X`` as a list of
    sequences and ``y`` as a list of label sequences (its class sets
    ``_sequence_tagger = True``)."""
    return bool(getattr(estimator, "_sequence_tagger", False))


def is_meta_estimator(estimator):
    """Whether ``estimator`` (a class or an instance) learns through another
    estimator of the package it is given (its class sets
    ``_meta_estimator = True``)."""
    return bool(getattr(estimator, "_meta_estimator", False))


def all_estimators(type_filter=None):
    """List the public estimators of ``sklearn_pa``.

    Every class exported by the package's ``__all__`` that derives from
    :class:`~sklearn.base.BaseEstimator` is listed, so an estimator joins the
    common test-suites the day it is exported.

    Sequence taggers (``X`` a list of sequences, ``y`` a list of label
    sequences) do not fit scikit-learn's tabular estimator checks; they are
    listed only when asked for with ``type_filter="sequence_tagger"`` (or
    ``"all"``).  Meta-estimators (a learner of the package wrapped, such as
    :class:`~sklearn_pa.OnlineCalibratedClassifier`) are not
    learners of their own: they are listed only when asked for with
    ``type_filter="meta_estimator"``, and their tests run them around every
    learner they take.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "outlier_detector", \
            "transformer", "sequence_tagger", "meta_estimator", "all"} or \
            list of those, default=None
        Keep only estimators of these kinds.  ``None`` keeps every tabular
        learner (everything but the sequence taggers and the
        meta-estimators); ``"all"`` keeps every learner.

    Returns
    -------
    estimators : list of (name, class) tuples
        Sorted by name.

    Examples
    --------
    >>> from sklearn_pa.utils import all_estimators
    >>> names = [name for name, _ in all_estimators(type_filter="regressor")]
    >>> "PassiveAggressiveRegressor" in names
    True
    """
    import sklearn_pa

    if isinstance(type_filter, str):
        type_filter = [type_filter]
    if type_filter is not None:
        choices = set(_TYPES) | {"sequence_tagger", "meta_estimator", "all"}
        unknown = set(type_filter) - choices
        if unknown:
            raise ValueError(
                f"Unknown type_filter {sorted(unknown)}; choose from {sorted(choices)}."
            )
    found = []
    for name in sklearn_pa.__all__:
        obj = getattr(sklearn_pa, name)
        if not (inspect.isclass(obj) and issubclass(obj, BaseEstimator)):
            continue
        if inspect.isabstract(obj):
            continue
        if is_meta_estimator(obj):
            if type_filter is not None and "meta_estimator" in type_filter:
                found.append((name, obj))
            continue
        if type_filter is None:
            if is_sequence_tagger(obj):
                continue
        elif "all" not in type_filter and not any(
            is_sequence_tagger(obj)
            if kind == "sequence_tagger"
            else kind in _TYPES
            and issubclass(obj, _TYPES[kind])
            and not is_sequence_tagger(obj)
            for kind in type_filter
        ):
            continue
        found.append((name, obj))
    return sorted(found)
