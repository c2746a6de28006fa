"""Robustness of parameters: set before and between ``partial_fit`` calls, at
the edges of their ranges, and the silent wrong models they used to give.

Discovery-driven like ``test_robustness.py`` (whose table of input factories
this module reuses), so an estimator is covered the day it is exported.
"""

import pickle
from decimal import Decimal, localcontext

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.utils._param_validation import (
    InvalidParameterError,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)
from test_robustness import (
    _assert_all_finite,
    _classes_kw,
    _data,
    _estimator_params,
    _make,
    _outputs,
    _partial_fit,
    _set_if_present,
)

from sklearn_pa import (
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    PassiveAggressiveOneClass,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)
from sklearn_pa.utils import all_estimators

TAGGERS = [StructuredPerceptron, StructuredPassiveAggressive]


def _state(est):
    """The estimator's fitted state (everything but its parameters) as bytes."""
    params = est.get_params(deep=False)
    return pickle.dumps({k: v for k, v in est.__dict__.items() if k not in params})


def _started(name, Estimator):
    """A model after one ``partial_fit`` batch, and its (X, y)."""
    est = _make(name, Estimator)
    X, y = _data(name, est)
    _partial_fit(est, X, y, **_classes_kw(est, y))
    return est, X, y


def _invalid_values(constraints):
    """Values no constraint of a parameter accepts."""
    constraints = [make_constraint(c) for c in constraints]
    values = ["bogus-value", object()]
    for constraint in constraints:
        try:
            values.append(generate_invalid_param_val(constraint))
        except NotImplementedError:
            pass
    return [v for v in values if not any(c.is_satisfied_by(v) for c in constraints)]


# -------------------------------- parameters set between partial_fit calls
@pytest.mark.parametrize("name, Estimator", _estimator_params())
def test_invalid_parameter_set_mid_stream_is_refused_atomically(name, Estimator):
    """scikit-learn validates parameters only on the first ``partial_fit``
    call; here every call refuses an invalid value set since, before any
    state (weights, counters, random state) moves."""
    est, X, y = _started(name, Estimator)
    for param, constraints in Estimator._parameter_constraints.items():
        if param not in est.get_params(deep=False):
            continue
        for value in _invalid_values(constraints):
            old = est.get_params(deep=False)[param]
            est.set_params(**{param: value})
            before = _state(est)
            with pytest.raises((InvalidParameterError, ValueError, TypeError)):
                _partial_fit(est, X, y)
            assert _state(est) == before, f"{param}={value!r} moved the model"
            est.set_params(**{param: old})
    # the model still learns once the parameters are valid again
    _partial_fit(est, X, y)
    _assert_all_finite(est)


def _valid_values(constraints):
    values = []
    for constraint in constraints:
        try:
            values.append(generate_valid_param(make_constraint(constraint)))
        except (NotImplementedError, ValueError):
            pass
    return values


# parameters whose generated "valid" value is not a usable setting for a
# mid-stream change (a whole base estimator, a kernel callable of the wrong
# signature, ...): they are covered by the invalid-value test above
_NOT_GENERATED = {"estimator", "kernel", "kernel_params", "cost_matrix"}


@pytest.mark.parametrize("name, Estimator", _estimator_params())
def test_valid_parameter_set_mid_stream_is_honoured_or_refused(name, Estimator):
    """Any valid value set between ``partial_fit`` calls either applies from
    the next batch on (the model stays finite and predicts) or is refused
    with a clear error that leaves the model exactly as it was."""
    for param, constraints in Estimator._parameter_constraints.items():
        if param in _NOT_GENERATED:
            continue
        for value in _valid_values(constraints):
            est, X, y = _started(name, Estimator)
            if param not in est.get_params(deep=False):
                continue
            est.set_params(**{param: value})
            before = _state(est)
            try:
                _partial_fit(est, X, y)
            except ValueError as exc:
                assert len(str(exc)) > 20, f"{param}={value!r}: unclear {exc!r}"
                assert _state(est) == before, f"{param}={value!r} moved the model"
                continue
            _assert_all_finite(est)
            for method, out in _outputs(est, X).items():
                if isinstance(out, list):
                    out = np.concatenate(out)
                if out.dtype.kind == "f":
                    assert np.all(np.isfinite(out)), f"{param}={value!r}: {method}"


def _classifiers_with_class_weight():
    return [
        pytest.param(name, E, id=name)
        for name, E in all_estimators(type_filter="classifier")
        if "class_weight" in E().get_params(deep=False)
    ]


@pytest.mark.parametrize("name, Estimator", _classifiers_with_class_weight())
@pytest.mark.parametrize("weight", [-1.0, np.nan, np.inf])
def test_class_weight_must_be_finite_and_non_negative(name, Estimator, weight):
    est = _make(name, Estimator)
    X, y = _data(name, est)
    labels = np.unique(y)
    bad = {label: 1.0 for label in labels}
    bad[labels[0]] = weight
    with pytest.raises(ValueError, match="finite non-negative"):
        est.set_params(class_weight=bad).fit(X, y)
    # and mid-stream, atomically
    est.set_params(class_weight=None)
    _partial_fit(est, X, y, **_classes_kw(est, y))
    before = _state(est.set_params(class_weight=bad))
    with pytest.raises(ValueError, match="finite non-negative"):
        est.partial_fit(X, y)
    assert _state(est) == before


@pytest.mark.parametrize("name, Estimator", _classifiers_with_class_weight())
def test_class_weight_changed_mid_stream_applies_to_the_next_batch(name, Estimator):
    """As in SGDClassifier: the next batch learns with the new weights, the
    same as with those weights folded into ``sample_weight`` (two classes,
    where a class weight multiplies its samples' aggressiveness)."""
    # a small C, so that the weights (which multiply it) bind
    make = lambda: _set_if_present(_make(name, Estimator), C=0.05)  # noqa: E731
    est = make()
    X, y = _data(name, est)
    y = (y == y[0]).astype(int)
    weights = {0: 0.01, 1: 3.0}
    changed = make().partial_fit(X, y, classes=[0, 1])
    folded = make().partial_fit(X, y, classes=[0, 1])
    changed.set_params(class_weight=weights).partial_fit(X[::-1], y[::-1])
    sw = np.array([weights[label] for label in y[::-1]])
    folded.partial_fit(X[::-1], y[::-1], sample_weight=sw)
    ignored = make().partial_fit(X, y, classes=[0, 1])
    ignored.partial_fit(X[::-1], y[::-1])
    assert_allclose(
        changed.decision_function(X), folded.decision_function(X), rtol=1e-12
    )
    assert not np.allclose(changed.decision_function(X), ignored.decision_function(X))


# ------------------------------------------------------------ init arrays
def _with_coef_init():
    import inspect

    return [
        pytest.param(name, E, id=name)
        for name, E in all_estimators(type_filter="all")
        if "coef_init" in inspect.signature(E.fit).parameters
    ]


@pytest.mark.parametrize("name, Estimator", _with_coef_init())
@pytest.mark.parametrize("value", [1e308, np.nan, np.inf])
def test_non_finite_or_overflowing_coef_init_is_refused(name, Estimator, value):
    est = _make(name, Estimator)
    X, y = _data(name, est)
    fresh = _make(name, Estimator).fit(X, y)
    coef = np.full_like(np.atleast_2d(fresh.coef_), value)
    with pytest.raises(ValueError, match="coef_init"):
        est.fit(X, y, coef_init=coef.reshape(np.shape(fresh.coef_)))
    intercept = np.full_like(np.atleast_1d(fresh.intercept_), value)
    if np.isfinite(value):
        # a huge finite intercept overflows no product: it is legal
        return
    with pytest.raises(ValueError, match="intercept_init"):
        est.fit(X, y, intercept_init=intercept)


# ------------------------------------------------------- integer limits
def _count_params():
    out = []
    for name, E in all_estimators(type_filter="all"):
        for param in ("average", "budget", "k_best", "beam_width", "n_estimators"):
            if param in E._parameter_constraints:
                out.append(pytest.param(name, E, param, id=f"{name}-{param}"))
    return out


@pytest.mark.parametrize("name, Estimator, param", _count_params())
def test_huge_integer_parameters_get_a_clear_error(name, Estimator, param):
    """``average=2**70`` used to end in ``OverflowError: Python int too large
    to convert to C long`` from a kernel; now the constraint or a memory
    check refuses it, naming the parameter."""
    est = _make(name, Estimator).set_params(**{param: 2**70})
    X, y = _data(name, est)
    # n_estimators: the copies' memory is checked against the available memory
    with pytest.raises((ValueError, MemoryError), match=param):
        _partial_fit(est, X, y, **_classes_kw(est, y))
    assert not hasattr(est, "n_iter_")


# ------------------------------------------------------------ kernel PA
@pytest.mark.parametrize(
    "Estimator", [KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor]
)
@pytest.mark.parametrize(
    "params",
    [{"degree": 0.5}, {"degree": -1}, {"gamma": np.inf}, {"coef0": np.nan}],
    ids=str,
)
def test_kernel_parameters_are_validated_as_in_svc(Estimator, params):
    X, y = np.random.RandomState(0).randn(20, 3), np.tile([0, 1], 10)
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        Estimator(kernel="poly", **params).fit(X, y)


@pytest.mark.parametrize(
    "Estimator", [KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor]
)
def test_named_kernel_parameters_cannot_bypass_validation(Estimator):
    X, y = np.random.RandomState(0).randn(20, 3), np.tile([0, 1], 10)
    est = Estimator(kernel="poly", kernel_params={"degree": 0.5})
    with pytest.raises(ValueError, match="not in kernel_params"):
        est.fit(X, y)


@pytest.mark.parametrize(
    "Estimator", [KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor]
)
@pytest.mark.parametrize("sparse", [False, True])
def test_rbf_scale_gamma_on_extreme_data(Estimator, sparse):
    """``gamma="scale"`` is ``1 / (n_features * X.var())``: computed without
    overflow where the variance is representable, and refused where it is
    not (X.var() overflowing used to make gamma 0 and every decision NaN)."""
    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 3), np.tile([0, 1, 1], 10)
    for scale in (1e-150, 1e150):
        Xs = sp.csr_matrix(X * scale) if sparse else X * scale
        est = Estimator().fit(Xs, y)
        ref = 1.0 / (X.shape[1] * X.var()) / scale / scale
        assert_allclose(est._gamma, ref, rtol=1e-12)
        assert np.all(np.isfinite(est.predict(Xs)))
        if hasattr(est, "decision_function"):
            assert np.all(np.isfinite(est.decision_function(Xs)))
    Xs = sp.csr_matrix(X * 1e160) if sparse else X * 1e160
    est = Estimator()
    with pytest.raises(ValueError, match="Scale the input"):
        est.fit(Xs, y)
    assert not hasattr(est, "n_iter_")


# ------------------------------------------------------ one-class radius
def _exact_learned_radius(X, C, bound):
    """PA-I uniclass with a learned radius, one pass in row order, in
    700-digit decimal arithmetic: (epsilon_, center_)."""
    with localcontext() as ctx:
        ctx.prec = 700
        B = Decimal(bound)
        w = [Decimal(0)] * X.shape[1]
        r = B
        for x in X:
            xd = [Decimal(float(v)) for v in x]
            dist = (sum((a - b) ** 2 for a, b in zip(w, xd)) + r * r).sqrt()
            loss = dist - B
            if loss <= 0:
                continue
            tau = min(Decimal(C), loss)
            beta = min(Decimal(1), tau / dist)
            w = [(1 - beta) * a + beta * b for a, b in zip(w, xd)]
            r = (1 - beta) * r
        eps = (B * B - r * r).sqrt()
        return float(eps), np.array([float(a) for a in w])


@pytest.mark.parametrize("bound", [3.0, 1e9, 1e155, 1e300, 1.7e308])
@pytest.mark.parametrize("sparse", [False, True])
def test_learned_radius_matches_exact_arithmetic(bound, sparse):
    """``epsilon_ = sqrt(B**2 - r**2)`` lost all precision from B = 1e9 on
    unit-scale data (0.0: every sample an outlier), then overflowed into NaN
    (every sample an inlier); it is computed from the gap ``B - r``."""
    X = np.random.RandomState(1).randn(12, 3)
    X[3] = 0.0  # a row at the centre
    ref_eps, ref_center = _exact_learned_radius(X, 0.5, bound)
    ball = PassiveAggressiveOneClass(
        C=0.5, epsilon="learn", epsilon_bound=bound, shuffle=False
    ).partial_fit(sp.csr_matrix(X) if sparse else X)
    assert ref_eps > 0
    assert_allclose(ball.epsilon_, ref_eps, rtol=1e-10)
    assert_allclose(ball.center_, ref_center, rtol=1e-9, atol=1e-12 * ref_eps)
    dec = ball.decision_function(X)
    assert np.all(np.isfinite(dec))
    assert 0 < np.mean(ball.predict(X) == 1) <= 1


def test_learned_radius_bound_changed_mid_stream_is_refused():
    X = np.random.RandomState(0).randn(20, 3)
    ball = PassiveAggressiveOneClass(epsilon="learn", epsilon_bound=10.0)
    ball.partial_fit(X)
    before = _state(ball.set_params(epsilon_bound=20.0))
    with pytest.raises(ValueError, match="epsilon_bound"):
        ball.partial_fit(X)
    assert _state(ball) == before
    ball.set_params(epsilon_bound=10.0).partial_fit(X)


def test_learned_radius_continues_a_model_pickled_with_the_old_state():
    """Models pickled before the gap state stored ``[r]``, not ``[B - r]``:
    they continue as the same model would now."""
    X = np.random.RandomState(0).randn(40, 3)
    ball = PassiveAggressiveOneClass(
        epsilon="learn", epsilon_bound=4.0, shuffle=False
    ).partial_fit(X[:20])
    old = pickle.loads(pickle.dumps(ball))
    old._extra = np.array([4.0 - ball._extra[0]])
    del old._extra_is_gap, old._bound
    ball.partial_fit(X[20:])
    old.partial_fit(X[20:])
    assert_allclose(old.epsilon_, ball.epsilon_, rtol=1e-12)
    assert_allclose(old.center_, ball.center_, rtol=1e-12)


# -------------------------------------------------------- sequence taggers
def _sequences(seed=0, lengths=(3, 4, 5, 2)):
    rng = np.random.RandomState(seed)
    X = [rng.randn(n, 4) for n in lengths]
    y = [rng.randint(0, 3, size=n) for n in lengths]
    return X, y


@pytest.mark.parametrize("Tagger", TAGGERS)
@pytest.mark.parametrize(
    "params",
    [
        {"C": -1},
        {"C": np.nan},
        {"k_best": 0},
        {"beam_width": 0},
        {"loss": "bogus"},
        {"max_iter": 0},
        {"average": False},
    ],
    ids=str,
)
def test_tagger_partial_fit_validates_parameters_on_every_call(Tagger, params):
    X, y = _sequences()
    tagger = Tagger(random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    if not set(params) <= set(tagger.get_params()):
        pytest.skip(f"{Tagger.__name__} has no {set(params)}")
    before = _state(tagger.set_params(**params))
    with pytest.raises(ValueError, match=next(iter(params))):
        tagger.partial_fit(X, y)
    assert _state(tagger) == before


@pytest.mark.parametrize("Tagger", TAGGERS)
@pytest.mark.parametrize("form", ["dense", "csr", "dicts"])
def test_tagger_refuses_complex_features(Tagger, form):
    X, y = _sequences()
    Xc = [x + 1j for x in X]
    if form == "csr":
        Xc = [sp.csr_matrix(x) for x in Xc]
    if form == "dicts":
        X = [[{"a": float(t[0]), "b": float(t[1])} for t in x] for x in X]
        Xc = [[{"a": tok["a"], "b": np.complex64(1j)} for tok in x] for x in X]
    with pytest.raises(ValueError, match="Complex data not supported"):
        Tagger().fit(Xc, y)
    tagger = Tagger(random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    before = _state(tagger)
    with pytest.raises(ValueError, match="Complex data not supported"):
        tagger.partial_fit(Xc, y)
    assert _state(tagger) == before


def test_k_best_workspace_is_bounded_with_a_clear_error():
    """The k-best workspace grows with ``k_best**2`` and with the square of
    the longest sequence: beyond the limit it is refused, naming the size,
    instead of a bare ``MemoryError``."""
    X, y = _sequences()
    with pytest.raises(ValueError, match=r"MiB workspace .*k_best=1000000"):
        StructuredPassiveAggressive(k_best=10**6).fit(X, y)
    tagger = StructuredPassiveAggressive(random_state=0).partial_fit(
        X, y, classes=[0, 1, 2]
    )
    before = _state(tagger.set_params(k_best=10**6))
    with pytest.raises(ValueError, match="MiB workspace"):
        tagger.partial_fit(X, y)
    assert _state(tagger) == before
    # a 12,000-token sequence needs more than 1 GiB (its Gram matrix alone)
    long_X, long_y = _sequences(lengths=(12_000,))
    with pytest.raises(ValueError, match=r"longest sequence \(12000 tokens\)"):
        StructuredPassiveAggressive().fit(long_X, long_y)
    # within the limit, learning goes on
    tagger.set_params(k_best=3).partial_fit(X, y)


# ------------------------------------------------------------ Gaussian mixing
_I2 = np.eye(2)


@pytest.mark.parametrize(
    "cov0, means, covs, match",
    [
        (_I2, [np.ones(2)] * 2, [np.zeros((2, 2)), _I2], "not positive definite"),
        (_I2, [np.ones(2)] * 2, [np.diag([1.0, -1.0]), _I2], "not positive definite"),
        (_I2, [np.ones(2)] * 2, [np.array([[1, 0.5], [0, 1]]), _I2], "not symmetric"),
        (np.ones(2), [np.ones(2)] * 2, [np.zeros(2), np.ones(2)], "must be positive"),
        (np.ones(2), [np.array([np.nan, 1])] * 2, [np.ones(2)] * 2, "NaN or infinity"),
        (_I2, [np.ones(2)] * 2, [np.diag([np.inf, 1.0]), _I2], "NaN or infinity"),
        (_I2, [np.ones(3)] * 2, [_I2, _I2], "shape"),
        (_I2, [np.ones(2)] * 2, [_I2], "one covariance per mean"),
    ],
)
def test_mix_gaussians_refuses_what_is_not_a_gaussian(cov0, means, covs, match):
    """A singular or non-symmetric covariance used to raise a raw
    LinAlgError, a zero variance to return a NaN mean, and a NaN mean to
    propagate."""
    from sklearn_pa.distributed import mix_gaussians

    with pytest.raises(ValueError, match=match):
        mix_gaussians(np.zeros(2), cov0, means, covs, diagonal=cov0.ndim == 1)


# ------------------------------------------------------- early stopping
def _with_early_stopping():
    # the tabular estimators: the sequence taggers take lists of sequences,
    # not DataFrames (their early stopping is tested in test_sequence.py)
    return [
        pytest.param(name, E, id=name)
        for name, E in all_estimators()
        if "early_stopping" in E().get_params(deep=False)
    ]


@pytest.mark.parametrize("name, Estimator", _with_early_stopping())
def test_early_stopping_on_a_dataframe_does_not_warn(name, Estimator):
    """The validation split is scored on the validated array: scoring it
    warned "X does not have valid feature names" at every epoch."""
    import warnings

    pd = pytest.importorskip("pandas")
    est = _make(name, Estimator).set_params(early_stopping=True)
    X, y = _data(name, est)
    Xdf = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        est.fit(Xdf, y)
    assert list(est.feature_names_in_) == list(Xdf.columns)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        est.predict(Xdf)
    with pytest.warns(UserWarning, match="feature names"):
        est.predict(X)
