"""A call costs what its rows cost, for the learners outside the linear
base class: the one-class PA, kernel PA and the online Bayes point machine.

As in ``tests/test_per_call.py``: on a model the estimator published
itself, a one-row ``partial_fit`` and a one-row ``predict`` run no
validation of the model's arrays nor scikit-learn's ``validate_data``, give
the model and the scores of the full path, and a batch failing inside or
after the kernel pass leaves every learned array bit-identical.  What the
algorithm itself does per call stays, and the tests say so where it bounds
what they can assert: kernel PA evaluates the kernel between the row and
every support vector.  The uniclass step, which moves every entry of the
centre, costs the row's non-zeros: the centre stays a scale times a vector
between calls (``one_class/_one_class.py``), published when read.
"""

import copy
import pickle
import threading
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.linear_model._base as sklearn_linear
import sklearn.utils.validation as sklearn_validation
from test_robustness import _assert_same

from sklearn_pa import (
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
)
from sklearn_pa._core import batch as _validation
from sklearn_pa.bayes_point import _bayes_point as _bayes_point
from sklearn_pa.bayes_point import _lean as _bayes_point_lean
from sklearn_pa.kernel import _base as _kernel_base
from sklearn_pa.kernel import _lean as _kernel_lean
from sklearn_pa.one_class import _one_class as _one_class

# (name, factory, kind, the learned attributes a call may change)
FAMILIES = [
    (
        "one-class",
        lambda: PassiveAggressiveOneClass(epsilon=0.5, random_state=0),
        "outlier",
        ("center_", "_extra", "epsilon_", "offset_", "t_"),
    ),
    (
        "one-class learned radius",
        lambda: PassiveAggressiveOneClass(
            epsilon="learn", epsilon_bound=10.0, random_state=0
        ),
        "outlier",
        ("center_", "_extra", "epsilon_", "offset_", "t_"),
    ),
    (
        "kernel PA classifier",
        lambda: KernelPassiveAggressiveClassifier(random_state=0),
        "classifier",
        ("dual_coef_", "_sv_stamp", "_sv_kdiag", "_next_stamp", "t_"),
    ),
    (
        "kernel PA classifier with a budget",
        lambda: KernelPassiveAggressiveClassifier(budget=15, random_state=0),
        "classifier",
        ("dual_coef_", "_sv_stamp", "_sv_kdiag", "_next_stamp", "t_"),
    ),
    (
        "kernel PA regressor",
        lambda: KernelPassiveAggressiveRegressor(kernel="linear", random_state=0),
        "regressor",
        ("dual_coef_", "_sv_stamp", "_sv_kdiag", "_next_stamp", "t_"),
    ),
    (
        "Bayes point",
        lambda: OnlineBayesPointClassifier(n_estimators=4, random_state=0),
        "classifier",
        ("_W", "_b", "n_mistakes_", "copy_weights_", "coef_", "intercept_", "t_"),
    ),
    (
        "Bayes point uniform",
        lambda: OnlineBayesPointClassifier(
            PassiveAggressiveClassifier(C=0.5),
            n_estimators=3,
            weighting="uniform",
            random_state=0,
        ),
        "classifier",
        ("_W", "_b", "n_mistakes_", "copy_weights_", "coef_", "intercept_", "t_"),
    ),
]
IDS = [name for name, *_ in FAMILIES]

# the modules whose lean paths read rows through lean_rows
LEAN_MODULES = (_one_class, _kernel_lean, _bayes_point_lean)


def _stream(kind, n_features=50_000, n_rows=60, n_classes=4, seed=0):
    """A sparse stream on a wide model: about 20 non-zeros a row."""
    rng = np.random.RandomState(seed)
    X = sp.random(
        n_rows, n_features, density=20 / n_features, format="csr", random_state=rng
    )
    X.data = rng.uniform(-1, 1, X.data.shape[0])
    if kind == "regressor":
        y = np.asarray(X @ rng.normal(size=n_features)).ravel()
    elif kind == "classifier":
        y = rng.randint(n_classes, size=n_rows)
    else:
        y = None
    return X, y


def _fit(est, X, y, rows, **kwargs):
    if y is None:
        return est.partial_fit(X[rows], **kwargs)
    return est.partial_fit(X[rows], y[rows], **kwargs)


def _start(factory, kind, X, y):
    est = factory()
    kwargs = {"classes": np.unique(y)} if kind == "classifier" else {}
    _fit(est, X, y, slice(0, 20), **kwargs)
    _fit(est, X, y, slice(20, 30))  # a later call: the lean record is set
    return est


def _scores(est, X):
    if isinstance(est, PassiveAggressiveOneClass):
        return est.score_samples(X)
    if isinstance(est, KernelPassiveAggressiveRegressor):
        return est.predict(X)
    return est.decision_function(X)


def _model_bytes(est):
    if isinstance(est, PassiveAggressiveOneClass):
        return est.center_.nbytes
    if isinstance(est, OnlineBayesPointClassifier):
        return est._W.nbytes
    sv = est.support_vectors_
    return sv.data.nbytes + sv.indices.nbytes + est.dual_coef_.nbytes


def _forbid_model_checks(monkeypatch, threshold):
    """Make the checks of a learned array, scikit-learn's validation and
    any finiteness scan of more than ``threshold`` entries raise."""

    def forbidden(*args, **kwargs):
        raise AssertionError("O(model) work on the per-call path")

    for module in (_validation, _one_class, _kernel_base, _bayes_point):
        monkeypatch.setattr(module, "check_state_array", forbidden, raising=False)
    for module in (
        _one_class,
        _kernel_base,
        _kernel_lean,
        sklearn_validation,
        sklearn_linear,
    ):
        monkeypatch.setattr(module, "validate_data", forbidden, raising=False)
    scan = sklearn_validation._assert_all_finite

    def small_scans_only(X, *args, **kwargs):
        if not sklearn_validation._get_config()["assume_finite"]:
            assert np.size(getattr(X, "data", X)) <= threshold, "a scan of the model"
        return scan(X, *args, **kwargs)

    monkeypatch.setattr(sklearn_validation, "_assert_all_finite", small_scans_only)


@pytest.mark.parametrize("name, factory, kind, learned", FAMILIES, ids=IDS)
def test_one_row_calls_do_no_work_proportional_to_the_model(
    name, factory, kind, learned, monkeypatch
):
    """A one-row ``partial_fit`` and ``predict`` on a wide model neither
    check the learned arrays nor run scikit-learn's validation nor scan the
    model for NaN; they allocate a small fraction of the model, except
    where the algorithm itself needs more: kernel PA evaluates the kernel
    against the whole support set.  The uniclass step keeps the centre
    scaled: no copy of it is made nor published."""
    X, y = _stream(kind)
    est = _start(factory, kind, X, y)
    model = _model_bytes(est)
    _forbid_model_checks(monkeypatch, threshold=1000)
    tracemalloc.start()
    try:
        for i in range(30, 40):
            row = X[i + 1 : i + 2]
            tracemalloc.reset_peak()
            held = tracemalloc.get_traced_memory()[0]
            _fit(est, X, y, slice(i, i + 1))
            peak_fit = tracemalloc.get_traced_memory()[1] - held
            tracemalloc.reset_peak()
            held = tracemalloc.get_traced_memory()[0]
            est.predict(row)
            peak_predict = tracemalloc.get_traced_memory()[1] - held
            if kind == "outlier" or isinstance(est, OnlineBayesPointClassifier):
                assert model >= 50_000 * 8
                assert peak_fit < model / 20, (peak_fit, model)
                assert peak_predict < model / 20, (peak_predict, model)
    finally:
        tracemalloc.stop()
    if isinstance(est, OnlineBayesPointClassifier):
        # the Bayes point, a product over the whole model, was not computed
        assert "coef_" not in est.__dict__
        monkeypatch.undo()
        assert est.coef_.shape == (4, 50_000)
    if kind == "outlier":
        # the centre stayed a scale times a vector, updated in place: no
        # copy of it was made nor published
        assert "center_" not in est.__dict__
        monkeypatch.undo()
        assert est.center_.shape == (50_000,)


def _disable_lean(monkeypatch):
    for module in LEAN_MODULES:
        monkeypatch.setattr(module, "lean_rows", lambda *args, **kwargs: None)


@pytest.mark.parametrize("name, factory, kind, learned", FAMILIES, ids=IDS)
def test_the_lean_path_gives_the_full_paths_model_and_scores(
    name, factory, kind, learned, monkeypatch
):
    """A stream of one-row calls gives bit for bit the model of the same
    stream through the full validation, and the lean scores are the full
    path's (to rounding: the sums run in another order)."""
    X, y = _stream(kind, n_features=3000)
    lean = _start(factory, kind, X, y)
    full = copy.deepcopy(lean)
    for i in range(30, 60):
        _fit(lean, X, y, slice(i, i + 1))
        scores = _scores(lean, X[:10])
        with monkeypatch.context() as m:
            _disable_lean(m)
            _fit(full, X, y, slice(i, i + 1))
            expected = _scores(full, X[:10])
        np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    for attr in learned:
        np.testing.assert_array_equal(getattr(lean, attr), getattr(full, attr))
    if hasattr(full, "support_vectors_"):
        a, b = lean.support_vectors_, full.support_vectors_
        assert type(a) is type(b)
        np.testing.assert_array_equal(a.toarray(), b.toarray())
    np.testing.assert_array_equal(lean.predict(X), full.predict(X))


@pytest.mark.parametrize("name, factory, kind, learned", FAMILIES, ids=IDS)
@pytest.mark.parametrize("failure", ["warning", "interrupt"])
def test_a_batch_failing_after_the_kernel_leaves_every_array_bit_identical(
    name, factory, kind, learned, failure, monkeypatch
):
    """A batch whose k-th row overflows (its skipped-row warning turned
    into an error, or the kernel's values refused), or a
    ``KeyboardInterrupt`` raised right after the kernel pass of a call on
    the lean path, leaves every learned array bit-identical."""
    X, y = _stream(kind)
    est = _start(factory, kind, X, y)
    before = copy.deepcopy(est.__dict__)
    batch = X[30:40].copy()
    targets = None if y is None else np.array(y[30:40])

    def call():
        if targets is None:
            est.partial_fit(batch)
        else:
            est.partial_fit(batch, targets)

    if failure == "warning":
        batch = batch.tolil()
        batch[6, 7] = 1e200  # its distance or scores overflow
        batch = batch.tocsr()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises((RuntimeWarning, ValueError)):
                call()
    else:
        # (the module whose epochs the call runs)
        module = (
            _one_class
            if kind == "outlier"
            else _bayes_point
            if isinstance(est, OnlineBayesPointClassifier)
            else _kernel_base
        )
        run_epochs = module.run_epochs

        def interrupted(estimator, adapter, **kwargs):
            run_epochs(estimator, adapter, **kwargs)
            raise KeyboardInterrupt

        monkeypatch.setattr(module, "run_epochs", interrupted)
        with pytest.raises(KeyboardInterrupt):
            call()
        monkeypatch.undo()
    _assert_same(est.__dict__, before)
    # and the stream goes on as if the failed call never happened
    twin = copy.deepcopy(est)
    _fit(est, X, y, slice(40, 50))
    _fit(twin, X, y, slice(40, 50))
    for attr in learned:
        np.testing.assert_array_equal(getattr(est, attr), getattr(twin, attr))


@pytest.mark.parametrize("name, factory, kind, learned", FAMILIES, ids=IDS)
def test_a_parameter_changed_between_calls_is_validated_again(
    name, factory, kind, learned
):
    """The lean path compares the parameters with those of the last
    validated call: an invalid value set since is refused before any
    update."""
    X, y = _stream(kind, n_features=500)
    est = _start(factory, kind, X, y)
    before = copy.deepcopy(est.__dict__)
    param = "update_probability" if "Bayes" in name else "C"
    est.set_params(**{param: -1.0})
    with pytest.raises(ValueError, match=param):
        _fit(est, X, y, slice(30, 31))
    _assert_same(
        {k: v for k, v in est.__dict__.items() if k != param},
        {k: v for k, v in before.items() if k != param},
    )


def test_a_base_learners_parameter_changed_in_place_is_validated_again():
    """``set_params(estimator__C=...)`` changes a parameter of the base
    learner, not of the Bayes point machine: it is a change all the same."""
    X, y = _stream("classifier", n_features=500)
    est = _start(
        lambda: OnlineBayesPointClassifier(
            PassiveAggressiveClassifier(), n_estimators=3, random_state=0
        ),
        "classifier",
        X,
        y,
    )
    est.set_params(estimator__C=-1.0)
    with pytest.raises(ValueError, match="C"):
        _fit(est, X, y, slice(30, 31))
    # a valid change takes effect at once
    est.set_params(estimator__C=1e-6)
    twin = OnlineBayesPointClassifier(
        PassiveAggressiveClassifier(C=1e-6), n_estimators=3, random_state=0
    )
    twin.__dict__.update(copy.deepcopy(est.__dict__))
    twin.set_params(estimator=PassiveAggressiveClassifier(C=1e-6))
    _fit(est, X, y, slice(30, 31))
    _fit(twin, X, y, slice(30, 31))
    np.testing.assert_array_equal(est._W, twin._W)


@pytest.mark.parametrize(
    "factory, kind, attribute, bad",
    [
        (
            lambda: PassiveAggressiveOneClass(random_state=0),
            "outlier",
            "center_",
            lambda est: np.full_like(est.center_, np.nan),
        ),
        (
            lambda: KernelPassiveAggressiveClassifier(random_state=0),
            "classifier",
            "dual_coef_",
            lambda est: np.full_like(est.dual_coef_, np.nan),
        ),
        (
            lambda: OnlineBayesPointClassifier(n_estimators=3, random_state=0),
            "classifier",
            "n_mistakes_",
            lambda est: np.zeros(7, dtype=np.int64),
        ),
    ],
    ids=["one-class", "kernel PA", "Bayes point"],
)
def test_assigned_arrays_are_checked_again(factory, kind, attribute, bad):
    """A learned array a user assigns is not the published one: it is
    checked before the next call uses it."""
    X, y = _stream(kind, n_features=500)
    est = _start(factory, kind, X, y)
    setattr(est, attribute, bad(est))
    with pytest.raises(ValueError):
        _fit(est, X, y, slice(30, 31))


def test_scores_of_assigned_weights_use_them():
    """After an assignment the scores read the assigned arrays, not the
    ones the lean path remembered."""
    X, y = _stream("classifier", n_features=500)
    bpm = _start(
        lambda: OnlineBayesPointClassifier(n_estimators=3, random_state=0),
        "classifier",
        X,
        y,
    )
    bpm.coef_ = np.zeros((4, 500))
    bpm.intercept_ = np.arange(4.0)
    np.testing.assert_array_equal(bpm.predict(X[:3]), [3, 3, 3])
    ball = _start(lambda: PassiveAggressiveOneClass(random_state=0), "outlier", X, None)
    ball.center_ = np.zeros(500)
    np.testing.assert_allclose(
        ball.score_samples(X[:3]), -sp.linalg.norm(X[:3], axis=1), rtol=1e-12
    )
    kpa = _start(
        lambda: KernelPassiveAggressiveClassifier(kernel="linear", random_state=0),
        "classifier",
        X,
        y,
    )
    kpa.dual_coef_ = np.zeros_like(kpa.dual_coef_)
    np.testing.assert_array_equal(kpa.decision_function(X[:3]), np.zeros((3, 4)))


@pytest.mark.parametrize("name, factory, kind, learned", FAMILIES, ids=IDS)
def test_partial_fit_from_several_threads_loses_no_update(name, factory, kind, learned):
    """Three threads streaming one-row calls into one estimator: every row
    is counted (``t_``) and every call recorded in the loss curve."""
    X, y = _stream(kind, n_features=2000, n_rows=150)
    est = _start(factory, kind, X, y)
    barrier = threading.Barrier(3)

    def work(part):
        barrier.wait()
        for i in range(30 + part, 150, 3):
            _fit(est, X, y, slice(i, i + 1))

    threads = [threading.Thread(target=work, args=(p,)) for p in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert est.t_ == 151.0
    assert len(est.loss_curve_) == 2 + 120


def test_the_bayes_point_left_to_compute_survives_a_pickle():
    """A Bayes point a ``partial_fit`` call left to be computed when read is
    the same read before or after a pickle round trip, or from a clone of
    the stream that read it eagerly after every call."""
    X, y = _stream("classifier", n_features=500)
    est = _start(
        lambda: OnlineBayesPointClassifier(n_estimators=3, random_state=0),
        "classifier",
        X,
        y,
    )
    eager = copy.deepcopy(est)
    for i in range(30, 40):
        _fit(est, X, y, slice(i, i + 1))
        _fit(eager, X, y, slice(i, i + 1))
        eager.coef_  # noqa: B018 (computed after every call)
    assert "coef_" not in est.__dict__
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.coef_, eager.coef_)
    np.testing.assert_array_equal(again.intercept_, eager.intercept_)
    np.testing.assert_array_equal(est.coef_, eager.coef_)
    np.testing.assert_array_equal(est.predict(X), eager.predict(X))
    with pytest.raises(AttributeError, match="no attribute"):
        est.not_an_attribute_  # noqa: B018
