"""ONNX export of the package's estimators, through skl2onnx (optional extra:
``pip install "sklearn_pa[onnx]"``).

:func:`register_converters` registers a shape calculator and a converter for
every estimator of :data:`CLASSIFIERS`, :data:`REGRESSORS`,
:data:`OUTLIER_DETECTORS` and :data:`KERNEL_MODELS` with skl2onnx;
:func:`to_onnx` registers them and converts one model.  A classifier becomes
a graph with two outputs, ``label`` (what ``predict`` returns) and ``scores``
(what ``decision_function`` returns, ``(n_samples, n_classes)``; for two
classes the pair ``[-s, s]``); a regressor one output, ``variable``; the
one-class learner three, ``label``, ``scores`` and ``score_samples``.

Every graph is one kind of computation:

- a linear model scores ``X @ coef_.T + intercept_`` (a sparsified
  ``coef_`` is written dense);
- a kernel model scores ``K(X, support_vectors_) @ dual_coef_.T``, for the
  kernels of :data:`KERNELS`;
- the one-class learner scores ``-||x - center_||``.
"""

import inspect

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.metrics.pairwise import kernel_metrics

from ._core.targets import MultilabelTargets
from .bayes_point import OnlineBayesPointClassifier
from .kernel import KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor
from .kernel._base import pairwise_params
from .linear import (
    ALMAClassifier,
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    MIRAClassifier,
    OnlineGradientDescentClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    ROMMAClassifier,
)
from .one_class import PassiveAggressiveOneClass
from .second_order import (
    AdaGradClassifier,
    AROWClassifier,
    AROWRegressor,
    ConfidenceWeightedClassifier,
    ConfidenceWeightedRegressor,
    IELLIPClassifier,
    NAROWClassifier,
    NHERDClassifier,
    NHERDRegressor,
    SCWClassifier,
    SOPClassifier,
)

__all__ = [
    "CLASSIFIERS",
    "KERNELS",
    "KERNEL_MODELS",
    "OUTLIER_DETECTORS",
    "REGRESSORS",
    "register_converters",
    "to_onnx",
]

#: The linear classifiers converted: their scores are
#: ``X @ coef_.T + intercept_`` (the mean of the Gaussian models, the
#: averaged copies of the Bayes point machine); ``predict`` is the arg-max
#: (the sign for two classes), or ``scores > 0`` for a multilabel model.
CLASSIFIERS = (
    PassiveAggressiveClassifier,
    MIRAClassifier,
    PerceptronClassifier,
    OnlineGradientDescentClassifier,
    ROMMAClassifier,
    ALMAClassifier,
    ConfidenceWeightedClassifier,
    AROWClassifier,
    SCWClassifier,
    SOPClassifier,
    IELLIPClassifier,
    NHERDClassifier,
    NAROWClassifier,
    AdaGradClassifier,
    OnlineBayesPointClassifier,
)

#: The linear regressors converted: ``predict`` is ``X @ coef_ + intercept_``.
REGRESSORS = (
    PassiveAggressiveRegressor,
    GradientDescentRegressor,
    ExponentiatedGradientRegressor,
    ErrorProportionalRegressor,
    AROWRegressor,
    ConfidenceWeightedRegressor,
    NHERDRegressor,
)

#: The outlier detectors converted: ``score_samples`` is
#: ``-||x - center_||``, ``decision_function`` is
#: ``score_samples - offset_`` and ``predict`` is -1 where it is negative,
#: else +1.
OUTLIER_DETECTORS = (PassiveAggressiveOneClass,)

#: The kernel models converted, when their kernel is one of :data:`KERNELS`:
#: their scores are ``K(X, support_vectors_) @ dual_coef_.T``.
KERNEL_MODELS = (KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor)

#: The kernels of :data:`KERNEL_MODELS` that export, with the parameters of
#: :func:`sklearn.metrics.pairwise.pairwise_kernels`: ``X @ Y.T``,
#: ``(gamma X @ Y.T + coef0) ** degree`` and
#: ``exp(-gamma ||x - y||^2)``.
KERNELS = ("linear", "poly", "polynomial", "rbf")


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


def _is_multilabel(model):
    return isinstance(getattr(model, "_target_strategy", None), MultilabelTargets)


def _label_type(model):
    """The tensor type of a classifier's labels: int64 for integer classes
    and for the indicator matrix of a multilabel model, else strings."""
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    if not _is_multilabel(model) and all(isinstance(c, str) for c in model.classes_):
        return StringTensorType
    return Int64TensorType


def _parse_classifier(scope, model, inputs, custom_parsers=None):
    operator = scope.declare_local_operator(_alias(type(model)), model)
    operator.inputs = inputs
    label = scope.declare_local_variable("label", _label_type(model)())
    scores = scope.declare_local_variable("scores", inputs[0].type.__class__())
    operator.outputs.append(label)
    operator.outputs.append(scores)
    return operator.outputs


def _classifier_shapes(operator):
    n = operator.inputs[0].get_first_dimension()
    model = operator.raw_operator
    n_classes = len(model.classes_)
    label_shape = [n, n_classes] if _is_multilabel(model) else [n]
    operator.outputs[0].type = _label_type(model)(label_shape)
    # (one class met so far, new_classes="add": the pair [-s, s] too)
    operator.outputs[1].type = operator.inputs[0].type.__class__([n, max(n_classes, 2)])


def _parse_outlier_detector(scope, model, inputs, custom_parsers=None):
    from skl2onnx.common.data_types import Int64TensorType

    operator = scope.declare_local_operator(_alias(type(model)), model)
    operator.inputs = inputs
    operator.outputs.append(scope.declare_local_variable("label", Int64TensorType()))
    for name in ("scores", "score_samples"):
        variable = scope.declare_local_variable(name, inputs[0].type.__class__())
        operator.outputs.append(variable)
    return operator.outputs


def _outlier_detector_shapes(operator):
    from skl2onnx.common.data_types import Int64TensorType

    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = Int64TensorType([n])
    for output in operator.outputs[1:]:
        output.type = operator.inputs[0].type.__class__([n])


def _regressor_shapes(operator):
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = operator.inputs[0].type.__class__([n, 1])


def _proto(operator):
    from skl2onnx.common.data_types import guess_proto_type

    return guess_proto_type(operator.inputs[0].type)


def _constant(scope, container, operator, name, values):
    """A float initializer of the input's type holding ``values``; returns
    its name."""
    proto = _proto(operator)
    values = np.asarray(values, dtype=np.float64)
    unique = scope.get_unique_variable_name(name)
    container.add_initializer(
        unique, proto, list(values.shape), values.ravel().tolist()
    )
    return unique


def _node(scope, container, op_type, inputs, output=None, **attrs):
    """Add one node; returns the name of its output (a new one unless
    ``output`` is given)."""
    if output is None:
        output = scope.get_unique_variable_name(op_type.lower())
    container.add_node(
        op_type, inputs, output, name=scope.get_unique_operator_name(op_type), **attrs
    )
    return output


def _linear_scores(scope, container, operator, coef, intercept, output, rows=None):
    """``rows @ coef.T + intercept`` as two nodes, also written to the
    operator's output number ``output``; returns the scores' name.

    ``rows`` is the name of the rows scored, the graph's input by default
    (the kernel values of a kernel model)."""
    if rows is None:
        rows = operator.inputs[0].full_name
    weights = _constant(scope, container, operator, "coef", coef.T)
    bias = _constant(scope, container, operator, "intercept", np.ravel(intercept))
    product = _node(scope, container, "MatMul", [rows, weights])
    scores = _node(scope, container, "Add", [product, bias])
    _node(scope, container, "Identity", [scores], operator.outputs[output].full_name)
    return scores


def _dense_coef(model):
    """``coef_`` as a float64 ndarray, densified after ``sparsify()`` (the
    graph holds dense weights; the model is left as it is)."""
    coef = model.coef_
    if sp.issparse(coef):
        coef = coef.toarray()
    return np.asarray(coef, dtype=np.float64)


def _score_terms(scope, container, operator):
    """``(rows, weights, intercept)`` of the model's scores
    ``rows @ weights.T + intercept``: the graph's input, ``coef_`` and
    ``intercept_`` of a linear model; the kernel values of the input against
    the support vectors (nodes added), ``dual_coef_`` and no intercept of a
    kernel model."""
    model = operator.raw_operator
    if isinstance(model, KERNEL_MODELS):
        alpha = np.atleast_2d(np.asarray(model.dual_coef_, dtype=np.float64))
        rows = _kernel_values(scope, container, operator)
        return rows, alpha, np.zeros(alpha.shape[0])
    coef = _dense_coef(model).reshape(-1, model.n_features_in_)
    intercept = np.ravel(np.asarray(model.intercept_, dtype=np.float64))
    return operator.inputs[0].full_name, coef, intercept


def _check_kernel(model):
    kernel = model.kernel
    if callable(kernel) or kernel not in KERNELS:
        name = getattr(kernel, "__name__", None) if callable(kernel) else None
        shown = f"the callable {name}" if name else repr(kernel)
        raise NotImplementedError(
            f"{type(model).__name__} with kernel={shown} has no ONNX converter: "
            f"the kernels that export are {', '.join(map(repr, KERNELS))}. "
            "Refit with one of them to export the model."
        )


def _kernel_values(scope, container, operator):
    """Nodes of ``K(X, support_vectors_)``, ``(n_samples, n_SV)``, as
    :func:`sklearn.metrics.pairwise.pairwise_kernels` computes it for the
    model's kernel and parameters; returns its name."""
    model = operator.raw_operator
    _check_kernel(model)
    # the keyword arguments the model passes, over the kernel's defaults
    function = kernel_metrics()[model.kernel]
    params = {
        name: p.default for name, p in inspect.signature(function).parameters.items()
    }
    params.update(pairwise_params(model))
    sv = model.support_vectors_
    sv = np.asarray(sv.toarray() if sp.issparse(sv) else sv, dtype=np.float64)
    rows = operator.inputs[0].full_name
    support = _constant(scope, container, operator, "support_vectors", sv.T)
    products = _node(scope, container, "MatMul", [rows, support])
    if model.kernel == "linear":
        return products
    if model.kernel in ("poly", "polynomial"):
        # (gamma <x, y> + coef0) ** degree
        gamma = _constant(scope, container, operator, "gamma", params["gamma"])
        coef0 = _constant(scope, container, operator, "coef0", params["coef0"])
        degree = _constant(scope, container, operator, "degree", params["degree"])
        scaled = _node(scope, container, "Mul", [products, gamma])
        shifted = _node(scope, container, "Add", [scaled, coef0])
        return _node(scope, container, "Pow", [shifted, degree])
    # rbf: exp(-gamma max(||x||^2 - 2 <x, y> + ||y||^2, 0)), the squared
    # distances of euclidean_distances
    ones = _constant(scope, container, operator, "ones", np.ones((sv.shape[1], 1)))
    minus_two = _constant(scope, container, operator, "minus_two", -2.0)
    sv_norms = _constant(scope, container, operator, "sv_norms", np.sum(sv * sv, 1))
    zero = _constant(scope, container, operator, "zero", 0.0)
    minus_gamma = _constant(scope, container, operator, "minus_gamma", -params["gamma"])
    squares = _node(scope, container, "Mul", [rows, rows])
    row_norms = _node(scope, container, "MatMul", [squares, ones])
    distances = _node(scope, container, "Mul", [products, minus_two])
    distances = _node(scope, container, "Add", [distances, row_norms])
    distances = _node(scope, container, "Add", [distances, sv_norms])
    distances = _node(scope, container, "Max", [distances, zero])
    exponent = _node(scope, container, "Mul", [distances, minus_gamma])
    return _node(scope, container, "Exp", [exponent])


def _convert_classifier(scope, operator, container):
    from onnx import TensorProto

    model = operator.raw_operator
    rows, coef, intercept = _score_terms(scope, container, operator)
    classes = np.asarray(model.classes_)
    if coef.shape[0] == 1:
        # two classes: the scores [-s, s], whose argmax is predict's s > 0
        # (one class met so far: that class either way)
        coef, intercept = np.vstack([-coef, coef]), np.r_[-intercept, intercept]
        classes = np.resize(classes, 2)
    # the scores are the second output; the labels, the first, come from them
    scores = _linear_scores(scope, container, operator, coef, intercept, 1, rows)
    label = operator.outputs[0].full_name
    if _is_multilabel(model):
        # the indicator matrix of the labels scoring above 0
        zero = _constant(scope, container, operator, "zero", 0.0)
        above = _node(scope, container, "Greater", [scores, zero])
        _node(scope, container, "Cast", [above], label, to=TensorProto.INT64)
        return
    index = _node(scope, container, "ArgMax", [scores], axis=1, keepdims=0)
    labels = scope.get_unique_variable_name("classes")
    if all(isinstance(c, str) for c in classes):
        container.add_initializer(
            labels, TensorProto.STRING, [len(classes)], [str(c) for c in classes]
        )
    else:
        container.add_initializer(
            labels, TensorProto.INT64, [len(classes)], [int(c) for c in classes]
        )
    _node(scope, container, "Gather", [labels, index], label, axis=0)


def _convert_regressor(scope, operator, container):
    rows, coef, intercept = _score_terms(scope, container, operator)
    _linear_scores(scope, container, operator, coef, intercept, 0, rows)


def _convert_outlier_detector(scope, operator, container):
    from onnx import TensorProto

    model = operator.raw_operator
    label, scores, samples = (output.full_name for output in operator.outputs)
    centre = np.asarray(model.center_, dtype=np.float64)
    centre_name = _constant(scope, container, operator, "center", centre)
    ones = _constant(scope, container, operator, "ones", np.ones(centre.shape[0]))
    offset = _constant(scope, container, operator, "offset", model.offset_)
    zero = _constant(scope, container, operator, "zero", 0.0)
    # score_samples = -||x - center_||, decision_function = that - offset_
    diff = _node(scope, container, "Sub", [operator.inputs[0].full_name, centre_name])
    squares = _node(scope, container, "Mul", [diff, diff])
    distances = _node(scope, container, "MatMul", [squares, ones])
    distances = _node(scope, container, "Sqrt", [distances])
    _node(scope, container, "Neg", [distances], samples)
    _node(scope, container, "Sub", [samples, offset], scores)
    # predict: -1 where decision_function < 0, else +1
    outside = _node(scope, container, "Less", [scores, zero])
    minus_one = scope.get_unique_variable_name("minus_one")
    plus_one = scope.get_unique_variable_name("plus_one")
    container.add_initializer(minus_one, TensorProto.INT64, [], [-1])
    container.add_initializer(plus_one, TensorProto.INT64, [], [1])
    _node(scope, container, "Where", [outside, minus_one, plus_one], label)


def register_converters():
    """Register the converters of the package's estimators with skl2onnx.

    After this call ``skl2onnx.to_onnx(model, X)`` converts every estimator
    of :data:`CLASSIFIERS`, :data:`REGRESSORS`, :data:`OUTLIER_DETECTORS`
    and :data:`KERNEL_MODELS` (calling it again is harmless).  A
    classifier's graph has the outputs ``label`` and ``scores``; a
    regressor's, ``variable``; an outlier detector's, ``label``, ``scores``
    and ``score_samples``.

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
    for model_class in CLASSIFIERS + REGRESSORS + KERNEL_MODELS:
        if issubclass(model_class, ClassifierMixin):
            skl2onnx.update_registered_converter(
                model_class,
                _alias(model_class),
                _classifier_shapes,
                _convert_classifier,
                parser=_parse_classifier,
            )
        else:
            skl2onnx.update_registered_converter(
                model_class, _alias(model_class), _regressor_shapes, _convert_regressor
            )
    for model_class in OUTLIER_DETECTORS:
        skl2onnx.update_registered_converter(
            model_class,
            _alias(model_class),
            _outlier_detector_shapes,
            _convert_outlier_detector,
            parser=_parse_outlier_detector,
        )


def to_onnx(model, X, **kwargs):
    """Convert a fitted estimator to an ONNX model.

    Registers the converters (:func:`register_converters`) and calls
    :func:`skl2onnx.to_onnx`.

    Parameters
    ----------
    model : estimator
        A fitted estimator of :data:`CLASSIFIERS`, :data:`REGRESSORS`,
        :data:`OUTLIER_DETECTORS` or :data:`KERNEL_MODELS` (with a kernel
        of :data:`KERNELS`); a sparsified ``coef_`` (:meth:`sparsify`) is
        exported dense.
    X : ndarray of shape (n_samples, n_features)
        Rows whose type (float32 or float64) and width the graph takes; the
        graph computes in that type.
    **kwargs
        Passed to :func:`skl2onnx.to_onnx` (``target_opset``, ...).

    Returns
    -------
    onnx_model : onnx.ModelProto
        Outputs ``label`` and ``scores`` for a classifier (``predict`` and
        ``decision_function``; for two classes ``[-s, s]``; for a model
        fitted on a multilabel ``y``, ``label`` is the int64 indicator
        matrix of the labels scoring above 0), ``variable`` for a
        regressor, ``label`` (+1 or -1, int64), ``scores``
        (``decision_function``) and ``score_samples`` for an outlier
        detector.

    Raises
    ------
    NotImplementedError
        For a kernel model whose kernel is not one of :data:`KERNELS`.

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
