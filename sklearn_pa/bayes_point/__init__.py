"""The online Bayes point machine: copies of a linear learner averaged,
with unlabeled rows (ss-PA / ss-SPA)."""

from ._bayes_point import OnlineBayesPointClassifier

__all__ = [
    "OnlineBayesPointClassifier",
]
