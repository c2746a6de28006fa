"""The unlabeled marker of semi-supervised targets (no dependency beyond
NumPy, so that the estimator and its state protocol can both import it)."""

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
