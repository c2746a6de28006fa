"""PassiveAggressiveClassifier / Regressor: behaviour, parity, bad input, real data."""

import copy
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
import sklearn.preprocessing
from sklearn.datasets import load_svmlight_files, make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.utils.fixes import parse_version

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor

SKLEARN_HAS_PA_RATES = parse_version(sklearn.__version__) >= parse_version("1.8")
needs_sgd_pa = pytest.mark.skipif(
    not SKLEARN_HAS_PA_RATES,
    reason="SGDClassifier(learning_rate='pa1') appeared in scikit-learn 1.8",
)
MULTICLASS = ["support", "max_loss", "prediction", "ovr"]


@pytest.fixture(scope="module")
def multiclass_data():
    return make_classification(
        300, 20, n_informative=10, n_classes=4, n_clusters_per_class=1, random_state=0
    )


@pytest.fixture(scope="module")
def regression_data():
    return make_regression(200, 10, noise=5.0, random_state=0)


# --------------------------------------------------------------------- parity
@needs_sgd_pa
@pytest.mark.parametrize("loss, rate", [("hinge", "pa1"), ("squared_hinge", "pa2")])
@pytest.mark.parametrize("C", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("average", [False, True, 7])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_ovr_reproduces_sklearn_sgd_pa(loss, rate, C, average, n_classes):
    X, y = make_classification(
        300, 20, n_informative=10, n_classes=n_classes, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate=rate,
            eta0=C,
            fit_intercept=False,
            shuffle=False,
            average=average,
        ).fit(X, y)
        ours = PassiveAggressiveClassifier(
            C=C,
            loss=loss,
            multiclass="ovr",
            fit_intercept=False,
            shuffle=False,
            average=average,
        ).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-10)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.t_ == ref.t_


@needs_sgd_pa
@pytest.mark.parametrize(
    "loss, rate",
    [("epsilon_insensitive", "pa1"), ("squared_epsilon_insensitive", "pa2")],
)
@pytest.mark.parametrize("average", [False, True])
def test_regressor_reproduces_sklearn_sgd_pa(regression_data, loss, rate, average):
    X, y = regression_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = SGDRegressor(
            loss="epsilon_insensitive",
            penalty=None,
            learning_rate=rate,
            eta0=0.3,
            epsilon=0.1,
            fit_intercept=False,
            shuffle=False,
            average=average,
        ).fit(X, y)
        ours = PassiveAggressiveRegressor(
            C=0.3,
            loss=loss,
            epsilon=0.1,
            fit_intercept=False,
            shuffle=False,
            average=average,
        ).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-10)
    assert ours.n_iter_ == ref.n_iter_


@needs_sgd_pa
@pytest.mark.parametrize("sparse", [False, True])
def test_intercept_is_a_constant_feature(multiclass_data, sparse):
    """Ours: PA on [x, 1].  scikit-learn's: ||x||^2 without the 1 in the step,
    and the intercept step shrunk by 0.01 on sparse input.  So ours equals
    scikit-learn's run *without* intercept on X with a column of ones."""
    X, y = multiclass_data
    X_aug = np.hstack([X, np.ones((X.shape[0], 1))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate="pa1",
            eta0=1.0,
            fit_intercept=False,
            shuffle=False,
        ).fit(X_aug, y)
        ours = PassiveAggressiveClassifier(
            multiclass="ovr", shuffle=False, intercept_scaling=1.0, average=False
        ).fit(sp.csr_matrix(X) if sparse else X, y)
        theirs = SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate="pa1",
            eta0=1.0,
            shuffle=False,
        ).fit(sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_[:, :-1], atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, ref.coef_[:, -1], atol=1e-10)
    # ... and it is not what scikit-learn's own intercept handling gives
    assert np.abs(ours.intercept_ - theirs.intercept_).max() > 1e-3


@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("scaling", [1.0, 0.1, 3.0])
@pytest.mark.parametrize("average", [False, True])
def test_intercept_equals_augmented_features(
    multiclass_data, multiclass, scaling, average
):
    X, y = multiclass_data
    X_aug = np.hstack([X, np.full((X.shape[0], 1), scaling)])
    kw = dict(
        multiclass=multiclass, shuffle=False, max_iter=3, tol=None, average=average
    )
    a = PassiveAggressiveClassifier(intercept_scaling=scaling, **kw).fit(X, y)
    b = PassiveAggressiveClassifier(fit_intercept=False, **kw).fit(X_aug, y)
    np.testing.assert_allclose(a.coef_, b.coef_[:, :-1], atol=1e-12)
    np.testing.assert_allclose(a.intercept_, scaling * b.coef_[:, -1], atol=1e-12)


def test_auto_intercept_scaling_is_a_typical_feature_and_stays_fixed():
    rng = np.random.RandomState(0)
    X = sp.random(200, 1000, density=0.02, random_state=rng, format="csr")
    X = sklearn.preprocessing.normalize(X)  # tf-idf-like rows of unit norm
    y = rng.randint(0, 3, 200)
    clf = PassiveAggressiveClassifier().partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    nnz_per_row = X[:50].nnz / 50
    np.testing.assert_allclose(clf.intercept_scaling_, 1 / np.sqrt(nnz_per_row))
    first = clf.intercept_scaling_
    clf.partial_fit(X[50:] * 100.0, y[50:])
    assert clf.intercept_scaling_ == first  # fixed by the first batch
    dense = PassiveAggressiveClassifier(max_iter=2, tol=None, random_state=0)
    dense.fit(X.toarray(), y)
    csr = PassiveAggressiveClassifier(max_iter=2, tol=None, random_state=0).fit(X, y)
    assert dense.intercept_scaling_ == pytest.approx(csr.intercept_scaling_)
    np.testing.assert_allclose(dense.coef_, csr.coef_, atol=1e-12)
    fixed = PassiveAggressiveClassifier(intercept_scaling=2.0).fit(X, y)
    assert fixed.intercept_scaling_ == 2.0


def test_sparse_fit_calls_no_blas_routine(monkeypatch):
    # A BLAS call in a fit's set-up (the sum of squares of
    # intercept_scaling="auto" was one) leaves OpenBLAS's threads spinning
    # beside the single-threaded epochs: the fit must not make one.
    import math

    from sklearn_pa._core.batch import sum_of_squares, typical_feature_value

    rng = np.random.RandomState(0)
    X = sp.random(300, 500, density=0.05, random_state=rng, format="csr")
    y = rng.randint(0, 3, 300)

    def no_blas(*args, **kwargs):
        raise AssertionError("a fit called a BLAS routine")

    for name in ("dot", "vdot", "inner"):
        monkeypatch.setattr(np, name, no_blas)
    clf = PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0)
    clf.fit(X, y)
    clf.partial_fit(X, y)
    monkeypatch.undo()
    exact = math.fsum(X.data**2)
    assert sum_of_squares(X.data) == pytest.approx(exact, rel=1e-13)
    assert typical_feature_value(X) == pytest.approx(
        math.sqrt(exact / X.nnz), rel=1e-13
    )


@pytest.mark.parametrize("scaling", [1.0, 0.1])
def test_regressor_intercept_equals_augmented_features(regression_data, scaling):
    X, y = regression_data
    X_aug = np.hstack([X, np.full((X.shape[0], 1), scaling)])
    kw = dict(shuffle=False, max_iter=3, tol=None)
    a = PassiveAggressiveRegressor(intercept_scaling=scaling, **kw).fit(X, y)
    b = PassiveAggressiveRegressor(fit_intercept=False, **kw).fit(X_aug, y)
    np.testing.assert_allclose(a.coef_, b.coef_[:-1], atol=1e-12)
    np.testing.assert_allclose(a.intercept_, scaling * b.coef_[-1:], atol=1e-12)


# ----------------------------------------------------------- input layouts
@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("average", [False, True])
def test_dense_and_csr_give_identical_models(
    multiclass_data, multiclass, loss, average
):
    X, y = multiclass_data
    X = X * (np.random.RandomState(0).rand(*X.shape) > 0.5)  # real zeros
    kw = dict(
        multiclass=multiclass,
        loss=loss,
        average=average,
        max_iter=4,
        tol=None,
        random_state=0,
    )
    dense = PassiveAggressiveClassifier(**kw).fit(X, y)
    csr = sp.csr_matrix(X)
    csr64 = csr.copy()
    csr64.indices = csr64.indices.astype(np.int64)
    csr64.indptr = csr64.indptr.astype(np.int64)
    unsorted = csr.copy()
    for i in range(unsorted.shape[0]):  # reverse each row's entries
        s, e = unsorted.indptr[i], unsorted.indptr[i + 1]
        unsorted.indices[s:e] = unsorted.indices[s:e][::-1]
        unsorted.data[s:e] = unsorted.data[s:e][::-1]
    unsorted.has_sorted_indices = False
    for Xs in (csr, csr64, unsorted, np.asfortranarray(X), X.astype(np.float32)):
        other = PassiveAggressiveClassifier(**kw).fit(Xs, y)
        tol = 1e-5 if getattr(Xs, "dtype", None) == np.float32 else 1e-12
        if Xs is unsorted:  # summation order differs
            tol = 1e-9
        np.testing.assert_allclose(other.coef_, dense.coef_, rtol=0, atol=tol)
        np.testing.assert_allclose(other.intercept_, dense.intercept_, rtol=0, atol=tol)
    assert dense.coef_.dtype == np.float64


def test_int64_csr_from_svmlight(tmp_path):
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    X, y = make_classification(50, 8, n_classes=3, n_informative=4, random_state=1)
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"))
    Xs, ys = load_svmlight_file(str(tmp_path / "d.svm"), n_features=8)
    Xs.indices = Xs.indices.astype(np.int64)
    Xs.indptr = Xs.indptr.astype(np.int64)
    clf = PassiveAggressiveClassifier(max_iter=2, tol=None, random_state=0)
    ref = clone_fit(clf, X, ys)
    np.testing.assert_allclose(clone_fit(clf, Xs, ys).coef_, ref.coef_, atol=1e-9)


def clone_fit(est, X, y, **kw):
    return sklearn.base.clone(est).fit(X, y, **kw)


# --------------------------------------------------------------- mechanics
@pytest.mark.parametrize("multiclass", MULTICLASS)
def test_fit_equals_repeated_partial_fit(multiclass_data, multiclass):
    X, y = multiclass_data
    kw = dict(multiclass=multiclass, shuffle=False, average=True, intercept_scaling=1.0)
    fitted = PassiveAggressiveClassifier(max_iter=3, tol=None, **kw).fit(X, y)
    stream = PassiveAggressiveClassifier(**kw)
    for _ in range(3):
        for start in range(0, X.shape[0], 64):
            stream.partial_fit(
                X[start : start + 64], y[start : start + 64], classes=np.unique(y)
            )
    np.testing.assert_allclose(stream.coef_, fitted.coef_, atol=1e-12)
    np.testing.assert_allclose(stream.intercept_, fitted.intercept_, atol=1e-12)
    assert stream.t_ == fitted.t_


@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("start", [1, 50])
def test_average_is_the_mean_of_the_iterates(multiclass_data, multiclass, start):
    X, y = multiclass_data
    X, y = X[:80], y[:80]
    classes = np.unique(y)
    avg = PassiveAggressiveClassifier(
        multiclass=multiclass,
        intercept_scaling=1.0,
        shuffle=False,
        average=True if start == 1 else start,
        max_iter=2,
        tol=None,
    ).fit(X, y)
    plain = PassiveAggressiveClassifier(
        multiclass=multiclass, intercept_scaling=1.0, average=False
    )
    coefs, intercepts = [], []
    for _ in range(2):
        for i in range(X.shape[0]):
            plain.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
            coefs.append(plain.coef_.copy())
            intercepts.append(plain.intercept_.copy())
    np.testing.assert_allclose(
        avg.coef_, np.mean(coefs[start - 1 :], axis=0), atol=1e-12
    )
    np.testing.assert_allclose(
        avg.intercept_, np.mean(intercepts[start - 1 :], axis=0), atol=1e-12
    )


@pytest.mark.parametrize("multiclass", MULTICLASS)
def test_two_classes_use_one_binary_weight_vector(multiclass):
    X, y = make_classification(100, 6, random_state=0)
    clf = PassiveAggressiveClassifier(
        multiclass=multiclass, max_iter=3, tol=None, random_state=0
    ).fit(X, y)
    ref = PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0).fit(X, y)
    assert clf.coef_.shape == (1, 6)
    np.testing.assert_array_equal(clf.coef_, ref.coef_)


@pytest.mark.parametrize("multiclass", ["support", "max_loss", "prediction"])
def test_plain_pa_leaves_zero_loss_on_the_example(multiclass_data, multiclass):
    """C = inf: the constraints the rule enforces hold exactly afterwards --
    all K-1 margins for support, the margin against the rival chosen before
    the step for max_loss (and for prediction, when it was a mistake)."""
    X, y = multiclass_data
    classes = np.unique(y)
    clf = PassiveAggressiveClassifier(C=np.inf, multiclass=multiclass, average=False)
    clf.partial_fit(X[:1], y[:1], classes=classes)
    for i in range(1, 40):
        k = np.searchsorted(classes, y[i])
        before = clf.decision_function(X[i : i + 1])[0]
        rival = np.argmax(np.where(np.arange(4) == k, -np.inf, before))
        clf.partial_fit(X[i : i + 1], y[i : i + 1])
        after = clf.decision_function(X[i : i + 1])[0]
        if multiclass == "support":
            assert after[k] - np.max(np.delete(after, k)) >= 1 - 1e-9
        elif multiclass == "max_loss" or before[rival] >= before[k]:
            assert after[k] - after[rival] >= 1 - 1e-9
        else:
            np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_plain_pa_regression_fits_within_epsilon(regression_data, loss):
    X, y = regression_data
    reg = PassiveAggressiveRegressor(C=np.inf, epsilon=0.5, loss=loss)
    for i in range(30):
        reg.partial_fit(X[i : i + 1], y[i : i + 1])
        assert abs(reg.predict(X[i : i + 1])[0] - y[i]) <= 0.5 + 1e-9


@pytest.mark.parametrize(
    "Estimator", [PassiveAggressiveClassifier, PassiveAggressiveRegressor]
)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_zero_rows_make_no_nan(Estimator, fit_intercept):
    X = np.zeros((20, 5))
    X[::2] = np.random.RandomState(0).randn(10, 5)
    y = np.arange(20) % 3
    for C in (np.inf, 1.0):
        est = Estimator(C=C, fit_intercept=fit_intercept, max_iter=3, tol=None)
        est.fit(sp.csr_matrix(X), y)
        assert np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.intercept_))
        est.fit(X, y)
        assert np.all(np.isfinite(est.coef_))


def test_sample_and_class_weights_scale_C(multiclass_data):
    X, y = multiclass_data
    kw = dict(shuffle=False, max_iter=2, tol=None, weight_scaling="C")
    a = PassiveAggressiveClassifier(C=0.5, **kw).fit(
        X, y, sample_weight=np.full(300, 2.0)
    )
    b = PassiveAggressiveClassifier(C=1.0, **kw).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-12)
    cw = {k: 2.0 for k in np.unique(y)}
    c = PassiveAggressiveClassifier(C=0.5, class_weight=cw, **kw).fit(X, y)
    np.testing.assert_allclose(c.coef_, b.coef_, atol=1e-12)
    # a zero weight skips the sample: same as streaming without it (the
    # default weight_scaling="step")
    sw = (np.arange(300) % 3 != 0).astype(float)
    classes = np.unique(y)
    # (the iterates: an average counts the skipped rows' steps too)
    d = PassiveAggressiveClassifier(shuffle=False, intercept_scaling=1.0, average=False)
    e = PassiveAggressiveClassifier(shuffle=False, intercept_scaling=1.0, average=False)
    for _ in range(2):
        d.partial_fit(X, y, classes=classes, sample_weight=sw)
        e.partial_fit(X[sw > 0], y[sw > 0], classes=classes)
    np.testing.assert_array_equal(d.coef_, e.coef_)


def test_n_jobs_ovr_is_deterministic(multiclass_data):
    X, y = multiclass_data
    kw = dict(multiclass="ovr", max_iter=5, tol=None, random_state=0)
    one = PassiveAggressiveClassifier(n_jobs=1, **kw).fit(X, y)
    two = PassiveAggressiveClassifier(n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    assert one.n_iter_ == two.n_iter_


def test_warm_start_and_coef_init(multiclass_data):
    X, y = multiclass_data
    # the iterates (coef_init takes the weights to start from, not an average)
    kw = dict(max_iter=2, tol=None, shuffle=False, average=False)
    once = PassiveAggressiveClassifier(**kw).fit(X, y)
    warm = PassiveAggressiveClassifier(warm_start=True, **kw).fit(X, y).fit(X, y)
    four = PassiveAggressiveClassifier(**dict(kw, max_iter=4)).fit(X, y)
    np.testing.assert_allclose(warm.coef_, four.coef_, atol=1e-12)
    # warm_start continues the iterates under the default average too, and
    # averages the last epoch of the second fit
    avg_kw = dict(kw, average="epoch")
    warm_avg = PassiveAggressiveClassifier(warm_start=True, **avg_kw)
    warm_avg.fit(X, y).fit(X, y)
    four_avg = PassiveAggressiveClassifier(**dict(avg_kw, max_iter=4)).fit(X, y)
    np.testing.assert_allclose(warm_avg.coef_, four_avg.coef_, atol=1e-12)
    init = PassiveAggressiveClassifier(**kw).fit(
        X, y, coef_init=once.coef_, intercept_init=once.intercept_
    )
    np.testing.assert_allclose(init.coef_, four.coef_, atol=1e-12)
    cold = PassiveAggressiveClassifier(**kw).fit(X, y).fit(X, y)
    np.testing.assert_allclose(cold.coef_, once.coef_, atol=1e-12)


def test_stopping_and_convergence_warning(multiclass_data):
    X, y = multiclass_data
    with pytest.warns(ConvergenceWarning, match="Maximum number of iteration"):
        PassiveAggressiveClassifier(max_iter=2).fit(X, y)
    clf = PassiveAggressiveClassifier(max_iter=1000, random_state=0).fit(X, y)
    assert clf.n_iter_ < 1000
    es = PassiveAggressiveClassifier(
        early_stopping=True, max_iter=1000, random_state=0
    ).fit(X, y)
    assert es.n_iter_ < 1000
    assert es.score(X, y) > 0.7


def test_verbose_prints_one_line_per_epoch(multiclass_data, capsys):
    X, y = multiclass_data
    PassiveAggressiveClassifier(verbose=1, max_iter=3, tol=None).fit(X, y)
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("-- Epoch")]
    assert len(lines) == 3
    assert lines[0].startswith("-- Epoch 1/3, ")
    for word in ("Avg. loss", "Time"):
        assert word in lines[0]
    # the mistakes, updates and norms are the details of verbose >= 2
    PassiveAggressiveClassifier(verbose=2, max_iter=3, tol=None).fit(X, y)
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("-- Epoch")]
    assert len(lines) == 3
    for word in ("Avg. loss", "Mistakes", "Updates", "Norm", "Time"):
        assert word in lines[0]


def test_pickle_round_trip_continues_identically(multiclass_data):
    X, y = multiclass_data
    clf = PassiveAggressiveClassifier(average=True, random_state=0).partial_fit(
        X[:100], y[:100], classes=np.unique(y)
    )
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.decision_function(X), clf.decision_function(X))
    clf.partial_fit(X[100:], y[100:])
    clone.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(clone.coef_, clf.coef_)


def test_assigned_coef_is_the_starting_point(multiclass_data):
    X, y = multiclass_data
    clf = PassiveAggressiveClassifier(shuffle=False).partial_fit(
        X, y, classes=np.unique(y)
    )
    start = clf.coef_.copy() * 0.5
    clf.coef_ = start.copy()
    ref = PassiveAggressiveClassifier(shuffle=False).fit(
        X, y, coef_init=start, intercept_init=clf.intercept_
    )
    ref_once = PassiveAggressiveClassifier(shuffle=False, max_iter=1, tol=None)
    ref_once.fit(X, y, coef_init=start, intercept_init=clf.intercept_)
    clf.partial_fit(X, y)
    np.testing.assert_allclose(clf.coef_, ref_once.coef_, atol=1e-12)
    assert ref.n_iter_ >= 1


# --------------------------------------------------------------- bad input
def _state(est):
    return copy.deepcopy(est.__dict__)


def _assert_same_state(before, est):
    after = est.__dict__
    assert set(before) == set(after)
    for key, value in before.items():
        other = after[key]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and value.shape == other.shape, key
            assert value.tobytes() == other.tobytes(), key
        elif isinstance(value, np.random.RandomState):
            a, b = value.get_state(), other.get_state()
            assert all(np.array_equal(u, v) for u, v in zip(a, b)), key
        else:
            assert type(value) is type(other), key


def _bad_batches(X, y):
    nan = X.copy()
    nan[3, 2] = np.nan
    inf = X.copy()
    inf[5, 1] = np.inf
    unknown = y.copy()
    unknown[7] = 99
    return {
        "NaN": (nan, y, {}),
        "inf": (inf, y, {}),
        "wrong width": (X[:, :-1], y, {}),
        "unknown label": (X, unknown, {}),
        "wrong sample_weight length": (X, y, {"sample_weight": np.ones(3)}),
        "negative sample_weight": (X, y, {"sample_weight": -np.ones(len(y))}),
        "NaN sample_weight": (X, y, {"sample_weight": np.full(len(y), np.nan)}),
        "changed classes": (X, y, {"classes": np.array([0, 1, 2, 3, 4])}),
        "NaN in sparse": (sp.csr_matrix(nan), y, {}),
        "2-D y": (X, np.c_[y, y], {}),
    }


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize(
    "case", list(_bad_batches(np.zeros((10, 3)), np.zeros(10)).keys())
)
def test_rejected_batch_leaves_model_byte_identical(multiclass_data, case, average):
    X, y = multiclass_data
    clf = PassiveAggressiveClassifier(average=average, random_state=0)
    clf.partial_fit(X[:100], y[:100], classes=np.unique(y))
    before = _state(clf)
    Xb, yb, kw = _bad_batches(X[100:150], y[100:150])[case]
    with pytest.raises(ValueError):
        clf.partial_fit(Xb, yb, **kw)
    _assert_same_state(before, clf)
    # and the model still learns from good data afterwards
    clf.partial_fit(X[100:150], y[100:150])


def test_rejected_batch_regressor(regression_data):
    X, y = regression_data
    reg = PassiveAggressiveRegressor(random_state=0).partial_fit(X[:100], y[:100])
    before = _state(reg)
    bad_y = y[100:150].copy()
    bad_y[3] = np.nan
    for Xb, yb in [(X[100:150, :-1], y[100:150]), (X[100:150], bad_y)]:
        with pytest.raises(ValueError):
            reg.partial_fit(Xb, yb)
        _assert_same_state(before, reg)


def test_first_partial_fit_needs_classes_and_leaves_nothing(multiclass_data):
    X, y = multiclass_data
    clf = PassiveAggressiveClassifier()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    assert clf.__dict__ == PassiveAggressiveClassifier().__dict__
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    assert clf.__dict__ == PassiveAggressiveClassifier().__dict__
    with pytest.raises(ValueError, match="balanced"):
        PassiveAggressiveClassifier(class_weight="balanced").partial_fit(
            X, y, classes=np.unique(y)
        )


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": -1.0}, "C"),
        ({"C": 0.0}, "C"),
        ({"loss": "log"}, "loss"),
        ({"multiclass": "ova"}, "multiclass"),
        ({"max_iter": 0}, "max_iter"),
        ({"validation_fraction": 1.5}, "validation_fraction"),
    ],
)
def test_invalid_parameters_leave_fitted_model_unchanged(
    multiclass_data, params, match
):
    X, y = multiclass_data
    clf = PassiveAggressiveClassifier(random_state=0).partial_fit(
        X[:100], y[:100], classes=np.unique(y)
    )
    before = _state(clf)
    clf.set_params(**params)
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(X[100:], y[100:])
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert value.tobytes() == clf.__dict__[key].tobytes()


def test_bad_init_shapes(multiclass_data):
    X, y = multiclass_data
    with pytest.raises(ValueError, match="coef_init"):
        PassiveAggressiveClassifier().fit(X, y, coef_init=np.zeros((3, 20)))
    with pytest.raises(ValueError, match="intercept_init"):
        PassiveAggressiveClassifier().fit(X, y, intercept_init=np.zeros(2))


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="greater than one"):
        PassiveAggressiveClassifier().fit(np.eye(3), [1, 1, 1])


# ------------------------------------------------------------------ models
def test_cross_val_score_and_grid_search():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    pipe = make_pipeline(
        StandardScaler(),
        PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0),
    )
    grid = GridSearchCV(pipe, {"passiveaggressiveclassifier__C": [0.01, 1.0]}, cv=3)
    grid.fit(X, y)
    assert grid.best_score_ > 0.9
    scores = cross_val_score(
        PassiveAggressiveClassifier(max_iter=5, tol=None), X, y, cv=3
    )
    assert scores.mean() > 0.85


# --------------------------------------------------------------- real data
@pytest.mark.realdata
def test_20newsgroups_accuracy(data_dir):
    """Standard split, 5 epochs, multiclass PA-I (C=1) without intercept, as in
    the papers.  Measured over random_state 0..3: one-vs-rest averaged
    0.817-0.821, support averaged 0.809-0.812, the last iterate of support
    0.805; scikit-learn's SGDClassifier(learning_rate="pa1") 0.811."""
    from sklearn.datasets import fetch_20newsgroups_vectorized

    kw = dict(data_home=data_dir / "sklearn", download_if_missing=False)
    train = fetch_20newsgroups_vectorized(subset="train", **kw)
    test = fetch_20newsgroups_vectorized(subset="test", **kw)
    expected = {
        ("ovr", True): 0.81,
        ("support", True): 0.805,
        ("support", False): 0.80,
        ("max_loss", False): 0.795,
    }
    for (multiclass, average), floor in expected.items():
        clf = PassiveAggressiveClassifier(
            multiclass=multiclass,
            average=average,
            fit_intercept=False,
            max_iter=5,
            tol=None,
            random_state=0,
        ).fit(train.data, train.target)
        assert clf.score(test.data, test.target) >= floor, (multiclass, average)


@pytest.mark.realdata
def test_usps_accuracy(data_dir):
    X, y, _, _ = load_svmlight_files(
        [data_dir / "usps/usps_esl.bz2", data_dir / "usps/usps_esl.t.bz2"],
        n_features=256,
    )
    clf = PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    scores = cross_val_score(clf, X, y, cv=cv)
    assert scores.mean() >= 0.92


def test_row_whose_norm_overflows_is_skipped_with_a_warning(multiclass_data):
    X, y = multiclass_data
    X = X.copy()
    X[5] = 1e200  # ||x||^2 overflows to inf
    clf = PassiveAggressiveClassifier(
        max_iter=2, tol=None, random_state=0, intercept_scaling=1.0
    )
    with pytest.warns(RuntimeWarning, match="1 rows were skipped"):
        clf.fit(X, y)
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    # "auto" would make the constant feature itself overflow: refused up front
    with pytest.raises(ValueError, match="constant feature"):
        PassiveAggressiveClassifier().fit(multiclass_data[0] * 1e160, y)


@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("sparse", [False, True])
def test_kernel_scores_out_are_the_pre_update_decision_values(
    multiclass_data, multiclass, sparse
):
    """One kernel pass records, for every row, the scores the model gave it
    just before learning from it: the same values as ``decision_function``
    called before each one-row ``partial_fit``."""
    from kernel_calls import first_order_epoch

    from sklearn_pa._core.epochs import _RowView

    X, y = multiclass_data
    X, y = X[:60], y[:60]
    Xs = sp.csr_matrix(X) if sparse else X
    classes = np.unique(y)
    est = PassiveAggressiveClassifier(
        multiclass=multiclass, fit_intercept=False, average=False
    )
    expected = []
    for i in range(X.shape[0]):
        if i > 0:
            expected.append(est.decision_function(Xs[i : i + 1])[0])
        else:
            expected.append(np.zeros(len(classes)))
        est.partial_fit(Xs[i : i + 1], y[i : i + 1], classes=classes)
    expected = np.asarray(expected)

    ref = PassiveAggressiveClassifier(
        multiclass=multiclass, fit_intercept=False, average=False
    )
    ref.partial_fit(Xs[:1], y[:1], classes=classes)
    K = len(classes)
    rows = _RowView(sp.csr_matrix(X) if sparse else np.ascontiguousarray(X, float))
    W = np.zeros((X.shape[1], K))
    b = np.zeros(K)
    order = np.arange(X.shape[0], dtype=np.int64)
    scores = np.zeros((X.shape[0], K))
    rule = int(ref._rule())
    out = first_order_epoch(
        rows.data, rows.indices, rows.indptr, rows.dense, rows.n_features,
        order, np.searchsorted(classes, y).astype(np.int32), np.zeros(len(y)),
        np.ones(len(y)), W, b, np.zeros((0, K)), np.zeros(0), np.ones(K),
        np.ones(K), np.ones((K, K)) - np.eye(K), np.ones(K, dtype=np.uint8),
        rule, 1, np.inf, 0.0, 0.0, 0, 0, np.zeros(K), 0, K, scores,
    )  # fmt: skip
    assert out[1] > 0
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(W.T, est.coef_, rtol=1e-12, atol=1e-12)
