"""Estimator-level tests of the Confidence-Weighted family."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, make_classification
from sklearn.model_selection import StratifiedKFold, cross_val_score

from sklearn_pa import AROWClassifier, ConfidenceWeightedClassifier, SCWClassifier

VARIANTS = [
    ("cw-support-diag", ConfidenceWeightedClassifier, {}),
    ("cw-support-full", ConfidenceWeightedClassifier, {"covariance": "full"}),
    ("cw-single-diag", ConfidenceWeightedClassifier, {"multiclass": "single"}),
    (
        "cw-single-full",
        ConfidenceWeightedClassifier,
        {"multiclass": "single", "covariance": "full"},
    ),
    ("cw-sequential", ConfidenceWeightedClassifier, {"multiclass": "sequential"}),
    ("arow-diag", AROWClassifier, {}),
    ("arow-full", AROWClassifier, {"covariance": "full"}),
    ("scw1", SCWClassifier, {"variant": 1}),
    ("scw2-full", SCWClassifier, {"variant": 2, "covariance": "full"}),
]
IDS = [name for name, _, _ in VARIANTS]


def make(cls, params, **extra):
    return cls(**{"max_iter": 3, "tol": None, "random_state": 0, **params, **extra})


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X[:, 0] = 0.0  # an all-zero column: CSR and dense must still agree
    return X[:600], y[:600]


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(
        n_samples=400,
        n_features=12,
        n_informative=6,
        class_sep=1.5,
        flip_y=0.02,
        random_state=0,
    )
    return X, y


def state(est):
    return pickle.dumps(est.__dict__)


@pytest.mark.parametrize("name, cls, params", VARIANTS, ids=IDS)
@pytest.mark.parametrize("n_classes", [2, 10])
def test_dense_and_csr_identical(name, cls, params, n_classes, digits):
    X, y = digits
    mask = y < n_classes
    X, y = X[mask], y[mask]
    dense = make(cls, params, average=True).fit(X, y)
    csr = make(cls, params, average=True).fit(sp.csr_matrix(X), y)
    assert_array_equal(dense.coef_, csr.coef_)
    assert_array_equal(dense.intercept_, csr.intercept_)
    assert_array_equal(dense.covariance_, csr.covariance_)
    assert dense.score(X, y) > 0.8


@pytest.mark.parametrize("name, cls, params", VARIANTS, ids=IDS)
def test_partial_fit_equals_fit_per_epoch(name, cls, params, digits):
    X, y = digits
    fitted = make(cls, params, max_iter=3, shuffle=False, average=2).fit(X, y)
    streamed = make(cls, params, shuffle=False, average=2)
    for _ in range(3):
        streamed.partial_fit(X, y, classes=np.unique(y))
    assert_allclose(streamed.coef_, fitted.coef_, rtol=0, atol=1e-12)
    assert_allclose(streamed.intercept_, fitted.intercept_, rtol=0, atol=1e-12)
    assert_allclose(streamed.covariance_, fitted.covariance_, rtol=0, atol=1e-12)
    assert streamed.t_ == fitted.t_


@pytest.mark.parametrize("name, cls, params", VARIANTS, ids=IDS)
def test_warm_start_continues_the_covariance(name, cls, params, digits):
    X, y = digits
    two = make(cls, params, max_iter=2, shuffle=False).fit(X, y)
    warm = make(cls, params, max_iter=1, shuffle=False, warm_start=True)
    warm.fit(X, y).fit(X, y)
    assert_allclose(warm.coef_, two.coef_, atol=1e-12)
    assert_allclose(warm.covariance_, two.covariance_, atol=1e-12)


@pytest.mark.parametrize("name, cls, params", VARIANTS, ids=IDS)
def test_bad_batch_leaves_the_model_byte_identical(name, cls, params, digits):
    X, y = digits
    est = make(cls, params).fit(X, y)
    before = state(est)
    X_nan = X[:20].copy()
    X_nan[5, 3] = np.nan
    bad = [
        (X_nan, y[:20], {}),
        (X[:20, :10], y[:20], {}),
        (X[:20], np.full(20, 99), {}),
        (X[:20], y[:20], {"classes": np.arange(3)}),
        (X[:20], y[:20], {"sample_weight": -np.ones(20)}),
    ]
    for Xb, yb, kwargs in bad:
        with pytest.raises(ValueError):
            est.partial_fit(Xb, yb, **kwargs)
        assert state(est) == before
    est.set_params(max_iter=0)
    with pytest.raises(ValueError):
        est.partial_fit(X[:20], y[:20])
    est.set_params(max_iter=3)
    assert state(est) == before


def test_partial_fit_needs_classes_first(digits):
    X, y = digits
    est = ConfidenceWeightedClassifier()
    with pytest.raises(ValueError, match="classes must be passed"):
        est.partial_fit(X, y)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("cls", [ConfidenceWeightedClassifier, AROWClassifier])
def test_zero_rows_do_not_move_the_model(cls, digits):
    X, y = digits
    est = make(cls, {}, fit_intercept=False).fit(X, y)
    before = state(est)
    est.partial_fit(np.zeros((5, X.shape[1])), y[:5])
    after = pickle.loads(pickle.dumps(est.__dict__))
    original = pickle.loads(before)
    assert_array_equal(after["coef_"], original["coef_"])
    assert_array_equal(after["_sigma"], original["_sigma"])


@pytest.mark.parametrize(
    "cls, params",
    [
        (ConfidenceWeightedClassifier, {}),
        (AROWClassifier, {"covariance": "full"}),
        (SCWClassifier, {}),
        (SCWClassifier, {"variant": 2, "covariance": "full"}),
    ],
)
def test_predict_proba_is_calibrated_sensibly(cls, params, binary):
    X, y = binary
    est = make(cls, params).fit(X[:300], y[:300])
    proba = est.predict_proba(X[300:])
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X[300:]))
    confidence = proba.max(axis=1)
    correct = est.predict(X[300:]) == y[300:]
    order = np.argsort(confidence, kind="stable")
    low, high = order[: len(order) // 2], order[len(order) // 2 :]
    # the more confident half is right at least as often as the other half
    assert correct[high].mean() >= correct[low].mean()
    # and the mean confidence is within reach of the accuracy
    assert abs(confidence.mean() - correct.mean()) < 0.25
    # sparse input gives the same probabilities
    assert_allclose(est.predict_proba(sp.csr_matrix(X[300:])), proba, atol=1e-12)


def test_predict_proba_for_multiclass(digits):
    X, y = digits
    est = make(ConfidenceWeightedClassifier, {}).fit(X, y)
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), len(np.unique(y)))
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    est.fit(X[y < 2], y[y < 2])
    assert est.predict_proba(X[:3]).shape == (3, 2)


def test_full_covariance_refused_when_too_large(monkeypatch):
    X = sp.random(20, 300_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(20) % 2
    est = ConfidenceWeightedClassifier(covariance="full")
    with pytest.raises(MemoryError, match="covariance='diagonal'"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
    # the same limit applies to a small model when the allowance is lowered
    from sklearn_pa.second_order import _base as _second_order_base

    monkeypatch.setattr(_second_order_base, "FULL_COVARIANCE_MAX_BYTES", 1000)
    with pytest.raises(MemoryError, match="GiB"):
        ConfidenceWeightedClassifier(covariance="full").fit(np.eye(20), y)
    ConfidenceWeightedClassifier(covariance="diagonal").fit(X, y)


def test_covariance_shrinks_and_stays_positive_definite(digits):
    X, y = digits
    for params in (
        {"covariance": "full"},
        {"multiclass": "single", "covariance": "full"},
    ):
        est = make(ConfidenceWeightedClassifier, params).fit(X, y)
        for block in est.covariance_:
            eig = np.linalg.eigvalsh(block)
            assert eig.min() > 0
            assert eig.max() <= 1.0 + 1e-12


def test_class_weight_and_sample_weight(binary):
    X, y = binary
    plain = make(AROWClassifier, {}).fit(X, y)
    ones = make(AROWClassifier, {}).fit(X, y, sample_weight=np.ones(len(y)))
    assert_array_equal(plain.coef_, ones.coef_)
    heavy = make(AROWClassifier, {}, class_weight={0: 1.0, 1: 10.0}).fit(X, y)
    assert (heavy.predict(X) == 1).sum() >= (plain.predict(X) == 1).sum()


def test_verbose_prints_a_line_per_epoch(digits, capsys):
    X, y = digits
    make(ConfidenceWeightedClassifier, {}, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("-- Epoch") == 3


@pytest.mark.realdata
def test_usps_accuracy_floors(data_dir):
    """10-fold CV on ``usps_esl`` (train), 3 epochs, default hyper-parameters.

    Measured (``python -m sklearn_pa.benchmark --dataset usps``, the same
    folds): CW k=1 94.18, CW k=inf 93.77, SCCW 93.95, SCCWD 94.01.  The floors
    are the SCCW paper's figures on LIBSVM's USPS (92.40, 83.53, 93.73, 93.51).
    """
    from sklearn_pa.benchmark import load_dataset

    data = load_dataset("usps", data_dir)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    floors = {
        "CW k=1": (ConfidenceWeightedClassifier(multiclass="single"), 92.40),
        "CW k=inf": (ConfidenceWeightedClassifier(multiclass="sequential"), 83.53),
        "SCCW": (ConfidenceWeightedClassifier(covariance="full"), 93.73),
        "SCCWD": (ConfidenceWeightedClassifier(), 93.51),
    }
    for name, (est, floor) in floors.items():
        est.set_params(max_iter=3, tol=None, random_state=0)
        score = 100 * cross_val_score(est, data.X, data.y, cv=cv).mean()
        assert score >= floor, (name, score)


@pytest.mark.realdata
def test_usps_averaged_sccw_beats_single_constraint_cw(data_dir):
    """Averaged, SCCW leads multiclass CW k=1 on ``usps_esl`` as in the SCCW
    paper: measured 95.09 against 94.64 (10-fold CV, 3 epochs)."""
    from sklearn_pa.benchmark import load_dataset

    data = load_dataset("usps", data_dir)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    scores = {}
    for name, params in [
        ("SCCW", {"covariance": "full"}),
        ("k1", {"multiclass": "single"}),
    ]:
        est = ConfidenceWeightedClassifier(
            average=True, max_iter=3, tol=None, random_state=0, **params
        )
        scores[name] = 100 * cross_val_score(est, data.X, data.y, cv=cv).mean()
    assert scores["SCCW"] >= 95.0
    assert scores["SCCW"] > scores["k1"] + 0.2, scores


@pytest.mark.realdata
def test_sccw_beats_single_constraint_cw_on_libsvm_usps(data_dir):
    """On LIBSVM's USPS preprocessing (the SCCW paper's data), the last SCCW
    iterate leads multiclass CW k=1, as in the paper's Table 2.

    Measured on the 2007 images of ``usps.t`` (3 x 10-fold CV, 3 epochs,
    default hyper-parameters, paired folds): SCCW 88.31, CW k=1 87.28,
    SCCWD 86.86; SCCW - CW k=1 = +1.03 (standard error 0.44).  On the
    ``usps_esl`` copy the two tie (93.8-93.9 % each over six shuffles of the
    folds, for every eta; see the Confidence-Weighted benchmark page).
    """
    from sklearn.model_selection import RepeatedStratifiedKFold

    from sklearn_pa.benchmark import load_dataset

    data = load_dataset("usps-libsvm", data_dir)
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0)
    scores = {}
    for name, params in [
        ("SCCW", {"covariance": "full"}),
        ("k1", {"multiclass": "single"}),
    ]:
        est = ConfidenceWeightedClassifier(
            max_iter=3, tol=None, random_state=0, **params
        )
        scores[name] = 100 * cross_val_score(est, data.X, data.y, cv=cv)
    gap = scores["SCCW"] - scores["k1"]
    assert gap.mean() > 0.5, gap.mean()
    assert gap.mean() > 2 * gap.std() / np.sqrt(gap.size), gap
