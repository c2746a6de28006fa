"""The first-order linear learners: Passive-Aggressive, MIRA, the
perceptron and margin learners, ROMMA and ALMA, and the gradient
regressors."""

from ._error_proportional import ErrorProportionalRegressor
from ._exponentiated import ExponentiatedGradientRegressor
from ._margin import OnlineGradientDescentClassifier, PerceptronClassifier
from ._mira import MIRAClassifier
from ._passive_aggressive import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from ._regression import GradientDescentRegressor
from ._scaled import ALMAClassifier, ROMMAClassifier

__all__ = [
    "ALMAClassifier",
    "ErrorProportionalRegressor",
    "ExponentiatedGradientRegressor",
    "GradientDescentRegressor",
    "MIRAClassifier",
    "OnlineGradientDescentClassifier",
    "PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor",
    "PerceptronClassifier",
    "ROMMAClassifier",
]
