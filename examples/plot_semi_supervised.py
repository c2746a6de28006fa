"""
=====================================================
Semi-supervised online learning: ss-PA and ss-SPA
=====================================================

:class:`~sklearn_pa.OnlineBayesPointClassifier` keeps M copies of a
Passive-Aggressive learner that each learn from a labeled sample with
probability pi.  Samples labeled ``-1`` are unlabeled: with
``unlabeled_step=c > 0`` every copy moves its scores on them toward the
copies' mean (ss-PA with the max-loss rule, ss-SPA with the support-class
rule).

We hide the labels of part of the training stream and compare the supervised
Bayes point machine (``unlabeled_step=0``, the unlabeled samples are ignored)
with the semi-supervised one, for several fractions of labeled samples.  With
the benchmark data folder (environment variable ``SKLEARN_PA_DATA``) the
data are a 7-newsgroup subset of 20 Newsgroups, as in the benchmark
``python -m sklearn_pa.benchmark --dataset 20newsgroups-semi``; otherwise the
digits bundled with scikit-learn.
"""

# %%
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_pa import OnlineBayesPointClassifier, PassiveAggressiveClassifier

data_home = os.environ.get("SKLEARN_PA_DATA")
n_estimators, epochs = 30, 5
fractions = [0.05, 0.1, 0.2, 0.4]
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    data_home = None
    n_estimators, epochs = 5, 2
    fractions = [0.05, 0.2]
# sphinx_gallery_end_ignore
if data_home:
    from sklearn_pa.datasets import fetch_20newsgroups_subset

    X, y = fetch_20newsgroups_subset(
        "sb-7-1",
        data_home=os.path.join(data_home, "sklearn"),
        download_if_missing=False,
        return_X_y=True,
    )
    name = "20 Newsgroups, 7 groups"
else:
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    name = "digits"
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)

# %%
# Hide all labels but a fraction (-1 marks an unlabeled sample), then fit the
# supervised and the semi-supervised machine on the same stream (same hidden
# labels, same random_state: the same shuffling and Bernoulli draws).
rng = np.random.RandomState(0)
hidden = {f: rng.random_sample(y_train.shape[0]) > f for f in fractions}
results = {}
# -1 hides the labels on purpose here.  ``fit`` warns when -1 sits beside a
# label 0, in case -1 was meant as a class; that one warning is silenced.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "y holds .* labeled -1", UserWarning)
    for rule, label in [("max_loss", "PA"), ("support", "SPA")]:
        for step in [0.0, 1.0]:
            scores = []
            for fraction in fractions:
                y_semi = y_train.copy()
                y_semi[hidden[fraction]] = -1
                clf = OnlineBayesPointClassifier(
                    PassiveAggressiveClassifier(C=np.inf, multiclass=rule),
                    n_estimators=n_estimators,
                    update_probability=0.8,
                    unlabeled_step=step,
                    max_iter=epochs,
                    tol=None,
                    random_state=0,
                )
                scores.append(clf.fit(X_train, y_semi).score(X_test, y_test))
            kind = "ss-" + label if step else label
            results[kind] = scores
            print(kind, np.round(scores, 3))

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for kind, scores in results.items():
    ax.plot(
        fractions,
        scores,
        marker="o",
        linestyle="-" if kind.startswith("ss-") else "--",
        label=kind,
    )
ax.set_xscale("log")
ax.set_xlabel("fraction of labeled training samples")
ax.set_ylabel("held-out accuracy")
ax.set_title(f"Online Bayes point machines, M={n_estimators} ({name})")
ax.legend()
plt.tight_layout()
plt.show()
