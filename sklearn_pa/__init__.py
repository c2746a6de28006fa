"""Passive-Aggressive and related online learners, scikit-learn compatible.

Every estimator is importable from the top of the package::

    from sklearn_pa import PassiveAggressiveClassifier
"""

from ._bayes_point import OnlineBayesPointClassifier
from ._passive_aggressive import (
    MIRAClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from .sequence import StructuredPassiveAggressive, StructuredPerceptron

__version__ = "0.1.0.dev0"

__all__ = [
    "MIRAClassifier",
    "OnlineBayesPointClassifier",
    "PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor",
    "StructuredPassiveAggressive",
    "StructuredPerceptron",
]
