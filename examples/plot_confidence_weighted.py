"""
============================================
Confidence-Weighted learners and label noise
============================================

Exact CW follows every example, so flipped labels pull it around; AROW and
SCW trade the hard constraint for a loss and stay steadier.  Held-out accuracy
on the digits bundled with scikit-learn after a few epochs, as a growing
fraction of the training labels is replaced by random ones, beside the
first-order Passive-Aggressive classifier.
"""

# %%
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    PassiveAggressiveClassifier,
    SCWClassifier,
)
from sklearn_pa.exceptions import NoisyLabelsWarning

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)

# %%
noise_levels = [0.0, 0.1, 0.2, 0.3, 0.4]
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    noise_levels = [0.0, 0.2]
# sphinx_gallery_end_ignore
models = {
    "CW k=1": ConfidenceWeightedClassifier(multiclass="single"),
    "SCCWD": ConfidenceWeightedClassifier(),
    "AROW": AROWClassifier(),
    "SCW-II": SCWClassifier(variant=2),
    "PA-I": PassiveAggressiveClassifier(),
}
rng = np.random.default_rng(0)
fig, ax = plt.subplots(figsize=(6, 4))
for name, model in models.items():
    scores = []
    for noise in noise_levels:
        y_noisy = y_train.copy()
        flip = rng.random(len(y_noisy)) < noise
        y_noisy[flip] = rng.integers(10, size=flip.sum())
        model.set_params(max_iter=3, tol=None, random_state=0)
        # CW warns on noisy labels (NoisyLabelsWarning): the point here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoisyLabelsWarning)
            scores.append(model.fit(X_train, y_noisy).score(X_test, y_test))
    ax.plot(noise_levels, scores, marker="o", label=name)
ax.set_xlabel("fraction of random training labels")
ax.set_ylabel("held-out accuracy")
ax.set_title("Second-order online learners on noisy digits")
ax.legend()
plt.tight_layout()
plt.show()
