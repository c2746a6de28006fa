"""Passive-Aggressive and related online learners, scikit-learn compatible.

Every estimator is importable from the top of the package::

    from sklearn_pa import PassiveAggressiveClassifier
"""

from ._confidence_weighted import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    SCWClassifier,
)
from ._passive_aggressive import PassiveAggressiveClassifier, PassiveAggressiveRegressor

__version__ = "0.1.0.dev0"

__all__ = [
    "AROWClassifier",
    "ConfidenceWeightedClassifier",
    "SCWClassifier",
    "PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor",
]
