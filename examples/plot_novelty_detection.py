"""
=============================================
Novelty detection with the uniclass PA ball
=============================================

:class:`~sklearn_pa.PassiveAggressiveOneClass` learns a ball online: a centre
and a radius.  Here it is trained on the images of a single digit and asked to
flag the other nine digits as novelties, as scikit-learn's online one-class SVM
(:class:`~sklearn.linear_model.SGDOneClassSVM`) would be.

The ranking of the test samples (ROC AUC) depends on the centre only; whether a
sample is *predicted* normal depends on the radius too, which
``epsilon="learn"`` learns from the stream (it starts at 0 and grows, up to the
bound ``epsilon_bound``).
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import SGDOneClassSVM
from sklearn.metrics import balanced_accuracy_score, roc_auc_score, roc_curve
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_pa import PassiveAggressiveOneClass

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, random_state=0, stratify=y
)

# %%
# Three detectors: the PA ball on standardised pixels (the scaler is fit on
# the normal digit only, as the detector is), the linear one-class SVM on raw
# pixels (standardising would put the normal class at the origin it separates
# from), and the one-class SVM on an RBF Nystroem feature map, scikit-learn's
# recipe for a non-linear online detector.
detectors = {
    "PA ball (learned radius)": lambda: make_pipeline(
        StandardScaler(),
        PassiveAggressiveOneClass(
            C=0.1, epsilon="learn", epsilon_bound=10.0, random_state=0
        ),
    ),
    "SGDOneClassSVM (linear)": lambda: SGDOneClassSVM(nu=0.1, random_state=0),
    "SGDOneClassSVM (Nystroem RBF)": lambda: make_pipeline(
        Nystroem(gamma=1e-3, n_components=80, random_state=0),
        SGDOneClassSVM(nu=0.1, random_state=0),
    ),
}

digits = list(range(10))
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    digits = [0, 3]
# sphinx_gallery_end_ignore
auc = {name: [] for name in detectors}
bacc = {name: [] for name in detectors}
curves = {}
for digit in digits:
    truth = (y_test == digit).astype(int)
    for name, make in detectors.items():
        model = make().fit(X_train[y_train == digit])
        score = model.decision_function(X_test)
        auc[name].append(roc_auc_score(truth, score))
        bacc[name].append(balanced_accuracy_score(truth, model.predict(X_test) == 1))
        if digit == digits[0]:
            curves[name] = roc_curve(truth, score)

for name in detectors:
    print(
        f"{name:30s} ROC AUC {np.mean(auc[name]):.3f} (worst digit "
        f"{np.min(auc[name]):.3f}), balanced accuracy of predict "
        f"{np.mean(bacc[name]):.3f}"
    )

# %%
# ROC curves for the first normal digit, and the ROC AUC for each digit.
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
for name, (fpr, tpr, _) in curves.items():
    ax1.plot(fpr, tpr, label=name)
ax1.plot([0, 1], [0, 1], color="grey", linestyle=":")
ax1.set_xlabel("false positive rate")
ax1.set_ylabel("true positive rate")
ax1.set_title(f"normal digit {digits[0]}")
ax1.legend(loc="lower right")
width = 0.8 / len(detectors)
for k, name in enumerate(detectors):
    ax2.bar(np.arange(len(digits)) + k * width, auc[name], width, label=name)
ax2.set_xticks(np.arange(len(digits)) + 0.4 - width / 2, digits)
ax2.set_xlabel("normal digit")
ax2.set_ylabel("ROC AUC")
ax2.set_ylim(0, 1.05)
plt.tight_layout()
plt.show()

# %%
# The ball beats the linear one-class SVM clearly; the RBF feature map lets
# the SVM describe a digit more finely than one Euclidean ball can.  The ball
# costs one pass over each sample's non-zeros and gives a radius that
# ``predict`` uses directly, with no ``nu`` to set.
