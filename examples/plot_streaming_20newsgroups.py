"""
==========================================================
Streaming text classification with ``partial_fit``
==========================================================

Out-of-core learning on 20 Newsgroups: documents arrive in mini-batches, a
stateless :class:`~sklearn.feature_extraction.text.HashingVectorizer` turns
each batch into sparse rows without a fitted vocabulary, and the learner
updates with ``partial_fit``.  Nothing but the current batch and the weights
is ever held in memory, so the same loop works on a stream of any length.

We compare the exact multiclass Passive-Aggressive update (``"support"``),
its averaged version, and scikit-learn's ``SGDClassifier`` with the PA-I
learning rate, the estimator this package replaces.  Held-out accuracy is
measured after each batch.

The data are read from ``$SKLEARN_PA_DATA/sklearn`` when that variable is
set, else from scikit-learn's data home (downloaded on first use).
"""

# %%
import os
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

from sklearn_pa import PassiveAggressiveClassifier

quick = os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1"
data_home = os.environ.get("SKLEARN_PA_DATA")
data_home = str(Path(data_home) / "sklearn") if data_home else None
categories = (
    ["comp.graphics", "rec.autos", "sci.space", "talk.politics.misc"] if quick else None
)
train = fetch_20newsgroups(
    subset="train", categories=categories, data_home=data_home, random_state=0,
    shuffle=True,
)  # fmt: skip
test = fetch_20newsgroups(subset="test", categories=categories, data_home=data_home)
classes = np.unique(train.target)

vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False, norm="l2")
X_test = vectorizer.transform(test.data)

# %%
# The stream: batches of documents in a fixed random order.
batch_size = 250 if quick else 1000


def stream():
    for start in range(0, len(train.data), batch_size):
        stop = start + batch_size
        yield vectorizer.transform(train.data[start:stop]), train.target[start:stop]


learners = {
    "PA-I, support classes": PassiveAggressiveClassifier(C=1.0, random_state=0),
    "PA-I, support classes, averaged": PassiveAggressiveClassifier(
        C=1.0, average=True, random_state=0
    ),
    "scikit-learn SGDClassifier(pa1)": SGDClassifier(
        loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0, random_state=0
    ),
}
curves = {name: [] for name in learners}
seconds = dict.fromkeys(learners, 0.0)
seen = []
for X_batch, y_batch in stream():
    seen.append((seen[-1] if seen else 0) + X_batch.shape[0])
    for name, learner in learners.items():
        tic = time.perf_counter()
        learner.partial_fit(X_batch, y_batch, classes=classes)
        seconds[name] += time.perf_counter() - tic
        curves[name].append(learner.score(X_test, test.target))

for name in learners:
    print(
        f"{name:34s} final accuracy {100 * curves[name][-1]:.2f}%, "
        f"partial_fit time {seconds[name]:.2f} s"
    )

# %%
# Accuracy as the stream goes by.  One pass over the training documents, each
# seen once.
fig, ax = plt.subplots(figsize=(7, 4))
for name, curve in curves.items():
    ax.plot(seen, 100 * np.asarray(curve), marker=".", label=name)
ax.set_xlabel("training documents seen")
ax.set_ylabel("held-out accuracy (%)")
ax.set_title("20 Newsgroups, one pass with HashingVectorizer")
ax.legend()
fig.tight_layout()
plt.show()
