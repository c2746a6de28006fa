"""
=====================================
Multiclass Passive-Aggressive rules
=====================================

The four multiclass rules of :class:`~sklearn_pa.PassiveAggressiveClassifier`
on the digits bundled with scikit-learn: accuracy after each epoch, measured on
a held-out quarter, for the exact all-constraint update (``"support"``), the
single-constraint updates (``"max_loss"``, ``"prediction"``) and one-vs-rest.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_pa import PassiveAggressiveClassifier

X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)

# %%
# One ``partial_fit`` call is one epoch; the same random_state gives every
# rule the same order of samples.
epochs = np.arange(1, 11)
classes = np.unique(y)
fig, ax = plt.subplots(figsize=(6, 4))
for rule in ["support", "max_loss", "prediction", "ovr"]:
    clf = PassiveAggressiveClassifier(multiclass=rule, random_state=0)
    scores = []
    for _ in epochs:
        clf.partial_fit(X_train, y_train, classes=classes)
        scores.append(clf.score(X_test, y_test))
    ax.plot(epochs, scores, marker="o", label=rule)
ax.set_xlabel("epoch")
ax.set_ylabel("held-out accuracy")
ax.set_title("Multiclass PA-I on digits")
ax.legend()
plt.tight_layout()
plt.show()
