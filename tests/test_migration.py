"""Migrating from scikit-learn: the recipe that reproduces its model bit for
bit (``weight_scaling="step"``), and the loader of its pickles."""

import io
import pickle
import re
import sys
import warnings

import numpy as np
import pytest
import sklearn.linear_model
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.utils.fixes import parse_version

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from sklearn_pa.migration import from_sklearn, load_sklearn_pickle

SKLEARN_HAS_PA = hasattr(sklearn.linear_model, "PassiveAggressiveClassifier")
needs_sklearn_pa = pytest.mark.skipif(
    not SKLEARN_HAS_PA,
    reason="this scikit-learn no longer has PassiveAggressiveClassifier",
)
# every test here uses SGD's PA step, which appeared in scikit-learn 1.8
pytestmark = pytest.mark.skipif(
    parse_version(sklearn.__version__) < parse_version("1.8"),
    reason="SGDClassifier(learning_rate='pa1') appeared in scikit-learn 1.8",
)

#: The recipe: the parameters that make this package's model scikit-learn's.
RECIPE = dict(
    multiclass="ovr",
    fit_intercept=False,
    shuffle=False,
    average=False,
    weight_scaling="step",
)


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation, convergence
        return fit()


def imbalanced(n_classes, seed=0):
    weights = [0.8, 0.15, 0.05] if n_classes == 3 else [0.9, 0.1]
    X, y = make_classification(
        400,
        20,
        n_informative=10,
        n_classes=n_classes,
        weights=weights,
        random_state=seed,
    )
    class_weight = dict(zip(range(n_classes), [1.0, 3.0, 10.0][:n_classes]))
    return X, y, class_weight


def sgd_classifier(C, loss, **kwargs):
    rate = "pa1" if loss == "hinge" else "pa2"
    return SGDClassifier(
        loss="hinge", penalty=None, learning_rate=rate, eta0=C, **kwargs
    )


# ------------------------------------------------------------------ recipe
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("C", [0.01, 1.0])
def test_recipe_reproduces_sklearn_bit_for_bit(n_classes, loss, C):
    """With the recipe, class weights as scikit-learn applied them: the same
    coef_, to the last bit, as its removed class where it still has it, and
    always as SGDClassifier(learning_rate="pa1" / "pa2"), sample weights
    included."""
    X, y, class_weight = imbalanced(n_classes)
    sample_weight = np.random.RandomState(0).uniform(0.2, 3.0, size=len(y))
    common = dict(max_iter=5, tol=None, class_weight=class_weight)
    ours = PassiveAggressiveClassifier(C=C, loss=loss, **RECIPE, **common)
    if SKLEARN_HAS_PA:
        ref = _quiet(
            lambda: sklearn.linear_model.PassiveAggressiveClassifier(
                C=C, loss=loss, fit_intercept=False, shuffle=False, **common
            ).fit(X, y)
        )
        assert_array_equal(ours.fit(X, y).coef_, ref.coef_)
        assert ours.t_ == ref.t_ and ours.n_iter_ == ref.n_iter_
    sgd = _quiet(
        lambda: sgd_classifier(
            C, loss, fit_intercept=False, shuffle=False, **common
        ).fit(X, y, sample_weight=sample_weight)
    )
    ours.fit(X, y, sample_weight=sample_weight)
    assert_array_equal(ours.coef_, sgd.coef_)
    # the default, weights on C, is another model
    default = PassiveAggressiveClassifier(
        C=C, loss=loss, **{**RECIPE, "weight_scaling": "C"}, **common
    ).fit(X, y, sample_weight=sample_weight)
    assert not np.allclose(default.coef_, sgd.coef_)


@pytest.mark.parametrize(
    "loss, rate",
    [("epsilon_insensitive", "pa1"), ("squared_epsilon_insensitive", "pa2")],
)
def test_regressor_recipe_reproduces_sgd_with_sample_weights(loss, rate):
    X, y = make_regression(200, 10, noise=5.0, random_state=0)
    sample_weight = np.random.RandomState(1).uniform(0.2, 3.0, size=len(y))
    sgd = _quiet(
        lambda: SGDRegressor(
            loss="epsilon_insensitive",
            penalty=None,
            learning_rate=rate,
            eta0=0.3,
            fit_intercept=False,
            shuffle=False,
            max_iter=3,
            tol=None,
        ).fit(X, y, sample_weight=sample_weight)
    )
    ours = PassiveAggressiveRegressor(
        C=0.3,
        loss=loss,
        fit_intercept=False,
        shuffle=False,
        max_iter=3,
        tol=None,
        weight_scaling="step",
    ).fit(X, y, sample_weight=sample_weight)
    assert_array_equal(ours.coef_, sgd.coef_)


def test_weights_on_C_do_nothing_where_C_does_not_bind():
    """The issue the parameter answers: on data whose steps C=1 never caps,
    class weights on C change nothing, and on the step (the default) they
    do."""
    X, y, _ = imbalanced(2)
    X = X * 10.0  # ||x||^2 large: every step loss / ||x||^2 is below C
    kw = dict(shuffle=False, max_iter=3, tol=None, average=False)
    plain = PassiveAggressiveClassifier(**kw).fit(X, y)
    on_C = PassiveAggressiveClassifier(
        class_weight={1: 5.0}, weight_scaling="C", **kw
    ).fit(X, y)
    on_step = PassiveAggressiveClassifier(class_weight={1: 5.0}, **kw).fit(X, y)
    assert_array_equal(on_C.coef_, plain.coef_)
    assert not np.allclose(on_step.coef_, plain.coef_)


def test_step_weights_scale_the_step_exactly():
    """One binary PA-I step with weight w is w times the unweighted step."""
    X = np.array([[1.0, 2.0]])
    kw = dict(C=10.0, fit_intercept=False, average=False)
    one = PassiveAggressiveClassifier(**kw).partial_fit(X, [1], classes=[0, 1])
    three = PassiveAggressiveClassifier(weight_scaling="step", **kw).partial_fit(
        X, [1], classes=[0, 1], sample_weight=[3.0]
    )
    assert_allclose(three.coef_, 3.0 * one.coef_, rtol=1e-15)
    # the margin is overshot: 3 > 1
    assert_allclose(three.decision_function(X), [3.0], rtol=1e-15)


# ------------------------------------------------------------------ loader
def _sklearn_pa_classifier(**kwargs):
    return _quiet(lambda: sklearn.linear_model.PassiveAggressiveClassifier(**kwargs))


def _batches(n_classes=3, seed=0):
    X, y = make_classification(
        300, 12, n_informative=8, n_classes=n_classes, random_state=seed
    )
    return (X[:150], y[:150]), (X[150:], y[150:]), np.unique(y)


@needs_sklearn_pa
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("average", [False, True])
def test_pickle_loads_without_the_class_and_continues_as_sklearn(
    n_classes, average, monkeypatch, tmp_path
):
    (X1, y1), (X2, y2), classes = _batches(n_classes)
    theirs = _sklearn_pa_classifier(
        C=0.5,
        fit_intercept=False,
        shuffle=False,
        average=average,
        class_weight={0: 2.0},
    )
    _quiet(lambda: theirs.partial_fit(X1, y1, classes=classes))
    data = pickle.dumps(theirs)
    path = tmp_path / "model.pkl"
    path.write_bytes(data)
    # scikit-learn 1.10: pickle itself cannot load the model any more
    monkeypatch.delattr(sklearn.linear_model, "PassiveAggressiveClassifier")
    monkeypatch.setitem(sys.modules, "sklearn.linear_model._passive_aggressive", None)
    with pytest.raises((ImportError, AttributeError)):
        pickle.loads(data)
    for source in (data, path, str(path), io.BytesIO(data)):
        ours = load_sklearn_pickle(source)
        assert isinstance(ours, PassiveAggressiveClassifier)
        if average:
            # kept as this package keeps an average (the iterate and its
            # accumulator), it reads back to within rounding
            assert_allclose(ours.coef_, theirs.coef_, rtol=1e-14, atol=1e-15)
        else:
            assert_array_equal(ours.coef_, theirs.coef_)
        assert_array_equal(ours.intercept_, theirs.intercept_)
        assert_array_equal(ours.classes_, theirs.classes_)
        assert ours.t_ == theirs.t_
        assert_array_equal(ours.predict(X2), theirs.predict(X2))
    monkeypatch.undo()
    # the next batches: as scikit-learn's own model continues
    for _ in range(2):
        _quiet(lambda: theirs.partial_fit(X2, y2))
        ours.partial_fit(X2, y2)
    if average:
        assert_allclose(ours.coef_, theirs.coef_, rtol=1e-12, atol=1e-12)
    else:
        assert_array_equal(ours.coef_, theirs.coef_)
    assert ours.t_ == theirs.t_


@needs_sklearn_pa
def test_regressor_pickle_continues_as_sklearn(monkeypatch):
    X, y = make_regression(200, 8, noise=2.0, random_state=0)
    theirs = _quiet(
        lambda: sklearn.linear_model.PassiveAggressiveRegressor(
            C=0.2,
            epsilon=0.05,
            fit_intercept=False,
            shuffle=False,
            max_iter=3,
            tol=None,
            loss="squared_epsilon_insensitive",
        )
    )
    _quiet(lambda: theirs.fit(X[:100], y[:100]))
    data = pickle.dumps(theirs)
    monkeypatch.delattr(sklearn.linear_model, "PassiveAggressiveRegressor")
    monkeypatch.setitem(sys.modules, "sklearn.linear_model._passive_aggressive", None)
    ours = load_sklearn_pickle(data)
    monkeypatch.undo()
    assert isinstance(ours, PassiveAggressiveRegressor)
    assert ours.loss == "squared_epsilon_insensitive" and ours.n_iter_ == 3
    assert_array_equal(ours.coef_, theirs.coef_)
    # (the products are summed in another order: equal to rounding)
    assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    _quiet(lambda: theirs.partial_fit(X[100:], y[100:]))
    ours.partial_fit(X[100:], y[100:])
    assert_array_equal(ours.coef_, theirs.coef_)


@needs_sklearn_pa
def test_fitted_intercept_and_balanced_weights_predict_the_same():
    (X1, y1), (X2, _), _ = _batches(3)
    theirs = _quiet(
        lambda: _sklearn_pa_classifier(class_weight="balanced", random_state=0).fit(
            X1, y1
        )
    )
    ours = load_sklearn_pickle(pickle.dumps(theirs))
    assert_array_equal(ours.coef_, theirs.coef_)
    assert_array_equal(ours.intercept_, theirs.intercept_)
    assert_allclose(
        ours.decision_function(X2), theirs.decision_function(X2), rtol=1e-12
    )
    assert_array_equal(ours.predict(X2), theirs.predict(X2))
    assert ours.class_weight == dict(
        zip(theirs.classes_.tolist(), theirs._expanded_class_weight)
    )
    assert ours.fit_intercept and ours.intercept_scaling == 1.0


@pytest.mark.parametrize("rate", ["pa1", "pa2"])
def test_sgd_pa_pickles_and_live_models(rate):
    (X1, y1), (X2, y2), classes = _batches(3)
    theirs = _quiet(
        lambda: SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate=rate,
            eta0=0.3,
            fit_intercept=False,
            shuffle=False,
        ).partial_fit(X1, y1, classes=classes)
    )
    for ours in (load_sklearn_pickle(pickle.dumps(theirs)), from_sklearn(theirs)):
        assert ours.C == 0.3
        assert ours.loss == ("hinge" if rate == "pa1" else "squared_hinge")
        ours.partial_fit(X2, y2)
    _quiet(lambda: theirs.partial_fit(X2, y2))
    assert_array_equal(ours.coef_, theirs.coef_)


def test_sgd_regressor_live_model():
    X, y = make_regression(120, 6, noise=1.0, random_state=0)
    theirs = _quiet(
        lambda: SGDRegressor(
            loss="epsilon_insensitive",
            penalty=None,
            learning_rate="pa1",
            eta0=0.5,
            fit_intercept=False,
            shuffle=False,
        ).partial_fit(X[:60], y[:60])
    )
    ours = from_sklearn(theirs)
    ours.partial_fit(X[60:], y[60:])
    _quiet(lambda: theirs.partial_fit(X[60:], y[60:]))
    assert_array_equal(ours.coef_, theirs.coef_)


def test_unfitted_model_gives_an_unfitted_estimator():
    ours = from_sklearn(sgd_classifier(0.7, "hinge", class_weight={1: 2.0}))
    assert not hasattr(ours, "coef_")
    assert ours.C == 0.7 and ours.class_weight == {1: 2.0}


@pytest.mark.parametrize(
    "model, match",
    [
        (SGDClassifier(), "learning_rate='pa1' or 'pa2'"),
        (SGDClassifier(learning_rate="pa1", eta0=1.0), "penalty='l2'"),
        (
            SGDClassifier(loss="log_loss", learning_rate="pa1", eta0=1.0, penalty=None),
            "loss='hinge'",
        ),
    ],
)
def test_models_without_an_equivalent_are_refused(model, match):
    with pytest.raises(ValueError, match=match):
        from_sklearn(model)
    with pytest.raises(ValueError, match=match):
        load_sklearn_pickle(pickle.dumps(model))


def test_other_objects_are_refused():
    with pytest.raises(TypeError, match="from_sklearn converts"):
        from_sklearn(sklearn.linear_model.LogisticRegression())
    with pytest.raises(ValueError, match="not one of scikit-learn's"):
        load_sklearn_pickle(pickle.dumps({"coef_": 1}))


# ------------------------------------------------------- hostile pickles
class _Call:
    """Pickles as a call of ``function(*args)``: what a hostile pickle
    holds (it runs when a plain unpickler reads it)."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _payloads(marker):
    """Calls that would each create ``marker``."""
    import builtins
    import functools
    import os
    import subprocess
    from pathlib import Path

    path = str(marker)
    code = f"open({path!r}, 'w').close()"
    return {
        "os.system": _Call(os.system, f"touch {path}"),
        "builtins.eval": _Call(builtins.eval, code),
        "builtins.exec": _Call(builtins.exec, code),
        "subprocess.call": _Call(subprocess.call, ["touch", path]),
        "subprocess.Popen": _Call(subprocess.Popen, ["touch", path]),
        "functools.partial": _Call(functools.partial(os.system, f"touch {path}")),
        "np.random ctor": _Call(
            np.random._pickle.__randomstate_ctor, f"touch {path}", os.system
        ),
        "object array": np.array([_Call(os.system, f"touch {path}")], dtype=object),
        "pathlib touch": _Call(Path(path).touch),
    }


def _hostile_models(payload):
    """A genuine scikit-learn model with ``payload`` in its state, nested at
    several depths, and the payload alone or in containers."""
    (X1, y1), _, classes = _batches(3)
    yield "bare", payload
    yield "in a list", [1, payload]
    yield "in a dict", {"coef_": {"nested": [payload]}}
    for where in ("extra", "coef_", "classes_", "random_state"):
        model = _quiet(
            lambda: sgd_classifier(1.0, "hinge").partial_fit(X1, y1, classes=classes)
        )
        setattr(model, where, {"deep": [(payload,)]} if where == "extra" else payload)
        yield f"in a model's {where}", model


@pytest.mark.parametrize(
    "name", list(_payloads("m")), ids=lambda name: name.replace(" ", "-")
)
@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_hostile_pickles_never_run(name, protocol, tmp_path):
    """A pickle that calls anything but what a scikit-learn model needs is
    refused when the call is named, before it is imported or run: the
    marker file the payload would write never exists."""
    marker = tmp_path / "marker"
    payload = _payloads(marker)[name]
    for where, obj in _hostile_models(payload):
        data = pickle.dumps(obj, protocol=protocol)
        with pytest.raises(pickle.UnpicklingError, match="refused without"):
            load_sklearn_pickle(data)
        assert not marker.exists(), f"{name} {where} ran"
    # the same payload does run under pickle itself: the test can fail
    if name == "os.system":
        pickle.loads(pickle.dumps(payload, protocol=protocol))
        assert marker.exists()


def test_loader_refuses_lookalike_globals():
    """A name only close to an allowed one is refused: other numpy
    functions, the allowed module with another name, the class name under
    another module."""
    for module, name in [
        ("numpy", "load"),
        ("numpy.lib.npyio", "load"),
        ("numpy._core.multiarray", "empty"),
        ("sklearn.linear_model._passive_aggressive", "os"),
        ("os", "PassiveAggressiveClassifier"),
        ("sklearn.linear_model", "LogisticRegression"),
        ("builtins", "getattr"),
        ("copyreg", "__newobj__"),
    ]:
        data = f"c{module}\n{name}\n)R.".encode()
        with pytest.raises(pickle.UnpicklingError, match=f"{module}.{name}"):
            load_sklearn_pickle(data)
    # a numpy subclass (np.matrix) is not rebuilt
    matrix = _quiet(lambda: np.matrix([[1.0]]))
    with pytest.raises(pickle.UnpicklingError, match="matrix"):
        load_sklearn_pickle(pickle.dumps(matrix))


# ------------------------------------------------------------ broken states
def _fitted(kind):
    (X1, y1), _, classes = _batches(3)
    X, y = make_regression(80, 12, random_state=0)
    if kind == "sgd binary":
        return _quiet(lambda: sgd_classifier(1.0, "hinge").fit(X1, y1 > 0))
    if kind == "sgd multiclass averaged":
        return _quiet(lambda: sgd_classifier(1.0, "hinge", average=True).fit(X1, y1))
    if kind == "sgd regressor":
        return _quiet(
            lambda: SGDRegressor(
                loss="epsilon_insensitive", penalty=None, learning_rate="pa2", eta0=0.5
            ).fit(X, y)
        )
    if kind == "pa multiclass balanced":
        return _quiet(
            lambda: _sklearn_pa_classifier(class_weight="balanced").fit(X1, y1)
        )
    return _quiet(
        lambda: sklearn.linear_model.PassiveAggressiveRegressor(average=True).fit(X, y)
    )


def _break(model, fault):
    """Set one fault on the pickled state; the message expected (None when
    the fault does not apply to this model)."""
    is_clf = hasattr(model, "classes_")
    coef = model.coef_
    if fault == "nan coef":
        model.coef_ = np.where(
            np.arange(coef.size).reshape(coef.shape) == 1, np.nan, coef
        )
        return "coef_ holds NaN"
    if fault == "inf intercept":
        model.intercept_ = np.full_like(model.intercept_, np.inf)
        return "intercept_ holds NaN or infinite"
    if fault == "transposed coef":
        if coef.ndim == 1 or coef.shape[0] == coef.shape[1]:
            model.coef_ = coef.reshape(1, -1)
        else:
            model.coef_ = np.ascontiguousarray(coef.T)
        return "coef_ has the shape"
    if fault == "complex coef":
        model.coef_ = coef + 1j
        return "coef_ holds complex128"
    if fault == "string coef":
        model.coef_ = coef.astype(str)
        return "coef_ holds <U"
    if fault == "duplicate classes":
        if not is_clf:
            return None
        model.classes_ = np.r_[model.classes_[:-1], model.classes_[0]]
        return "classes_ holds a label twice"
    if fault == "one class":
        if not is_clf:
            return None
        model.classes_ = model.classes_[:1]
        return "classes_ has the shape"
    if fault == "unknown loss":
        if not hasattr(model, "C"):
            return None
        model.loss = "log_loss"
        return "loss='log_loss'"
    if fault == "negative C":
        name = "C" if hasattr(model, "C") else "eta0"
        setattr(model, name, -1.0)
        return f"{name}=-1.0"
    if fault == "no t_":
        del model.t_
        return "not t_"
    if fault == "nan t_":
        model.t_ = float("nan")
        return "t_ holds NaN"
    if fault == "n_features_in_":
        model.n_features_in_ = model.n_features_in_ + 1
        return "coef_ has the shape"
    if fault == "nan class weight":
        if getattr(model, "_expanded_class_weight", None) is None or not is_clf:
            return None
        model._expanded_class_weight = np.full(len(model.classes_), np.nan)
        return "_expanded_class_weight holds NaN"
    if fault == "nan average":
        if not model.average:
            return None
        model._average_coef = model._average_coef * np.nan
        return "_average_coef holds NaN"
    raise AssertionError(fault)


FAULTS = [
    "nan coef", "inf intercept", "transposed coef", "complex coef", "string coef",
    "duplicate classes", "one class", "unknown loss", "negative C", "no t_",
    "nan t_", "n_features_in_", "nan class weight", "nan average",
]  # fmt: skip


@pytest.mark.parametrize(
    "kind",
    [
        "sgd binary",
        "sgd multiclass averaged",
        "sgd regressor",
        pytest.param("pa multiclass balanced", marks=needs_sklearn_pa),
        pytest.param("pa regressor averaged", marks=needs_sklearn_pa),
    ],
)
def test_broken_states_are_refused_with_what_is_wrong(kind):
    """Each fault of a pickled model's state is refused by the loader and by
    from_sklearn with a ValueError naming the attribute, never loaded as a
    model that predicts wrong or fails later."""
    tried = 0
    for fault in FAULTS:
        model = _fitted(kind)
        match = _break(model, fault)
        if match is None:
            continue
        tried += 1
        with pytest.raises(ValueError, match=re.escape(match)):
            load_sklearn_pickle(pickle.dumps(model))
        with pytest.raises(ValueError, match=re.escape(match)):
            from_sklearn(model)
    assert tried >= 9
    # and the model unbroken loads
    model = _fitted(kind)
    assert_allclose(load_sklearn_pickle(pickle.dumps(model)).coef_, model.coef_)


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_damaged_pickles_raise_an_unpickling_error_that_says_so(protocol):
    """A genuine pickle cut short, with a byte changed or bytes inserted,
    at many places: refused with pickle.UnpicklingError (or the ValueError
    of a state it does not describe), never the unpickler's EOFError,
    KeyError, AttributeError...; or it loads as a model with finite
    scores."""
    (X1, y1), (X2, _), classes = _batches(3)
    model = _quiet(lambda: sgd_classifier(1.0, "hinge").fit(X1, y1))
    data = pickle.dumps(model, protocol=protocol)
    rng = np.random.RandomState(protocol)
    n_refused = 0
    for at in rng.randint(0, len(data), 60):
        for damaged in (
            data[:at],
            data[:at]
            + bytes([(data[at] + 1 + rng.randint(255)) % 256])
            + data[at + 1 :],
            data[:at] + b"\x00(}" + data[at:],
        ):
            try:
                loaded = load_sklearn_pickle(damaged)
            except pickle.UnpicklingError as exc:
                n_refused += 1
                assert len(str(exc)) > 40
                continue
            except ValueError as exc:
                n_refused += 1
                assert "scikit-learn" in str(exc) or "pickle" in str(exc)
                continue
            assert np.isfinite(loaded.decision_function(X2)).all()
    assert n_refused > 100
    with pytest.raises(pickle.UnpicklingError, match="damaged or truncated"):
        load_sklearn_pickle(data[: len(data) // 2])


def _sparsified():
    (X1, y1), (X2, _), _ = _batches(3)
    model = _quiet(lambda: sgd_classifier(1.0, "hinge").fit(X1, y1))
    model.sparsify()
    return model, X2


@settings(max_examples=60, deadline=None)
@given(
    array=st.sampled_from(["indices", "indptr"]),
    at=st.integers(0, 10**6),
    value=st.sampled_from([-(2**31), -1, 10**6, 2**31 - 1]),
)
def test_a_sparsified_coef_with_a_broken_structure_is_refused(array, at, value):
    """A pickled ``sparsify()``-ed model whose CSR ``coef_`` has an index
    or an ``indptr`` entry out of range is refused with a ValueError naming
    ``coef_``, before scipy reads through the arrays (it would read or write
    outside them); the model unbroken loads, its weights those of the
    densified matrix."""
    model, X = _sparsified()
    assert_allclose(
        load_sklearn_pickle(pickle.dumps(model)).decision_function(X),
        model.decision_function(X),
    )
    # (written in place: a pickle keeps the arrays as they are)
    target = getattr(model.coef_, array)
    target[at % target.shape[0]] = value
    with pytest.raises(ValueError, match="coef_"):
        load_sklearn_pickle(pickle.dumps(model))
    with pytest.raises(ValueError, match="coef_"):
        from_sklearn(model)


@pytest.mark.parametrize("fmt", ["coo", "csc", "lil"])
def test_a_sparsified_coef_of_another_format_is_refused(fmt):
    """A sparse ``coef_`` that ``sparsify()`` cannot have made is refused
    rather than converted: by the loader before it is built (its class is
    not one a pickled model names), by ``from_sklearn`` with a ValueError."""
    model, _ = _sparsified()
    model.coef_ = model.coef_.asformat(fmt)
    with pytest.raises(pickle.UnpicklingError):
        load_sklearn_pickle(pickle.dumps(model))
    with pytest.raises(ValueError, match="not the CSR matrix"):
        from_sklearn(model)


@settings(max_examples=80, deadline=None)
@given(at=st.integers(0, 10**6), byte=st.integers(0, 255), how=st.sampled_from("fci"))
def test_a_damaged_pickle_is_refused_in_the_package_s_own_words(at, byte, how):
    """The ``UnpicklingError`` of a damaged file says what happened and what
    to do in its own words: the reader's message, which may quote the
    damaged bytes, is the chained cause, never pasted into the message."""
    (X1, y1), _, _ = _batches(3)
    model = _quiet(lambda: sgd_classifier(1.0, "hinge").fit(X1, y1))
    data = bytearray(pickle.dumps(model, protocol=at % (pickle.HIGHEST_PROTOCOL + 1)))
    at %= len(data)
    if how == "f":
        data[at] = byte
    elif how == "c":
        data = data[:at]
    else:
        data[at:at] = bytes([byte, 40, 75, 1])  # (an opening parenthesis too)
    try:
        load_sklearn_pickle(bytes(data))
    except pickle.UnpicklingError as exc:
        message = str(exc)
        if "damaged or truncated" in message:
            assert exc.__cause__ is not None
            assert message.endswith("Load an intact copy.")
            assert "\\x" not in message and "b'" not in message, message
    except ValueError:
        pass  # (a state scikit-learn cannot have written: its own test)
