"""The saved state of an estimator: versioned, and checked as it is loaded.

What an estimator saves (``pickle``, ``joblib``, ``skops.io``) is its
attribute dictionary (``__getstate__``): constructor parameters, learned
arrays and numbers, and a few plain helper objects, with the state format
:data:`STATE_FORMAT` under the key ``"_sklearn_pa_state_format"``.  As it is
loaded (``__setstate__``, which ``pickle`` and ``skops.io.load`` both call)
:class:`CheckedStateMixin`:

1. reads the format: an older one is upgraded (:data:`_UPGRADES`), a newer
   one, or one that is not a format number, is refused with a message that
   names it and what to do;
2. refuses NaN, infinity or complex numbers in what was learned (the public
   ``*_`` attributes) and in the private numeric state: a fitted estimator
   never holds them, every update that would create one is refused;
3. checks the constructor parameters against the class's constraints (an
   option a model could not have been fitted with);
4. checks the dtype and the shape of every array its family declares
   (``_state_shapes``, :func:`declared_shapes`): each dimension is a number
   or a name (``"d"``: ``n_features_in_``, ``"c"``: the number of classes,
   others bound by the first array that names them), so that the arrays
   agree with each other.

A file that fails is refused as damaged or edited, naming the attribute,
instead of loading and failing later with a message about something else.
``copy.deepcopy`` copies an estimator as it is (a copy of a model in memory
is that model)."""

import contextvars
import copy
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import (
    InvalidParameterError,
    validate_parameter_constraints,
)

__all__ = [
    "STATE_FORMAT",
    "CheckedStateMixin",
    "Items",
    "OneOf",
    "Sparse",
    "declared_shapes",
    "non_finite_state",
]

#: The format of the state this version saves.  It changes when what an
#: estimator saves changes in a way an older version could not read (an
#: attribute renamed, an array laid out another way); :data:`_UPGRADES`
#: then turns each older format into the next.
STATE_FORMAT = 1

#: The key of the state format in a saved state.
FORMAT_KEY = "_sklearn_pa_state_format"

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


class OneOf(tuple):
    """Shapes an array of the state may have, one of them (a diagonal or a
    full covariance...): ``OneOf((("d+1", "g"), ("g", "d+1", "d+1")))``."""

    __slots__ = ()


class Sparse(tuple):
    """A shape only a scipy sparse matrix may have (a ``coef_`` after
    ``sparsify()``): ``OneOf((("d",), Sparse((1, "d"))))``."""

    __slots__ = ()


class Items(tuple):
    """The shapes of the arrays of a list (or tuple) in the state, item by
    item: ``Items((("k", "d"), ("k",)))``."""

    __slots__ = ()


def declared_shapes(estimator_class):
    """The shape of every array of the saved state that ``estimator_class``
    and its bases declare (their ``_state_shapes``, a dict from attribute
    name to a tuple of dimensions, a :class:`OneOf` or an :class:`Items`;
    a subclass's entry replaces its base's)."""
    shapes = {}
    for klass in reversed(estimator_class.__mro__):
        shapes.update(vars(klass).get("_state_shapes", {}))
    return shapes


class _Refused(ValueError):
    pass


def _bind(dim, size, bound, name):
    """Check ``size`` against the declared dimension ``dim`` (a number, a
    name, or ``"name+number"``), binding a new name; None or a text of what
    was expected."""
    if isinstance(dim, int):
        return None if size == dim else f"{dim}"
    symbol, _, offset = dim.partition("+")
    offset = int(offset or 0)
    if symbol not in bound:
        if size - offset < 0:
            return f"at least {offset}"
        bound[symbol] = (size - offset, name)
        return None
    value, source = bound[symbol]
    if size == value + offset:
        return None
    return f"{value + offset} (from {source})"


def _shape_error(value, spec, bound, name):
    """None if ``value`` fits ``spec`` (binding its new names in ``bound``
    only then), else what is wrong, as a text."""
    if isinstance(spec, OneOf):
        errors = []
        for option in spec:
            trial = dict(bound)
            error = _shape_error(value, option, trial, name)
            if error is None:
                bound.update(trial)
                return None
            errors.append(error)
        return " or ".join(errors)
    if isinstance(spec, Items):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            return f"a list of {len(spec)} arrays"
        trial = dict(bound)
        for i, (item, item_spec) in enumerate(zip(value, spec)):
            error = _shape_error(item, item_spec, trial, f"{name}[{i}]")
            if error is not None:
                return f"item {i}: {error}"
        bound.update(trial)
        return None
    if not (isinstance(value, np.ndarray) or sp.issparse(value)):
        return f"an array, not {type(value).__name__}"
    if isinstance(spec, Sparse) and not sp.issparse(value):
        return "a sparse matrix of that shape"
    if value.dtype.kind == "f" and value.dtype not in (np.float32, np.float64):
        return f"float64 or float32, not {value.dtype}"
    if value.dtype.kind not in "fiub" and name != "classes_":
        return f"numbers, not {value.dtype}"
    if value.ndim != len(spec):
        return f"{len(spec)} dimensions, not {value.ndim}"
    trial = dict(bound)
    for axis, (dim, size) in enumerate(zip(spec, value.shape)):
        expected = _bind(dim, size, trial, name)
        if expected is not None:
            return f"{expected} along axis {axis}, not {size}"
    bound.update(trial)
    return None


def _check_shapes(estimator_class, state):
    """Raise :class:`_Refused` if an array the class declares does not
    have the dtype or the shape the rest of ``state`` gives it."""
    bound = {}
    n_features = state.get("n_features_in_")
    if n_features is not None:
        if not isinstance(n_features, (numbers.Integral, np.integer)) or n_features < 0:
            raise _Refused(f"n_features_in_ = {n_features!r}, not a count")
        bound["d"] = (int(n_features), "n_features_in_")
    classes = state.get("classes_")
    if classes is not None:
        if not isinstance(classes, np.ndarray) or classes.ndim != 1:
            raise _Refused("classes_ that is not a 1-D array")
        bound["c"] = (classes.shape[0], "classes_")
    for name, spec in declared_shapes(estimator_class).items():
        value = state.get(name)
        if value is None:
            continue
        error = _shape_error(value, spec, bound, name)
        if error is not None:
            shape = getattr(value, "shape", None)
            what = f"of shape {shape}" if shape is not None else ""
            raise _Refused(f"{name} {what}, where it should have {error}")


def _check_params(estimator_class, state):
    """Raise :class:`_Refused` if a constructor parameter of ``state`` is a
    value the class does not take."""
    constraints = getattr(estimator_class, "_parameter_constraints", None)
    if not constraints:
        return
    params = {
        key: state[key] for key in estimator_class._get_param_names() if key in state
    }
    try:
        validate_parameter_constraints(
            constraints, params, caller_name=estimator_class.__name__
        )
    except InvalidParameterError as exc:
        raise _Refused(f"a parameter this version does not take: {exc}") from None


def _from_unversioned(state):
    """Format 0 (what was saved before the format was versioned) to 1: the
    same attributes, laid out the same way; the checks that follow are
    what format 1 adds."""
    return state


#: format -> the function that turns a state of that format into the next
_UPGRADES = {0: _from_unversioned}


def _state_format(name, state):
    """The format ``state`` was saved in (0 if none), refused if it is
    newer than :data:`STATE_FORMAT` or not a format number."""
    found = state.pop(FORMAT_KEY, 0)
    if isinstance(found, bool) or not isinstance(found, (numbers.Integral, np.integer)):
        raise ValueError(
            f"The saved {name} names its state format as {found!r}, which is "
            "not a format number: the file was damaged or edited. Load "
            "another copy, or fit the model again."
        )
    found = int(found)
    if found > STATE_FORMAT:
        raise ValueError(
            f"The saved {name} has state format {found}, newer than the "
            f"format {STATE_FORMAT} this version of sklearn_pa reads: it was "
            "saved by a later version of sklearn_pa. Upgrade sklearn_pa "
            '(pip install -U "sklearn_pa") to load it, or fit the model '
            "again with this version."
        )
    if found < 0:
        raise ValueError(
            f"The saved {name} has state format {found}, which no version "
            "writes: the file was damaged or edited. Load another copy, or "
            "fit the model again."
        )
    return found


def _upgraded(state, found):
    while found < STATE_FORMAT:
        state = _UPGRADES[found](state)
        found += 1
    return state


class CheckedStateMixin:
    """Saves the state format with the state, and checks a state as it is
    loaded (see the module docstring): a state of an older format is
    upgraded, one that could not come from a fitted estimator of this
    version is refused with a :class:`ValueError`.  ``copy.deepcopy``
    copies as it is.

    Each family declares the shapes of its arrays in ``_state_shapes``
    (:func:`declared_shapes`)."""

    #: attribute -> shape (see :func:`declared_shapes`)
    _state_shapes = {"classes_": ("c",)}

    def __getstate__(self):
        """The saved state: the attributes, with the state format."""
        state = dict(super().__getstate__())
        state[FORMAT_KEY] = STATE_FORMAT
        return state

    def __deepcopy__(self, memo):
        token = _COPYING.set(True)
        try:
            # what copy.deepcopy does for an object without __deepcopy__
            return copy._reconstruct(self, memo, *self.__reduce_ex__(4))
        finally:
            _COPYING.reset(token)

    def __setstate__(self, state):
        if isinstance(state, dict):
            state = dict(state)
            if _COPYING.get():
                state.pop(FORMAT_KEY, None)
            else:
                state = self._checked_state(state)
        super().__setstate__(state)

    @classmethod
    def _checked_state(cls, state):
        """``state`` upgraded to :data:`STATE_FORMAT` and checked, or a
        :class:`ValueError` that names what is wrong."""
        name = cls.__name__
        state = _upgraded(state, _state_format(name, state))
        found = non_finite_state(cls, state)
        if found:
            raise ValueError(
                f"The saved {name} holds NaN, infinity or a complex "
                f"number in {found}, which a fitted {name} never does: "
                "the file was damaged or edited. Load another copy, or "
                "fit the model again."
            )
        try:
            _check_params(cls, state)
            _check_shapes(cls, state)
        except _Refused as exc:
            raise ValueError(
                f"The saved {name} holds {exc}: the file was damaged or "
                "edited. Load another copy, or fit the model again."
            ) from None
        return state
