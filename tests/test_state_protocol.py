"""The state protocol (``estimator.__sklearn_pa_state__()``) and the
parameter mixing built on it: round trips, bare epochs on prepared blocks,
the threaded mode against Dask, no validation per epoch."""

import ast
import copy
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.utils.validation
from _capabilities import KNOWN_FAILURES, discovered
from hypothesis import given, settings
from hypothesis import strategies as st
from local_cluster import local_client
from sklearn.base import clone, is_classifier, is_outlier_detector, is_regressor
from sklearn.datasets import make_classification, make_regression

import sklearn_pa as S
import sklearn_pa._core.batch
import sklearn_pa._core.state
import sklearn_pa.linear._base
from sklearn_pa._core.state import LearnerState
from sklearn_pa.distributed import fit_parameter_mixing

X3, Y3 = make_classification(
    n_samples=240, n_features=8, n_informative=5, n_classes=3, random_state=0
)
X2, Y2 = make_classification(n_samples=240, n_features=8, random_state=1)
XR, YR = make_regression(n_samples=240, n_features=8, noise=1.0, random_state=0)
YR = YR / 100.0
Y_SEMI = Y3.copy()
Y_SEMI[::3] = -1

CASES = [
    (S.PassiveAggressiveClassifier(random_state=0), "multi"),
    (S.PassiveAggressiveClassifier(random_state=0), "binary"),
    (S.PassiveAggressiveClassifier(random_state=0, average=True), "multi"),
    (S.PassiveAggressiveClassifier(random_state=0, multiclass="ovr"), "multi"),
    (S.MIRAClassifier(random_state=0), "multi"),
    (S.PassiveAggressiveRegressor(random_state=0, average=3), "reg"),
    (S.ConfidenceWeightedClassifier(random_state=0), "multi"),
    (S.ConfidenceWeightedClassifier(random_state=0, covariance="full"), "binary"),
    (S.AROWClassifier(random_state=0, covariance="full"), "multi"),
    (S.SCWClassifier(random_state=0, average=True), "multi"),
    (S.GradientDescentRegressor(random_state=0), "reg"),
    (S.ExponentiatedGradientRegressor(random_state=0), "reg"),
    (S.ErrorProportionalRegressor(random_state=0), "reg"),
    (S.OnlineBayesPointClassifier(n_estimators=3, random_state=0), "semi"),
    (S.PassiveAggressiveOneClass(random_state=0), "none"),
    (S.PassiveAggressiveOneClass(random_state=0, epsilon=0.5), "none"),
]
# every other public estimator, with its defaults
CASES += [
    (
        make(),
        "semi"
        if name == "OnlineBayesPointClassifier"
        else "reg"
        if is_regressor(make())
        else "none"
        if is_outlier_detector(make())
        else "multi",
    )
    for name, make in discovered("mixing", [lambda e=e: e for e, _ in CASES])
]
DATA = {
    "multi": (X3, Y3),
    "binary": (X2, Y2),
    "reg": (XR, YR),
    "semi": (X3, Y_SEMI),
    "none": (X3, None),
}


def _id(case):
    est, kind = case
    changed = {
        k: v
        for k, v in est.get_params(deep=False).items()
        if k != "random_state" and v != type(est)().get_params()[k]
    }
    return f"{type(est).__name__}-{kind}" + "".join(
        f"-{k}={v}" for k, v in changed.items()
    )


def _classes(est, y):
    if y is None or not is_classifier(est):
        return None
    return np.unique(y[y != -1])


def _partial_fit(est, X, y, classes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if y is None:
            return est.partial_fit(X)
        if classes is None:
            return est.partial_fit(X, y)
        return est.partial_fit(X, y, classes=classes)


def _assert_same_state(a, b, rtol=1e-12, atol=1e-12):
    assert a.keys() == b.keys()
    for key in a:
        if a[key] is None or b[key] is None:
            assert a[key] is None and b[key] is None, key
            continue
        np.testing.assert_allclose(
            np.asarray(b[key], dtype=float),
            np.asarray(a[key], dtype=float),
            rtol=rtol,
            atol=atol,
            err_msg=key,
        )


def _started(est, kind, n_rows=100):
    """The estimator after a partial_fit on the first rows, and the rest."""
    X, y = DATA[kind]
    classes = _classes(est, y)
    est = _partial_fit(
        clone(est), X[:n_rows], None if y is None else y[:n_rows], classes
    )
    rest = (X[n_rows:], None if y is None else y[n_rows:])
    return est, rest, classes


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_mixable_estimator_has_the_protocol(case):
    est, _ = case
    learner = est.__sklearn_pa_state__()
    assert isinstance(learner, LearnerState)
    assert learner.estimator is est
    assert learner.default_mixing in learner.mixing_rules


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_get_set_round_trip(case, request):
    est, kind = case
    known = KNOWN_FAILURES["mixing round trip"].get(type(est).__name__)
    if known and est.get_params() == clone(est).__class__().get_params() | {
        "random_state": est.random_state
    }:
        request.applymarker(pytest.mark.xfail(strict=True, reason=known))
    fitted, (X, _), classes = _started(est, kind)
    state = fitted.__sklearn_pa_state__().get()
    # a fresh estimator, set up for the same data, takes the state
    other = clone(est).__sklearn_pa_state__()
    other.initialise(
        X.shape[1],
        classes=classes,
        scale=getattr(fitted, "intercept_scaling_", None),
    )
    model = other.set(state)
    assert model is other.estimator
    _assert_same_state(state, other.get(), rtol=0, atol=0)
    method = "predict" if kind in ("reg", "none") else "decision_function"
    np.testing.assert_array_equal(getattr(model, method)(X), getattr(fitted, method)(X))
    # get returns a copy: changing it leaves the estimator alone
    before = fitted.__sklearn_pa_state__().get()
    for value in state.values():
        if isinstance(value, np.ndarray):
            value += 1
    _assert_same_state(before, fitted.__sklearn_pa_state__().get(), rtol=0, atol=0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_prepared_block_epoch_equals_partial_fit(case, sparse):
    est, kind = case
    fitted, (X, y), _ = _started(est, kind)
    if sparse:
        X = sp.csr_matrix(X)
    learner = fitted.__sklearn_pa_state__()
    state = learner.get()
    kept = copy.deepcopy(state)
    block = learner.prepare(X, y)
    rng = copy.deepcopy(fitted._rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        new, stats = learner.epoch(block, state, rng)
    reference = _partial_fit(copy.deepcopy(fitted), X, y, None)
    _assert_same_state(reference.__sklearn_pa_state__().get(), new)
    # the generator advanced as partial_fit advanced it
    assert rng.randint(1 << 30) == reference._rng.randint(1 << 30)
    # the state handed in is untouched, and so is the estimator
    _assert_same_state(kept, state, rtol=0, atol=0)
    _assert_same_state(kept, learner.get(), rtol=0, atol=0)
    assert stats.n_rows > 0 and stats.n_updates >= 0 and np.isfinite(stats.loss)


def _count_calls(monkeypatch, module, name, counter):
    original = getattr(module, name)

    def counted(*args, **kwargs):
        counter[name] = counter.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def _count_validation(monkeypatch, est):
    """Count the calls of every validation entry point an epoch could reach."""
    counter = {}
    _count_calls(monkeypatch, sklearn.utils.validation, "check_array", counter)
    # (rows already in the kernels' form: the first branch of check_rows)
    _count_calls(monkeypatch, sklearn_pa._core.batch, "lean_rows", counter)
    # (the one check of a batch's rows, check_rows, sums duplicates there)
    _count_calls(monkeypatch, sklearn_pa._core.batch, "canonical_csr", counter)
    _count_calls(
        monkeypatch, sklearn_pa.linear._base, "check_batch_sample_weight", counter
    )
    _count_calls(monkeypatch, type(est), "_validate_batch", counter)
    _count_calls(monkeypatch, type(est), "_validate_params", counter)
    return counter


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_an_epoch_does_not_validate_the_block_again(case, monkeypatch):
    est, kind = case
    fitted, (X, y), _ = _started(est, kind)
    learner = fitted.__sklearn_pa_state__()
    counter = _count_validation(monkeypatch, fitted)
    block = learner.prepare(sp.csr_matrix(X), y)
    # the counters see prepare (scikit-learn's check, or the cheap branch)
    assert counter.get("check_array", 0) + counter.get("lean_rows", 0) >= 1
    counter.clear()
    state = learner.get()
    rng = np.random.RandomState(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(3):
            state, _ = learner.epoch(block, state, rng)
    assert counter == {}


def test_parameter_mixing_validates_once_whatever_the_number_of_epochs(monkeypatch):
    est = S.PassiveAggressiveClassifier(random_state=0)
    counter = _count_validation(monkeypatch, est)
    counts = []
    for n_epochs in (1, 4):
        counter.clear()
        fit_parameter_mixing(est, X3, Y3, n_epochs=n_epochs, n_partitions=2, n_jobs=2)
        counts.append(dict(counter))
    assert counts[0] == counts[1]
    assert counts[0]["check_array"] >= 2  # each partition, once


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    with local_client() as client:
        yield client


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_threads_equal_dask_for_the_same_partitions_and_seeds(client, case):
    est, kind = case
    X, y = DATA[kind]
    kwargs = {"n_epochs": 2, "n_partitions": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        on_dask = fit_parameter_mixing(est, X, y, client=client, **kwargs)
        on_threads = fit_parameter_mixing(est, X, y, n_jobs=2, **kwargs)
        on_one_thread = fit_parameter_mixing(est, X, y, n_jobs=1, **kwargs)
    state = on_dask.__sklearn_pa_state__().get()
    _assert_same_state(state, on_threads.__sklearn_pa_state__().get(), 0, 0)
    _assert_same_state(state, on_one_thread.__sklearn_pa_state__().get(), 0, 0)
    assert on_threads.n_iter_ == on_dask.n_iter_ == 2


@pytest.mark.parametrize(
    "est",
    [
        S.PassiveAggressiveClassifier(random_state=0),
        S.AROWClassifier(random_state=0),
        S.PassiveAggressiveRegressor(random_state=0),
    ],
    ids=lambda est: type(est).__name__,
)
def test_loss_curve_of_one_partition_is_the_serial_one(est):
    X, y = (XR, YR) if type(est).__name__.endswith("Regressor") else (X3, Y3)
    mixed = fit_parameter_mixing(est, X, y, n_epochs=3, n_partitions=1, n_jobs=1)
    serial = clone(est).set_params(max_iter=3, tol=None).fit(X, y)
    assert len(mixed.loss_curve_) == 3
    np.testing.assert_allclose(mixed.loss_curve_, serial.loss_curve_, rtol=1e-12)
    # the partitions' partial_fit calls left the template's history alone
    assert fit_parameter_mixing(est, X, y, n_epochs=2, n_jobs=2).loss_curve_[0] > 0


def test_history_reports_the_epochs():
    model, history = fit_parameter_mixing(
        S.PassiveAggressiveClassifier(random_state=0),
        X3,
        Y3,
        n_epochs=3,
        n_partitions=2,
        n_jobs=2,
        return_history=True,
    )
    assert model.n_iter_ == len(history) == 3
    for epoch in history:
        assert epoch["wall_time"] >= epoch["kernel_time"] > 0
        assert epoch["kernel_time_total"] >= epoch["kernel_time"]
        assert 0 <= epoch["driver_time"] <= epoch["wall_time"]
        assert epoch["overhead"] == pytest.approx(
            epoch["wall_time"] - epoch["kernel_time"]
        )
    assert history[0]["n_updates"] > 0


def test_threaded_mode_does_not_import_dask():
    code = (
        "import sys, numpy as np, sklearn_pa; "
        "from sklearn_pa.distributed import fit_parameter_mixing; "
        "X = np.random.RandomState(0).randn(60, 3); y = (X[:, 0] > 0).astype(int); "
        "fit_parameter_mixing(sklearn_pa.PassiveAggressiveClassifier(), X, y, "
        "n_epochs=2, n_partitions=2); "
        "fit_parameter_mixing(sklearn_pa.PassiveAggressiveClassifier(), X, y, "
        "n_epochs=2, n_jobs=2); "
        "bad = [m for m in ('dask', 'distributed') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_n_jobs_and_client_are_exclusive():
    with pytest.raises(ValueError, match="either client .* or n_jobs"):
        fit_parameter_mixing(
            S.PassiveAggressiveClassifier(), X2, Y2, client=object(), n_jobs=2
        )
    with pytest.raises(ValueError, match="n_jobs must be"):
        fit_parameter_mixing(S.PassiveAggressiveClassifier(), X2, Y2, n_jobs=0)


def test_a_new_learner_needs_only_the_protocol():
    # an estimator of another class, mixed through a protocol of its own,
    # with no change to sklearn_pa.distributed
    class Halving(sklearn_pa._core.state.LinearState):
        mixing_rules = ("half", "uniform")
        default_mixing = "half"

        def mix(self, states, weights, *, prior, rule="uniform"):
            mixed = super().mix(states, weights, prior=prior, rule="uniform")
            mixed["W"] = 0.5 * mixed["W"]
            return mixed

    class HalvingPA(S.PassiveAggressiveClassifier):
        def __sklearn_pa_state__(self):
            return Halving(self)

    # (the last iterates: this protocol halves the weights, not an average)
    plain = fit_parameter_mixing(
        S.PassiveAggressiveClassifier(random_state=0, average=False),
        X2,
        Y2,
        n_epochs=1,
        n_jobs=1,
    )
    halved = fit_parameter_mixing(
        HalvingPA(random_state=0, average=False), X2, Y2, n_epochs=1, n_jobs=1
    )
    assert type(halved) is HalvingPA
    np.testing.assert_allclose(halved.coef_, 0.5 * plain.coef_, rtol=1e-15)


def _distributed_sources():
    folder = pathlib.Path(sklearn_pa.distributed.__file__).parent
    return {path.name: path.read_text() for path in sorted(folder.glob("*.py"))}


def test_distributed_uses_only_the_protocol():
    sources = _distributed_sources()
    assert {"__init__.py", "_driver.py", "_executors.py", "_partitions.py"} <= set(
        sources
    )
    estimators = {name for name in dir(S) if isinstance(getattr(S, name), type)}
    for name, source in sources.items():
        tree = ast.parse(source)
        for node in ast.walk(tree):
            # no private attribute of anything but the module's own objects
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                assert isinstance(node.value, ast.Name) and node.value.id == "self", (
                    f"{name}:{node.lineno}: private attribute {node.attr}"
                )
            # no estimator class, no family module
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                imported = {alias.name for alias in node.names}
                assert not imported & estimators, (name, imported & estimators)
                assert module.lstrip(".") in {
                    "_mixing",
                    "_engine",  # the epoch driver the mixing rounds run on
                    "_base",
                    "_driver",
                    "_executors",
                    "_partitions",
                } or not module.startswith((".", "sklearn_pa")), (name, module)
            if isinstance(node, ast.Name):
                assert node.id not in estimators, (name, node.id)
        for family in ("first_order", "second_order", "bayes_point", "one_class"):
            assert f'"{family}"' not in source, (name, family)
        assert "isinstance(estimator" not in source, name
        assert "_family" not in source, name


def test_threaded_partitions_of_a_csr_matrix_are_cut_in_their_threads(monkeypatch):
    """The driver hands the threads row ranges of a CSR ``X``: each
    partition's rows are cut (and copied, when scipy copies them) in the
    thread that prepares it, never all in the driver's thread first; the
    model is the one of the same blocks cut on the driver."""
    import threading

    import sklearn_pa.distributed._partitions as partitions

    X, y = sp.csr_matrix(X3), Y3
    est = S.PassiveAggressiveClassifier(random_state=0)
    driver = threading.get_ident()
    cut_in = []
    row_block = partitions._row_block

    def recorded(*args):
        cut_in.append(threading.get_ident())
        return row_block(*args)

    monkeypatch.setattr(partitions, "_row_block", recorded)
    threaded = fit_parameter_mixing(est, X, y, n_epochs=2, n_partitions=4, n_jobs=2)
    assert len(cut_in) == 4
    assert driver not in cut_in
    # the blocks cut on the driver, as a dask array of CSR blocks
    bounds = np.linspace(0, X.shape[0], 5).astype(int)
    blocks = [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    monkeypatch.setattr(
        partitions,
        "_split_rows",
        lambda X, y, n: (blocks, [y[a:b] for a, b in zip(bounds[:-1], bounds[1:])]),
    )
    cut_in.clear()
    on_driver = fit_parameter_mixing(est, X, y, n_epochs=2, n_partitions=4, n_jobs=2)
    assert not cut_in
    np.testing.assert_array_equal(threaded.coef_, on_driver.coef_)
    np.testing.assert_array_equal(threaded.intercept_, on_driver.intercept_)


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10_000), st.integers(1, 40), st.booleans())
def test_a_csr_row_block_is_a_view_with_its_own_format(seed, n_rows, scramble):
    """A partition's rows of a CSR matrix are views of its values and
    indices (no copy, whatever the block's share of the matrix), equal to
    the slice, and canonical exactly when the slice is (a row whose
    indices were written out of order, or twice, anywhere in the matrix
    is seen in its own block only)."""
    from sklearn_pa.distributed._partitions import _row_block

    rng = np.random.RandomState(seed)
    X = sp.random(n_rows, 9, density=0.4, format="csr", random_state=rng)
    if scramble and X.nnz > 1:
        # a row's entries in reverse order, or a repeated column
        row = rng.randint(n_rows)
        a, b = X.indptr[row], X.indptr[row + 1]
        if b - a > 1:
            X.indices[a:b] = X.indices[a:b][::-1].copy()
            if rng.rand() < 0.5:
                X.indices[a + 1] = X.indices[a]
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    start = rng.randint(n_rows + 1)
    stop = rng.randint(start, n_rows + 1)
    block = _row_block(X, start, stop)
    expected = X[start:stop]
    assert block.shape == expected.shape
    np.testing.assert_array_equal(block.toarray(), expected.toarray())
    if block.nnz:
        assert np.shares_memory(block.data, X.data)
        assert np.shares_memory(block.indices, X.indices)
    reference = sp.csr_matrix(
        (expected.data.copy(), expected.indices.copy(), expected.indptr.copy()),
        shape=expected.shape,
    )
    assert block.has_canonical_format == reference.has_canonical_format
