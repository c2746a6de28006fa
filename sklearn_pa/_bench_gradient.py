"""Regression part of ``python -m sklearn_pa.benchmark``: online square loss.

Data sets (``--dataset``):

- ``preference``: the setting of Nakamura et al.: 20 Newsgroups posts (read
  from ``<data folder>/sklearn`` without downloading) in time order, as
  Boolean keyword vectors (alphabetic tokens of 3+ letters, English stop
  words removed, words of at least 2 documents), with a simulated reader's
  interest in {-2, ..., 2} given by the newsgroup plus noise.  The first
  3000 posts.
- ``preference-synthetic``: the same shape without the data folder: Boolean
  sparse rows, a planted sparse linear interest, rounded and clipped to
  {-2, ..., 2}.

Protocol: each estimator makes ``--epochs`` passes of ``fit`` (fit time), and
is scored by progressive validation, one pass over the stream in order
(predict each post, then learn it): the mean online square loss.  The peer
is scikit-learn's ``SGDRegressor`` with a constant learning rate (plain SGD
on the square loss, the same rule as GD with ``eta_scaling="constant"``).
Its progressive validation runs through the per-sample predict /
``partial_fit`` loop (it has no one-pass path), whose time is reported too.
"""

import re
import time
from email.utils import parsedate_to_datetime

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import SGDRegressor
from sklearn.utils import Bunch

from ._gradient import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)
from .model_selection import progressive_val_score

REGRESSION_DATASETS = ("preference", "preference-synthetic")

#: The simulated reader's interest in each newsgroup (-2: none, 2: high).
GROUP_INTEREST = {
    "alt.atheism": -2,
    "comp.graphics": 1,
    "comp.os.ms-windows.misc": -1,
    "comp.sys.ibm.pc.hardware": -1,
    "comp.sys.mac.hardware": 0,
    "comp.windows.x": 1,
    "misc.forsale": -2,
    "rec.autos": -2,
    "rec.motorcycles": -2,
    "rec.sport.baseball": -2,
    "rec.sport.hockey": -2,
    "sci.crypt": 0,
    "sci.electronics": -1,
    "sci.med": -1,
    "sci.space": 2,
    "soc.religion.christian": -2,
    "talk.politics.guns": -2,
    "talk.politics.mideast": -2,
    "talk.politics.misc": -2,
    "talk.religion.misc": -2,
}

_DATE = re.compile(r"^Date:\s*(.+)$", re.MULTILINE)


def _post_time(text):
    match = _DATE.search(text)
    if match is None:
        return np.nan
    try:
        return parsedate_to_datetime(match.group(1).strip()).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return np.nan


def _body(text):
    """The post without its headers (which name the newsgroup), plus its
    subject line."""
    head, _, body = text.partition("\n\n")
    subject = re.search(r"^Subject:(.*)$", head, re.MULTILINE)
    return (subject.group(1) if subject else "") + "\n" + body


def newsgroups_preference(sklearn_home, n_docs=3000, noise=0.5, random_state=0):
    """20 Newsgroups posts in time order and a simulated reader's interest.

    Returns a Bunch with the posts' texts (headers removed), their interest
    ``y`` in {-2, ..., 2} (the newsgroup's interest plus Gaussian noise of
    scale ``noise``, rounded and clipped), ``group`` and ``time``.
    """
    from sklearn.datasets import fetch_20newsgroups

    data = fetch_20newsgroups(
        data_home=str(sklearn_home),
        subset="all",
        download_if_missing=False,
        shuffle=False,
    )
    times = np.array([_post_time(text) for text in data.data])
    times = np.where(np.isfinite(times), times, np.nanmedian(times))
    order = np.argsort(times, kind="stable")[:n_docs]
    names = np.asarray(data.target_names)[np.asarray(data.target)[order]]
    rng = np.random.RandomState(random_state)
    interest = np.array([GROUP_INTEREST[name] for name in names], dtype=float)
    y = np.clip(np.round(interest + noise * rng.normal(size=order.size)), -2, 2)
    return Bunch(
        texts=[_body(data.data[i]) for i in order],
        y=y,
        group=names,
        time=times[order],
    )


def keyword_vectorizer(**params):
    """Boolean keyword features: alphabetic tokens of 3+ letters, English
    stop words removed (the seed's "nouns-ish" keywords)."""
    from sklearn.feature_extraction.text import CountVectorizer

    defaults = dict(
        binary=True,
        lowercase=True,
        token_pattern=r"(?u)\b[a-zA-Z]{3,}\b",
        stop_words="english",
        min_df=2,
        dtype=np.float64,
    )
    defaults.update(params)
    return CountVectorizer(**defaults)


def _synthetic(n_docs=3000, n_features=5000, n_relevant=50, random_state=0):
    rng = np.random.RandomState(random_state)
    X = sp.random(
        n_docs,
        n_features,
        density=45.0 / n_features,
        random_state=rng,
        data_rvs=np.ones,
        format="csr",
    )
    w = np.zeros(n_features)
    w[rng.choice(n_features, n_relevant, replace=False)] = rng.normal(
        scale=1.0, size=n_relevant
    )
    score = X @ w - 1.5 + 0.5 * rng.normal(size=n_docs)
    return X, np.clip(np.round(score), -2, 2)


def load_regression_dataset(name, data_home):
    """``load_dataset`` for the regression data sets (see the module)."""
    if name == "preference-synthetic":
        X, y = _synthetic()
    else:
        if data_home is None:
            raise FileNotFoundError(
                "The preference data set needs 20 Newsgroups in a data folder "
                "(its 'sklearn' subfolder): pass --data-home DIR or set "
                "SKLEARN_PA_DATA=DIR."
            )
        try:
            stream = newsgroups_preference(data_home / "sklearn")
        except OSError as exc:
            raise FileNotFoundError(
                f"20 Newsgroups not found in {data_home / 'sklearn'}; nothing is "
                f"downloaded. ({exc})"
            ) from exc
        X = keyword_vectorizer().fit_transform(stream.texts).tocsr()
        y = stream.y
    return Bunch(name=name, X=X, y=y, X_test=None, y_test=None, protocol="online")


def _ours(cls, **params):
    def factory(epochs, random_state):
        return cls(max_iter=epochs, tol=None, random_state=random_state, **params)

    return factory


def _sgd_constant(epochs, random_state):
    return SGDRegressor(
        loss="squared_error",
        penalty=None,
        learning_rate="constant",
        eta0=0.01,
        max_iter=epochs,
        tol=None,
        random_state=random_state,
    )


#: Regression entries of the benchmark registry: fixed, moderate rates (the
#: example ``plot_preference_prediction.py`` tunes them on the stream).
REGRESSION_ESTIMATORS = {
    "GD": _ours(GradientDescentRegressor, eta=0.1),
    "GD-constant": _ours(GradientDescentRegressor, eta=0.005, eta_scaling="constant"),
    "EG": _ours(ExponentiatedGradientRegressor, eta=1e-3, total_weight=20.0),
    "DPAU": _ours(ErrorProportionalRegressor, C=0.2),
    "DPMU": _ours(ErrorProportionalRegressor, C=0.2, update="multiplicative"),
    "sklearn-SGD-constant": _sgd_constant,
}

DEFAULT_REGRESSION_ESTIMATORS = list(REGRESSION_ESTIMATORS)


def run_regression_benchmark(data, names, *, epochs, random_state, log):
    """Fit time over ``epochs`` passes and progressive-validation loss."""
    names = DEFAULT_REGRESSION_ESTIMATORS if names is None else names
    unknown = [name for name in names if name not in REGRESSION_ESTIMATORS]
    if unknown:
        raise ValueError(
            f"{', '.join(unknown)} cannot run on a regression data set; use "
            f"{', '.join(REGRESSION_ESTIMATORS)}."
        )
    X, y = data.X, data.y
    log(
        f"{data.name}: {X.shape[0]} samples x {X.shape[1]} features, regression; "
        f"{epochs} epochs (fit) and one progressive pass"
    )
    rows = []
    reference = None
    for name in names:
        estimator = REGRESSION_ESTIMATORS[name](epochs, random_state)
        peer = type(estimator).__module__.split(".")[0] == "sklearn"
        if reference is None and peer:
            reference = name
        fitted = clone(estimator)
        start = time.perf_counter()
        fitted.fit(X, y)
        fit_time = time.perf_counter() - start
        online = clone(estimator).set_params(shuffle=False)
        start = time.perf_counter()
        result = progressive_val_score(online, X, y, return_curve=True)
        online_time = time.perf_counter() - start
        rows.append(
            {
                "task": "regression",
                "dataset": data.name,
                "protocol": "progressive validation",
                "estimator": name,
                "n_splits": 1,
                "epochs": epochs,
                "random_state": random_state,
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_classes": None,
                "online_mse": -result.score,
                "cumulative_loss": float(result.cumulative_loss[-1]),
                "progressive_time": online_time,
                "fit_time_mean": fit_time,
                "fit_time_std": None,
            }
        )
        log(
            f"  {name}: online MSE {-result.score:.4f}, fit {fit_time:.3g} s, "
            f"progressive {online_time:.3g} s"
        )
    ref_time = None
    if reference is not None:
        ref_time = next(r["fit_time_mean"] for r in rows if r["estimator"] == reference)
    for row in rows:
        row["reference"] = reference
        row["fit_time_ratio"] = row["fit_time_mean"] / ref_time if ref_time else None
    return rows


def title(rows):
    first = rows[0]
    return (
        f"{first['dataset']} ({first['n_samples']} x {first['n_features']}, "
        f"regression): {first['epochs']} epochs for the fit time, one "
        "progressive-validation pass for the online loss, "
        f"random_state={first['random_state']}"
    )


def cells(rows, ratio_header, seconds):
    header = [
        "estimator",
        "online MSE",
        "progressive (s)",
        "fit time (s)",
        ratio_header,
    ]
    body = []
    for row in rows:
        ratio = row["fit_time_ratio"]
        body.append(
            [
                row["estimator"],
                f"{row['online_mse']:.4f}",
                seconds(row["progressive_time"]),
                seconds(row["fit_time_mean"]),
                "n/a" if ratio is None else f"{ratio:.2f}",
            ]
        )
    return header, body
