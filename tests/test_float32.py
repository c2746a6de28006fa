"""Float32 input end to end: the kernels read float32 rows as they are.

The first-order kernel (PA, MIRA, the gradient regressors), the second-order
kernel (CW, AROW, SCW) and the scoring of the lean path read float32 values
through the row structs ``Rows32F`` / ``Rows64F`` (``_compiled/_dataset.pxd``)
and convert each value to a double as they read it.  The conversion is exact
and every sum and product is then the one of the float64 rows, so a model
learned from float32 input is the model learned from its float64 conversion,
to the last bit, while no float64 copy of ``X`` is made.  The multiplicative
rules (EG, DPMU) still convert ``X`` (their kernel reads float64 rows).
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import discovered
from sklearn.base import is_classifier

from sklearn_pa import (
    ALMAClassifier,
    AROWClassifier,
    AROWRegressor,
    ConfidenceWeightedClassifier,
    ConfidenceWeightedRegressor,
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    MIRAClassifier,
    OnlineGradientDescentClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    ROMMAClassifier,
    SCWClassifier,
)
from sklearn_pa._compiled import _first_order
from sklearn_pa._core.epochs import _RowView

CLASSIFIERS = [
    ("PA-default", lambda: PassiveAggressiveClassifier(random_state=0)),
    (
        "PA-I-ovr-avg",
        lambda: PassiveAggressiveClassifier(
            multiclass="ovr", average=True, random_state=0
        ),
    ),
    (
        "PA-II-maxloss",
        lambda: PassiveAggressiveClassifier(
            loss="squared_hinge", multiclass="max_loss", random_state=0
        ),
    ),
    ("MIRA", lambda: MIRAClassifier(random_state=0)),
    ("Perceptron-avg", lambda: PerceptronClassifier(average=True, random_state=0)),
    ("OGD", lambda: OnlineGradientDescentClassifier(random_state=0)),
    ("ROMMA", lambda: ROMMAClassifier(aggressive=True, random_state=0)),
    ("ALMA", lambda: ALMAClassifier(random_state=0)),
    ("CW", lambda: ConfidenceWeightedClassifier(random_state=0)),
    (
        "CW-full",
        lambda: ConfidenceWeightedClassifier(covariance="full", random_state=0),
    ),
    ("AROW-avg", lambda: AROWClassifier(average=True, random_state=0)),
    ("SCW", lambda: SCWClassifier(random_state=0)),
]
REGRESSORS = [
    ("PA-regressor", lambda: PassiveAggressiveRegressor(random_state=0)),
    ("GD", lambda: GradientDescentRegressor(random_state=0)),
    ("DPAU", lambda: ErrorProportionalRegressor(random_state=0)),
    ("EG (converts)", lambda: ExponentiatedGradientRegressor(random_state=0)),
    ("AROW-regressor", lambda: AROWRegressor(random_state=0)),
    (
        "CW-regressor-full",
        lambda: ConfidenceWeightedRegressor(covariance="full", random_state=0),
    ),
]
# every other public estimator with float input, with its defaults
_LISTED = [make for _, make in CLASSIFIERS + REGRESSORS]
CLASSIFIERS += discovered("float32", _LISTED, type_filter="classifier")
REGRESSORS += discovered("float32", _LISTED, type_filter="regressor")
ESTIMATORS = CLASSIFIERS + REGRESSORS
LAYOUTS = ["dense", "csr", "csr64"]


def _data(regression, seed=0, n=150, d=25):
    """Float32 rows of varied scale with zeros, labels of three classes or
    real targets."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.lognormal(0.0, 1.0, size=d)
    X[rng.random(X.shape) < 0.5] = 0.0
    X = X.astype(np.float32)
    w = rng.standard_normal(d)
    scores = X.astype(np.float64) @ w
    if regression:
        return X, scores + 0.1 * rng.standard_normal(n)
    return X, np.digitize(scores, np.quantile(scores, [1 / 3, 2 / 3]))


def _layout(X, layout):
    if layout == "dense":
        return X
    Xs = sp.csr_matrix(X)
    if layout == "csr64":
        Xs.indices = Xs.indices.astype(np.int64)
        Xs.indptr = Xs.indptr.astype(np.int64)
    return Xs


def _as64(X):
    return X.astype(np.float64)


def _outputs(est, X):
    out = {"predict": est.predict(X)}
    if hasattr(est, "decision_function"):
        out["decision_function"] = est.decision_function(X)
    return out


def _assert_same_model(a, b):
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    if hasattr(b, "intercept_scaling_"):
        assert a.intercept_scaling_ == b.intercept_scaling_


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name, make", ESTIMATORS, ids=[e[0] for e in ESTIMATORS])
def test_float32_input_learns_the_model_of_its_float64_conversion(name, make, layout):
    """fit, a partial_fit stream (its later calls on the lean path),
    predict and decision_function on float32 rows give exactly what the
    float64 conversion of the rows gives: the weights are float64 and every
    product of a float32 value with them is exact."""
    X, y = _data(name in dict(REGRESSORS))
    X32 = _layout(X, layout)
    X64 = _as64(X32)
    a, b = make().fit(X32, y), make().fit(X64, y)
    _assert_same_model(a, b)
    for method, out in _outputs(a, X32).items():
        np.testing.assert_array_equal(out, _outputs(b, X64)[method], err_msg=method)
    kw = {} if name in dict(REGRESSORS) else {"classes": np.unique(y)}
    a, b = make(), make()
    for start in range(0, X.shape[0], 50):
        rows = slice(start, start + 50)
        a.partial_fit(X32[rows], y[rows], **kw)
        b.partial_fit(X64[rows], y[rows], **kw)
        _assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict(X32[:7]), b.predict(X64[:7]))


@pytest.mark.parametrize("layout", ["csr", "csr64"])
def test_the_kernels_read_float32_rows_without_a_float64_copy(layout):
    """The row view keeps float32 values (Rows32F / Rows64F), and the
    kernel's epoch on them equals the epoch on their float64 conversion."""
    X, y = _data(False)
    X32 = _layout(X, layout)
    view = _RowView(X32)
    assert view.data.dtype == np.float32
    assert np.shares_memory(view.data, X32.data)
    assert _RowView(X).data.dtype == np.float32
    assert _RowView(X.astype(np.float16)).data.dtype == np.float64

    est32 = PassiveAggressiveClassifier(random_state=0).fit(X32, y)
    est64 = PassiveAggressiveClassifier(random_state=0).fit(_as64(X32), y)
    _assert_same_model(est32, est64)


@pytest.mark.skipif(
    not _first_order._simd_available(), reason="no AVX2: only the portable loop"
)
def test_float32_rows_score_the_same_with_and_without_avx2():
    """The AVX2 and the portable scoring loops read float32 rows alike."""
    X, y = _data(False)
    previous = _first_order._set_simd(True)
    try:
        models = []
        for enabled in (False, True):
            _first_order._set_simd(enabled)
            models.append(PassiveAggressiveClassifier(random_state=0).fit(X, y))
    finally:
        _first_order._set_simd(previous)
    _assert_same_model(*models)


def _traced_peak(call):
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def _call_peaks(make, X, y, kw):
    """The traced peaks of fit, a later and a first partial_fit, predict
    (and decision_function) on ``X``."""
    est = make()
    peaks = [
        _traced_peak(lambda: est.fit(X, y)),
        _traced_peak(lambda: est.partial_fit(X, y)),
        _traced_peak(lambda: make().partial_fit(X, y, **kw)),
        _traced_peak(lambda: est.predict(X)),
    ]
    if hasattr(est, "decision_function"):
        peaks.append(_traced_peak(lambda: est.decision_function(X)))
    return peaks


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: PassiveAggressiveClassifier(max_iter=1, tol=None, random_state=0),
        lambda: PassiveAggressiveRegressor(max_iter=1, tol=None, random_state=0),
        lambda: GradientDescentRegressor(max_iter=1, tol=None, random_state=0),
        lambda: AROWClassifier(max_iter=1, tol=None, random_state=0),
    ],
    ids=["PA", "PA-regressor", "GD", "AROW"],
)
def test_no_float64_copy_of_a_large_float32_x(make, sparse):
    """fit, partial_fit, predict and decision_function on a float32 X of
    16 MB allocate far less than its 32 MB float64 conversion (dense), and
    no more than the same calls on float64 input (CSR, whose calls keep
    the model's touched features, a copy of the indices)."""
    rng = np.random.default_rng(0)
    n, d = 20_000, 200
    X32 = rng.standard_normal((n, d), dtype=np.float32)
    y = (X32[:, 0] > 0).astype(np.int64)
    classifier = is_classifier(make())
    if not classifier:
        y = X32[:, 0].astype(np.float64)
    kw = {"classes": [0, 1]} if classifier else {}
    peaks = {}
    for X in (X32, X32.astype(np.float64)):
        peaks[X.dtype.name] = _call_peaks(
            make, sp.csr_matrix(X) if sparse else X, y, kw
        )
    for peak32, peak64 in zip(peaks["float32"], peaks["float64"]):
        assert peak32 <= peak64 + 2**20
        if not sparse:
            assert peak32 < n * d * 8 / 4


def _error(call):
    """The ValueError's message, the dtype it names read as float64 (the
    float32 rows are checked as they are: an infinity is "too large for
    dtype('float32')")."""
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value).replace("float32", "float64")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize(
    "name, make",
    [ESTIMATORS[0], ESTIMATORS[3], ESTIMATORS[6], REGRESSORS[0]],
    ids=["PA", "MIRA", "AROW", "PA-regressor"],
)
def test_non_finite_float32_input_is_refused_as_float64(name, make, layout, bad):
    """NaN or infinity in float32 rows is refused with the error float64
    rows get (naming float32), by fit, by a first and a later partial_fit
    (which leaves the model as it was) and by predict."""
    X, y = _data(name == "PA-regressor")
    X_bad = X.copy()
    X_bad[3, 2] = bad
    bad32, bad64 = _layout(X_bad, layout), _as64(_layout(X_bad, layout))
    kw = {} if name == "PA-regressor" else {"classes": np.unique(y)}
    assert _error(lambda: make().fit(bad32, y)) == _error(lambda: make().fit(bad64, y))
    assert _error(lambda: make().partial_fit(bad32, y, **kw)) == _error(
        lambda: make().partial_fit(bad64, y, **kw)
    )
    est = make().partial_fit(_layout(X, layout), y, **kw)
    est.partial_fit(_layout(X, layout)[:5], y[:5])  # the next call may be lean
    coef = est.coef_.copy()
    assert _error(lambda: est.partial_fit(bad32[:5], y[:5])) == _error(
        lambda: est.partial_fit(bad64[:5], y[:5])
    )
    np.testing.assert_array_equal(est.coef_, coef)
    assert _error(lambda: est.predict(bad32)) == _error(lambda: est.predict(bad64))


def test_float32_duplicate_entries_add_up_in_float64():
    """A float32 CSR matrix with duplicate entries is summed as its float64
    conversion is (the canonical copy is float64)."""
    X, y = _data(False)
    split = sp.csr_matrix(X)
    n, d = X.shape
    dense = X.ravel()
    split = sp.csr_matrix(
        (
            np.repeat(dense * np.float32(0.3), 2).astype(np.float32),
            np.repeat(np.tile(np.arange(d), n), 2),
            np.arange(0, 2 * n * d + 1, 2 * d),
        ),
        shape=X.shape,
    )
    assert split.dtype == np.float32 and not split.has_canonical_format
    a = PassiveAggressiveClassifier(random_state=0).fit(split, y)
    b = PassiveAggressiveClassifier(random_state=0).fit(split.astype(np.float64), y)
    _assert_same_model(a, b)


def test_multiplicative_rules_still_convert_to_float64():
    """EG and DPMU read float64 rows: float32 input is converted, and gives
    the model of its float64 conversion."""
    X, y = _data(True)
    Xb = (X != 0).astype(np.float32)
    a = ErrorProportionalRegressor(update="multiplicative", random_state=0)
    b = ErrorProportionalRegressor(update="multiplicative", random_state=0)
    _assert_same_model(a.fit(Xb, y), b.fit(_as64(Xb), y))
    assert a._input_dtypes() == [np.float64]
    assert ErrorProportionalRegressor()._input_dtypes() == (np.float64, np.float32)


def test_the_input_dtype_protocol_compares_fit_time_and_memory(capsys, tmp_path):
    """``--dataset stream-4m-dtype`` fits each learner on float64 and on
    float32 rows and tabulates fit time, peak memory beyond X, accuracy and
    the distance between the two models; its CSV has every row."""
    from sklearn_pa.benchmark._cli import main

    out = tmp_path / "dtype.csv"
    main(["--dataset", "stream-4m-dtype", "--rows", "3000", "--epochs", "1",
          "--output", str(out)])  # fmt: skip
    text = capsys.readouterr().out
    assert "peak beyond X (MiB)" in text and "float32" in text
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 2 * 3  # PA-I and AROW, three settings
    header = lines[0].split(",")
    for line in lines[1:]:
        row = dict(zip(header, line.split(",")))
        assert float(row["fit_time"]) > 0 and float(row["peak_mib"]) >= 0
        # float32 rows round the stream's values: models close, not equal
        assert float(row["coef_diff"]) < 1e-4


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_float32_paths_beside_the_epoch_learn_the_same_model(layout):
    """Early stopping's held-out scores, one-vs-rest columns in threads,
    warm starts from coef_init, a multilabel y and the calibration of
    predict_proba all see float32 rows as their float64 conversion."""
    X, y = _data(False)
    X32 = _layout(X, layout)
    X64 = _as64(X32)
    coef_init = np.random.default_rng(0).standard_normal((3, X.shape[1]))
    for params in (
        {"early_stopping": True},
        {"multiclass": "ovr", "n_jobs": 2},
        {"warm_start": True},
    ):
        a = PassiveAggressiveClassifier(random_state=0, **params)
        b = PassiveAggressiveClassifier(random_state=0, **params)
        a.fit(X32, y, coef_init=coef_init).fit(X32, y)
        b.fit(X64, y, coef_init=coef_init).fit(X64, y)
        _assert_same_model(a, b)
    Y = np.column_stack([y == 0, y == 1, y != 1]).astype(int)
    a = PassiveAggressiveClassifier(random_state=0).fit(X32, Y)
    _assert_same_model(a, PassiveAggressiveClassifier(random_state=0).fit(X64, Y))
    a = AROWClassifier(random_state=0).fit(X32, y)
    b = AROWClassifier(random_state=0).fit(X64, y)
    a.partial_fit(X32[:40], y[:40])
    b.partial_fit(X64[:40], y[:40])
    np.testing.assert_array_equal(a.predict_proba(X32), b.predict_proba(X64))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_calibration_margins_of_float32_rows_are_those_of_float64(n_classes):
    """The margins a confidence-weighted learner records for its
    probabilities: float32 rows in the kernels' form are read as doubles
    and squared in float64 without a copy, giving bit for bit the margins of
    their float64 conversion."""
    rng = np.random.RandomState(0)
    X = sp.random(300, 50, density=0.2, format="csr", random_state=rng)
    X = X.astype(np.float32)
    y = rng.randint(n_classes, size=300)
    est = AROWClassifier().fit(X, y)
    est.partial_fit(X[:3], y[:3])
    got = est._margins(X[:40], checked=True)
    want = est._margins(X[:40].astype(np.float64))
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()
