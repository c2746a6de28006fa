"""
=====================================
Cost-sensitive multiclass PA
=====================================

Three overlapping classes where one mistake is expensive: predicting class 1
when the truth is class 0 costs 20, every other mistake costs 1.  With
``cost_matrix`` the Passive-Aggressive classifier asks for a margin
``sqrt(cost)`` against each wrong class, so it keeps class 1 further away from
the examples of class 0.  We stream the data (predict each batch, then learn
it) and plot the cumulative cost ``sum rho(y, y_hat)`` of the cost-blind and
cost-sensitive learners for the three multiclass rules.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from sklearn_pa import PassiveAggressiveClassifier

n_samples = 3000
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    n_samples = 600
# sphinx_gallery_end_ignore
X, y = make_blobs(
    n_samples=n_samples,
    centers=[[0, 0], [1.5, 0], [0.75, 1.3]],
    cluster_std=0.8,
    random_state=0,
)
cost = np.array([[0.0, 20.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])


def cumulative_cost(clf, batch=10):
    """Predict each batch before learning it; return the running cost."""
    running, total = [], 0.0
    for start in range(0, n_samples, batch):
        Xb, yb = X[start : start + batch], y[start : start + batch]
        if start:
            total += cost[yb, clf.predict(Xb)].sum()
        running.append(total)
        clf.partial_fit(Xb, yb, classes=[0, 1, 2])
    return np.arange(len(running)) * batch, np.array(running)


# %%
fig, axes = plt.subplots(1, 3, figsize=(11, 3.5), sharey=True)
for ax, (rule, C) in zip(
    axes, [("support", 0.1), ("max_loss", 0.1), ("prediction", 1.0)]
):
    for label, params in [
        ("cost-blind", {}),
        ("cost-sensitive", {"cost_matrix": cost}),
    ]:
        clf = PassiveAggressiveClassifier(
            multiclass=rule, C=C, random_state=0, **params
        )
        seen, running = cumulative_cost(clf)
        ax.plot(seen, running, label=f"{label}: {running[-1]:.0f}")
    ax.set_title(f"multiclass={rule!r}, C={C}")
    ax.set_xlabel("samples seen")
    ax.legend()
axes[0].set_ylabel("cumulative cost")
plt.tight_layout()
plt.show()

# %%
# The rules that enforce margins on every example (``"support"`` and
# ``"max_loss"``) use the larger margin before the costly mistake happens and
# roughly halve the cost; the prediction-based rule only reacts after a
# mistake and gains less.
