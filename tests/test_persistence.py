"""Models that outlive the process: the saved state is versioned and checked
as it loads, and every public estimator saves and loads with ``skops.io``
given :func:`sklearn_pa.persistence.trusted_types`.

Every estimator is covered by discovery (the variants of
``tests/test_robustness.py``, built from
:func:`sklearn_pa.utils.all_estimators`), with a few states only some
settings create (multilabel, cost-sensitive, sparsified, full covariance,
a tagger over feature dicts) added by hand.
"""

import importlib
import io
import json
import pickle
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from test_robustness import (
    VARIANTS,
    _assert_same,
    _data,
    _make,
    _outputs,
    _partial_fit,
    _trained,
)

from sklearn_pa import (
    AROWClassifier,
    AROWRegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    StructuredPerceptron,
)
from sklearn_pa._core.pickled_state import (
    FORMAT_KEY,
    STATE_FORMAT,
    Items,
    OneOf,
    Sparse,
    declared_shapes,
)
from sklearn_pa.persistence import trusted_types
from sklearn_pa.utils import all_estimators

sio = pytest.importorskip("skops.io")


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ------------------------------------------------------------- the states
def _published(est):
    """Read what is published when read (an averaged, scaled or one-class
    model computes it then), so that the state holds it."""
    for name in ("coef_", "intercept_", "center_"):
        getattr(est, name, None)
    return est


def _multilabel():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 6))
    Y = (X[:, :4] + 0.3 * rng.normal(size=(50, 4)) > 0).astype(int)
    est = PassiveAggressiveClassifier(random_state=0)
    return est.partial_fit(X, Y, classes=np.arange(4)), X, Y


def _cost_sensitive():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 6))
    y = np.argmax(X[:, :3], axis=1)
    cost = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
    est = PassiveAggressiveClassifier(cost_matrix=cost, random_state=0)
    return est.partial_fit(X, y, classes=[0, 1, 2]), X, y


def _sparsified():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 6))
    y = X @ rng.normal(size=6)
    est = PassiveAggressiveRegressor(random_state=0).fit(X, y)
    est.sparsify()
    return est, X, y


def _full_covariance():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 5))
    y = np.argmax(X[:, :3], axis=1)
    est = AROWClassifier(covariance="full", random_state=0)
    return est.partial_fit(X, y, classes=[0, 1, 2]), X, y


def _full_covariance_regressor():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(50, 5))
    est = AROWRegressor(covariance="full", random_state=0)
    return est.partial_fit(X, X @ rng.normal(size=5)), X, X[:, 0]


def _feature_dicts():
    X = [[{"w": "the"}, {"w": "cat", "len": 3.0}], [{"w": "sat"}], [{"w": "cat"}]]
    y = [["D", "N"], ["V"], ["N"]]
    est = StructuredPerceptron(random_state=0)
    return est.partial_fit(X, y, classes=["D", "N", "V"]), X, y


#: states only some settings create, beside the discovered variants
EXTRA = {
    "multilabel": _multilabel,
    "cost-sensitive": _cost_sensitive,
    "sparsified": _sparsified,
    "full-covariance": _full_covariance,
    "full-covariance-regressor": _full_covariance_regressor,
    "feature-dicts": _feature_dicts,
}


def _states():
    """``pytest.param(build)`` of every discovered variant and every extra
    state; ``build()`` returns ``(estimator, X, y)`` after a partial_fit."""
    params = [
        pytest.param(
            lambda p=p: _trained(*p.values),
            id=p.id,
            marks=p.marks,
        )
        for p in VARIANTS
    ]
    params += [pytest.param(build, id=name) for name, build in EXTRA.items()]
    return params


STATES = _states()


def _second_batch(X, y):
    """Another batch of the same kind as ``(X, y)``: its rows reversed."""
    return X[::-1], None if y is None else y[::-1]


def _continue(est, X, y):
    return _quiet(_partial_fit, est, X, y)


def _array_entries(est):
    """The names of the arrays (and lists of arrays) of ``est``'s saved
    state that are not constructor parameters."""
    params = set(type(est)._get_param_names())
    for key, value in est.__getstate__().items():
        if key in params:
            continue
        if isinstance(value, np.ndarray) or sp.issparse(value):
            yield key
        elif isinstance(value, (list, tuple)) and any(
            isinstance(v, np.ndarray) for v in value
        ):
            yield key


# ------------------------------------------------------ the declared shapes
@pytest.mark.parametrize("build", STATES)
def test_every_saved_array_has_a_declared_shape(build):
    """Each array an estimator saves is declared by its family
    (``_state_shapes``), so that a load checks it: a new learner, or a new
    array of an old one, fails here until it is declared."""
    est, _, _ = build()
    _published(est)
    declared = declared_shapes(type(est))
    missing = sorted(set(_array_entries(est)) - set(declared))
    assert not missing, (
        f"{type(est).__name__} saves {missing} without a declared shape: add "
        "them to its family's _state_shapes (see sklearn_pa/_core/pickled_state.py)"
    )


def _grown(value):
    """``value`` with one more entry along every axis (of each item of a
    list), the same dtype."""
    if isinstance(value, (list, tuple)):
        return type(value)([_grown(value[0]), *value[1:]])
    if sp.issparse(value):
        value = value.toarray()
    return np.zeros(tuple(n + 1 for n in value.shape), dtype=value.dtype)


def _more_dimensions(value):
    if isinstance(value, (list, tuple)):
        return type(value)([_more_dimensions(value[0]), *value[1:]])
    if sp.issparse(value):
        value = value.toarray()
    return np.asarray(value)[np.newaxis, ...]


def _half_precision(value):
    if isinstance(value, (list, tuple)):
        return type(value)([_half_precision(value[0]), *value[1:]])
    if sp.issparse(value):
        value = value.toarray()
    return np.asarray(value).astype(np.float16)


@pytest.mark.parametrize("build", STATES)
def test_arrays_that_do_not_fit_the_model_are_refused_on_load(build):
    """Each declared array of a saved state, grown along its axes, given one
    more dimension, or (a float array) turned to float16, is refused as the
    file loads, with the attribute named: a file that was damaged or edited
    never loads into a model that fails later, or reads outside an array."""
    est, _, _ = build()
    _published(est)
    state = est.__getstate__()
    Estimator = type(est)
    names = [name for name in _array_entries(est) if name in declared_shapes(Estimator)]
    assert names
    for name in names:
        value = state[name]
        edits = {"grown": _grown(value), "more dimensions": _more_dimensions(value)}
        first = value[0] if isinstance(value, (list, tuple)) else value
        if first.dtype.kind == "f":
            edits["float16"] = _half_precision(value)
        for how, edited in edits.items():
            loaded = Estimator.__new__(Estimator)
            # (named as the array, or as what fixed the dimension another
            # array disagrees with)
            pattern = rf"(holds {name}\b|from {name}\)).*damaged or edited"
            with pytest.raises(ValueError, match=pattern) as refused:
                loaded.__setstate__({**state, name: edited})
            assert refused.type is ValueError, f"{name} {how}"


def test_a_shape_error_says_which_array_fixed_the_dimension():
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    state = est.__getstate__()
    state["_standard_coef"] = state["_standard_coef"][:, :-1]
    with pytest.raises(ValueError, match=r"_standard_coef of shape \(3, 5\).*6 \(from"):
        pickle.loads(_pickled_with(est, state))


def _pickled_with(est, state):
    """A pickle of ``est`` that carries ``state`` (as an edited file would)."""
    return pickle.dumps(_Carrier(type(est), state))


def _new(cls):
    return cls.__new__(cls)


class _Carrier:
    """Pickles as an estimator of class ``cls`` holding ``state``."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (_new, (self.cls,), self.state)


def test_declared_shapes_merge_along_the_bases():
    """A family's declaration adds to (and may replace) its bases'."""
    shapes = declared_shapes(AROWClassifier)
    assert shapes["classes_"] == ("c",)
    assert shapes["coef_"] == ("k", "d")
    assert isinstance(shapes["_sigma"], OneOf)
    assert isinstance(shapes["_published_average"], Items)
    assert declared_shapes(AROWRegressor)["coef_"] == OneOf((("d",), Sparse((1, "d"))))


# ----------------------------------------------------------- the format
def test_the_saved_state_carries_the_format():
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    assert est.__getstate__()[FORMAT_KEY] == STATE_FORMAT
    # it is read, not kept as an attribute
    assert FORMAT_KEY not in pickle.loads(pickle.dumps(est)).__dict__
    assert FORMAT_KEY not in vars(est)


@pytest.mark.parametrize("build", STATES)
def test_a_state_saved_before_the_format_was_versioned_is_upgraded(build):
    """A state without the format (what was saved before it was versioned,
    format 0) loads as the same model: the same attributes, bit for bit."""
    est, X, y = build()
    state = est.__getstate__()
    del state[FORMAT_KEY]
    loaded = pickle.loads(_pickled_with(est, state))
    _assert_same(loaded, pickle.loads(pickle.dumps(est)))


@pytest.mark.parametrize("found", [STATE_FORMAT + 1, 99])
def test_a_newer_format_is_refused_naming_it(found):
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    state = {**est.__getstate__(), FORMAT_KEY: found}
    with pytest.raises(
        ValueError,
        match=rf"state format {found}, newer than the format {STATE_FORMAT}.*"
        r"Upgrade sklearn_pa",
    ):
        pickle.loads(_pickled_with(est, state))


@pytest.mark.parametrize("found", ["1", 1.0, True, None, -1])
def test_a_format_that_is_not_a_format_number_is_refused(found):
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    state = {**est.__getstate__(), FORMAT_KEY: found}
    with pytest.raises(ValueError, match="damaged or edited"):
        pickle.loads(_pickled_with(est, state))


class _NotAnOption:
    """A value no parameter of the package takes."""


@pytest.mark.parametrize("name, Estimator", [(n, E) for n, E in all_estimators("all")])
def test_a_parameter_the_class_does_not_take_is_refused_on_load(name, Estimator):
    """Each constructor parameter the class constrains, set in a saved state
    to a value it does not take, is refused as the file loads, naming it."""
    est = Estimator()
    state = est.__getstate__()
    constrained = [
        key
        for key, rules in Estimator._parameter_constraints.items()
        if key in state and "no_validation" not in rules and object not in rules
    ]
    assert constrained
    for key in constrained:
        with pytest.raises(ValueError, match=rf"parameter.*'{key}'.*damaged or edited"):
            pickle.loads(_pickled_with(est, {**state, key: _NotAnOption()}))


# -------------------------------------------------------------- skops.io
def test_trusted_types_name_every_public_estimator():
    names = trusted_types()
    assert names == sorted(set(names))
    for _, Estimator in all_estimators("all"):
        assert f"{Estimator.__module__}.{Estimator.__qualname__}" in names
    # no type that could run code: the package's own and scipy's CSR matrix
    csr = type(sp.csr_matrix((1, 1)))
    others = [name for name in names if not name.startswith("sklearn_pa.")]
    assert others == [f"{csr.__module__}.{csr.__qualname__}"]


def _round_trip(est):
    data = sio.dumps(est)
    untrusted = sio.get_untrusted_types(data=data)
    assert set(untrusted) <= set(trusted_types()), untrusted
    return sio.loads(data, trusted=trusted_types())


@pytest.mark.parametrize("build", STATES)
def test_skops_round_trip_predicts_and_continues_identically(build):
    """Mid-stream (after one partial_fit) and after fit: the model loaded
    with ``trusted_types()`` has the same state, the same outputs bit for
    bit, and continues partial_fit to the same model as the original."""
    est, X, y = build()
    loaded = _round_trip(est)
    _assert_same(loaded, est)
    _assert_same(_quiet(_outputs, loaded, X), _quiet(_outputs, est, X))
    X2, y2 = _second_batch(X, y)
    _continue(est, X2, y2)
    _continue(loaded, X2, y2)
    _assert_same(loaded, est)
    # and the model saved again after the stream moved on
    _assert_same(_round_trip(est), est)


@pytest.mark.parametrize("name, Estimator", [(n, E) for n, E in all_estimators("all")])
def test_skops_round_trip_of_a_model_not_fitted_and_of_a_fit(name, Estimator):
    est = _make(name, Estimator)
    _assert_same(_round_trip(est), est)
    X, y = _data(name, est)
    _quiet(est.fit, X) if y is None else _quiet(est.fit, X, y)
    loaded = _round_trip(est)
    _assert_same(loaded, est)
    _assert_same(_quiet(_outputs, loaded, X), _quiet(_outputs, est, X))


def test_skops_load_refuses_a_damaged_state_like_pickle():
    """The checks run as skops.io loads too (it calls ``__setstate__``)."""
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    est.__dict__["_standard_coef"] = np.full((3, 6), np.nan)
    with pytest.raises(ValueError, match="holds NaN.*_standard_coef"):
        sio.loads(sio.dumps(est), trusted=trusted_types())


def _with_node(data, key, node):
    """The skops file ``data`` with the state entry ``key`` replaced by
    ``node`` in its schema (as an attacker would edit it)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    schema = json.loads(source.read("schema.json"))
    schema["content"]["content"][key] = node
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.namelist():
            content = source.read(item)
            if item == "schema.json":
                content = json.dumps(schema).encode()
            target.writestr(item, content)
    return out.getvalue()


#: skops's node that calls a type with arguments as it loads
LOADER = "ConstructorFromReduceNode"


def _call_node(module, name, argument):
    """A skops node that, if loaded, calls ``module.name(argument)``."""
    args = json.loads(
        zipfile.ZipFile(io.BytesIO(sio.dumps((argument,)))).read("schema.json")
    )
    return {
        "__class__": name,
        "__module__": module,
        "__loader__": LOADER,
        "content": args,
        "__id__": 1,
    }


@pytest.mark.parametrize("key", ["_target_strategy", "C", "coef_"])
def test_a_malicious_skops_file_runs_no_code(tmp_path, key):
    """A file edited to call ``os.system`` (or ``builtins.exec``) as it
    loads is refused by ``skops.io.load`` with the package's trusted types,
    and the call is never made."""
    est, X, y = _trained("PassiveAggressiveClassifier", PassiveAggressiveClassifier)
    marker = tmp_path / "ran"
    data = sio.dumps(est)
    for module, name, argument in [
        ("os", "system", f"touch {marker}"),
        ("builtins", "exec", f"open({str(marker)!r}, 'w').close()"),
    ]:
        bad = _with_node(data, key, _call_node(module, name, argument))
        # (a skops without this loader refuses the node as unknown instead)
        known = hasattr(importlib.import_module("skops.io._general"), LOADER)
        refused = "[Uu]ntrusted" if known else f"{LOADER}|[Uu]ntrusted"
        with pytest.raises(Exception, match=refused):
            sio.loads(bad, trusted=trusted_types())
        assert not marker.exists()
        if known:
            assert f"{module}.{name}" in sio.get_untrusted_types(data=bad)
    # the file as saved loads
    sio.loads(data, trusted=trusted_types())


def test_a_tagger_vocabulary_that_is_not_columns_is_refused():
    est, X, y = _feature_dicts()
    state = est.__getstate__()
    mapper = state["vectorizer_"]
    for vocabulary in [{"w=the": 5}, {"w=the": "0"}, {0: 0}, ["w=the"]]:
        bad = type(mapper).__new__(type(mapper))
        with pytest.raises(ValueError, match="vocabulary.*damaged or edited"):
            bad.__setstate__({"vocabulary_": vocabulary})
    bad.__setstate__(dict(vars(mapper)))
    assert bad.vocabulary_ == mapper.vocabulary_


# ------------------------------------------------------- the benchmark
def test_the_persistence_benchmark_saves_and_loads_in_every_format():
    """``--dataset 20newsgroups-persistence`` on a small sparse data set:
    a row per learner and available format, each loaded model predicting
    as the fitted one, and the table formats."""
    from sklearn.utils import Bunch

    from sklearn_pa.benchmark import format_table
    from sklearn_pa.benchmark._persistence import FORMATS, run_persistence

    rng = np.random.default_rng(0)
    X = sp.random(200, 40, density=0.1, format="csr", random_state=0)
    y = rng.integers(0, 3, 200)
    data = Bunch(name="tiny", X=X, y=y, X_test=X[:50])
    rows = run_persistence(data, ["PA", "AROW"], repeats=1)
    formats = {row["format"] for row in rows}
    assert {"pickle", "joblib", "skops"} <= formats <= set(FORMATS)
    assert len(rows) == 2 * len(formats)
    for row in rows:
        assert row["identical"], row
        assert row["size_bytes"] > 0 and row["save_ms"] > 0 and row["load_ms"] > 0
    table = format_table(rows)
    assert "skops deflated" in table and "size (MB)" in table
    with pytest.raises(ValueError, match="Unknown learner.*PA, AROW"):
        run_persistence(data, ["SVM"], repeats=1)
