"""The public ``fit`` / ``partial_fit`` of the first-order linear estimators,
written once.

Each public method validates its parameters (scikit-learn's
``_fit_context``; a later ``partial_fit`` enters the same configuration
at O(1) cost, :func:`~sklearn_pa._core.session.partial_fit_context`) and runs
the private ``_fit`` / ``_partial_fit`` of
:class:`~sklearn_pa.linear._base.BaseOnlineLinear` inside
:func:`~sklearn_pa._core.batch.atomic_update`.  What differs between the
estimators is only the documentation of ``y``, ``coef_init``,
``intercept_init``, ``classes`` and ``sample_weight``: a class states those
entries in its ``_fit_doc`` dict, and :class:`PublicFitMixin` gives the
class its own copy of each method, with the class's entries written into the
shared docstring (so that each estimator's numpydoc is complete).
"""

import textwrap
import types

from sklearn.base import ClassifierMixin, _fit_context

from .batch import atomic_update
from .session import partial_fit_context

__all__ = ["ClassifierPartialFitMixin", "PublicFitMixin", "fit_doc_defaults"]

_FIT = """Fit the model with up to ``max_iter`` passes over the data.

Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Training data.
%(y)s
%(coef_init)s
%(intercept_init)s
%(sample_weight)s

Returns
-------
self : object
    Fitted estimator.
"""

_PARTIAL_FIT = """Make one pass over a batch, continuing from the current weights.

The whole batch is validated before any weight moves: on an error the
estimator is left exactly as it was.

Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    A batch of training data.
%(partial_y)s
%(classes)s
%(partial_sample_weight)s

Returns
-------
self : object
    Fitted estimator.
"""

_CLASSIFIER = {
    "y": """\
y : array-like of shape (n_samples,)
    Target labels.""",
    "coef_init": """\
coef_init : ndarray of shape (n_classes, n_features), default=None
    Initial weights (``(1, n_features)`` for two classes).""",
    "intercept_init": """\
intercept_init : ndarray of shape (n_classes,), default=None
    Initial intercepts.""",
    "partial_y": """\
y : array-like of shape (n_samples,)
    Its labels, all in ``classes``.""",
    "classes": """\
classes : array-like of shape (n_classes,), default=None
    Every label the stream may contain.  Required on the first call,
    optional (but checked) afterwards.  With ``new_classes="add"``:
    optional, labels to add.""",
}

_REGRESSOR = {
    "y": """\
y : array-like of shape (n_samples,)
    Target values.""",
    "coef_init": """\
coef_init : ndarray of shape (n_features,), default=None
    Initial weights (zero by default).""",
    "intercept_init": """\
intercept_init : ndarray of shape (1,), default=None
    Initial intercept.""",
    "partial_y": """\
y : array-like of shape (n_samples,)
    Its targets.""",
    "classes": None,
}


def fit_doc_defaults(classifier):
    """The default entries of ``_fit_doc`` for a classifier or a regressor
    (``sample_weight`` has none: every class says what its weights scale)."""
    return dict(_CLASSIFIER if classifier else _REGRESSOR)


def _fill(template, entries):
    """``template`` with each ``%(name)s`` line replaced by ``entries[name]``,
    dedented (the line removed when that is None)."""
    lines = []
    for line in template.split("\n"):
        if line.startswith("%(") and line.endswith(")s"):
            entry = entries[line[2:-2]]
            if entry is not None:
                lines.append(textwrap.dedent(entry))
        else:
            lines.append(line)
    return "\n".join(lines)


def _copy(method, doc):
    """A copy of the function ``method`` (same code, defaults, attributes)
    with the docstring ``doc``."""
    copy = types.FunctionType(
        method.__code__,
        method.__globals__,
        method.__name__,
        method.__defaults__,
        method.__closure__,
    )
    copy.__kwdefaults__ = method.__kwdefaults__
    copy.__dict__.update(method.__dict__)
    copy.__qualname__ = method.__qualname__
    copy.__doc__ = doc
    return copy


class PublicFitMixin:
    """``fit`` and ``partial_fit`` around ``_fit`` / ``_partial_fit``.

    A subclass sets ``_fit_doc``, a dict with its entries ``sample_weight``
    (required) and any of ``y``, ``coef_init``, ``intercept_init``,
    ``partial_y``, ``classes``, ``partial_sample_weight`` (by default
    ``sample_weight``) that differ from :func:`fit_doc_defaults`,
    and receives its own documented copies of both methods.  A subclass that
    needs another ``fit`` still defines it (and ``_check_init`` adapts the
    initial weights before the call, as the split-weight regressors do).
    """

    _fit_doc = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("_fit_doc")
        if own is None:
            return
        entries = {**fit_doc_defaults(issubclass(cls, ClassifierMixin)), **own}
        entries.setdefault("partial_sample_weight", entries["sample_weight"])
        for name, template in (("fit", _FIT), ("partial_fit", _PARTIAL_FIT)):
            if name not in cls.__dict__:
                method = getattr(cls, name)
                setattr(cls, name, _copy(method, _fill(template, entries)))

    def _check_init(self, coef_init, intercept_init):
        """Hook: the initial weights as ``_fit`` takes them (unchanged)."""
        return coef_init, intercept_init

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        coef_init, intercept_init = self._check_init(coef_init, intercept_init)
        with atomic_update(self):
            return self._fit(X, y, coef_init, intercept_init, sample_weight)

    @partial_fit_context
    def partial_fit(self, X, y, sample_weight=None):
        with atomic_update(self):
            return self._partial_fit(X, y, None, sample_weight)


class ClassifierPartialFitMixin:
    """The classifiers' ``partial_fit``, which takes ``classes`` and learns a
    batch in segments where a new class first appears
    (``_partial_fit_batch``); listed before the base class."""

    @partial_fit_context
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        with atomic_update(self):
            return self._partial_fit_batch(X, y, classes, sample_weight)
