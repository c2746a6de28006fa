"""
==========================================================
Streaming text classification with ``partial_fit``
==========================================================

Out-of-core learning on 20 Newsgroups: documents arrive in mini-batches, a
stateless :class:`~sklearn.feature_extraction.text.HashingVectorizer` turns
each batch into sparse rows without a fitted vocabulary, and the learner
updates with ``partial_fit``.  Nothing but the current batch and the weights
is ever held in memory, so the same loop works on a stream of any length.

We compare the exact multiclass Passive-Aggressive update (``"support"``)
with its last iterate (``average=False``) and averaged (the default), and
scikit-learn's ``SGDClassifier`` with the PA-I
learning rate, the estimator this package replaces.  First by progressive
validation (:func:`~sklearn_pa.model_selection.progressive_val_score`): each
document is predicted before it is learned, straight from a generator of
batches through a pipeline; then by held-out accuracy after each batch.

The data are read from ``$SKLEARN_PA_DATA/sklearn`` when that variable is
set, else from scikit-learn's data home when 20 Newsgroups is already there.
Without either, the example says so and runs on the digits bundled with
scikit-learn (a stateless :class:`~sklearn.preprocessing.Normalizer` then
takes the vectorizer's place), so that it never downloads.
"""

# %%
import os
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import fetch_20newsgroups, load_digits
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa.model_selection import progressive_val_score

categories = None
batch_size = 1000
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    categories = ["comp.graphics", "rec.autos", "sci.space", "talk.politics.misc"]
    batch_size = 250
# sphinx_gallery_end_ignore


def load_data():
    """(train documents, train labels, test documents, test labels, vectorizer,
    batch size)."""
    data_home = os.environ.get("SKLEARN_PA_DATA")
    data_home = str(Path(data_home) / "sklearn") if data_home else None
    kwargs = dict(categories=categories, data_home=data_home, download_if_missing=False)
    try:
        train = fetch_20newsgroups(
            subset="train", shuffle=True, random_state=0, **kwargs
        )
        test = fetch_20newsgroups(subset="test", **kwargs)
    except OSError:
        print(
            "20 Newsgroups is not available offline (set SKLEARN_PA_DATA, or run "
            "sklearn.datasets.fetch_20newsgroups once): using the digits bundled "
            "with scikit-learn instead."
        )
        X, y = load_digits(return_X_y=True)
        half = len(y) // 2
        return X[:half], y[:half], X[half:], y[half:], Normalizer(), 100
    vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False, norm="l2")
    return train.data, train.target, test.data, test.target, vectorizer, batch_size


docs_train, y_train, docs_test, y_test, vectorizer, batch_size = load_data()
classes = np.unique(y_train)
print(f"{len(y_train)} training and {len(y_test)} test documents")


def read_stream():
    """The stream: batches of documents in a fixed random order (in practice,
    a generator reading files from disk)."""
    for start in range(0, len(y_train), batch_size):
        stop = start + batch_size
        yield docs_train[start:stop], y_train[start:stop]


def learners():
    return {
        "PA-I, support classes, last iterate": PassiveAggressiveClassifier(
            C=1.0, average=False, random_state=0
        ),
        # the default: a partial_fit stream is averaged from its first sample
        "PA-I, support classes, averaged": PassiveAggressiveClassifier(
            C=1.0, random_state=0
        ),
        "scikit-learn SGDClassifier(pa1)": SGDClassifier(
            loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0, random_state=0
        ),
    }


# %%
# Progressive validation
# ----------------------
# Each document is predicted by the model learned from the documents before
# it, then learned: the whole stream is a test set and a training set at
# once.  The pipeline's ``HashingVectorizer`` is stateless, so only the last
# step learns.  The package's learners, averaged or not, record each
# prediction inside their compiled ``partial_fit`` pass; ``SGDClassifier``
# goes through a predict-then-learn loop per batch, so it predicts a whole
# batch before learning any of it, and its first batch is not scored.
results = {}
for name, learner in learners().items():
    tic = time.perf_counter()
    results[name] = progressive_val_score(
        make_pipeline(vectorizer, learner),
        read_stream(),
        classes=classes,
        return_curve=True,
    )
    print(
        f"{name:34s} online accuracy {100 * results[name].score:.2f}% "
        f"({time.perf_counter() - tic:.2f} s)"
    )

# The mistake rate so far counts the predicted documents only: the curve of
# ``SGDClassifier`` starts after its first batch, which it could not predict.
fig, ax = plt.subplots(figsize=(7, 4))
for name, result in results.items():
    n_seen = np.arange(1, len(result.cumulative_loss) + 1)
    unscored = len(result.cumulative_loss) - result.n_predicted
    rate = result.cumulative_loss[unscored:] / (n_seen[unscored:] - unscored)
    ax.plot(n_seen[unscored:], 100 * rate, label=name)
ax.set_xlabel("training documents seen")
ax.set_ylabel("online mistake rate so far (%)")
ax.set_ylim(0, 100)
ax.set_title("Progressive validation: predict each document, then learn it")
ax.legend()
fig.tight_layout()

# %%
# Held-out accuracy along the stream
# ----------------------------------
# The same stream learned with ``partial_fit`` by hand, scoring the test
# documents after each batch.
X_test = vectorizer.transform(docs_test)
models = learners()
curves = {name: [] for name in models}
seconds = dict.fromkeys(models, 0.0)
seen = []
for docs_batch, y_batch in read_stream():
    X_batch = vectorizer.transform(docs_batch)
    seen.append((seen[-1] if seen else 0) + X_batch.shape[0])
    for name, learner in models.items():
        tic = time.perf_counter()
        learner.partial_fit(X_batch, y_batch, classes=classes)
        seconds[name] += time.perf_counter() - tic
        curves[name].append(learner.score(X_test, y_test))

for name in models:
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
