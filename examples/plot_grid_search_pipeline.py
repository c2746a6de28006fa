"""
=================================================
Tuning C in a Pipeline with GridSearchCV
=================================================

Every estimator of the package is an ordinary scikit-learn estimator, so
model selection works as usual: here a
:class:`~sklearn.preprocessing.StandardScaler` and a
:class:`~sklearn_pa.PassiveAggressiveClassifier` in a
:class:`~sklearn.pipeline.Pipeline`, with
:class:`~sklearn.model_selection.GridSearchCV` over the aggressiveness ``C``
and the slack penalty (``loss="hinge"`` is PA-I, ``"squared_hinge"`` PA-II),
on the digits bundled with scikit-learn.

Small ``C`` makes small, cautious steps (robust to label noise); large ``C``
approaches plain PA, which corrects every mistake entirely.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_pa import PassiveAggressiveClassifier

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)

pipe = make_pipeline(
    StandardScaler(), PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0)
)
param_grid = {
    "passiveaggressiveclassifier__C": np.logspace(-4, 2, 7),
    "passiveaggressiveclassifier__loss": ["hinge", "squared_hinge"],
}
search = GridSearchCV(
    pipe, param_grid, cv=StratifiedKFold(5, shuffle=True, random_state=0), n_jobs=1
)
search.fit(X_train, y_train)
print("best parameters:", search.best_params_)
print(f"cross-validated accuracy: {search.best_score_:.4f}")
print(f"held-out accuracy: {search.score(X_test, y_test):.4f}")

# %%
# Cross-validated accuracy against C, for PA-I and PA-II.
results = search.cv_results_
Cs = param_grid["passiveaggressiveclassifier__C"]
fig, ax = plt.subplots(figsize=(6, 4))
for loss, label in [("hinge", "PA-I"), ("squared_hinge", "PA-II")]:
    mask = results["param_passiveaggressiveclassifier__loss"] == loss
    ax.errorbar(
        Cs,
        results["mean_test_score"][mask],
        yerr=results["std_test_score"][mask],
        marker="o",
        capsize=3,
        label=label,
    )
ax.set_xscale("log")
ax.set_xlabel("C")
ax.set_ylabel("cross-validated accuracy")
ax.set_title("PassiveAggressiveClassifier in a Pipeline, digits")
ax.legend()
fig.tight_layout()
plt.show()
