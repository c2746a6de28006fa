"""Passive-Aggressive and related online learners, scikit-learn compatible.

Every estimator is importable from the top of the package::

    from sklearn_pa import PassiveAggressiveClassifier
"""

from .bayes_point import OnlineBayesPointClassifier
from .calibration import OnlineCalibratedClassifier
from .kernel import (
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
)
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
    "AdaGradClassifier",
    "OnlineBayesPointClassifier",
    "OnlineCalibratedClassifier",
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

from ._core.docs import set_doc_links as _set_doc_links

_set_doc_links(globals()[name] for name in __all__)
