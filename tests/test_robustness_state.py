"""Robustness of the learned state: attributes a user assigns, ``warm_start``
on data of another size, and calls that fail after the model started moving.

Every estimator is covered by discovery (:func:`sklearn_pa.utils.all_estimators`),
with the input factories of ``tests/test_robustness.py``.  An assigned
attribute of the wrong size used to make a kernel read or write outside an
array (a segmentation fault), so those cases run in a subprocess: a
regression fails the test instead of killing the test run.
"""

import copy
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from test_robustness import (
    ESTIMATORS,
    VARIANTS,
    _assert_same,
    _data,
    _partial_fit,
    _trained,
)

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    KernelPassiveAggressiveClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)

TESTS = Path(__file__).parent


def _run_isolated(code, timeout=300):
    """Run ``code`` in a fresh interpreter; fail (never crash) on a signal."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=TESTS,
    )
    assert result.returncode == 0, (
        f"exit status {result.returncode} (negative: killed by that signal)\n"
        f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    )
    return result.stdout


# ------------------------------------------------------------ the crash
def test_assigned_narrow_coef_on_wide_sparse_data_is_refused():
    """The report's reproducer: coef_ of 4 features on a model of ten
    million, then partial_fit (a segmentation fault before)."""
    out = _run_isolated(
        """
        import numpy as np, scipy.sparse as sp
        from sklearn_pa import PassiveAggressiveClassifier
        n = 10_000_000
        X = sp.csr_matrix((np.ones(4), np.full(4, n - 1), np.arange(5)), shape=(4, n))
        clf = PassiveAggressiveClassifier(max_iter=1, tol=None).fit(X, [0, 1, 0, 1])
        clf.coef_ = np.zeros((1, 4))
        try:
            clf.partial_fit(X, [0, 1, 0, 1])
        except ValueError as exc:
            print("refused:", exc)
        """
    )
    assert "refused: coef_ of PassiveAggressiveClassifier has shape (1, 4)" in out
    assert "(1, 10000000)" in out


# The body run in the subprocess for one estimator: every public learned
# array (and the kernel-side scalars) replaced by arrays of other sizes, an
# int copy, a read-only copy, a non-contiguous copy and NaN.
_ASSIGNED_BODY = """
import sys, copy, warnings
import numpy as np
sys.path.insert(0, ".")
from sklearn.base import BaseEstimator
from sklearn_pa.utils import all_estimators
from test_robustness import (
    _assert_same, _classes_kw, _data, _make, _partial_fit, _outputs,
)

name = {name!r}
Estimator = dict(all_estimators(type_filter="all"))[name]


def trained():
    est = _make(name, Estimator)
    X, y = _data(name, est)
    _partial_fit(est, X, y, **_classes_kw(est, y))
    # an averaged or scaled model computes coef_ and intercept_ (a scaled
    # one-class centre, center_) when they are read
    for attr in ("coef_", "intercept_", "center_"):
        getattr(est, attr, None)
    return est, X, y


est, X, y = trained()
params = est.get_params(deep=False)
public = [
    k for k, v in vars(est).items()
    if k.endswith("_") and not k.startswith("_") and k not in params
    and isinstance(v, np.ndarray) and v.dtype.kind in "fiu" and v.size
]
assert public, "no public learned array"


def variants(value):
    shape = value.shape
    yield "narrow", np.zeros(shape[:-1] + (max(shape[-1] - 1, 0),), value.dtype)
    yield "wide", np.zeros(shape[:-1] + (shape[-1] + 1000,), value.dtype)
    yield "more rows", np.zeros((shape[0] + 7,) + shape[1:], value.dtype)
    if value.ndim == 2:
        yield "transposed", np.ascontiguousarray(value.T)
    if value.ndim == 1:
        yield "2-D", value.reshape(1, -1).repeat(3, axis=0)
    if value.dtype.kind == "f":
        bad = value.copy()
        bad.flat[0] = np.nan
        yield "NaN", bad


def fails_cleanly(call, label):
    try:
        call()
    except (ValueError, IndexError, TypeError) as exc:
        return str(exc)
    return None


n_refused = 0
for attr in public:
    for how, value in variants(getattr(est, attr)):
        if value.shape == getattr(est, attr).shape and how != "NaN":
            continue
        fresh, X, y = trained()
        setattr(fresh, attr, value)
        before = copy.deepcopy(fresh)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            msg = fails_cleanly(lambda: _partial_fit(fresh, X, y), attr)
        if msg is not None:
            n_refused += 1
            # a refused call leaves the model as it was
            _assert_same(fresh, before)
        else:
            # a call that accepts the attribute learns a model of the right
            # size, as if from a consistent state
            ref, _, _ = trained()
            for key in public:
                got, want = getattr(fresh, key), getattr(ref, key)
                assert np.shape(got) == np.shape(want), (attr, how, key)
        # prediction never reads outside an array
        pred, X, y = trained()
        setattr(pred, attr, value)
        for method in ("decision_function", "predict", "score_samples"):
            if hasattr(pred, method):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fails_cleanly(lambda: getattr(pred, method)(X), attr)
    # same shape, other dtype / layout / writeability: the model continues
    value = getattr(est, attr)
    if value.dtype.kind == "f":
        for how, same in [
            ("read-only", value.copy()),
            ("Fortran", np.array(value, order="F")),
            ("C", np.array(value, order="C")),
            ("strided", np.repeat(value, 2, axis=-1)[..., ::2]),
        ]:
            if how == "read-only":
                same.flags.writeable = False
            a, X, y = trained()
            b, _, _ = trained()
            setattr(b, attr, same)
            _partial_fit(a, X, y)
            _partial_fit(b, X, y)
            for key in public:
                np.testing.assert_array_equal(
                    getattr(a, key), getattr(b, key), err_msg=f"{{attr}} {{how}}"
                )
print("refused", n_refused)
"""


@pytest.mark.parametrize("name, Estimator", ESTIMATORS)
def test_assigned_learned_attributes_never_crash(name, Estimator):
    """Any public learned array replaced by one of another size, a 2-D or
    transposed one, or NaN: partial_fit refuses it with a ValueError and
    leaves the model as it was, or learns a model of the right size;
    prediction raises or answers, never reads outside an array.  An assigned
    array of the right shape in another layout (read-only, Fortran,
    strided) continues exactly as the model's own."""
    out = _run_isolated(_ASSIGNED_BODY.format(name=name))
    assert "refused" in out


# the weights each estimator's partial_fit continues from (the Bayes point
# machine's coef_ is the mixture of its copies, derived, not continued from)
_CONTINUED = ("coef_", "center_", "dual_coef_", "support_vectors_")


@pytest.mark.parametrize("name, Estimator", ESTIMATORS)
def test_assigned_weights_of_another_width_are_refused_with_a_clear_error(
    name, Estimator
):
    """The weights partial_fit continues from, assigned with one feature too
    few: a ValueError naming the attribute and the expected shape."""
    est, X, y = _trained(name, Estimator)
    attrs = [a for a in _CONTINUED if hasattr(est, a)]
    if name == "OnlineBayesPointClassifier":
        attrs = ["n_mistakes_"]
    assert attrs
    for attr in attrs:
        fresh = _trained(name, Estimator)[0]
        value = np.asarray(getattr(fresh, attr))
        fresh.__dict__[attr] = np.zeros(value.shape[:-1] + (value.shape[-1] - 1,))
        with pytest.raises(ValueError, match=f"{attr}.*(shape|features)"):
            _partial_fit(fresh, X, y)


def test_structured_predict_with_assigned_coef_of_another_width():
    """Decoding read the emission weights out of bounds."""
    out = _run_isolated(
        """
        import sys
        import numpy as np
        sys.path.insert(0, ".")
        from test_robustness import _sequences
        from sklearn_pa import StructuredPassiveAggressive, StructuredPerceptron
        X, y = _sequences(None, np.random.default_rng(0))
        for Est in (StructuredPerceptron, StructuredPassiveAggressive):
            est = Est(max_iter=2, random_state=0).fit(X, y)
            for attr, value in [
                ("coef_", np.zeros((3, 1))),
                ("coef_", np.zeros((1, 5000))),
                ("transitions_", np.zeros((1, 1))),
                ("start_transitions_", np.zeros(1)),
            ]:
                saved = getattr(est, attr)
                setattr(est, attr, value)
                for call in (lambda: est.predict(X), lambda: est.partial_fit(X, y)):
                    try:
                        call()
                    except ValueError as exc:
                        assert attr in str(exc), exc
                    else:
                        raise AssertionError(f"{attr} {value.shape} accepted")
                setattr(est, attr, saved)
        print("ok")
        """
    )
    assert "ok" in out


@pytest.mark.parametrize("Est", [StructuredPerceptron, StructuredPassiveAggressive])
def test_structured_partial_fit_continues_from_assigned_coef(Est):
    X, y = _data(Est.__name__, Est())
    # without averaging coef_ is the model's own weights (with averaging it
    # is their average, and partial_fit continues from the raw weights)
    a = Est(max_iter=1, average=False, random_state=0).fit(X, y)
    b = Est(max_iter=1, average=False, random_state=0).fit(X, y)
    rng = np.random.default_rng(1)
    coef = rng.normal(size=a.coef_.shape)
    a.coef_ = coef
    b._W = np.ascontiguousarray(coef.T)
    b.coef_ = coef.copy()
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_exponentiated_gradient_refuses_an_assigned_coef():
    """The multiplicative update continues from its positive weight pair,
    which coef_ alone does not determine: an assigned coef_ is refused, not
    silently overwritten."""
    X, y = _data("ExponentiatedGradientRegressor", ExponentiatedGradientRegressor())
    est = ExponentiatedGradientRegressor(random_state=0).partial_fit(X, y)
    est.coef_ = est.coef_ + 1.0
    before = est.__dict__.copy()
    with pytest.raises(ValueError, match="coef_ or intercept_.*was assigned"):
        est.partial_fit(X, y)
    assert est.__dict__.keys() == before.keys()


# --------------------------------------------------- warm_start, other size
def _warm_start_cases():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y_cls = (X[:, 0] > 0).astype(int)
    y_reg = X @ rng.normal(size=5)
    return [
        (PassiveAggressiveClassifier(), X, y_cls, "coef_"),
        (PassiveAggressiveRegressor(), X, y_reg, "coef_"),
        (ErrorProportionalRegressor(), X, y_reg, "coef_"),
        (PassiveAggressiveOneClass(), X, None, "center_"),
        (KernelPassiveAggressiveClassifier(), X, y_cls, "support_vectors_"),
        (OnlineBayesPointClassifier(n_estimators=3), X, y_cls, "weights"),
    ]


@pytest.mark.parametrize(
    "est, X, y, attr",
    _warm_start_cases(),
    ids=lambda v: type(v).__name__ if hasattr(v, "fit") else "",
)
def test_warm_start_on_another_number_of_features_raises(est, X, y, attr):
    """As scikit-learn: "Provided coef_ does not match dataset", not a
    silent restart, and the model is left as it was."""
    est.set_params(warm_start=True, max_iter=2, tol=None)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(X) if y is None else est.fit(X, y)
    before = copy.deepcopy(est)
    X2 = X[:, :3]
    with pytest.raises(ValueError, match=f"Provided .*{attr}.* does not match"):
        est.fit(X2) if y is None else est.fit(X2, y)
    _assert_same(est, before)


def test_warm_start_on_other_classes_raises():
    X, y = _data("PassiveAggressiveClassifier", PassiveAggressiveClassifier())
    est = PassiveAggressiveClassifier(warm_start=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="Provided coef_ does not match"):
        est.fit(X, y % 2)


# ------------------------------------------- failures after the model moved
def _with_huge_last_row(X):
    X = X.copy()
    X[-1] = 1e200
    return X


@pytest.mark.parametrize("name, Estimator, variant", VARIANTS)
def test_warning_raised_as_error_restores_the_model(name, Estimator, variant):
    """With warnings as errors, a batch whose last row overflows raises the
    skipped-rows RuntimeWarning after the earlier rows were applied in
    place: the weights, averaged state, covariances, copies, the random
    generator and the counters must all be restored."""
    est, X, y = _trained(name, Estimator, variant)
    if not isinstance(X, np.ndarray):
        pytest.skip("sequence input: no row to overflow")
    before = copy.deepcopy(est)
    raised = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            _partial_fit(est, _with_huge_last_row(X), y)
        except (RuntimeWarning, ValueError):
            raised = True
    if not raised:
        pytest.skip(f"{name} takes the overflowing row without a warning")
    _assert_same(est, before)
    # and later training is as if the failed call had never been made
    twin = _trained(name, Estimator, variant)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y_rev = None if y is None else y[::-1]
        _partial_fit(est, X[::-1], y_rev)
        _partial_fit(twin, X[::-1], y_rev)
    _assert_same(est, twin)


def test_warning_as_error_in_bayes_point_restores_the_copies():
    X, y = _data("OnlineBayesPointClassifier", OnlineBayesPointClassifier())
    est = OnlineBayesPointClassifier(n_estimators=5, random_state=0)
    est.partial_fit(X, y, classes=np.unique(y))
    saved = (est._W.copy(), est.n_mistakes_.copy(), est._rng.get_state()[1].copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="skipped"):
            est.partial_fit(_with_huge_last_row(X), y)
    np.testing.assert_array_equal(est._W, saved[0])
    np.testing.assert_array_equal(est.n_mistakes_, saved[1])
    np.testing.assert_array_equal(est._rng.get_state()[1], saved[2])


class _RaisingKernel:
    """A user kernel that fails on its third call (after the shuffle)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, A, B):
        self.calls += 1
        if self.calls >= 3:
            raise RuntimeError("user kernel failed")
        return np.asarray(A @ B.T)


def test_error_after_the_shuffle_restores_the_random_state():
    X, y = _data("KernelPA", KernelPassiveAggressiveClassifier())
    est = KernelPassiveAggressiveClassifier(kernel="linear", random_state=0)
    est.partial_fit(X, y, classes=np.unique(y))
    twin = KernelPassiveAggressiveClassifier(kernel="linear", random_state=0)
    twin.partial_fit(X, y, classes=np.unique(y))
    before = copy.deepcopy(est)
    est.set_params(kernel=_RaisingKernel())
    with pytest.raises(RuntimeError, match="user kernel failed"):
        est.partial_fit(X, y)
    est.set_params(kernel="linear")
    _assert_same(est, before)
    est.partial_fit(X, y)
    twin.partial_fit(X, y)
    np.testing.assert_array_equal(est.dual_coef_, twin.dual_coef_)


def test_n_estimators_changed_mid_stream_is_refused_before_drawing():
    X, y = _data("OnlineBayesPointClassifier", OnlineBayesPointClassifier())
    est = OnlineBayesPointClassifier(n_estimators=4, random_state=0)
    est.partial_fit(X, y, classes=np.unique(y))
    before = copy.deepcopy(est).set_params(n_estimators=6)
    est.set_params(n_estimators=6)
    with pytest.raises(ValueError, match="n_estimators changed"):
        est.partial_fit(X, y)
    _assert_same(est, before)


def test_structured_tagger_error_mid_epoch_restores_the_model():
    X, y = _data("StructuredPerceptron", StructuredPerceptron())
    est = StructuredPerceptron(max_iter=1, random_state=0).fit(X, y)
    est.set_params(update="bogus")
    before = copy.deepcopy(est)
    with pytest.raises((ValueError, KeyError)):
        est.partial_fit(X, y)
    _assert_same(est, before)


def test_atomic_update_restores_in_place_writes_and_generators():
    """What a block journaled is written back, views included, with the
    generators and the attribute dictionary."""
    from sklearn_pa._core.batch import atomic_update

    class Holder:
        pass

    h = Holder()
    h.w = np.arange(5.0)
    h.view = h.w[::2]
    h.rng = np.random.RandomState(0)
    h.gen = np.random.default_rng(0)
    ro = np.ones(3)
    ro.flags.writeable = False
    h.ro = ro
    expected = (h.rng.random_sample(), h.gen.random())
    h.rng, h.gen = np.random.RandomState(0), np.random.default_rng(0)
    with pytest.raises(KeyError):
        with atomic_update(h) as journal:
            # a pass saves what it writes in place before writing it
            journal.save(h.w, np.array([1, 3]))
            journal.save(h.w[::2])
            journal.save_generator(h.rng)
            journal.save_generator(h.gen)
            h.w *= 10
            h.rng.random_sample(3)
            h.gen.random(3)
            h.new = 1
            raise KeyError("x")
    np.testing.assert_array_equal(h.w, np.arange(5.0))
    np.testing.assert_array_equal(h.view, [0.0, 2.0, 4.0])
    assert not hasattr(h, "new")
    assert (h.rng.random_sample(), h.gen.random()) == expected


def test_sparse_coef_is_accepted_as_assigned_state():
    X, y = _data("PassiveAggressiveClassifier", PassiveAggressiveClassifier())
    a = PassiveAggressiveClassifier(random_state=0).partial_fit(X, y, np.unique(y))
    b = PassiveAggressiveClassifier(random_state=0).partial_fit(X, y, np.unique(y))
    b.coef_ = sp.csr_matrix(b.coef_)
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ------------------------------------------------- checks at kernel entry
def test_kernels_refuse_arrays_that_do_not_fit():
    """Each compiled epoch checks the rows, feature indices, weights and
    per-row arrays it is given against each other (defence in depth behind
    the estimators' own checks): a ValueError, never a read or write out of
    bounds."""
    out = _run_isolated(
        """
        import numpy as np
        from kernel_calls import (
            first_order_epoch, multiplicative_epoch, sequence_decode,
            uniclass_epoch,
        )
        from sklearn_pa._compiled._rules import Rule, Slack

        n, d = 5, 3
        X = np.random.default_rng(0).normal(size=(n, d))
        data, ind = X.ravel(), np.arange(d, dtype=np.int32)
        ptr = np.zeros(1, dtype=np.int32)
        order = np.arange(n, dtype=np.int64)
        labels = np.array([0, 1, 0, 1, 0], dtype=np.int32)
        one = np.ones(2)

        def first(W=None, order=order, labels=labels, sw=np.ones(n), csr=None,
                  nf=d):
            W = np.zeros((d, 1)) if W is None else W
            rows = (data, ind, ptr, True) if csr is None else csr
            return first_order_epoch(
                *rows, nf, order, labels, np.zeros(n), sw, W,
                np.zeros(W.shape[1]), np.zeros((0, 1)), np.zeros(0), one, one,
                np.ones((1, 1)), np.ones(1, dtype=np.uint8), int(Rule.BINARY),
                int(Slack.HINGE), 1.0, 0.0, 1.0, 0, 0, np.zeros(1))

        first()  # consistent arrays run
        bad_csr = (np.ones(2), np.array([0, 10**6], dtype=np.int32),
                   np.array([0, 1, 2, 2, 2, 2], dtype=np.int32), False)
        cases = {
            "W rows": lambda: first(W=np.zeros((1, 1))),
            "order outside": lambda: first(order=np.array([0, 7], dtype=np.int64)),
            "labels short": lambda: first(labels=labels[:2]),
            "label outside": lambda: first(labels=labels * 5),
            "sample_weight short": lambda: first(sw=np.ones(2)),
            "CSR index outside": lambda: first(csr=bad_csr),
            "CSR indptr outside": lambda: first(csr=(
                np.ones(2), np.zeros(2, dtype=np.int32),
                np.array([0, 1, 9, 9, 9, 9], dtype=np.int32), False)),
            "uniclass centre": lambda: uniclass_epoch(
                data, ind, ptr, True, d, order, np.ones(n), np.zeros(1),
                np.zeros(1), int(Slack.HINGE), 1.0, 0.1, False, 0.0,
                np.zeros(1)),
            "multiplicative targets": lambda: multiplicative_epoch(
                data, ind, ptr, True, d, order, np.ones(2), np.ones(n),
                np.ones(d + 1), np.ones(d + 1), True,
                int(Rule.ERROR_PROPORTIONAL_MULT), 0.1, 0.0, np.zeros(1)),
            "decode W": lambda: sequence_decode(
                data, ind, ptr, True, d, np.array([0, 2, 5], dtype=np.int64),
                np.zeros((1, 3)), np.zeros((4, 4)), 0,
                np.zeros(n, dtype=np.int32)),
            "decode offsets": lambda: sequence_decode(
                data, ind, ptr, True, d, np.array([0, 2, 50], dtype=np.int64),
                np.zeros((d, 3)), np.zeros((4, 4)), 0,
                np.zeros(n, dtype=np.int32)),
        }
        for label, call in cases.items():
            try:
                call()
            except ValueError as exc:
                print(label, "->", exc)
            else:
                raise AssertionError(f"{label}: accepted")
        print("all refused")
        """
    )
    assert "all refused" in out


def test_error_after_the_shuffle_in_the_first_order_loop_restores_the_generator():
    """A parameter the kernel cannot take, set mid-stream, fails after the
    epoch's permutation was drawn: the generator is restored too."""
    X, y = _data("PassiveAggressiveClassifier", PassiveAggressiveClassifier())
    est = PassiveAggressiveClassifier(random_state=0, average=True)
    est.partial_fit(X, y, classes=np.unique(y))
    twin = copy.deepcopy(est)
    est.average = 2**70  # set directly: bypasses set_params and validation
    with pytest.raises((OverflowError, ValueError)):
        est.partial_fit(X, y)
    est.average = True
    _assert_same(est, twin)
    est.partial_fit(X, y)
    twin.partial_fit(X, y)
    _assert_same(est, twin)


def test_kernel_pa_block_refuses_arrays_that_do_not_fit():
    """The kernel PA block kernel checks every index it follows (block rows,
    slots, K_RS columns, labels) and the room in its slot pool."""
    out = _run_isolated(
        """
        import numpy as np
        from kernel_calls import kernel_pa_block
        from sklearn_pa._compiled._rules import Rule, Slack

        n, cols, cap = 4, 3, 4
        i64 = lambda a: np.asarray(a, dtype=np.int64)

        def block(rows=i64(range(n)), labels=np.array([0, 1, 2, 0], np.int32),
                  alive_list=None, counters=None, pos_S=None, row_slot=None,
                  cap=cap, K_RS=None):
            K = np.eye(n) + 0.1
            return kernel_pa_block(
                np.zeros((n, 1)) if K_RS is None else K_RS, K, np.zeros((n, cols)),
                rows, labels, np.zeros(1), np.ones(n), int(Rule.MAX_LOSS),
                int(Slack.HINGE), 1.0, 0.0, np.zeros((cap, cols)),
                np.zeros(cap, np.uint8), np.zeros(cap), i64(np.zeros(cap)),
                i64(np.full(n, -1)) if row_slot is None else row_slot,
                i64(np.full(cap, -1)),
                i64(np.full(cap, -1)) if pos_S is None else pos_S,
                i64(np.full(cap, -1)),
                i64(np.zeros(cap)) if alive_list is None else alive_list,
                i64(np.zeros(cap)),
                i64([0, 0, 0]) if counters is None else counters,
                -1, 0, np.zeros(1))

        block()  # consistent arrays run
        cases = {
            "row outside": lambda: block(rows=i64([0, 9])),
            "label outside": lambda: block(labels=np.array([0, 7, 1, 1], np.int32)),
            "labels short": lambda: block(labels=np.array([0], np.int32)),
            "pool too small": lambda: block(cap=2),
            "counters outside": lambda: block(counters=i64([9, 0, 0])),
            "alive slot outside": lambda: block(
                counters=i64([1, 1, 1]), alive_list=i64([5, 0, 0, 0])),
            "K_RS column outside": lambda: block(
                counters=i64([1, 1, 1]), pos_S=i64([3, -1, -1, -1])),
            "row slot outside": lambda: block(row_slot=i64([7, -1, -1, -1])),
        }
        for label, call in cases.items():
            try:
                call()
            except ValueError as exc:
                print(label, "->", exc)
            else:
                raise AssertionError(f"{label}: accepted")
        print("all refused")
        """
    )
    assert "all refused" in out


# ------------------------------------------------- pickles of this package
def _float_leaves(value, path=()):
    """The paths (keys into dicts, lists and tuples) of every float array or
    float number inside ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _float_leaves(item, (*path, key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _float_leaves(item, (*path, i))
    elif sp.issparse(value) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size
    ):
        yield path
    elif isinstance(value, (float, np.floating)):
        yield path


def _poisoned(state, path, bad):
    """A copy of ``state`` with ``bad`` in the first entry at ``path``."""
    state = copy.deepcopy(state)

    def poison(value, rest):
        if not rest:
            if sp.issparse(value) or isinstance(value, np.ndarray):
                value = (
                    value.astype(complex) if isinstance(bad, complex) else value.copy()
                )
                (value.data if sp.issparse(value) else value.flat)[0] = bad
                return value
            return bad
        key, *rest = rest
        if isinstance(value, tuple):
            return (*value[:key], poison(value[key], rest), *value[key + 1 :])
        value[key] = poison(value[key], rest)
        return value

    return poison(state, list(path))


@pytest.mark.parametrize("name, Estimator, variant", VARIANTS)
def test_pickled_state_with_nan_is_refused_on_load(name, Estimator, variant):
    """Every float of a fitted model's learned and private state (found by
    walking its pickled state, not listed), set to NaN or infinity, is
    refused when the pickle is loaded, with the entry named, instead of
    loading and failing later with a message about something else."""
    est, X, y = _trained(name, Estimator, variant)
    state = est.__getstate__()
    params = set(Estimator._get_param_names())
    leaves = [
        path
        for path in _float_leaves({k: v for k, v in state.items() if k not in params})
    ]
    assert leaves, "no learned float state found"
    for i, path in enumerate(leaves):
        bad = (np.nan, np.inf, -np.inf)[i % 3]
        loaded = Estimator.__new__(Estimator)
        with pytest.raises(ValueError, match=f"in {path[0]}.*damaged or edited"):
            loaded.__setstate__(_poisoned(state, path, bad))
    # the sound state loads, through pickle itself
    loaded = pickle.loads(pickle.dumps(est))
    _assert_same(est.__dict__, loaded.__dict__)


@pytest.mark.parametrize(
    "Estimator, attribute",
    [
        (PassiveAggressiveClassifier, "intercept_scaling_"),
        (PassiveAggressiveRegressor, "intercept_scaling_"),
        (PassiveAggressiveOneClass, "_scale_state"),
        (OnlineBayesPointClassifier, "copy_weights_"),
        (OnlineBayesPointClassifier, "_W"),
        (StructuredPerceptron, "_W"),
        (StructuredPassiveAggressive, "transitions_"),
    ],
)
def test_named_private_fields_with_nan_fail_through_pickle(Estimator, attribute):
    """The fields a damaged pickle was seen to carry: through pickle.loads
    (the path a user takes), the error names the field."""
    name = Estimator.__name__
    est, X, y = _trained(name, Estimator)
    path = next(p for p in _float_leaves(est.__getstate__()) if p[0] == attribute)
    est.__dict__.update(_poisoned(est.__getstate__(), path, np.nan))
    data = pickle.dumps(est)
    with pytest.raises(ValueError, match=f"{name} holds NaN.*in {attribute}"):
        pickle.loads(data)


# ------------------------------------------- learned arrays edited in place
def _float_attributes(est):
    """The public learned float arrays of ``est`` that can be assigned
    (those published when first read included)."""
    for name in sorted({*dir(est), "coef_", "intercept_", "center_"}):
        if not name.endswith("_") or name.startswith("_"):
            continue
        if isinstance(getattr(type(est), name, None), property):
            continue  # (computed: no setter)
        try:
            value = getattr(est, name)
        except AttributeError:
            continue
        if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
            yield name


def _outcome(function, *args):
    try:
        return "ok", function(*args)
    except ValueError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("name, Estimator, variant", VARIANTS)
def test_learned_arrays_edited_in_place_act_as_assigned(name, Estimator, variant):
    """A learned array written in place after partial_fit (its published
    copy, where the model is kept in another form: the one-class centre,
    the scaled weights of ROMMA / ALMA) is the model, as the same values
    assigned as a new array are: for the scores and for the next
    partial_fit. Read-only arrays refuse the write."""
    est, X, y = _trained(name, Estimator, variant)
    X2, y2 = _data(name, est, seed=2)
    names = list(_float_attributes(est))
    assert names
    for attribute in names:
        edited, assigned = copy.deepcopy(est), copy.deepcopy(est)
        array = getattr(edited, attribute)
        if not array.flags.writeable:
            continue
        array += 0.25
        setattr(assigned, attribute, getattr(assigned, attribute) + 0.25)
        for method in ("decision_function", "predict", "score_samples"):
            if hasattr(est, method):
                a = _outcome(getattr(edited, method), X)
                b = _outcome(getattr(assigned, method), X)
                assert repr(a) == repr(b), (attribute, method)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = _outcome(_partial_fit, edited, X2, y2)
            b = _outcome(_partial_fit, assigned, X2, y2)
        assert a[0] == b[0], (attribute, a, b)
        if a[0] == "ok":
            _assert_same(getattr(edited, attribute), getattr(assigned, attribute))
        else:
            assert a == b
