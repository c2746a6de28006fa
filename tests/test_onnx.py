"""ONNX export of the linear learners, run with onnxruntime (skipped without
the optional extra ``onnx``)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_regression

pytest.importorskip("skl2onnx")
rt = pytest.importorskip("onnxruntime")

from sklearn_pa.onnx import CLASSIFIERS, REGRESSORS, to_onnx  # noqa: E402


def run(model, X):
    onx = to_onnx(model, X[:1])
    session = rt.InferenceSession(
        onx.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    names = [output.name for output in session.get_outputs()]
    return names, session.run(None, {session.get_inputs()[0].name: X})


def classification(kind):
    X, y = load_iris(return_X_y=True)
    if kind == "binary":
        y = (y == 1).astype(int)
    elif kind == "strings":
        y = np.array(["setosa", "versicolor", "virginica"])[y]
    return X, y


@pytest.mark.parametrize("kind", ["binary", "multiclass", "strings"])
@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_classifier_predictions_and_scores(Estimator, kind):
    X, y = classification(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CW's noisy-label warning
        model = Estimator(random_state=0).fit(X, y)
    names, (label, scores) = run(model, X)
    assert names == ["label", "scores"]
    assert_array_equal(label, model.predict(X))
    expected = model.decision_function(X)
    if expected.ndim == 1:
        expected = np.column_stack([-expected, expected])
    assert_allclose(scores, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    # float32 rows: the scores to 1e-5, the labels wherever the top two
    # scores are not within float32 rounding of each other
    X32 = X.astype(np.float32)
    _, (label32, scores32) = run(model, X32)
    assert scores32.dtype == np.float32
    assert_allclose(scores32, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    top = np.sort(expected, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-4 * np.abs(expected).max()
    assert_array_equal(label32[clear], model.predict(X)[clear])


@pytest.mark.parametrize("Estimator", REGRESSORS)
def test_regressor_predictions(Estimator):
    X, y = make_regression(150, 6, noise=1.0, random_state=0)
    model = Estimator(random_state=0).fit(X, y)
    names, (pred,) = run(model, X)
    assert names == ["variable"] and pred.shape == (150, 1)
    assert_allclose(pred.ravel(), model.predict(X), rtol=1e-12, atol=1e-12)


SPARSIFY_CASES = [(E, kind) for E in CLASSIFIERS for kind in ("binary", "multiclass")]
SPARSIFY_CASES += [(E, "regression") for E in REGRESSORS]


@pytest.mark.parametrize(
    "Estimator, kind",
    SPARSIFY_CASES,
    ids=[f"{E.__name__}-{kind}" for E, kind in SPARSIFY_CASES],
)
def test_a_sparsified_model_is_exported_dense(Estimator, kind):
    """After sparsify() the graph holds the dense weights and predicts as the
    model does; the model keeps its sparse coef_."""
    if kind == "regression":
        X, y = make_regression(80, 6, noise=1.0, random_state=1)
    else:
        X, y = classification(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CW's noisy-label warning
        model = Estimator(random_state=0).fit(X, y)
    if not hasattr(model, "sparsify"):
        pytest.skip(f"{Estimator.__name__} has no sparsify")
    dense_names, dense_out = run(model, X)
    model.sparsify()
    assert sp.issparse(model.coef_)
    names, out = run(model, X)
    assert names == dense_names
    assert sp.issparse(model.coef_)
    for got, expected in zip(out, dense_out):
        assert_array_equal(got, expected)
    if Estimator in REGRESSORS:
        assert_allclose(out[0].ravel(), model.predict(X), rtol=1e-12, atol=1e-12)
    else:
        assert_array_equal(out[0], model.predict(X))
