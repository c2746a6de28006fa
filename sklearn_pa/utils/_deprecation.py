"""Renamed parameters, kept working for two releases (scikit-learn's way)."""

import warnings

__all__ = ["renamed_parameter"]


def renamed_parameter(estimator, new, old, new_default, *, since="0.1", until="0.3"):
    """The value of parameter ``new``, taking the deprecated alias ``old``
    (default ``"deprecated"``) when that is set, with a ``FutureWarning``."""
    old_value = getattr(estimator, old)
    if isinstance(old_value, str) and old_value == "deprecated":
        return getattr(estimator, new)
    new_value = getattr(estimator, new)
    if not (new_value is new_default or new_value == new_default):
        raise ValueError(
            f"{type(estimator).__name__} got both {new}={new_value!r} and its "
            f"deprecated alias {old}={old_value!r}; pass {new} only."
        )
    warnings.warn(
        f"The parameter {old!r} of {type(estimator).__name__} was renamed "
        f"{new!r} in {since} and will be removed in {until}; pass "
        f"{new}={old_value!r} instead.",
        FutureWarning,
        stacklevel=4,
    )
    return old_value
