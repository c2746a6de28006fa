"""The benchmark's data: one loader per data set, over :mod:`sklearn_pa.datasets`.

:func:`load_dataset` reads every named data set from the data folder
(``--data-home``, else the environment variable ``SKLEARN_PA_DATA``) without
downloading; the synthetic streams are generated here too.
"""

import functools
import os
import re
from email.utils import parsedate_to_datetime
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

__all__ = [
    "DATASETS",
    "DATA_ENV",
    "block_bounds",
    "load_dataset",
    "load_subset",
    "make_stream_block",
    "resolve_data_home",
    "sparse_stream",
]

#: Environment variable naming the folder that holds the benchmark data.
DATA_ENV = "SKLEARN_PA_DATA"

#: Every data set of the benchmark command, with one line of description.
DATASETS = {
    "digits": "scikit-learn's bundled digits (1797 x 64, 10 classes), CV",
    "usps": "USPS usps_esl training images (7291 x 256), CV",
    "usps-libsvm": "LIBSVM's usps.t (2007 x 256, the paper's pixels), CV",
    "20newsgroups": "20 Newsgroups vectorized, train/test split",
    "20newsgroups-cv": "20 Newsgroups vectorized, train and test together, CV",
    "20newsgroups-multilabel": "20 Newsgroups with super-category labels, ranking",
    "20newsgroups-semi": "20 Newsgroups subsets, semi-supervised OBPM (ss-PA)",
    "conll2000": "CoNLL-2000 chunking (NLTK's conll2000.zip), sequence tagging",
    "preference": "20 Newsgroups posts in time order, a reader's interest",
    "preference-synthetic": "a synthetic preference stream (needs no data)",
    "stream-memory": "synthetic sparse stream, peak memory of partial_fit",
    "stream-latency": "20 Newsgroups a few rows at a time, time per call",
    "stream-2m": "synthetic sparse stream, parameter mixing on Dask",
    "stream-file": "a svmlight file it writes, streamed against loaded",
    "20newsgroups-dtype": "20 Newsgroups, fit time and memory of float32 input",
    "stream-4m-dtype": "stream-2m's rows (4M), fit time and memory of float32",
    "20newsgroups-persistence": "20 Newsgroups, a model saved and loaded per format",
    "20newsgroups-calibration": "20 Newsgroups streamed, calibrated probabilities",
    "usps-calibration": "USPS streamed (a fifth held out), calibrated probabilities",
    "drift": "a rotating hyperplane (abrupt and gradual changes), prequential",
    "20newsgroups-drift": "20 Newsgroups streamed, classes swapped (abrupt, gradual)",
}

_USPS_FILES = ("usps/usps_esl.bz2", "usps/usps_esl.t.bz2")
_USPS_LIBSVM_FILES = ("usps/usps.t.bz2",)
_DATE = re.compile(r"^Date:\s*(.+)$", re.MULTILINE)


def resolve_data_home(data_home):
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return None


def _load_digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return Bunch(
        name="digits",
        X=X,
        y=y,
        X_test=None,
        y_test=None,
        protocol="cv",
    )


def _load_usps(data_home):
    from ..datasets import fetch_usps

    root = resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The usps data set needs a data folder holding "
            f"{' and '.join(_USPS_FILES)}: pass --data-home DIR (data_home=DIR) "
            f"or set the environment variable {DATA_ENV}=DIR."
        )
    train, test = (
        fetch_usps(data_home=root, subset=subset, variant="esl")
        for subset in ("train", "test")
    )
    return Bunch(
        name="usps",
        X=train.data,
        y=train.target,
        X_test=test.data,
        y_test=test.target,
        protocol="cv",
    )


def _load_usps_libsvm(data_home):
    from ..datasets import fetch_usps

    root = resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The usps-libsvm data set needs a data folder holding "
            f"{' and '.join(_USPS_LIBSVM_FILES)}: pass --data-home DIR "
            f"(data_home=DIR) or set the environment variable {DATA_ENV}=DIR."
        )
    test = fetch_usps(
        data_home=root, subset="test", variant="libsvm", download_if_missing=False
    )
    return Bunch(
        name="usps-libsvm",
        X=test.data,
        y=test.target,
        X_test=None,
        y_test=None,
        protocol="cv",
    )


def _20newsgroups_not_found(root, sklearn_home, exc):
    """The error for a data folder without the 20 Newsgroups cache."""
    where = (
        f"the data folder {root} (its 'sklearn' subfolder)"
        if root is not None
        else f"scikit-learn's default data home {sklearn_home} (no data "
        f"folder given: pass --data-home DIR or set {DATA_ENV}=DIR)"
    )
    return FileNotFoundError(
        f"20 Newsgroups not found in {where}. It must be a scikit-learn "
        "data home holding the fetch_20newsgroups cache "
        "(20news-bydate_py3.pkz or 20newsgroup_vectorized_py3.pkl); "
        f"nothing is downloaded. ({exc})"
    )


def _load_20newsgroups(data_home):
    from sklearn.datasets import fetch_20newsgroups_vectorized, get_data_home

    root = resolve_data_home(data_home)
    sklearn_home = root / "sklearn" if root is not None else Path(get_data_home())
    try:
        train, test = (
            fetch_20newsgroups_vectorized(
                subset=subset,
                data_home=str(sklearn_home),
                download_if_missing=False,
            )
            for subset in ("train", "test")
        )
    except OSError as exc:
        raise _20newsgroups_not_found(root, sklearn_home, exc) from exc
    return Bunch(
        name="20newsgroups",
        X=train.data.tocsr(),
        y=np.asarray(train.target),
        X_test=test.data.tocsr(),
        y_test=np.asarray(test.target),
        protocol="holdout",
    )


def _load_20newsgroups_cv(data_home):
    """All 18846 documents of the ``bydate`` split in one set, for the
    cross-validation protocol of the published news20 column."""
    import scipy.sparse as sp

    data = _load_20newsgroups(data_home)
    return Bunch(
        name="20newsgroups-cv",
        X=sp.vstack([data.X, data.X_test], format="csr"),
        y=np.concatenate([data.y, data.y_test]),
        protocol="cv",
    )


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


def _load_preference(name, data_home):
    """The regression data sets (preference streams)."""
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


def load_20newsgroups_multilabel(data_home=None):
    """20 Newsgroups (vectorized) with the super-category labels.

    The train and test subsets of
    :func:`sklearn_pa.datasets.fetch_20newsgroups_multilabel`, read from the
    benchmark data folder without downloading.  Each document keeps its
    newsgroup as one label and gets its super-category (``comp``, ``rec``,
    ``sci``, ``talk``) as a second one when it has one.

    Returns a Bunch with ``X``, ``Y`` (train), ``X_test``, ``Y_test``,
    ``label_names``.
    """
    from sklearn.datasets import get_data_home

    from ..datasets import fetch_20newsgroups_multilabel

    root = resolve_data_home(data_home)
    sklearn_home = root / "sklearn" if root is not None else Path(get_data_home())
    try:
        train, test = (
            fetch_20newsgroups_multilabel(
                data_home=sklearn_home, subset=subset, download_if_missing=False
            )
            for subset in ("train", "test")
        )
    except OSError as exc:
        raise _20newsgroups_not_found(root, sklearn_home, exc) from exc
    return Bunch(
        name="20newsgroups-multilabel",
        X=train.data,
        Y=train.target,
        X_test=test.data,
        Y_test=test.target,
        label_names=train.target_names,
        protocol="multilabel",
    )


def load_subset(name, data_home, n_per_class=500, random_state=0):
    """Load one 20 Newsgroups subset: ``n_per_class`` random documents of each
    of its newsgroups.

    :func:`sklearn_pa.datasets.fetch_20newsgroups_subset` without downloading.

    Parameters
    ----------
    name : str
        A key of :data:`sklearn_pa.datasets.NEWSGROUP_SUBSETS`.
    data_home : path-like
        A scikit-learn data home holding the 20 Newsgroups cache; nothing is
        downloaded.
    n_per_class : int, default=500
        Documents drawn from each newsgroup (all of them if fewer).
    random_state : int, default=0
        Seed of the draw.

    Returns
    -------
    X : scipy.sparse.csr_matrix
        Unit-norm word counts, only the columns the subset uses.
    y : ndarray
        Class index.
    """
    from ..datasets import fetch_20newsgroups_subset

    return fetch_20newsgroups_subset(
        name,
        data_home=data_home,
        n_per_class=n_per_class,
        random_state=random_state,
        download_if_missing=False,
        return_X_y=True,
    )


def _load_conll2000(data_home, n_sentences=None):
    from ..sequence import load_conll2000

    root = resolve_data_home(data_home)
    if root is None:
        raise FileNotFoundError(
            "The conll2000 data set needs a data folder holding "
            "nltk_data/corpora/conll2000.zip: pass --data-home DIR "
            f"(data_home=DIR) or set the environment variable {DATA_ENV}=DIR."
        )
    data = load_conll2000(root, n_sentences=n_sentences)
    data.name = "conll2000"
    data.protocol = "sequence"
    return data


def load_dataset(name, data_home=None, **kwargs):
    """Load a benchmark data set.

    Parameters
    ----------
    name : str
        A name from :data:`DATASETS` that is read from files or made at
        once: ``"digits"``; ``"usps"`` (the ``usps_esl`` training images,
        with their test images); ``"usps-libsvm"`` (the 2007 images of
        LIBSVM's ``usps.t``, smoothed as LIBSVM's whole USPS set,
        cross-validated); ``"20newsgroups"``; ``"20newsgroups-multilabel"``;
        ``"conll2000"``; ``"preference"`` or ``"preference-synthetic"``.
        The semi-supervised subsets are read by :func:`load_subset`; the
        streams are generated by their protocols.
    data_home : str or path-like, default=None
        Folder holding the benchmark data (``usps/...``, ``sklearn/...``,
        ``nltk_data/...``).  ``None`` reads the environment variable
        ``SKLEARN_PA_DATA``.  Not used by ``"digits"`` and
        ``"preference-synthetic"``.
    **kwargs
        ``n_sentences`` for ``"conll2000"`` (the first sentences only).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``name``, the training data ``X`` and ``y``, the test data
        ``X_test`` and ``y_test`` (``None`` for a cross-validated data set),
        and ``protocol``: ``"cv"`` (cross-validation on ``X``, ``y``),
        ``"holdout"`` (fit on ``X``, ``y`` and score on the test data) or
        ``"online"`` (progressive validation).  Dense data sets are
        ndarrays, ``"20newsgroups"`` is CSR.  ``"20newsgroups-multilabel"``
        has ``Y`` and ``Y_test`` (label indicator matrices);
        ``"conll2000"`` has ``sentences`` and ``target``.

    Raises
    ------
    ValueError
        If ``name`` is not a data set that can be loaded.
    FileNotFoundError
        If the data files are missing; the message says what is needed and
        how to point at it.

    Examples
    --------
    >>> from sklearn_pa.benchmark import load_dataset
    >>> data = load_dataset("digits")
    >>> data.X.shape, data.protocol
    ((1797, 64), 'cv')
    """
    if name == "digits":
        return _load_digits()
    if name == "usps":
        return _load_usps(data_home)
    if name == "usps-libsvm":
        return _load_usps_libsvm(data_home)
    if name == "20newsgroups":
        return _load_20newsgroups(data_home)
    if name == "20newsgroups-cv":
        return _load_20newsgroups_cv(data_home)
    if name == "20newsgroups-multilabel":
        return load_20newsgroups_multilabel(data_home)
    if name == "conll2000":
        return _load_conll2000(data_home, **kwargs)
    if name in ("preference", "preference-synthetic"):
        return _load_preference(name, resolve_data_home(data_home))
    if name in DATASETS:
        raise ValueError(
            f"{name!r} is not loaded as a whole: run it through "
            f"python -m sklearn_pa.benchmark --dataset {name}."
        )
    raise ValueError(
        f"Unknown dataset {name!r}; available datasets: {', '.join(DATASETS)}."
    )


# ------------------------------------------------------- synthetic streams
def sparse_stream(
    n_rows,
    *,
    batch_size=10_000,
    n_features=2**18,
    nnz=20,
    n_classes=5,
    kind="classifier",
    random_state=0,
):
    """Yield ``(X, y)`` batches of a synthetic sparse stream, made on the fly.

    Each row has ``nnz`` non-zeros at random columns (hashed-text-like), with
    a planted linear target so that the learners keep updating.

    Parameters
    ----------
    n_rows : int
        Total number of rows.
    batch_size : int, default=10_000
        Rows per batch (the last batch may be shorter).
    n_features : int, default=2**18
        Width of the CSR batches.
    nnz : int, default=20
        Non-zeros per row.
    n_classes : int, default=5
        Number of classes (``kind="classifier"``).
    kind : {"classifier", "regressor", "outlier_detector"}, default="classifier"
        What ``y`` holds: labels, real targets, or ``None``.
    random_state : int, default=0
        Seed of the stream.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (batch, n_features)
    y : ndarray of shape (batch,) or None
    """
    rng = np.random.default_rng(random_state)
    planted = rng.normal(size=(n_features, n_classes))
    done = 0
    while done < n_rows:
        m = min(batch_size, n_rows - done)
        indices = rng.integers(0, n_features, size=m * nnz, dtype=np.int32)
        data = rng.normal(size=m * nnz) / np.sqrt(nnz)
        indptr = np.arange(0, (m + 1) * nnz, nnz, dtype=np.int32)
        X = sp.csr_matrix((data, indices, indptr), shape=(m, n_features))
        X.sum_duplicates()  # canonical, as a vectorizer's output
        scores = (X @ planted) if kind != "outlier_detector" else None
        if kind == "classifier":
            y = np.argmax(scores, axis=1)
        elif kind == "regressor":
            y = scores[:, 0]
        else:
            y = None
        done += m
        yield X, y


N_FEATURES = 2**18
NOISE = 0.05
TEST_ROWS = 100_000


@functools.lru_cache(maxsize=2)
def _hyperplane(n_features):
    """The hidden weights: frequent features (small indices) weigh more, as
    in hashed text."""
    w = np.random.RandomState(12345).randn(n_features)
    return w / np.sqrt(1.0 + np.arange(n_features) / 64.0)


def make_stream_block(seed, n_rows, n_features=N_FEATURES, nnz=20):
    """One block of the synthetic stream: (CSR X, y in {0, 1}).

    Feature ``j`` is drawn with probability about ``1 / (j + 1)`` (a
    log-uniform index, like word frequencies), with value ``+-1/sqrt(nnz)``;
    the label is the side of the hidden hyperplane, flipped with
    probability 5%."""
    rng = np.random.RandomState(seed)
    log_index = rng.uniform(0.0, np.log(n_features), size=(n_rows, nnz))
    indices = np.minimum(np.exp(log_index).astype(np.int64) - 1, n_features - 1)
    indices.sort(axis=1)
    data = rng.choice((-1.0, 1.0), size=(n_rows, nnz)) / np.sqrt(nnz)
    indptr = np.arange(0, n_rows * nnz + 1, nnz, dtype=np.int64)
    X = sp.csr_matrix(
        (data.reshape(-1), indices.reshape(-1), indptr), shape=(n_rows, n_features)
    )
    X.sum_duplicates()
    y = (X @ _hyperplane(n_features) > 0).astype(np.int64)
    flip = rng.random_sample(n_rows) < NOISE
    y[flip] = 1 - y[flip]
    return X, y


def block_bounds(n_rows, n_blocks):
    return np.linspace(0, n_rows, n_blocks + 1).astype(int)
