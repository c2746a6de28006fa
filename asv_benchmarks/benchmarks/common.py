"""Data and estimators shared by the benchmarks.

The data are synthetic stand-ins for the two standard PA benchmarks, made
deterministically and cached per process:

- ``dense``: a USPS-like problem, 256 dense features and 10 classes
  (7000 training and 2000 test samples).
- ``sparse``: a 20 Newsgroups-like problem, a CSR bag of words over 100000
  features with about 100 non-zeros per row and 20 classes (11000 training
  and 4000 test samples).

Only the public API of ``sklearn_pa`` is used, so the suite runs against any
commit of the package.
"""

from functools import cache

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import normalize

from sklearn_pa import PassiveAggressiveClassifier

RANDOM_STATE = 0
EPOCHS = 3


@cache
def dense_problem():
    """USPS-like dense problem.

    Returns
    -------
    X_train, X_test, y_train, y_test : ndarray
        7000 and 2000 samples with 256 features (64 informative), 10 classes.
    """
    X, y = make_classification(
        n_samples=9000,
        n_features=256,
        n_informative=64,
        n_redundant=0,
        n_classes=10,
        n_clusters_per_class=1,
        class_sep=2.0,
        flip_y=0.01,
        random_state=RANDOM_STATE,
    )
    return X[:7000], X[7000:], y[:7000], y[7000:]


@cache
def sparse_problem(
    n_train=11000,
    n_test=4000,
    n_features=100_000,
    n_classes=20,
    n_tokens=100,
    topic_words=2000,
    topic_fraction=0.15,
):
    """20 Newsgroups-like sparse problem with a planted linear model.

    Each document draws a class, then ``n_tokens`` words: a fraction
    ``topic_fraction`` (on average) from its class's own vocabulary of
    ``topic_words`` words, the rest from a Zipf-like background over all
    ``n_features`` words.  Features are ``log(1 + count)``, rows scaled to
    unit norm, as for tf-idf text.  The log-odds of the generating
    distributions are linear in the counts, so a linear model separates the
    classes up to the noise of the background words.

    Returns
    -------
    X_train, X_test : scipy.sparse.csr_matrix
        ``n_train`` and ``n_test`` rows, ``n_features`` columns.
    y_train, y_test : ndarray
        Labels in ``range(n_classes)``.
    """
    rng = np.random.default_rng(RANDOM_STATE)
    n_samples = n_train + n_test
    y = rng.integers(n_classes, size=n_samples)

    rank = rng.permutation(n_features)
    background = 1.0 / (rank + 10.0)
    background_cdf = np.cumsum(background / background.sum())
    topics = np.stack(
        [rng.choice(n_features, topic_words, replace=False) for _ in range(n_classes)]
    )

    from_topic = rng.random((n_samples, n_tokens)) < topic_fraction
    topic_tokens = topics[y[:, None], rng.integers(topic_words, size=from_topic.shape)]
    background_tokens = np.searchsorted(
        background_cdf, rng.random(from_topic.shape), side="right"
    )
    background_tokens = np.minimum(background_tokens, n_features - 1)
    tokens = np.where(from_topic, topic_tokens, background_tokens)

    X = sp.csr_matrix(
        (
            np.ones(tokens.size),
            tokens.ravel(),
            np.arange(0, tokens.size + 1, n_tokens),
        ),
        shape=(n_samples, n_features),
    )
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    X = normalize(X)
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def get_data(representation):
    """Return ``(X_train, X_test, y_train, y_test)`` for ``"dense"`` or ``"sparse"``."""
    if representation == "dense":
        return dense_problem()
    if representation == "sparse":
        return sparse_problem()
    raise ValueError(f"unknown representation {representation!r}")


def _pa(**params):
    return PassiveAggressiveClassifier(
        C=1.0,
        loss="hinge",
        max_iter=EPOCHS,
        tol=None,
        shuffle=True,
        random_state=RANDOM_STATE,
        **params,
    )


ESTIMATORS = {
    "PA-I": lambda: _pa(multiclass="support"),
    "PA-I-maxloss": lambda: _pa(multiclass="max_loss"),
    "PA-I-ovr": lambda: _pa(multiclass="ovr"),
    "sklearn-SGD-pa1": lambda: SGDClassifier(
        loss="hinge",
        penalty=None,
        learning_rate="pa1",
        eta0=1.0,
        max_iter=EPOCHS,
        tol=None,
        shuffle=True,
        random_state=RANDOM_STATE,
    ),
}


def make_estimator(name):
    """Return a new unfitted estimator from :data:`ESTIMATORS`."""
    return ESTIMATORS[name]()
