"""The state of a pickled estimator, checked as it is loaded.

A fitted estimator of this package never holds NaN or infinity in what it
learned (the public ``*_`` attributes) or in its private numeric state (the
intercept's constant, the one-class scale, the Bayes point copies' weights,
the taggers' weights, ...): every update that would create one is refused.
A pickle that holds one was damaged or edited, and would otherwise load and
fail later with a message about something else.  :class:`CheckedStateMixin`
refuses it when it is loaded, naming the attribute."""

import contextvars
import copy
import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["CheckedStateMixin", "non_finite_state"]

#: How deep the containers of a state are searched.
_MAX_DEPTH = 8

#: Set while ``copy.deepcopy`` rebuilds an estimator: a copy of a model in
#: memory is that model, whatever was assigned to it (the next call that
#: reads an assigned attribute checks it); only a pickle is checked.
_COPYING = contextvars.ContextVar("sklearn_pa_copying", default=False)


def _non_finite(value, path, depth):
    """The path of the first non-finite or complex number in ``value``
    (None if there is none)."""
    if depth > _MAX_DEPTH or value is None or isinstance(value, (str, bytes)):
        return None
    if isinstance(value, (bool, np.bool_, numbers.Integral)):
        return None
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        return path
    if isinstance(value, numbers.Real):
        return None if np.isfinite(value) else path
    if sp.issparse(value):
        value = value.data
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "c":
            return path
        if value.dtype.kind == "f":
            return None if np.isfinite(value).all() else path
        if value.dtype.kind == "O":
            for item in value.ravel():
                found = _non_finite(item, f"{path}[...]", depth + 1)
                if found:
                    return found
        return None
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif type(value).__module__.startswith("sklearn_pa.") and hasattr(
        value, "__dict__"
    ):
        # a helper object of the package held in the state (an estimator
        # is checked by its own __setstate__)
        items = vars(value).items()
        path = f"{path}."
        return next(
            (
                found
                for key, item in items
                if (found := _non_finite(item, f"{path}{key}", depth + 1))
            ),
            None,
        )
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{path}[{key!r}]", depth + 1)
        if found:
            return found
    return None


def non_finite_state(estimator_class, state):
    """The first learned or private entry of ``state`` (the ``__dict__`` of
    an ``estimator_class``) that holds NaN, infinity or a complex number, as
    a path (``"coef_"``, ``"loss_curve_[3]"``...), or None.  Constructor
    parameters are not searched: they may be infinite (``C=np.inf``)."""
    params = set(estimator_class._get_param_names())
    for key, value in state.items():
        if key in params or not isinstance(key, str):
            continue
        found = _non_finite(value, key, 0)
        if found:
            return found
    return None


class CheckedStateMixin:
    """Refuses, as it is unpickled, an estimator whose learned or private
    numeric state holds NaN, infinity or complex numbers (see
    :func:`non_finite_state`).  ``copy.deepcopy`` copies as it is."""

    def __deepcopy__(self, memo):
        token = _COPYING.set(True)
        try:
            # what copy.deepcopy does for an object without __deepcopy__
            return copy._reconstruct(self, memo, *self.__reduce_ex__(4))
        finally:
            _COPYING.reset(token)

    def __setstate__(self, state):
        if isinstance(state, dict) and not _COPYING.get():
            found = non_finite_state(type(self), state)
            if found:
                name = type(self).__name__
                raise ValueError(
                    f"The pickled {name} holds NaN, infinity or a complex "
                    f"number in {found}, which a fitted {name} never does: "
                    "the file was damaged or edited. Load another copy, or "
                    "fit the model again."
                )
        super().__setstate__(state)
