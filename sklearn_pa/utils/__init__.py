"""Utilities: estimator discovery and the expected failures of scikit-learn's
estimator checks."""

from .discovery import all_estimators
from .estimator_checks import expected_failed_checks

__all__ = ["all_estimators", "expected_failed_checks"]
