"""Utilities: estimator discovery."""

from .discovery import all_estimators

__all__ = ["all_estimators"]
