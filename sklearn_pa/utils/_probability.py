"""``predict_proba`` of the classifiers without a probability model."""

__all__ = ["NoProbabilityMixin"]


class _NoProbabilityModel:
    """A method that is not there: reading it raises an ``AttributeError``
    that says what to use instead (``hasattr`` is False, as scikit-learn's
    meta-estimators expect)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        owner = owner if owner is not None else type(instance)
        raise AttributeError(
            f"{owner.__name__} has no probability model, hence no {self.name}. "
            "Calibrate its decision_function with "
            f"sklearn.calibration.CalibratedClassifierCV({owner.__name__}()), "
            "or use ConfidenceWeightedClassifier, AROWClassifier or "
            "SCWClassifier, whose predict_proba is a calibrated Gaussian "
            "margin model."
        )


class NoProbabilityMixin:
    """Mixin of the classifiers that only have a decision function."""

    predict_proba = _NoProbabilityModel()
    predict_log_proba = _NoProbabilityModel()
