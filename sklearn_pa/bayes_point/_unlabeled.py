"""The unlabeled marker of semi-supervised targets (no dependency beyond
NumPy, so that the estimator and its state protocol can both import it)."""

import warnings
from numbers import Integral, Real

import numpy as np

#: The label that marks an unlabeled sample (scikit-learn's convention for
#: semi-supervised learning, as in ``SelfTrainingClassifier``).
UNLABELED = -1


def _unlabeled_mask(y):
    """True where ``y`` is the unlabeled marker -1 (never for string labels)."""
    y = np.asarray(y)
    if y.dtype.kind in "iuf":
        return y == UNLABELED
    if y.dtype.kind == "O":
        return np.fromiter(
            (
                isinstance(v, (Integral, Real)) and not isinstance(v, bool) and v == -1
                for v in y
            ),
            dtype=bool,
            count=y.shape[0],
        )
    return np.zeros(y.shape[0], dtype=bool)


def warn_if_marker_looks_like_a_class(y, unlabeled):
    """Warn when ``y`` holds the marker -1 beside the label 0: in labels
    such as {-1, 0, 1}, -1 is likely a class, yet its samples are treated as
    unlabeled."""
    if np.any(unlabeled) and np.any(np.asarray(y)[~unlabeled] == 0):
        warnings.warn(
            f"y holds {int(np.sum(unlabeled))} samples labeled -1 beside the "
            "label 0: -1 marks an unlabeled sample (scikit-learn's convention "
            "for semi-supervised learning), so they are not learned as a "
            "class. If -1 is a class, encode the labels otherwise (e.g. "
            "sklearn.preprocessing.LabelEncoder).",
            UserWarning,
            stacklevel=5,
        )
