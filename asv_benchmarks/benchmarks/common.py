"""Data, estimators and base classes shared by the benchmarks.

Laid out like scikit-learn's own asv suite: a :class:`Benchmark` base with
the timing attributes, and an :class:`Estimator` mixin whose ``setup_cache``
fits every (parameters) combination once and pickles the fitted estimator,
so that each benchmark process only *loads* the data and the fitted model
in ``setup`` (asv runs every parameter combination of every method in a
process of its own).  The data are generated once and cached on disk with
:class:`joblib.Memory` under ``asv_benchmarks/.cache/`` (ignored by git).

The data are synthetic stand-ins for the standard PA benchmarks:

- ``dense``: a USPS-like problem, 256 dense features and 10 classes
  (7000 training and 2000 test samples).
- ``sparse``: a 20 Newsgroups-like problem, a CSR bag of words over 100000
  features with about 100 non-zeros per row and 20 classes (11000 training
  and 4000 test samples).
- ``regression-dense`` / ``regression-sparse``: Boolean keyword rows and an
  interest in {-2, ..., 2} planted as a sparse linear function (the
  preference-prediction setting), 256 dense or 20000 sparse features
  (8000 training and 2000 test samples).
- ``sequence``: a CoNLL-2000-like chunking problem (1500 training and 500
  test sentences of 5-30 tokens with string features).

Setting the environment variable ``SKLEARN_PA_ASV_SMALL=1`` shrinks every
problem to a few hundred samples (used by the test that runs each suite's
methods directly, without asv).

Only the public API of ``sklearn_pa`` is used, so the suite runs against any
commit of the package.
"""

import itertools
import os
import pickle
import timeit
from abc import ABC, abstractmethod
from pathlib import Path

import joblib
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDRegressor
from sklearn.preprocessing import normalize

RANDOM_STATE = 0
EPOCHS = 3

SMALL = os.environ.get("SKLEARN_PA_ASV_SMALL", "0") not in ("", "0")
CACHE_DIR = Path(
    os.environ.get(
        "SKLEARN_PA_ASV_CACHE", Path(__file__).resolve().parent.parent / ".cache"
    )
)
_memory = joblib.Memory(CACHE_DIR / "data", verbose=0)

# Problem sizes: (full, small).
SIZES = {
    "dense": ({"n_train": 7000, "n_test": 2000}, {"n_train": 300, "n_test": 100}),
    "sparse": (
        {"n_train": 11000, "n_test": 4000, "n_features": 100_000},
        {"n_train": 300, "n_test": 100, "n_features": 3000, "topic_words": 100},
    ),
    "regression-dense": (
        {"n_train": 8000, "n_test": 2000, "n_features": 256, "n_active": 45},
        {"n_train": 300, "n_test": 100, "n_features": 64, "n_active": 12},
    ),
    "regression-sparse": (
        {"n_train": 8000, "n_test": 2000, "n_features": 20_000, "n_active": 45},
        {"n_train": 300, "n_test": 100, "n_features": 2000, "n_active": 20},
    ),
    "sequence": (
        {"n_train": 1500, "n_test": 500},
        {"n_train": 40, "n_test": 20},
    ),
}


def _size(name):
    return SIZES[name][1 if SMALL else 0]


# --------------------------------------------------------------------------
# Data generators (cached on disk by joblib.Memory, keyed on their arguments)


@_memory.cache
def dense_problem(n_train=7000, n_test=2000):
    """USPS-like dense problem: 256 features (64 informative), 10 classes.

    Returns
    -------
    X_train, X_test, y_train, y_test : ndarray
    """
    X, y = make_classification(
        n_samples=n_train + n_test,
        n_features=256,
        n_informative=64,
        n_redundant=0,
        n_classes=10,
        n_clusters_per_class=1,
        class_sep=2.0,
        flip_y=0.01,
        random_state=RANDOM_STATE,
    )
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


@_memory.cache
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


@_memory.cache
def preference_problem(
    n_train=8000,
    n_test=2000,
    n_features=20_000,
    n_active=45,
    n_relevant=100,
    dense=False,
):
    """Boolean keyword rows and an integer interest in {-2, ..., 2}.

    About ``n_active`` of ``n_features`` keywords are set per row; the interest
    is a sparse linear function of ``min(n_relevant, n_features // 2)``
    keywords, shifted, noised, rounded and clipped.

    Returns
    -------
    X_train, X_test : CSR matrix, or ndarray if ``dense``
    y_train, y_test : ndarray of float
    """
    rng = np.random.RandomState(RANDOM_STATE)
    n_samples = n_train + n_test
    X = sp.random(
        n_samples,
        n_features,
        density=n_active / n_features,
        random_state=rng,
        data_rvs=np.ones,
        format="csr",
    )
    n_relevant = min(n_relevant, n_features // 2)
    w = np.zeros(n_features)
    w[rng.choice(n_features, n_relevant, replace=False)] = rng.normal(size=n_relevant)
    # about n_active * n_relevant / n_features relevant keywords per row:
    # keep the planted score of order one when there are many
    w /= max(1.0, np.sqrt(n_active * n_relevant / n_features))
    y = np.clip(np.round(X @ w - 1.5 + 0.5 * rng.normal(size=n_samples)), -2, 2)
    if dense:
        X = X.toarray()
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


@_memory.cache
def tagging_problem(n_train=1500, n_test=500):
    """CoNLL-2000-like chunking problem.

    Sentences of 5-30 tokens, 12 string features per token drawn from a
    vocabulary tied to a hidden first-order chain over 12 labels.

    Returns
    -------
    X_train, X_test : list of list of dict
    y_train, y_test : list of list of str
    """
    rng = np.random.default_rng(0)
    n_labels, vocab = 12, 5000
    trans = rng.dirichlet(np.full(n_labels, 0.3), size=n_labels)
    emit = rng.integers(0, vocab, size=(n_labels, 40))
    X, y = [], []
    for _ in range(n_train + n_test):
        T = int(rng.integers(5, 31))
        z = [int(rng.integers(n_labels))]
        for _ in range(T - 1):
            z.append(int(rng.choice(n_labels, p=trans[z[-1]])))
        sent = []
        for lab in z:
            feats = {"bias": 1.0}
            for j in range(12):
                word = (
                    emit[lab, rng.integers(40)]
                    if rng.random() < 0.6
                    else (rng.integers(vocab))
                )
                feats[f"f{j}"] = f"v{word}"
            sent.append(feats)
        X.append(sent)
        y.append([f"L{lab}" for lab in z])
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


_GENERATORS = {
    "dense": dense_problem,
    "sparse": sparse_problem,
    "regression-dense": lambda **kw: preference_problem(dense=True, **kw),
    "regression-sparse": preference_problem,
    "sequence": tagging_problem,
}
_LOADED = {}


def get_data(name):
    """Return ``(X_train, X_test, y_train, y_test)`` of the problem ``name``.

    ``name`` is one of ``"dense"``, ``"sparse"``, ``"regression-dense"``,
    ``"regression-sparse"`` and ``"sequence"``.  Generated once and cached on
    disk; loaded once per process.
    """
    if name not in _GENERATORS:
        raise ValueError(f"unknown problem {name!r}; use one of {list(_GENERATORS)}")
    key = (name, SMALL)
    if key not in _LOADED:
        _LOADED[key] = _GENERATORS[name](**_size(name))
    return _LOADED[key]


# --------------------------------------------------------------------------
# scikit-learn peers


def registry_estimator(name):
    """The estimator of the benchmark command's registry named ``name``
    (``sklearn_pa.benchmark.REGISTRY``), with ``EPOCHS`` passes: a
    benchmark name and its settings are defined once, there."""
    from sklearn_pa.benchmark import REGISTRY

    return REGISTRY[name].factory(EPOCHS, RANDOM_STATE)


def sgd_pa1_classifier():
    """scikit-learn's one-vs-rest PA-I: ``SGDClassifier(learning_rate="pa1")``
    (the registry's ``sklearn-SGD-pa1``)."""
    return registry_estimator("sklearn-SGD-pa1")


def sgd_pa1_regressor(epsilon=0.1):
    """scikit-learn's PA-I regressor: ``SGDRegressor(learning_rate="pa1")``."""
    return SGDRegressor(
        loss="epsilon_insensitive",
        epsilon=epsilon,
        penalty=None,
        learning_rate="pa1",
        eta0=1.0,
        max_iter=EPOCHS,
        tol=None,
        shuffle=True,
        random_state=RANDOM_STATE,
    )


# --------------------------------------------------------------------------
# Base classes


class Benchmark(ABC):
    """Timing attributes shared by every suite.

    The base classes are abstract (``params``), so that asv, which skips
    abstract classes, does not collect them where they are imported.

    One process per benchmark, one fit per sample (fits take 0.01-5 s), at
    most three samples or 20 s, no warm-up: ``asv run --quick`` runs each
    method once.
    """

    timer = timeit.default_timer
    processes = 1
    number = 1
    repeat = (1, 3, 20.0)
    min_run_count = 1
    rounds = 1
    warmup_time = 0
    timeout = 300

    @property
    @abstractmethod
    def params(self):
        pass


def _cache_folder():
    # one folder, overwritten by each run's setup_cache (about 0.8 GB): the
    # models are refitted for every commit benchmarked, never compared
    return CACHE_DIR / "estimators" / ("small" if SMALL else "full")


def get_estimator_path(benchmark, params):
    """Path of the pickled fitted estimator of ``benchmark`` for ``params``."""
    name = type(benchmark).__name__
    tag = "_".join(str(p) for p in params).replace("/", "-").replace(" ", "")
    return _cache_folder() / f"{name}_{tag}.pkl"


class Estimator(ABC):
    """Fit once in ``setup_cache`` (via :meth:`fit_all`), load in ``setup``.

    Subclasses define ``params`` / ``param_names`` and

    - ``make_data(*params)``: ``(X_train, X_test, y_train, y_test)``
      (``y_train`` may be ``None`` for detectors);
    - ``make_estimator(*params)``: a new unfitted estimator;
    - optionally ``skip_reason(*params)``: a string if the combination does
      not apply (``setup`` then raises ``NotImplementedError``, which asv
      reports as skipped);
    - optionally ``test_score(estimator, X_test, y_test)``.

    ``time_fit`` and ``peakmem_fit`` refit an unfitted clone; the other
    methods use the estimator fitted by ``setup_cache``.  Run without asv
    (no ``setup_cache``), ``setup`` fits and pickles on first use.
    """

    @abstractmethod
    def make_data(self, *params):
        pass

    @abstractmethod
    def make_estimator(self, *params):
        pass

    def skip_reason(self, *params):
        return None

    def test_score(self, estimator, X_test, y_test):
        return estimator.score(X_test, y_test)

    def _fit_and_dump(self, params):
        X_train, _, y_train, _ = self.make_data(*params)
        estimator = self.make_estimator(*params).fit(X_train, y_train)
        path = get_estimator_path(self, params)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            pickle.dump(estimator, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        return estimator

    def fit_all(self):
        """Fit and pickle every applicable parameter combination.

        Each suite calls it from its own ``setup_cache``: asv keys the cache
        on the defining module and line, so an inherited ``setup_cache``
        would be run for one suite only.
        """
        for params in itertools.product(*self.params):
            if self.skip_reason(*params) is None:
                self._fit_and_dump(params)

    def setup(self, *params):
        reason = self.skip_reason(*params)
        if reason is not None:
            raise NotImplementedError(reason)
        self.X_train, self.X_test, self.y_train, self.y_test = self.make_data(*params)
        path = get_estimator_path(self, params)
        if path.exists():
            with open(path, "rb") as f:
                self.fitted = pickle.load(f)
        else:
            self.fitted = self._fit_and_dump(params)
        self.estimator = clone(self.fitted)

    def time_fit(self, *params):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, *params):
        self.estimator.fit(self.X_train, self.y_train)


class Predictor(ABC):
    """``time_predict`` on the test set with the fitted estimator."""

    def time_predict(self, *params):
        self.fitted.predict(self.X_test)

    @property
    @abstractmethod
    def params(self):
        pass


class Detector(ABC):
    """``time_decision_function`` on the test set with the fitted estimator."""

    def time_decision_function(self, *params):
        self.fitted.decision_function(self.X_test)

    @property
    @abstractmethod
    def params(self):
        pass


def score_tracker(unit):
    """A ``track_test_score`` method: ``test_score`` of the fitted estimator."""

    def track_test_score(self, *params):
        return float(self.test_score(self.fitted, self.X_test, self.y_test))

    track_test_score.unit = unit
    return track_test_score
