"""Passive-Aggressive and related online learners, scikit-learn compatible.

Every estimator is importable from the top of the package::

    from sklearn_pa import PassiveAggressiveClassifier
"""

from ._bayes_point import OnlineBayesPointClassifier
from ._confidence_weighted import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    SCWClassifier,
)
from ._confidence_weighted_regression import (
    AROWRegressor,
    ConfidenceWeightedRegressor,
    NHERDRegressor,
)
from ._error_proportional import ErrorProportionalRegressor
from ._exponentiated import ExponentiatedGradientRegressor
from ._gradient import GradientDescentRegressor
from ._kernel import KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor
from ._margin_learners import OnlineGradientDescentClassifier, PerceptronClassifier
from ._mira import MIRAClassifier
from ._one_class import PassiveAggressiveOneClass
from ._passive_aggressive import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from ._scaled_epochs import ALMAClassifier, ROMMAClassifier
from ._second_order_peers import (
    IELLIPClassifier,
    NAROWClassifier,
    NHERDClassifier,
    SOPClassifier,
)
from .sequence import StructuredPassiveAggressive, StructuredPerceptron

__version__ = "0.1.0.dev0"

__all__ = [
    "MIRAClassifier",
    "KernelPassiveAggressiveClassifier",
    "KernelPassiveAggressiveRegressor",
    "ErrorProportionalRegressor",
    "ExponentiatedGradientRegressor",
    "GradientDescentRegressor",
    "AROWClassifier",
    "AROWRegressor",
    "ConfidenceWeightedRegressor",
    "NHERDRegressor",
    "ConfidenceWeightedClassifier",
    "SCWClassifier",
    "IELLIPClassifier",
    "NAROWClassifier",
    "NHERDClassifier",
    "SOPClassifier",
    "OnlineBayesPointClassifier",
    "PassiveAggressiveClassifier",
    "PassiveAggressiveOneClass",
    "PassiveAggressiveRegressor",
    "StructuredPassiveAggressive",
    "StructuredPerceptron",
    "PerceptronClassifier",
    "OnlineGradientDescentClassifier",
    "ROMMAClassifier",
    "ALMAClassifier",
]

from ._doc_links import set_doc_links as _set_doc_links

_set_doc_links(globals()[name] for name in __all__)
