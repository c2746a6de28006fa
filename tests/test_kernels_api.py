"""The kernels' calling convention.

Python calls a kernel with the row view, the visiting order and the state
arrays positionally and everything else by keyword, the rule and its
parameters as one dict that each estimator states in ``_kernel_params()``;
the kernel refuses a dict with a missing or unknown key before any weight
moves.  The sequence kernel's options are enums shared with the estimators.
"""

import ast
import pathlib
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_calls import row_view, rule_params

from sklearn_pa import (
    AROWClassifier,
    AROWRegressor,
    ConfidenceWeightedClassifier,
    ConfidenceWeightedRegressor,
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    IELLIPClassifier,
    MIRAClassifier,
    NHERDRegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    SCWClassifier,
)
from sklearn_pa._compiled import _first_order, _multiplicative, _rules, _second_order
from sklearn_pa._compiled._rules import (
    Rule,
    SecondOrderRule,
    SequenceLoss,
    SequenceUpdate,
    Slack,
)
from sklearn_pa.sequence import _structured

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "sklearn_pa"
RULE_KEYS = {"rule", "slack", "C", "epsilon", "margin", "learning_rate", "total_weight"}
SECOND_ORDER_KEYS = {
    "rule",
    "step",
    "phi",
    "param",
    "epsilon",
    "shrinkage",
    "delta",
    "floor",
}


def _binary_epoch(view, order, labels, params):
    """One first-order kernel epoch of a binary rule over ``order`` of
    ``view``, from zero weights; returns ``(W, b)``."""
    n = len(labels)
    W, b = np.zeros((view.n_features, 1)), np.zeros(1)
    one = np.ones(2)
    _first_order.epoch(
        view,
        order,
        W,
        b,
        np.zeros((0, 1)),
        np.zeros(0),
        params=params,
        labels=np.asarray(labels, dtype=np.int32),
        targets=np.zeros(n),
        sample_weight=np.ones(n),
        weight_pos=one,
        weight_neg=one,
        margins=np.ones((1, 1)),
        active=np.ones(1, dtype=np.uint8),
        intercept_sq=0.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
    )
    return W, b


def _first_order_call(params):
    X = np.array([[1.0, 2.0], [-1.0, 0.5]])
    view = row_view(
        X.ravel(), np.arange(2, dtype=np.int32), np.zeros(1, np.int32), True, 2
    )
    return _binary_epoch(view, np.arange(2, dtype=np.int64), [1, 0], params)


def test_first_order_kernel_runs_on_a_complete_parameter_dict():
    W, _ = _first_order_call(rule_params(Rule.BINARY, Slack.HINGE, 1.0, 0.0))
    assert np.any(W != 0.0)


@pytest.mark.parametrize("broken", ["missing", "unknown"])
def test_first_order_kernel_refuses_a_missing_or_unknown_parameter(broken):
    params = rule_params(Rule.BINARY, Slack.HINGE, 1.0, 0.0)
    if broken == "missing":
        del params["C"]
    else:
        params["eta"] = 0.1
    with pytest.raises(ValueError, match="kernel parameters"):
        _first_order_call(params)


def test_multiplicative_kernel_refuses_an_unknown_parameter():
    params = rule_params(Rule.EXPONENTIATED, 1, 0.1, 0.0, total_weight=6.0)
    params["total"] = 6.0
    pos, neg = np.ones(3), np.ones(3)
    with pytest.raises(ValueError, match="unknown \\['total'\\]"):
        _multiplicative.epoch(
            row_view(
                np.ones(2), np.arange(2, dtype=np.int32), np.zeros(1, np.int32), True, 2
            ),
            np.zeros(1, dtype=np.int64),
            pos,
            neg,
            params=params,
            targets=np.ones(1),
            sample_weight=np.ones(1),
            intercept=True,
            loss_out=np.zeros(1),
        )
    assert np.all(pos == 1.0) and np.all(neg == 1.0)


def test_second_order_kernel_refuses_a_missing_parameter():
    W, b = np.zeros((2, 1)), np.zeros(1)
    with pytest.raises(ValueError, match="missing \\['param'\\]"):
        _second_order.epoch(
            row_view(
                np.ones(2), np.arange(2, dtype=np.int32), np.zeros(1, np.int32), True, 2
            ),
            np.zeros(1, dtype=np.int64),
            params={
                "rule": 40,
                "step": 45,
                "phi": 1.0,
                "epsilon": 0.0,
                "shrinkage": 0.0,
                "delta": 0.0,
                "floor": 0.0,
            },
            labels=np.ones(1, dtype=np.int32),
            sample_weight=np.ones(1),
            class_weight=np.ones(2),
            W=W,
            b=b,
            S_diag=np.ones((3, 1)),
            S_full=np.zeros((0, 1, 1)),
            U=np.zeros((0, 1)),
            bu=np.zeros(0),
            intercept=0.0,
            t0=0,
            average_start=0,
            loss_out=np.zeros(1),
        )
    assert np.all(W == 0.0)


def test_the_python_checkers_read_what_the_kernels_read():
    params = rule_params(Rule.MIRA, Slack.HINGE, 1.0, 0.5)
    assert _rules.check_rule_params(params) == params
    with pytest.raises(ValueError, match="missing"):
        _rules.check_second_order_params({"rule": 40})


@pytest.mark.parametrize(
    "est, expected",
    [
        (PassiveAggressiveRegressor(C=0.3, epsilon=0.2), {"C": 0.3, "epsilon": 0.2}),
        (MIRAClassifier(margin=0.7), {"rule": Rule.MIRA, "C": 1.0, "margin": 0.7}),
        (
            GradientDescentRegressor(eta=0.05),
            {"rule": Rule.NORMALIZED_GRADIENT, "learning_rate": 0.05, "C": 0.0},
        ),
        (
            GradientDescentRegressor(eta=0.05, eta_scaling="constant"),
            {"rule": Rule.GRADIENT, "learning_rate": 0.05},
        ),
        (
            ExponentiatedGradientRegressor(eta=0.2, total_weight=3.0),
            {"rule": Rule.EXPONENTIATED, "learning_rate": 0.2, "total_weight": 3.0},
        ),
        (
            ErrorProportionalRegressor(C=0.5),
            {"rule": Rule.NORMALIZED_GRADIENT, "learning_rate": 0.25},
        ),
        (
            ErrorProportionalRegressor(C=0.5, update="multiplicative"),
            {"rule": Rule.ERROR_PROPORTIONAL_MULT, "learning_rate": 0.5},
        ),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, dict) else "",
)
def test_each_estimator_states_its_kernel_parameters(est, expected):
    params = est._kernel_params()
    assert set(params) == RULE_KEYS
    for key, value in expected.items():
        assert params[key] == value, key
    # the kernel accepts exactly this dict
    assert _rules.check_rule_params(params) == params


def test_mira_no_longer_fakes_a_step_bound_or_epsilon():
    est = MIRAClassifier()
    assert "C" not in est.get_params() and not hasattr(est, "C")
    assert not hasattr(est, "epsilon")


def test_classifier_kernel_parameters_follow_the_fitted_problem():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    est = PassiveAggressiveClassifier(C=0.5, loss="squared_hinge").fit(X, [0, 1, 0])
    params = est._kernel_params()
    assert params["rule"] == Rule.BINARY and params["slack"] == Slack.SQUARED_HINGE
    assert params["C"] == 0.5


@pytest.mark.parametrize(
    "est, step",
    [
        (ConfidenceWeightedClassifier(), _rules.SecondOrderRule.STEP_CW),
        (AROWClassifier(regularization=2.0), _rules.SecondOrderRule.STEP_AROW),
        (SCWClassifier(variant=2, C=0.3), _rules.SecondOrderRule.STEP_SCW2),
        (AROWRegressor(epsilon=0.2), _rules.SecondOrderRule.STEP_AROW_REGRESSION),
        (ConfidenceWeightedRegressor(), _rules.SecondOrderRule.STEP_CW_REGRESSION),
        (NHERDRegressor(C=0.5), _rules.SecondOrderRule.STEP_NHERD_REGRESSION),
        (IELLIPClassifier(), _rules.SecondOrderRule.STEP_IELLIP),
    ],
)
def test_second_order_estimators_state_their_kernel_parameters(est, step):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    est.fit(X, [0, 1, 2])
    params = est._kernel_params()
    assert set(params) == SECOND_ORDER_KEYS
    assert params["step"] == step and params["rule"] == int(est._rule())
    assert _rules.check_second_order_params(params) == params


def test_sequence_options_are_the_kernel_enums():
    assert _structured._UPDATES == {
        "standard": SequenceUpdate.UPDATE_STANDARD,
        "early": SequenceUpdate.UPDATE_EARLY,
        "max_violation": SequenceUpdate.UPDATE_MAX_VIOLATION,
    }
    assert _structured._LOSSES == {
        "hinge": SequenceLoss.LOSS_HINGE,
        "squared_hinge": SequenceLoss.LOSS_SQUARED_HINGE,
    }
    for value in (*_structured._UPDATES.values(), *_structured._LOSSES.values()):
        assert isinstance(value, (SequenceUpdate, SequenceLoss))


def _kernel_modules():
    return {p.stem for p in (PACKAGE / "_compiled").glob("*.pyx")}


def _kernel_calls(tree, kernels):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in kernels
        ):
            yield node


def test_no_kernel_call_in_the_package_passes_a_long_positional_list():
    kernels = _kernel_modules()
    too_long, indexed, seen = [], [], 0
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text()
        tree = ast.parse(source)
        for call in _kernel_calls(tree, kernels):
            seen += 1
            if len(call.args) > 6 or any(isinstance(a, ast.Starred) for a in call.args):
                too_long.append(f"{path.name}:{call.lineno}")
        for node in ast.walk(tree):
            # ``args[17]``: picking kernel arguments out by position
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id == "args"
            ):
                indexed.append(f"{path.name}:{node.lineno}")
    assert seen >= 5  # the check sees the call sites
    assert not too_long, too_long
    assert not indexed, indexed


# ----------------------------------------- the row view inside the kernels
ROW_FIELDS = ("data", "indices", "indptr", "dense", "n_features")


def _kernel_sources():
    """The Cython sources of the kernels but the row view's own
    (``_dataset.pxd``), with their comments removed."""
    for path in sorted((PACKAGE / "_compiled").glob("*.p*")):
        if path.suffix in (".pyx", ".pxd") and path.name != "_dataset.pxd":
            lines = (line.split("#", 1)[0] for line in path.read_text().splitlines())
            yield path.name, "\n".join(lines)


def _parenthesised(source, start):
    """The top-level comma-separated items between the parenthesis opening
    at ``source[start]`` and the one closing it."""
    depth, items, current = 0, [], []
    for char in source[start:]:
        if char in "([":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]":
            depth -= 1
            if depth == 0:
                break
        if char == "," and depth == 1:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return [item for item in items if item]


DEFINITION = re.compile(r"^\s*(cdef|cpdef|def)\b[^(=\n]*?\b(\w+)\(", re.M)
PARAMETER = re.compile(r"(\w+)\s*(?:=.*)?$", re.S)


def _signatures(source):
    """``(name, kind, parameter names)`` of every function defined in
    ``source`` (kind: ``cdef``, ``cpdef`` or ``def``)."""
    for match in DEFINITION.finditer(source):
        params = _parenthesised(source, match.end() - 1)
        names = [m.group(1) for m in map(PARAMETER.search, params) if m]
        yield match.group(2), match.group(1), names


def test_kernels_pass_the_row_view_as_one_struct():
    """Inside the kernels the row view is one struct (``Rows32`` / ``Rows64``
    of ``_dataset.pxd``): no function but the Python-facing test helpers
    takes its arrays one by one, and ``get_row`` takes the struct, the row
    and its three outputs."""
    spread, long_calls, n_calls, n_defs = [], [], 0, 0
    for name, source in _kernel_sources():
        for match in re.finditer(r"\bget_row\(", source):
            n_calls += 1
            args = _parenthesised(source, match.end() - 1)
            if len(args) > 5:
                long_calls.append(f"{name}: get_row with {len(args)} arguments")
        for func, kind, params in _signatures(source):
            n_defs += 1
            fields = [f for f in ROW_FIELDS if f in params]
            private = kind != "def" or func.startswith("_")
            if private and len(fields) >= 2:
                spread.append(f"{name}: {func}({', '.join(fields)})")
    assert n_calls >= 10 and n_defs >= 40  # the check sees the kernels
    assert not long_calls, long_calls
    assert not spread, spread


def test_each_kernel_builds_the_row_struct_with_make_rows():
    """Every kernel that reads rows gets its struct from ``make_rows`` (one
    way to fill it) and never unpacks the Python row view's arrays itself."""
    readers = 0
    for name, source in _kernel_sources():
        if name.endswith(".pxd") or "get_row(" not in source:
            continue
        readers += 1
        assert "make_rows(" in source, name
        assert not re.search(r"\w\.indptr\b", source), name
    assert readers >= 6


def _csr_epoch(view, order):
    n = view.indptr.shape[0] - 1
    params = rule_params(Rule.BINARY, Slack.HINGE, 1.0, 0.0)
    return _binary_epoch(view, order, np.arange(n) % 2, params)[0]


def test_a_csr_view_is_verified_once_for_every_row():
    import scipy.sparse as sp

    from sklearn_pa._core.epochs import _RowView

    X = sp.random(20, 8, density=0.4, format="csr", random_state=0)
    view = _RowView(X)
    assert view.checked_csr is False
    order = np.arange(5, dtype=np.int64)  # (the check covers every row)
    _csr_epoch(view, order)
    assert view.checked_csr is True
    # a bad feature index in a row outside this order: the view is not
    # marked, and an epoch over that row is refused
    bad = _RowView(X)
    bad.indices = bad.indices.copy()
    bad.indices[X.indptr[15]] = 8
    _csr_epoch(bad, order)
    assert bad.checked_csr is False
    with pytest.raises(ValueError, match="feature index"):
        _csr_epoch(bad, np.array([15], dtype=np.int64))
    # a view that does not remember (any object with the arrays) is checked
    # row by row at every entry
    plain = row_view(X.data, bad.indices, X.indptr, False, 8)
    with pytest.raises(ValueError, match="feature index"):
        _csr_epoch(plain, np.array([15], dtype=np.int64))


def _multiclass_epoch_arrays(seed):
    rng = np.random.RandomState(seed)
    n, d, k = 12, 6, 3
    X = rng.normal(size=(n, d))
    kwargs = dict(
        params={
            "rule": int(Rule.SUPPORT),
            "slack": int(Slack.HINGE),
            "C": 0.7,
            "epsilon": 0.0,
            "margin": 0.0,
            "learning_rate": 0.0,
            "total_weight": 0.0,
        },
        labels=rng.randint(k, size=n).astype(np.int32),
        targets=np.zeros(1),
        sample_weight=np.ones(n),
        weight_pos=np.ones(k),
        weight_neg=np.ones(k),
        margins=np.ones((k, k)),
        active=np.ones(k, dtype=np.uint8),
        intercept_sq=1.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
    )
    return X, np.zeros((d, k)), np.zeros(k), kwargs


@pytest.mark.parametrize("kept", ["same", "other weights", "other rule", "other C"])
def test_a_bound_pass_is_used_only_for_the_objects_it_was_made_with(kept):
    """``epoch(..., bound=pass)`` learns what ``epoch`` learns without it:
    the pass is reused when it was made with the same weights, rule and
    column arrays, and ignored (its own weights untouched) otherwise."""
    from sklearn_pa._core.epochs import _RowView

    X, W, b, kwargs = _multiclass_epoch_arrays(0)
    order = np.arange(X.shape[0], dtype=np.int64)
    empty = np.zeros((0, W.shape[1])), np.zeros(0)
    W_ref, b_ref = W.copy(), b.copy()
    ref = dict(kwargs, loss_out=np.zeros(1))
    expected = _first_order.epoch(_RowView(X), order, W_ref, b_ref, *empty, **ref)
    made_with = {
        "W": W,
        "b": b,
        **{k: kwargs[k] for k in ("params", "weight_pos", "weight_neg")},
        **{k: kwargs[k] for k in ("margins", "active", "intercept_sq")},
    }
    if kept == "other weights":
        made_with["W"], made_with["b"] = np.zeros_like(W), np.zeros_like(b)
    elif kept == "other rule":
        made_with["params"] = dict(kwargs["params"], rule=int(Rule.MAX_LOSS))
    elif kept == "other C":
        made_with["intercept_sq"] = 4.0
    other_W = made_with["W"]
    bound = _first_order.FirstOrderPass(
        made_with.pop("W"), made_with.pop("b"), **made_with
    )
    got = _first_order.epoch(_RowView(X), order, W, b, *empty, **kwargs, bound=bound)
    assert got == expected
    np.testing.assert_array_equal(W, W_ref)
    np.testing.assert_array_equal(b, b_ref)
    np.testing.assert_array_equal(kwargs["loss_out"], ref["loss_out"])
    if kept == "other weights":
        assert not other_W.any()


def _second_order_epoch_arrays(seed, n_features=12, n_classes=3):
    """An AROW pass's arguments (diagonal covariance, one block per class)
    on sparse rows of different lengths."""
    rng = np.random.RandomState(seed)
    X = sp.random(30, n_features, density=0.4, format="csr", random_state=rng)
    # one row much longer than the others, in the middle of the order
    X = sp.vstack([X[:15], sp.csr_matrix(rng.normal(size=(1, n_features))), X[15:]])
    X = sp.csr_matrix(X)
    y = rng.randint(n_classes, size=X.shape[0]).astype(np.int32)
    kwargs = dict(
        params={
            "rule": int(SecondOrderRule.SO_SINGLE),
            "step": int(SecondOrderRule.STEP_AROW),
            "phi": 1.0,
            "param": 0.5,
            "epsilon": 0.0,
            "shrinkage": 0.0,
            "delta": 0.0,
            "floor": 0.0,
        },
        labels=y,
        sample_weight=np.ones(X.shape[0]),
        class_weight=np.ones(n_classes),
        S_full=np.zeros((0, 1, 1)),
        U=np.zeros((0, n_classes)),
        bu=np.zeros(0),
        intercept=1.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
        scores_out=np.empty((X.shape[0], n_classes)),
        var_out=np.empty((X.shape[0], n_classes)),
    )
    W, b = np.zeros((n_features, n_classes)), np.zeros(n_classes)
    S_diag = np.ones((n_features + 1, n_classes))
    return X, W, b, S_diag, kwargs


@pytest.mark.parametrize(
    "kept", ["same", "other weights", "other covariance", "other rule", "other a"]
)
def test_a_bound_second_order_pass_is_used_only_for_its_objects(kept):
    """``_second_order.epoch(..., bound=pass)`` learns what it learns
    without it: the pass is reused when it was made with the same mean,
    covariance, rule and class weights (and intercept constant), and
    ignored (its own arrays untouched) otherwise."""
    from sklearn_pa._core.epochs import _RowView

    X, W, b, S, kwargs = _second_order_epoch_arrays(0)
    order = np.arange(X.shape[0], dtype=np.int64)
    ref = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    W_ref, b_ref, S_ref = W.copy(), b.copy(), S.copy()
    expected = _second_order.epoch(
        _RowView(X), order, W=W_ref, b=b_ref, S_diag=S_ref, **ref
    )
    made = dict(W=W, b=b, S_diag=S, S_full=kwargs["S_full"])
    params, intercept = kwargs["params"], kwargs["intercept"]
    if kept == "other weights":
        made["W"], made["b"] = np.zeros_like(W), np.zeros_like(b)
    elif kept == "other covariance":
        made["S_diag"] = np.ones_like(S)
    elif kept == "other rule":
        params = dict(params, step=int(SecondOrderRule.STEP_CW))
    elif kept == "other a":
        intercept = 2.0
    others = {k: v.copy() for k, v in made.items()}
    bound = _second_order.SecondOrderPass(
        *made.values(),
        params=params,
        class_weight=kwargs["class_weight"],
        intercept=intercept,
    )
    assert bound.binds(
        W, b, S, kwargs["S_full"], kwargs["params"], kwargs["class_weight"], 1.0
    ) == (kept == "same")
    got = _second_order.epoch(
        _RowView(X), order, W=W, b=b, S_diag=S, **kwargs, bound=bound
    )
    assert got == expected
    for a, want in ((W, W_ref), (b, b_ref), (S, S_ref)):
        np.testing.assert_array_equal(a, want)
    for name in ("loss_out", "scores_out", "var_out"):
        np.testing.assert_array_equal(kwargs[name], ref[name])
    callers = dict(W=W, b=b, S_diag=S, S_full=kwargs["S_full"])
    for name, a in made.items():
        if a is not callers[name]:  # (the pass's own arrays: not run)
            np.testing.assert_array_equal(a, others[name])


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 10_000), st.integers(1, 40))
def test_a_second_order_pass_on_wide_rows_learns_what_dense_rows_learn(seed, width):
    """The work rows of the diagonal covariance are sized by the batch's
    longest row, not by the model's width: sparse rows of any lengths (the
    longest anywhere in the order) learn what the same rows learn dense,
    where each row has the model's width."""
    from sklearn_pa._core.epochs import _RowView

    X, W, b, S, kwargs = _second_order_epoch_arrays(seed, n_features=width)
    rng = np.random.RandomState(seed)
    order = rng.permutation(X.shape[0]).astype(np.int64)
    dense = {
        k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()
    }
    W2, b2, S2 = W.copy(), b.copy(), S.copy()
    got = _second_order.epoch(_RowView(X), order, W=W, b=b, S_diag=S, **kwargs)
    want = _second_order.epoch(
        _RowView(X.toarray()), order, W=W2, b=b2, S_diag=S2, **dense
    )
    assert got == want
    np.testing.assert_allclose(W, W2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(S, S2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(kwargs["var_out"], dense["var_out"], rtol=1e-12)


# ------------------------- a pass bound before is run by position, as epoch
def _always_made(bound_pass):
    """An adapter's ``_first_order_pass`` / ``_bound_pass`` that reports
    every pass as made now: each pass then goes through the kernel's
    keyword entry, ``epoch``."""

    def made_now(adapter, *args):
        bound, _ = bound_pass(adapter, *args)
        return bound, True

    return made_now


def _bound_run_cases():
    rng = np.random.RandomState(0)
    X = sp.random(80, 15, density=0.3, format="csr", random_state=rng)
    y = rng.randint(3, size=80)
    Y = (rng.rand(80, 3) < 0.4).astype(int)
    weights = rng.uniform(0.5, 2.0, size=80)
    Xr = rng.normal(size=(80, 6))
    yr = Xr @ rng.normal(size=6) / 4
    return [
        ("averaged PA", PassiveAggressiveClassifier(random_state=0), X, y, weights),
        (
            "unaveraged PA, dense",
            PassiveAggressiveClassifier(average=False, random_state=0),
            X.toarray(),
            y,
            None,
        ),
        (
            "one-vs-rest in threads",
            PassiveAggressiveClassifier(multiclass="ovr", n_jobs=2, random_state=0),
            X,
            y,
            None,
        ),
        ("multilabel PA", PassiveAggressiveClassifier(random_state=0), X, Y, None),
        ("MIRA", MIRAClassifier(random_state=0), X, y, weights),
        ("PA regressor", PassiveAggressiveRegressor(random_state=0), Xr, yr, None),
        ("AROW", AROWClassifier(random_state=0), X, y, weights),
        (
            "CW, averaged",
            ConfidenceWeightedClassifier(average=True, random_state=0),
            X,
            y,
            None,
        ),
        ("SCW", SCWClassifier(random_state=0), X.toarray(), y, None),
        ("AROW regressor", AROWRegressor(random_state=0), Xr, yr, None),
    ]


@pytest.mark.parametrize("case", _bound_run_cases(), ids=lambda case: case[0])
def test_a_pass_bound_before_runs_by_position_what_epoch_runs(monkeypatch, case):
    """After the pass that binds it (through ``epoch``), an adapter calls
    its bound pass's ``run`` with positional arguments: ``fit`` over
    several epochs, a stream of ``partial_fit`` calls and progressive
    validation learn, bit for bit, what the keyword entry learns."""
    from sklearn.base import clone, is_regressor

    import sklearn_pa._core.epochs as linear_epochs
    import sklearn_pa.second_order._epochs as second_order_epochs
    from sklearn_pa.model_selection import progressive_val_predict

    _, est, X, y, weights = case
    classes = None if is_regressor(est) else [0, 1, 2]

    def learn():
        fitted = (
            clone(est).set_params(max_iter=4, tol=None).fit(X, y, sample_weight=weights)
        )
        stream = clone(est)
        kwargs = {} if classes is None else {"classes": classes}
        for start in range(0, 80, 7):
            rows = slice(start, start + 7)
            stream.partial_fit(
                X[rows],
                y[rows],
                sample_weight=None if weights is None else weights[rows],
                **kwargs,
            )
            kwargs = {}
        scores = progressive_val_predict(clone(est), X, y)
        return fitted, stream, scores

    calls = []

    def counted(run):
        def wrapper(*args):
            calls.append(run.__name__)
            return run(*args)

        return wrapper

    monkeypatch.setattr(
        linear_epochs,
        "bound_first_order_run",
        counted(linear_epochs.bound_first_order_run),
    )
    monkeypatch.setattr(
        second_order_epochs,
        "bound_second_order_run",
        counted(second_order_epochs.bound_second_order_run),
    )
    positional = learn()
    assert calls  # (the bound passes were run by position)
    monkeypatch.setattr(
        linear_epochs._LinearEpochs,
        "_first_order_pass",
        _always_made(linear_epochs._LinearEpochs._first_order_pass),
    )
    monkeypatch.setattr(
        second_order_epochs._SecondOrderEpochs,
        "_bound_pass",
        _always_made(second_order_epochs._SecondOrderEpochs._bound_pass),
    )
    calls.clear()
    keyword = learn()
    assert not calls  # (every pass went through epoch)
    for a, b in zip(positional[:2], keyword[:2]):
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.intercept_, b.intercept_)
        assert a.t_ == b.t_
        if hasattr(a, "_sigma"):
            np.testing.assert_array_equal(a._sigma, b._sigma)
    np.testing.assert_array_equal(positional[2], keyword[2])
