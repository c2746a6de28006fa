"""ONNX export, run with onnxruntime (skipped without the optional extra
``onnx``).

Every public estimator is found by discovery (``all_estimators``) and must
export: its graph's outputs are compared with ``predict``,
``decision_function`` (and ``score_samples``) on dense rows and on sparse
rows made dense, in float32 and float64.  Only a kernel model whose kernel
is not one of ``KERNELS`` is refused, with a message that says what
exports."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_classifier, is_outlier_detector, is_regressor
from sklearn.utils._param_validation import StrOptions

pytest.importorskip("skl2onnx")
rt = pytest.importorskip("onnxruntime")

from sklearn_pa import (  # noqa: E402
    ALMAClassifier,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    ROMMAClassifier,
)
from sklearn_pa.onnx import (  # noqa: E402
    CLASSIFIERS,
    KERNEL_MODELS,
    KERNELS,
    OUTLIER_DETECTORS,
    REGRESSORS,
    to_onnx,
)
from sklearn_pa.utils import all_estimators  # noqa: E402

ESTIMATORS = all_estimators()
N_SAMPLES, N_FEATURES = 150, 20
DTYPES = [np.float64, np.float32]
DATA = ["dense", "sparse"]


def run(model, X):
    """The output names and values of the model's graph, built from ``X``'s
    type, on ``X``."""
    onx = to_onnx(model, X[:1])
    session = rt.InferenceSession(
        onx.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    names = [output.name for output in session.get_outputs()]
    return names, session.run(None, {session.get_inputs()[0].name: X})


def rows(data, dtype, seed=0):
    """Random rows: dense, or a sparse random matrix (80% zeros) made dense."""
    rng = np.random.RandomState(seed)
    if data == "dense":
        X = rng.normal(size=(N_SAMPLES, N_FEATURES))
    else:
        X = sp.random(
            N_SAMPLES,
            N_FEATURES,
            density=0.2,
            random_state=rng,
            data_rvs=rng.standard_normal,
        ).toarray()
    return X.astype(dtype)


def targets(X, kind, seed=0):
    """Labels of a random linear teacher: two or four classes (integers or
    strings), a 3-label indicator matrix, or real values."""
    rng = np.random.RandomState(seed)
    scores = X.astype(np.float64) @ rng.normal(size=(X.shape[1], 4))
    if kind == "binary":
        return np.array([2, 5])[(scores[:, 0] > 0).astype(int)]
    if kind == "multiclass":
        return np.argmax(scores, axis=1)
    if kind == "strings":
        return np.array(["ant", "bee", "cat", "dog"])[np.argmax(scores, axis=1)]
    if kind == "multilabel":
        return (scores[:, :3] > 0).astype(int)
    return scores[:, 0] + 0.5  # regression


def fitted(model, X, y=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (CW's noisy-label warning, ...)
        return model.fit(X, y)


def assert_close(got, expected, dtype):
    """Within float32 or float64 rounding of the largest value."""
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    atol = rtol * max(np.abs(expected).max(), 1.0)
    assert_allclose(got, expected, rtol=rtol, atol=atol)


def assert_same_labels(label, expected, margins, dtype):
    """The labels are ``predict``'s on the rows whose decision is clear of
    the rounding of the dtype (``margins``: the distance of each row's scores
    from a change of label; ten times the tolerance of the scores,
    :func:`assert_close`), at least 90% of them.  A row on the boundary
    itself (a one-class learner's radius is learned to pass through a
    sample) takes either label by the order of a sum: numpy's and
    onnxruntime's differ there from one build to the next."""
    tolerance = 1e-4 if dtype == np.float32 else 1e-9
    clear = margins > tolerance * max(np.abs(margins).max(), 1.0)
    assert clear.mean() > 0.9
    assert_array_equal(label[clear], expected[clear])


def check_export(model, X):
    """The graph of ``model`` built from ``X``'s type gives what the model
    gives on ``X``: ``predict``, ``decision_function`` and ``score_samples``
    of the rows as the graph reads them."""
    names, out = run(model, X)
    if is_classifier(model):
        assert names == ["label", "scores"]
        label, scores = out
        expected = model.decision_function(X)
        if expected.ndim == 1:
            expected = np.column_stack([-expected, expected])
        if model.predict(X).ndim == 2:  # multilabel: the sign of each score
            margins = np.abs(expected).min(axis=1)
            assert label.dtype == np.int64
        else:
            top = np.sort(expected, axis=1)
            margins = top[:, -1] - top[:, -2]
    elif is_regressor(model):
        assert names == ["variable"]
        (pred,) = out
        assert pred.shape == (X.shape[0], 1) and pred.dtype == X.dtype
        assert_close(pred.ravel(), model.predict(X), X.dtype)
        return
    elif is_outlier_detector(model):
        assert names == ["label", "scores", "score_samples"]
        label, scores, samples = out
        assert label.dtype == np.int64 and samples.dtype == X.dtype
        assert_close(samples, model.score_samples(X), X.dtype)
        expected = model.decision_function(X)
        margins = np.abs(expected)
    else:
        pytest.fail(f"no ONNX check for {type(model).__name__}'s kind")
    assert scores.dtype == X.dtype and scores.shape == expected.shape
    assert_close(scores, expected, X.dtype)
    assert_same_labels(label, model.predict(X), margins, X.dtype)


def kinds(Estimator):
    """The targets an estimator is fitted on: each form of labels of a
    classifier, real values, or none for an outlier detector."""
    if is_classifier(Estimator()):
        return ["binary", "multiclass", "strings", "multilabel"]
    if is_regressor(Estimator()):
        return ["regression"]
    return [None]


def check_every_form(Estimator, params, X):
    """``check_export`` on the model fitted on each of its kinds of targets
    (a multilabel ``y`` where the estimator takes one) and, where it has
    ``sparsify``, on the sparsified model."""
    for kind in kinds(Estimator):
        model = Estimator(**params)
        y = None if kind is None else targets(X, kind)
        if kind == "multilabel":
            try:
                fitted(model, X, y)
            except ValueError:
                continue  # (no multilabel y: the single-label forms only)
        else:
            fitted(model, X, y)
        check_export(model, X)
        if hasattr(model, "sparsify"):
            model.sparsify()
            check_export(model, X)
            assert sp.issparse(model.coef_)  # (the model is left as it is)


def kernel(A, B):
    """A callable kernel (no converter)."""
    return A @ B.T


def configurations():
    """Every public estimator at its defaults and, where it has a
    ``kernel``, with each kernel it takes (named or callable)."""
    cases = []
    for name, Estimator in ESTIMATORS:
        cases.append(pytest.param(Estimator, {}, id=name))
        constraints = getattr(Estimator, "_parameter_constraints", {})
        for constraint in constraints.get("kernel", []):
            if isinstance(constraint, StrOptions):
                for option in sorted(constraint.options):
                    cases.append(
                        pytest.param(
                            Estimator, {"kernel": option}, id=f"{name}-{option}"
                        )
                    )
            elif constraint is callable:
                cases.append(
                    pytest.param(Estimator, {"kernel": kernel}, id=f"{name}-callable")
                )
    return cases


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("Estimator, params", configurations())
def test_every_public_estimator_exports(Estimator, params, dtype, data):
    """Each public estimator exports (every kind of target it takes, and
    sparsified), or is a kernel model whose kernel has no converter and is
    refused with a message naming the kernels that export."""
    X = rows(data, dtype)
    if "kernel" in params:
        X = np.abs(X)  # (the chi2 kernels take non-negative rows)
    kernel_name = params.get("kernel", getattr(Estimator(), "kernel", None))
    if kernel_name is None or kernel_name in KERNELS:
        check_every_form(Estimator, params, X)
        return
    assert issubclass(Estimator, KERNEL_MODELS)
    for kind in kinds(Estimator)[:2]:
        try:
            model = fitted(Estimator(**params), X, targets(X, kind))
        except ValueError as exc:
            if "K(x, x)" not in str(exc):
                raise
            pytest.skip(f"kernel={kernel_name!r} learns nothing: {exc}")
        with pytest.raises(NotImplementedError, match="kernels that export are"):
            to_onnx(model, X[:1])


def test_the_tuples_hold_every_public_estimator():
    exported = CLASSIFIERS + REGRESSORS + OUTLIER_DETECTORS + KERNEL_MODELS
    assert sorted(E.__name__ for E in exported) == [name for name, _ in ESTIMATORS]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("rule", ["thresholded", "ranking"])
def test_multilabel_model(rule, dtype):
    """A multilabel model exports ``label`` as the int64 indicator matrix
    ``predict`` returns (the labels scoring above 0)."""
    X = rows("dense", dtype)
    Y = targets(X, "multilabel")
    model = fitted(PassiveAggressiveClassifier(multilabel=rule, random_state=0), X, Y)
    _, (label, scores) = run(model, X)
    assert label.shape == Y.shape and scores.shape == Y.shape
    check_export(model, X)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize(
    "kernel_params",
    [
        {"kernel": "linear"},
        {"kernel": "poly", "degree": 2, "coef0": 0.5, "gamma": 0.1},
        {"kernel": "polynomial"},
        {"kernel": "rbf", "gamma": 0.05},
    ],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()),
)
@pytest.mark.parametrize("Estimator", KERNEL_MODELS)
def test_kernel_model_fitted_on_sparse_rows(Estimator, kernel_params, dtype):
    """Support vectors kept as a CSR matrix (a model fitted on sparse rows)
    are exported dense."""
    X = rows("sparse", np.float64)
    for kind in kinds(Estimator)[:2]:
        model = fitted(Estimator(**kernel_params), sp.csr_matrix(X), targets(X, kind))
        assert sp.issparse(model.support_vectors_)
        check_export(model, X.astype(dtype))


def stream(model, X, y):
    """Two ``partial_fit`` calls (the second leaves its weights to be
    published when read)."""
    half = X.shape[0] // 2
    extra = {} if y is None or is_regressor(model) else {"classes": np.unique(y)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.partial_fit(X[:half], None if y is None else y[:half], **extra)
        model.partial_fit(X[half:], None if y is None else y[half:])
    return model


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize(
    "model, kind",
    [
        (ROMMAClassifier(), "multiclass"),
        (ROMMAClassifier(aggressive=True), "binary"),
        (ALMAClassifier(), "multiclass"),
        (OnlineBayesPointClassifier(random_state=0), "multiclass"),
        (OnlineBayesPointClassifier(weighting="uniform", random_state=0), "binary"),
        (PassiveAggressiveOneClass(epsilon="learn", epsilon_bound=10.0), None),
    ],
    ids=lambda p: p if isinstance(p, str) else type(p).__name__,
)
def test_weights_left_to_publish(model, kind, dtype):
    """A ``partial_fit`` stream leaves the scaled weights of ROMMA and ALMA,
    the Bayes point and the one-class centre to be computed when read: the
    graph holds their published values."""
    X = rows("dense", dtype)
    model = stream(clone(model), X, None if kind is None else targets(X, kind))
    check_export(model, X)


def test_a_model_of_one_class_so_far():
    """``new_classes="add"`` after one class: every label is that class."""
    X = rows("dense", np.float64)
    model = PassiveAggressiveClassifier(new_classes="add")
    model.partial_fit(X, np.full(X.shape[0], 3))
    _, (label, scores) = run(model, X)
    assert_array_equal(label, model.predict(X))
    assert scores.shape == (X.shape[0], 2)


def test_refused_kernel_says_what_exports():
    X = np.abs(rows("dense", np.float64))
    model = fitted(
        KernelPassiveAggressiveClassifier(kernel="sigmoid"), X, targets(X, "binary")
    )
    with pytest.raises(NotImplementedError) as info:
        to_onnx(model, X[:1])
    message = str(info.value)
    assert "kernel='sigmoid'" in message
    assert all(repr(name) in message for name in KERNELS)
    model = fitted(
        KernelPassiveAggressiveClassifier(kernel=kernel), X, targets(X, "binary")
    )
    with pytest.raises(NotImplementedError, match="the callable kernel"):
        to_onnx(model, X[:1])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("kernel_name", ["linear", "poly", "rbf"])
def test_a_kernel_model_without_support_vectors(kernel_name, dtype):
    """No step taken (every residual within epsilon): the graph predicts 0."""
    X = rows("dense", dtype)
    model = KernelPassiveAggressiveRegressor(epsilon=1e3, kernel=kernel_name).fit(
        X, X[:, 0]
    )
    assert model.support_vectors_.shape[0] == 0
    check_export(model, X)
