"""Calibrated probabilities for the classifiers of the package, learned
online from the scores each row got before the model learned from it."""

from ._online import OnlineCalibratedClassifier

__all__ = ["OnlineCalibratedClassifier"]
