"""ONNX export of the linear learners, through skl2onnx (optional extra:
``pip install "sklearn_pa[onnx]"``).

:func:`register_converters` registers a shape calculator and a converter for
every linear estimator of the package with skl2onnx; :func:`to_onnx`
registers them and converts one model.  A classifier becomes a graph with
two outputs, ``label`` (what ``predict`` returns) and ``scores`` (what
``decision_function`` returns, ``(n_samples, n_classes)``; for two classes
the pair ``[-s, s]``); a regressor one output, ``variable``.
"""

import numpy as np
import scipy.sparse as sp

from ._core.targets import MultilabelTargets
from .linear._error_proportional import ErrorProportionalRegressor
from .linear._exponentiated import ExponentiatedGradientRegressor
from .linear._mira import MIRAClassifier
from .linear._passive_aggressive import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from .linear._regression import GradientDescentRegressor
from .second_order._confidence_weighted import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    SCWClassifier,
)
from .second_order._regression import (
    AROWRegressor,
    ConfidenceWeightedRegressor,
    NHERDRegressor,
)

__all__ = ["CLASSIFIERS", "REGRESSORS", "register_converters", "to_onnx"]

#: The classifiers converted: their scores are ``X @ coef_.T + intercept_``
#: (the mean of the Gaussian models).
CLASSIFIERS = (
    PassiveAggressiveClassifier,
    MIRAClassifier,
    ConfidenceWeightedClassifier,
    AROWClassifier,
    SCWClassifier,
)

#: The regressors converted: ``predict`` is ``X @ coef_ + intercept_``.
REGRESSORS = (
    PassiveAggressiveRegressor,
    GradientDescentRegressor,
    ExponentiatedGradientRegressor,
    ErrorProportionalRegressor,
    AROWRegressor,
    ConfidenceWeightedRegressor,
    NHERDRegressor,
)


def _skl2onnx():
    try:
        import skl2onnx
    except ImportError as exc:
        raise ImportError(
            "ONNX export needs skl2onnx (and onnxruntime to run the model): "
            'pip install "sklearn_pa[onnx]"'
        ) from exc
    return skl2onnx


def _alias(model_class):
    return f"SklearnPa{model_class.__name__}"


def _check_single_label(model):
    if isinstance(getattr(model, "_target_strategy", None), MultilabelTargets):
        raise NotImplementedError(
            f"{type(model).__name__} fitted on a multilabel y has no ONNX "
            "converter; only single-label classifiers are converted."
        )


def _parse_classifier(scope, model, inputs, custom_parsers=None):
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    _check_single_label(model)
    operator = scope.declare_local_operator(_alias(type(model)), model)
    operator.inputs = inputs
    strings = all(isinstance(c, str) for c in model.classes_)
    label_type = StringTensorType() if strings else Int64TensorType()
    label = scope.declare_local_variable("label", label_type)
    scores = scope.declare_local_variable("scores", inputs[0].type.__class__())
    operator.outputs.append(label)
    operator.outputs.append(scores)
    return operator.outputs


def _classifier_shapes(operator):
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    n = operator.inputs[0].get_first_dimension()
    model = operator.raw_operator
    strings = all(isinstance(c, str) for c in model.classes_)
    operator.outputs[0].type = (StringTensorType if strings else Int64TensorType)([n])
    operator.outputs[1].type = operator.inputs[0].type.__class__(
        [n, len(model.classes_)]
    )


def _linear_scores(scope, container, operator, coef, intercept, output):
    """``input @ coef.T + intercept`` as two nodes, also written to the
    operator's output number ``output``; returns the scores' name."""
    proto, _ = _proto(operator)
    input_name = operator.inputs[0].full_name
    coef_name = scope.get_unique_variable_name("coef")
    intercept_name = scope.get_unique_variable_name("intercept")
    container.add_initializer(
        coef_name, proto, [coef.shape[1], coef.shape[0]], coef.T.ravel().tolist()
    )
    container.add_initializer(
        intercept_name, proto, [coef.shape[0]], np.ravel(intercept).tolist()
    )
    product = scope.get_unique_variable_name("product")
    container.add_node(
        "MatMul",
        [input_name, coef_name],
        product,
        name=scope.get_unique_operator_name("MatMul"),
    )
    scores = scope.get_unique_variable_name("scores")
    container.add_node(
        "Add",
        [product, intercept_name],
        scores,
        name=scope.get_unique_operator_name("Add"),
    )
    container.add_node(
        "Identity",
        scores,
        operator.outputs[output].full_name,
        name=scope.get_unique_operator_name("Identity"),
    )
    return scores


def _proto(operator):
    from skl2onnx.common.data_types import guess_proto_type

    proto = guess_proto_type(operator.inputs[0].type)
    dtype = np.float64 if proto == 11 else np.float32  # TensorProto.DOUBLE
    return proto, dtype


def _convert_classifier(scope, operator, container):
    from onnx import TensorProto

    model = operator.raw_operator
    coef = _dense_coef(model)
    intercept = np.ravel(np.asarray(model.intercept_, dtype=np.float64))
    if coef.shape[0] == 1:
        # two classes: the scores [-s, s], whose argmax is predict's s > 0
        coef, intercept = np.vstack([-coef, coef]), np.r_[-intercept, intercept]
    # the scores are the second output; the labels, the first, come from them
    scores = _linear_scores(scope, container, operator, coef, intercept, 1)
    index = scope.get_unique_variable_name("index")
    container.add_node(
        "ArgMax",
        scores,
        index,
        name=scope.get_unique_operator_name("ArgMax"),
        axis=1,
        keepdims=0,
    )
    classes = model.classes_
    labels = scope.get_unique_variable_name("classes")
    if all(isinstance(c, str) for c in classes):
        container.add_initializer(
            labels, TensorProto.STRING, [len(classes)], [str(c) for c in classes]
        )
    else:
        container.add_initializer(
            labels, TensorProto.INT64, [len(classes)], [int(c) for c in classes]
        )
    container.add_node(
        "Gather",
        [labels, index],
        operator.outputs[0].full_name,
        name=scope.get_unique_operator_name("Gather"),
        axis=0,
    )


def _dense_coef(model):
    """``coef_`` as a float64 ndarray, densified after ``sparsify()`` (the
    graph holds dense weights; the model is left as it is)."""
    coef = model.coef_
    if sp.issparse(coef):
        coef = coef.toarray()
    return np.asarray(coef, dtype=np.float64)


def _regressor_shapes(operator):
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = operator.inputs[0].type.__class__([n, 1])


def _convert_regressor(scope, operator, container):
    model = operator.raw_operator
    coef = _dense_coef(model).reshape(1, -1)
    intercept = np.ravel(np.asarray(model.intercept_, dtype=np.float64))
    _linear_scores(scope, container, operator, coef, intercept, 0)


def register_converters():
    """Register the converters of the linear estimators with skl2onnx.

    After this call ``skl2onnx.to_onnx(model, X)`` converts every estimator
    of :data:`CLASSIFIERS` and :data:`REGRESSORS` (calling it again is
    harmless).  A classifier's graph has the outputs ``label`` and
    ``scores``; a regressor's, ``variable``.

    Raises
    ------
    ImportError
        Without skl2onnx (``pip install "sklearn_pa[onnx]"``).

    Examples
    --------
    >>> from sklearn_pa.onnx import register_converters
    >>> register_converters()  # doctest: +SKIP
    """
    skl2onnx = _skl2onnx()
    for model_class in CLASSIFIERS:
        skl2onnx.update_registered_converter(
            model_class,
            _alias(model_class),
            _classifier_shapes,
            _convert_classifier,
            parser=_parse_classifier,
        )
    for model_class in REGRESSORS:
        skl2onnx.update_registered_converter(
            model_class, _alias(model_class), _regressor_shapes, _convert_regressor
        )


def to_onnx(model, X, **kwargs):
    """Convert a fitted linear estimator to an ONNX model.

    Registers the converters (:func:`register_converters`) and calls
    :func:`skl2onnx.to_onnx`.

    Parameters
    ----------
    model : estimator
        A fitted estimator of :data:`CLASSIFIERS` or :data:`REGRESSORS`;
        a sparsified ``coef_`` (:meth:`sparsify`) is exported dense.
    X : ndarray of shape (n_samples, n_features)
        Rows whose type (float32 or float64) and width the graph takes.
    **kwargs
        Passed to :func:`skl2onnx.to_onnx` (``target_opset``, ...).

    Returns
    -------
    onnx_model : onnx.ModelProto
        Outputs ``label`` and ``scores`` for a classifier (``predict`` and
        ``decision_function``; for two classes ``[-s, s]``), ``variable``
        for a regressor.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.onnx import to_onnx
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PassiveAggressiveClassifier(random_state=0).fit(X, y)
    >>> onx = to_onnx(clf, X[:1].astype(np.float32))  # doctest: +SKIP
    >>> import onnxruntime as rt  # doctest: +SKIP
    >>> session = rt.InferenceSession(onx.SerializeToString())  # doctest: +SKIP
    >>> label, scores = session.run(None, {"X": X.astype(np.float32)})  # doctest: +SKIP
    """
    skl2onnx = _skl2onnx()
    register_converters()
    return skl2onnx.to_onnx(model, X, **kwargs)
