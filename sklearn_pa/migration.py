"""Migration from scikit-learn: its Passive-Aggressive models (and SGD with
the PA step) as estimators of this package: :func:`from_sklearn` for a live object,
:func:`load_sklearn_pickle` for a pickle, also where scikit-learn no longer
has the class (1.10 removed ``PassiveAggressiveClassifier`` and
``PassiveAggressiveRegressor``)."""

import io
import os
import pickle

import numpy as np
from sklearn.utils import check_random_state

from ._passive_aggressive import (
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
    """Any other object of scikit-learn that the running version no longer
    has (the loss object of the SGD classes, say): it is not needed."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


class _Unpickler(pickle.Unpickler):
    """Maps scikit-learn's PA and SGD classes to :class:`_Pickled` whether or
    not the installed scikit-learn has them, and its other missing objects
    to :class:`_Placeholder`."""

    def find_class(self, module, name):
        if module in _MODULES and name in _KINDS:
            return type(name, (_Pickled,), {"sklearn_class": name})
        try:
            return super().find_class(module, name)
        except (ImportError, AttributeError):
            if module == "sklearn" or module.startswith("sklearn."):
                return _Placeholder
            raise


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


def _adopt_weights(estimator, coef, intercept, t, average=None):
    """Make ``coef`` / ``intercept`` (the standard weights, in the shape of
    ``coef_``) the fitted state of ``estimator`` after ``t - 1`` samples,
    and, with ``average`` (a pair: the averaged coef and intercept of those
    samples), the average a later ``partial_fit`` continues.  The estimator
    must be fitted (its targets chosen); the random stream of a later
    ``partial_fit`` starts from ``random_state``."""
    n_features, n_columns = estimator.n_features_in_, estimator._n_columns()
    coef = np.asarray(coef, dtype=np.float64).reshape(n_columns, n_features)
    W = np.ascontiguousarray(coef.T)
    b = np.array(np.ravel(intercept), dtype=np.float64)
    estimator.t_ = float(t)
    estimator._rng = check_random_state(estimator.random_state)
    if not estimator.average:
        estimator._publish(W, b)
        return
    n_avg = estimator.t_ - estimator._average_start()
    U, bu = np.zeros_like(W), np.zeros_like(b)
    if average is not None and n_avg >= 1:
        avg_coef = np.asarray(average[0], dtype=np.float64)
        avg_coef = avg_coef.reshape(n_columns, n_features).T
        U = np.ascontiguousarray(n_avg * (W - avg_coef))
        bu = n_avg * (b - np.ravel(average[1]))
    estimator._publish(W, b, U, bu)


def _convert(sklearn_class, state):
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
    _adopt_weights(estimator, coef, intercept, state["t_"], average)
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
    another version of it.  As any pickle, it can run code while it is
    read: load only pickles you trust.

    Parameters
    ----------
    file : str, path-like, bytes or binary file object
        The pickle (of :func:`pickle.dump`): a path, its bytes, or a file
        opened in binary mode.

    Returns
    -------
    estimator : PassiveAggressiveClassifier or PassiveAggressiveRegressor

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
        obj = _Unpickler(io.BytesIO(bytes(file))).load()
    elif isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            obj = _Unpickler(f).load()
    else:
        obj = _Unpickler(file).load()
    if not isinstance(obj, _Pickled):
        raise ValueError(
            f"The pickle holds a {type(obj).__module__}.{type(obj).__name__}, "
            f"not one of scikit-learn's {', '.join(_KINDS)}. Load it with "
            "pickle.load."
        )
    return _convert(obj.sklearn_class, obj.state)
