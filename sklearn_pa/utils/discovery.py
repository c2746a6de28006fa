"""Find every public estimator of the package (as ``sklearn.utils.discovery``)."""

import inspect

from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)

__all__ = ["all_estimators"]

_TYPES = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "outlier_detector": OutlierMixin,
    "transformer": TransformerMixin,
}


def all_estimators(type_filter=None):
    """List the public estimators of ``sklearn_pa``.

    Every class exported by the package's ``__all__`` that derives from
    :class:`~sklearn.base.BaseEstimator` is listed, so an estimator joins the
    common test-suites the day it is exported.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "outlier_detector", \
            "transformer"} or list of those, default=None
        Keep only estimators of these kinds.  ``None`` keeps all.

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
        unknown = set(type_filter) - set(_TYPES)
        if unknown:
            raise ValueError(
                f"Unknown type_filter {sorted(unknown)}; choose from {sorted(_TYPES)}."
            )
    found = []
    for name in sklearn_pa.__all__:
        obj = getattr(sklearn_pa, name)
        if not (inspect.isclass(obj) and issubclass(obj, BaseEstimator)):
            continue
        if inspect.isabstract(obj):
            continue
        if type_filter is not None and not any(
            issubclass(obj, _TYPES[kind]) for kind in type_filter
        ):
            continue
        found.append((name, obj))
    return sorted(found)
