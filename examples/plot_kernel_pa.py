"""
===========================================
Kernel Passive-Aggressive decision boundary
===========================================

:class:`~sklearn_pa.KernelPassiveAggressiveClassifier` runs the PA updates in
the feature space of a kernel: the model is a weighted sum of kernel functions
centred on the samples that took a step (the support vectors).  On XOR-like
data no linear model does better than chance, while an RBF kernel separates the
four quadrants.  A budget bounds the number of support vectors, hence memory
and prediction time, on a long stream.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from sklearn_pa import KernelPassiveAggressiveClassifier, PassiveAggressiveClassifier

n = 1000
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    n = 300
# sphinx_gallery_end_ignore
rng = np.random.RandomState(0)
X = rng.uniform(-1, 1, size=(n, 2))
y = (X[:, 0] * X[:, 1] > 0).astype(int)
flip = rng.rand(n) < 0.05  # 5% label noise
y[flip] = 1 - y[flip]
X_test = rng.uniform(-1, 1, size=(2000, 2))
y_test = (X_test[:, 0] * X_test[:, 1] > 0).astype(int)

models = {
    "linear PA-I": PassiveAggressiveClassifier(random_state=0),
    "RBF kernel PA-I": KernelPassiveAggressiveClassifier(gamma=3.0, random_state=0),
    "RBF kernel PA-I, budget 40": KernelPassiveAggressiveClassifier(
        gamma=3.0, budget=40, random_state=0
    ),
}

# %%
xx, yy = np.meshgrid(np.linspace(-1, 1, 150), np.linspace(-1, 1, 150))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, len(models), figsize=(13, 4.2))
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X, y)
    score = model.score(X_test, y_test)
    z = model.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, z, levels=20, cmap="RdBu", alpha=0.6)
    ax.contour(xx, yy, z, levels=[0], colors="k")
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", s=6, edgecolors="none")
    title = f"{name}\ntest accuracy {score:.2f}"
    if hasattr(model, "support_vectors_"):
        sv = model.support_vectors_
        ax.scatter(sv[:, 0], sv[:, 1], s=25, facecolors="none", edgecolors="k")
        title += f", {sv.shape[0]} support vectors"
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    print(title.replace("\n", ": "))
plt.tight_layout()
plt.show()
