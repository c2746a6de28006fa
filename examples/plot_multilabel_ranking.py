"""
==========================================
Multilabel ranking with Passive-Aggressive
==========================================

Given a multilabel indicator ``y``, :class:`~sklearn_pa.PassiveAggressiveClassifier`
learns one prototype per label and ranks the relevant labels above a virtual
label of score 0 and that above the irrelevant ones: each step enforces the
most violated of "lowest relevant - highest irrelevant >= 1", "lowest
relevant >= 1/2" and "highest irrelevant <= -1/2".  ``predict`` returns the
labels scoring above 0.

We compare it with one-vs-rest PA-I (one independent binary problem per
label) on 20 Newsgroups where each document also carries its super-category
(``comp``, ``rec``, ``sci``, ``talk``) as a second label, when the data folder
``SKLEARN_PA_DATA`` is available, and on a synthetic multilabel problem
otherwise, with scikit-learn's ranking metrics.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import (
    coverage_error,
    f1_score,
    label_ranking_average_precision_score,
)
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import normalize

from sklearn_pa import PassiveAggressiveClassifier

data_home = os.environ.get("SKLEARN_PA_DATA")
n_samples = 3000  # of the synthetic stand-in
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    data_home = None
    n_samples = 600
# sphinx_gallery_end_ignore
if data_home:
    from sklearn_pa.datasets import fetch_20newsgroups_multilabel

    # scikit-learn's 20 Newsgroups cache lives in the data folder's ``sklearn``
    sklearn_home = os.path.join(data_home, "sklearn")
    X_train, Y_train, X_test, Y_test = (
        array
        for subset in ("train", "test")
        for array in fetch_20newsgroups_multilabel(
            data_home=sklearn_home,
            subset=subset,
            download_if_missing=False,
            return_X_y=True,
        )
    )
    title = "20 Newsgroups + super-categories"
else:
    X, Y = make_multilabel_classification(
        n_samples=n_samples,
        n_features=50,
        n_classes=8,
        n_labels=2,
        allow_unlabeled=True,
        random_state=0,
    )
    X = normalize(X)
    X_train, X_test, Y_train, Y_test = train_test_split(X, Y, random_state=0)
    title = "synthetic multilabel problem"

# %%
models = {
    "PA-I ranking": PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0),
    "one-vs-rest PA-I": OneVsRestClassifier(
        PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0)
    ),
}
results = {}
for name, model in models.items():
    model.fit(X_train, Y_train)
    scores = model.decision_function(X_test)
    results[name] = {
        "LRAP": label_ranking_average_precision_score(Y_test, scores),
        "coverage error": coverage_error(Y_test, scores),
        "micro-F1": f1_score(Y_test, model.predict(X_test), average="micro"),
    }
    print(name, {k: round(v, 4) for k, v in results[name].items()})

# %%
fig, axes = plt.subplots(1, 3, figsize=(10, 3))
for ax, metric in zip(axes, ["LRAP", "coverage error", "micro-F1"]):
    values = [results[name][metric] for name in models]
    ax.bar(np.arange(len(models)), values, color=["C0", "C1"])
    ax.set_xticks(np.arange(len(models)), list(models), rotation=15)
    ax.set_title(metric + (" (lower is better)" if metric == "coverage error" else ""))
fig.suptitle(title)
plt.tight_layout()
plt.show()
