"""Migration from scikit-learn: its Passive-Aggressive models (and SGD with
the PA step) as estimators of this package: :func:`from_sklearn` for a live object,
:func:`load_sklearn_pickle` for a pickle, also where scikit-learn no longer
has the class (1.10 removed ``PassiveAggressiveClassifier`` and
``PassiveAggressiveRegressor``)."""

import copyreg
import importlib
import io
import numbers
import os
import pickle
import pickletools

import numpy as np
import scipy.sparse as sp

from ._core.batch import check_csr_structure
from .linear._base import adopt_weights
from .linear._passive_aggressive import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)

__all__ = ["from_sklearn", "load_sklearn_pickle"]

_CLASSIFIER, _REGRESSOR = "classifier", "regressor"

#: scikit-learn's class name -> (task, whether it is the SGD class).
_KINDS = {
    "PassiveAggressiveClassifier": (_CLASSIFIER, False),
    "PassiveAggressiveRegressor": (_REGRESSOR, False),
    "SGDClassifier": (_CLASSIFIER, True),
    "SGDRegressor": (_REGRESSOR, True),
}

#: The modules a pickle names these classes by, across scikit-learn versions.
_MODULES = (
    "sklearn.linear_model",
    "sklearn.linear_model._passive_aggressive",
    "sklearn.linear_model.passive_aggressive",
    "sklearn.linear_model._stochastic_gradient",
    "sklearn.linear_model.stochastic_gradient",
)

#: Parameters that mean the same in both packages.
_SHARED = (
    "fit_intercept",
    "max_iter",
    "tol",
    "early_stopping",
    "validation_fraction",
    "n_iter_no_change",
    "shuffle",
    "verbose",
    "random_state",
    "warm_start",
    "average",
)


class _Pickled:
    """What a pickled scikit-learn estimator of :data:`_KINDS` becomes while
    it is read: its class's name and its state (a dict), nothing imported."""

    sklearn_class = None

    def __setstate__(self, state):
        self.__dict__["state"] = state


class _Placeholder:
    """The loss object of the SGD classes (``_loss_function_``): it is not
    needed, and never imported."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


def _latin1(text, encoding="latin1", errors="strict"):
    """``_codecs.encode`` as pickle's protocols 0-2 call it for ``bytes``
    (``latin1`` only)."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise _Refused(
            "load_sklearn_pickle decodes only latin-1 text to bytes (as "
            f"pickle writes bytes); this pickle asks for {encoding!r}."
        )
    return text.encode("latin1", errors)


def _numpy(module, name):
    return lambda: getattr(importlib.import_module(module), name)


def _throwaway(module, name):
    """A fresh subclass of ``module.name`` for one load: what the pickle sets
    on the class (a BUILD on the class itself) stays on the copy."""
    return lambda: type(name, (getattr(importlib.import_module(module), name),), {})


def _allowed_globals():
    """The globals a pickled scikit-learn PA / SGD model names, across the
    versions of numpy, scipy and scikit-learn (``pickletools`` on fitted,
    averaged, class-weighted, sparsified, early-stopped and
    random-state-holding models of each class, protocols 0 to 5): (module,
    name) -> a function returning what the name stands for."""
    allowed = {
        ("builtins", "object"): lambda: object,
        ("__builtin__", "object"): lambda: object,
        ("copyreg", "_reconstructor"): lambda: copyreg._reconstructor,
        ("copy_reg", "_reconstructor"): lambda: copyreg._reconstructor,
        ("_codecs", "encode"): lambda: _latin1,
        ("codecs", "encode"): lambda: _latin1,
        ("numpy", "ndarray"): lambda: np.ndarray,
        ("numpy", "dtype"): lambda: np.dtype,
    }
    for core in ("numpy.core", "numpy._core"):
        allowed[core + ".multiarray", "_reconstruct"] = lambda: _reconstruct
        allowed[core + ".multiarray", "scalar"] = _numpy(
            "numpy._core.multiarray", "scalar"
        )
        allowed[core + ".numeric", "_frombuffer"] = _numpy(
            "numpy._core.numeric", "_frombuffer"
        )
    for module in ("numpy.random._pickle", "numpy.random.mtrand"):
        allowed[module, "__randomstate_ctor"] = lambda: _randomstate
        allowed[module, "__RandomState_ctor"] = lambda: _randomstate
        allowed[module, "__bit_generator_ctor"] = lambda: _bit_generator
    for module in ("numpy.random._mt19937", "numpy.random"):
        allowed[module, "MT19937"] = _numpy("numpy.random", "MT19937")
    for module in ("scipy.sparse._csr", "scipy.sparse.csr", "scipy.sparse"):
        allowed[module, "csr_matrix"] = _throwaway("scipy.sparse", "csr_matrix")
    for module in _MODULES:
        for name in _KINDS:
            allowed[module, name] = lambda name=name: type(
                name, (_Pickled,), {"sklearn_class": name}
            )
    for module in ("sklearn.linear_model._sgd_fast", "sklearn.linear_model.sgd_fast"):
        for name in _LOSS_OBJECTS:
            allowed[module, name] = lambda: _Placeholder
    return allowed


#: scikit-learn's loss objects (``_loss_function_`` of the SGD classes).
_LOSS_OBJECTS = (
    "Hinge",
    "SquaredHinge",
    "ModifiedHuber",
    "Log",
    "SquaredLoss",
    "Huber",
    "EpsilonInsensitive",
    "SquaredEpsilonInsensitive",
)


def _reconstruct(subtype, shape, dtype):
    """numpy's array reconstruction, for a plain ``ndarray`` only."""
    if subtype is not np.ndarray:
        raise _Refused(
            f"load_sklearn_pickle rebuilds plain numpy arrays only, not {subtype!r}."
        )
    return np.ndarray.__new__(np.ndarray, shape, dtype)


def _bit_generator(name="MT19937"):
    """numpy's bit generator of a pickled ``RandomState``: MT19937 only."""
    if name not in ("MT19937", np.random.MT19937):
        raise _Refused(
            f"load_sklearn_pickle reads a RandomState of MT19937 only, not {name!r}."
        )
    return np.random.MT19937()


def _randomstate(name="MT19937", ctor=None):
    """numpy's ``RandomState`` of a pickle (its state is set afterwards):
    of an MT19937 given or named."""
    if isinstance(name, np.random.MT19937):
        return np.random.RandomState(name)
    return np.random.RandomState(_bit_generator(name))


class _Refused(pickle.UnpicklingError):
    """What the loader refuses (a global, an argument): its message says
    what, and it is raised as it is."""


def _damaged(exc):
    """The ``UnpicklingError`` of a file that ``exc`` showed damaged (raised
    from it: the reader's own message, which may quote the damaged bytes,
    stays in the chained exception)."""
    return pickle.UnpicklingError(
        "The file is not a readable pickle: it is damaged or truncated (the "
        f"pickle reader stopped with {type(exc).__name__}, shown above). Load "
        "an intact copy."
    )


def _load(handle):
    """The object of the pickle ``handle``: :class:`_Refused` as it is, and
    any other failure of a damaged or truncated file (the unpickler's own
    ``EOFError``, ``ValueError``, ``KeyError``...) as an
    ``UnpicklingError`` that says so.

    The opcodes are read once before anything is built
    (``pickletools.genops``): a length field that claims more bytes than the
    file holds is found there, without allocating what it claims (the
    unpickler itself allocates first, and its ``MemoryError`` would depend on
    the memory free at the time).
    """
    data = handle.read()
    try:
        for _ in pickletools.genops(data):
            pass
    except Exception as exc:
        raise _damaged(exc) from exc
    try:
        return _Unpickler(io.BytesIO(data)).load()
    except (_Refused, MemoryError):
        raise
    except Exception as exc:
        raise _damaged(exc) from exc


class _Unpickler(pickle.Unpickler):
    """Reads a pickle that names only the globals of
    :func:`_allowed_globals`, and refuses any other before it is imported or
    called: scikit-learn's PA and SGD classes become :class:`_Pickled`
    whether or not the installed scikit-learn has them, its loss objects
    :class:`_Placeholder`, and the arrays, sparse matrices and random states
    numpy's and scipy's own."""

    def __init__(self, file):
        super().__init__(file)
        self._allowed = _allowed_globals()

    def find_class(self, module, name):
        make = self._allowed.get((module, name))
        if make is None:
            raise _Refused(
                f"The pickle names {module}.{name}, which a pickled "
                "scikit-learn Passive-Aggressive or SGD model does not: "
                "refused without importing or calling it. "
                "load_sklearn_pickle reads only numpy arrays, scipy sparse "
                "matrices, numpy random states and scikit-learn's "
                f"{', '.join(_KINDS)}; if this file is a model you trust, "
                "load it with pickle.load."
            )
        return make()


_LOSSES = {
    _CLASSIFIER: ("hinge", "squared_hinge"),
    _REGRESSOR: ("epsilon_insensitive", "squared_epsilon_insensitive"),
}


def _refuse(what):
    raise ValueError(
        f"This scikit-learn model is not one that scikit-learn can have "
        f"written: {what}. It is refused rather than loaded as a broken model."
    )


def _sparsified(name, value):
    """The dense array of a ``sparsify()``-ed attribute: scikit-learn
    publishes a CSR matrix, whose arrays (read from the file) are checked
    before scipy reads through them (a damaged index or ``indptr`` would
    send it outside its arrays)."""
    if not (sp.issparse(value) and value.format == "csr"):
        _refuse(
            f"{name} is a {type(value).__name__}, not the CSR matrix that "
            "sparsify() makes"
        )
    try:
        check_csr_structure(value)
    except (ValueError, TypeError, AttributeError, IndexError) as error:
        _refuse(f"{name} is a CSR matrix whose structure is broken ({error})")
    return value.toarray()


def _real(name, value, ndim=None, minimum=None):
    """``value`` as a float64 array after checks: a real number type
    (integers, floats or booleans; no complex, object or string),
    ``ndim`` dimensions, finite, at least ``minimum``."""
    if hasattr(value, "toarray") and hasattr(value, "tocsr"):
        value = _sparsified(name, value)
    array = np.asarray(value) if not isinstance(value, np.ndarray) else value
    if array.dtype.kind not in "biuf":
        _refuse(f"{name} holds {array.dtype} values, not real numbers")
    if ndim is not None and array.ndim != ndim:
        _refuse(f"{name} has {array.ndim} dimensions, not {ndim}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        _refuse(f"{name} holds NaN or infinite values")
    if minimum is not None and (array < minimum).any():
        _refuse(f"{name} holds a value below {minimum}")
    return array


def _check_shape(name, array, *shapes):
    if array.shape not in shapes:
        expected = " or ".join(str(shape) for shape in shapes)
        _refuse(f"{name} has the shape {array.shape}; this model's is {expected}")
    return array


def _check_state(sklearn_class, state):
    """The state of a scikit-learn model, checked: the options known, the
    learned arrays real, finite and of the shapes the model's dimensions
    give, the classes unique.  Returns the state with its arrays as float64
    (dense) arrays; raises ``ValueError`` saying what is wrong."""
    if not isinstance(state, dict):
        _refuse(f"its state is a {type(state).__name__}, not a dict")
    task, is_sgd = _KINDS[sklearn_class]
    state = dict(state)
    if is_sgd and state.get("learning_rate") not in ("pa1", "pa2"):
        return state  # refused by _params: no PA step
    if not is_sgd and state.get("loss") not in _LOSSES[task]:
        _refuse(
            f"loss={state.get('loss')!r}; scikit-learn's {sklearn_class} "
            f"takes {' or '.join(map(repr, _LOSSES[task]))}"
        )
    step = "eta0" if is_sgd else "C"
    if step not in state:
        _refuse(f"it has no {step}")
    for key in ("C", "eta0", "epsilon"):
        if key in state and (
            isinstance(state[key], bool)
            or not isinstance(state[key], numbers.Real)
            or not np.isfinite(state[key])
            or state[key] < 0
            or (key != "epsilon" and state[key] == 0)
        ):
            bound = "a non-negative" if key == "epsilon" else "a positive"
            _refuse(f"{key}={state[key]!r}, where it is {bound} finite number")
    class_weight = state.get("class_weight")
    if isinstance(class_weight, dict):
        _real("class_weight", list(class_weight.values()), minimum=0.0)
    elif class_weight not in (None, "balanced"):
        _refuse(f"class_weight={class_weight!r}")
    if "coef_" not in state:
        learned = [k for k in ("intercept_", "t_", "classes_") if k in state]
        if learned:
            _refuse(f"it has {', '.join(learned)} but not coef_")
        return state  # not fitted
    required = ["coef_", "intercept_", "t_", "n_features_in_"]
    if task == _CLASSIFIER:
        required.append("classes_")
    missing = [key for key in required if key not in state]
    if missing:
        _refuse(f"it has coef_ but not {', '.join(missing)}")
    n_features = state["n_features_in_"]
    if not isinstance(n_features, numbers.Integral) or n_features < 1:
        _refuse(f"n_features_in_={n_features!r}, where it is a positive integer")
    n_features = int(n_features)
    t = _real("t_", state["t_"], ndim=0, minimum=1.0)
    state["t_"] = float(t)
    n_iter = state.get("n_iter_", 0)
    if not isinstance(n_iter, numbers.Integral) or n_iter < 0:
        _refuse(f"n_iter_={n_iter!r}, where it is a non-negative integer")
    if task == _CLASSIFIER:
        classes = np.asarray(state["classes_"])
        if classes.ndim != 1 or classes.shape[0] < 2:
            _refuse(f"classes_ has the shape {classes.shape}, not two labels or more")
        if classes.dtype.kind not in "biufUSO":
            _refuse(f"classes_ holds {classes.dtype} values")
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            _refuse("classes_ holds NaN or infinite labels")
        try:
            n_unique = len(np.unique(classes))
        except TypeError:
            _refuse("classes_ holds labels of different types that do not sort")
        if n_unique != len(classes):
            _refuse("classes_ holds a label twice")
        n_columns = 1 if len(classes) == 2 else len(classes)
        full = (n_columns, n_features)
        flat = (n_features,) if n_columns == 1 else full
        bias = (n_columns,)
        weights = state.get("_expanded_class_weight")
        if weights is not None:
            _check_shape(
                "_expanded_class_weight",
                _real("_expanded_class_weight", weights, minimum=0.0),
                (len(classes),),
            )
    else:
        full = flat = (n_features,)
        bias = (1,)
    # coef_ as scikit-learn publishes it; the averaged model's
    # iterate and average are flat for one column
    shapes = {"coef_": (full,), "intercept_": (bias,)}
    if state.get("average") and "_standard_coef" in state:
        for key in ("_standard", "_average"):
            shapes[key + "_coef"] = (full, flat)
            shapes[key + "_intercept"] = (bias,)
    for key, allowed in shapes.items():
        if key not in state:
            _refuse(f"it has _standard_coef but not {key}")
        state[key] = _check_shape(key, _real(key, state[key]), *allowed)
    names = state.get("feature_names_in_")
    if names is not None and np.shape(names) != (n_features,):
        _refuse(
            f"feature_names_in_ has the shape {np.shape(names)}, not ({n_features},)"
        )
    return state


def _params(task, is_sgd, state):
    """The parameters of this package's equivalent estimator."""
    if is_sgd:
        rate = state.get("learning_rate")
        if rate not in ("pa1", "pa2"):
            raise ValueError(
                f"Only an SGD model with learning_rate='pa1' or 'pa2' is a "
                f"Passive-Aggressive model; this one has learning_rate={rate!r}. "
                "Keep it in scikit-learn."
            )
        expected_loss = "hinge" if task == _CLASSIFIER else "epsilon_insensitive"
        if state.get("loss") != expected_loss:
            raise ValueError(
                f"The PA step of scikit-learn's SGD is PA-I / PA-II with "
                f"loss={expected_loss!r}; this model has loss={state.get('loss')!r}, "
                "which has no equivalent here."
            )
        if state.get("penalty") not in (None, "none") and state.get("alpha", 0.0):
            raise ValueError(
                f"This SGD model has penalty={state.get('penalty')!r} with "
                f"alpha={state.get('alpha')!r}: its steps shrink the weights, "
                "which no Passive-Aggressive rule does. Only penalty=None (or "
                "alpha=0) has an equivalent here."
            )
        C = float(state["eta0"])
        slack = 1 if rate == "pa1" else 2
    else:
        C = float(state["C"])
        slack = 1 if state["loss"] in ("hinge", "epsilon_insensitive") else 2
    params = {key: state[key] for key in _SHARED if key in state}
    params.update(C=C, intercept_scaling=1.0, weight_scaling="step")
    if task == _CLASSIFIER:
        params["loss"] = "hinge" if slack == 1 else "squared_hinge"
        params["multiclass"] = "ovr"
        params["n_jobs"] = state.get("n_jobs")
        class_weight = state.get("class_weight")
        if class_weight == "balanced" and "_expanded_class_weight" in state:
            # the weights "balanced" computed from the data fitted: kept as
            # they are (partial_fit cannot compute them again)
            class_weight = {
                label: float(w)
                for label, w in zip(
                    state["classes_"].tolist(), state["_expanded_class_weight"]
                )
            }
        params["class_weight"] = class_weight
    else:
        params["loss"] = (
            "epsilon_insensitive" if slack == 1 else "squared_epsilon_insensitive"
        )
        params["epsilon"] = float(state.get("epsilon", 0.1))
    return params


def _convert(sklearn_class, state):
    state = _check_state(sklearn_class, state)
    task, is_sgd = _KINDS[sklearn_class]
    params = _params(task, is_sgd, state)
    Estimator = (
        PassiveAggressiveClassifier
        if task == _CLASSIFIER
        else PassiveAggressiveRegressor
    )
    estimator = Estimator(**params)
    if "coef_" not in state:
        return estimator
    n_features = int(state["n_features_in_"])
    # the fitted state (targets, dimensions) is made by one public
    # partial_fit call on a row of zeros; its weights, sample count and
    # random stream are then replaced by scikit-learn's model
    X0 = np.zeros((1, n_features))
    if task == _CLASSIFIER:
        classes = np.asarray(state["classes_"])
        estimator.partial_fit(X0, classes[:1], classes=classes)
    else:
        estimator.partial_fit(X0, [0.0])
    averaged = bool(state.get("average")) and "_standard_coef" in state
    if averaged:
        coef, intercept = state["_standard_coef"], state["_standard_intercept"]
        average = (state["_average_coef"], state["_average_intercept"])
    else:
        coef, intercept, average = state["coef_"], state["intercept_"], None
    adopt_weights(estimator, coef, intercept, state["t_"], average)
    estimator.n_iter_ = state.get("n_iter_", 0)
    if "feature_names_in_" in state:
        estimator.feature_names_in_ = state["feature_names_in_"]
    return estimator


def from_sklearn(estimator):
    """This package's equivalent of a scikit-learn Passive-Aggressive model.

    Takes scikit-learn's ``PassiveAggressiveClassifier`` or
    ``PassiveAggressiveRegressor``, or an ``SGDClassifier`` /
    ``SGDRegressor`` with ``learning_rate="pa1"`` or ``"pa2"`` (and no
    penalty), fitted or not, and returns the estimator of this package with
    the same model: the same ``coef_``, ``intercept_``, ``classes_``,
    ``t_`` and ``n_iter_``, so ``predict`` and ``decision_function`` give
    the same results, and the parameters that make ``partial_fit`` continue
    as scikit-learn's would have (``multiclass="ovr"``,
    ``weight_scaling="step"``, ``intercept_scaling=1.0``).  With
    ``fit_intercept=False`` and ``shuffle=False`` that continuation is
    scikit-learn's own, to floating-point precision (bit for bit without
    averaging); with an intercept it steps the intercept as this package
    does (see the migration guide).  ``class_weight="balanced"`` becomes
    the weights it computed.

    Parameters
    ----------
    estimator : scikit-learn estimator
        The model to convert (it is not modified).

    Returns
    -------
    converted : PassiveAggressiveClassifier or PassiveAggressiveRegressor
        Fitted if ``estimator`` was.

    See Also
    --------
    load_sklearn_pickle : The same from a pickle, also where scikit-learn no
        longer has the class.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_pa.migration import from_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> sgd = SGDClassifier(learning_rate="pa1", eta0=1.0, penalty=None,
    ...                     random_state=0).fit(X, y)
    >>> clf = from_sklearn(sgd)
    >>> bool((clf.predict(X) == sgd.predict(X)).all())
    True
    >>> clf.partial_fit(X[:10], y[:10]).t_ - sgd.t_
    10.0
    """
    cls = type(estimator)
    if cls.__name__ not in _KINDS or not cls.__module__.startswith("sklearn."):
        raise TypeError(
            f"from_sklearn converts scikit-learn's {', '.join(_KINDS)}; got "
            f"{cls.__module__}.{cls.__name__}."
        )
    state = estimator.__getstate__() if hasattr(estimator, "__getstate__") else None
    if not isinstance(state, dict):
        state = dict(vars(estimator))
    return _convert(cls.__name__, state)


def load_sklearn_pickle(file):
    """Read a pickled scikit-learn Passive-Aggressive model as this package's.

    Reads a pickle of scikit-learn's ``PassiveAggressiveClassifier`` or
    ``PassiveAggressiveRegressor``, or of an ``SGDClassifier`` /
    ``SGDRegressor`` with ``learning_rate="pa1"`` or ``"pa2"``, and returns
    the equivalent estimator of this package, fitted (see
    :func:`from_sklearn` for what is kept and how ``partial_fit``
    continues).  The class is never imported from scikit-learn: the pickle
    loads where scikit-learn no longer has it (1.10 and later) or has
    another version of it.

    The pickle is read with an allow-list of what such a model contains:
    numpy arrays, dtypes and scalars, numpy's ``RandomState`` (MT19937),
    scipy's CSR matrix (a model after ``sparsify()``), the four classes and
    the loss objects of the SGD classes (which are not imported).  A pickle
    that names anything else (``os.system``, ``eval``, ``subprocess``, any
    other module) is refused before the name is imported or called, so a
    hostile file runs no code.  The model read is then checked: options
    that scikit-learn knows, learned arrays that are real, finite and of
    the shapes of the model's dimensions, unique classes; a state that
    scikit-learn cannot have written is refused, never loaded as a model
    that predicts wrong.  (A pickle can still ask for a large amount of
    memory.)

    Parameters
    ----------
    file : str, path-like, bytes or binary file object
        The pickle (of :func:`pickle.dump`): a path, its bytes, or a file
        opened in binary mode.

    Returns
    -------
    estimator : PassiveAggressiveClassifier or PassiveAggressiveRegressor

    Raises
    ------
    pickle.UnpicklingError
        If the pickle names a global outside the allow-list, or the file
        is damaged or truncated.
    ValueError
        If it holds another object, a model without a Passive-Aggressive
        equivalent, or a state that scikit-learn cannot have written (the
        message names the attribute).

    See Also
    --------
    from_sklearn : The same for a live scikit-learn object.

    Examples
    --------
    >>> import pickle
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_pa.migration import load_sklearn_pickle
    >>> X, y = load_iris(return_X_y=True)
    >>> sgd = SGDClassifier(learning_rate="pa1", eta0=1.0, penalty=None,
    ...                     random_state=0).fit(X, y)
    >>> clf = load_sklearn_pickle(pickle.dumps(sgd))
    >>> type(clf).__name__, clf.multiclass, clf.weight_scaling
    ('PassiveAggressiveClassifier', 'ovr', 'step')
    >>> bool((clf.coef_ == sgd.coef_).all())
    True
    >>> bool((clf.predict(X) == sgd.predict(X)).all())
    True
    """
    if isinstance(file, (bytes, bytearray, memoryview)):
        obj = _load(io.BytesIO(bytes(file)))
    elif isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            obj = _load(f)
    else:
        obj = _load(file)
    if not isinstance(obj, _Pickled):
        raise ValueError(
            f"The pickle holds a {type(obj).__module__}.{type(obj).__name__}, "
            f"not one of scikit-learn's {', '.join(_KINDS)}. Load it with "
            "pickle.load."
        )
    return _convert(obj.sklearn_class, obj.state)
