"""The second-order linear learners: a mean and a covariance per model
(Confidence-Weighted, AROW, SCW, NHERD, NAROW, IELLIP, SOP, the regressors)
or a step size per feature (AdaGrad)."""

from ._confidence_weighted import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    SCWClassifier,
)
from ._peers import (
    AdaGradClassifier,
    IELLIPClassifier,
    NAROWClassifier,
    NHERDClassifier,
    SOPClassifier,
)
from ._regression import AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor

__all__ = [
    "AROWClassifier",
    "AROWRegressor",
    "AdaGradClassifier",
    "ConfidenceWeightedClassifier",
    "ConfidenceWeightedRegressor",
    "IELLIPClassifier",
    "NAROWClassifier",
    "NHERDClassifier",
    "NHERDRegressor",
    "SCWClassifier",
    "SOPClassifier",
]
