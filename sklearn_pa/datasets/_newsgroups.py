"""Benchmark views of 20 Newsgroups, built on scikit-learn's own loaders."""

import os
from numbers import Integral

import numpy as np
from sklearn.datasets import fetch_20newsgroups_vectorized
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

__all__ = [
    "NEWSGROUP_SUBSETS",
    "SUPER_CATEGORIES",
    "fetch_20newsgroups_multilabel",
    "fetch_20newsgroups_subset",
    "multilabel_targets",
]

#: The super-categories added as labels (newsgroup name prefixes).
SUPER_CATEGORIES = ("comp", "rec", "sci", "talk")

#: The named category subsets of the semi-supervised experiments:
#: name -> newsgroups.  The names (sb-7-1, ...) follow the 20 Newsgroups subset
#: collection of University College Dublin ("separated and balanced", 7 or 8
#: groups on distinct topics); that collection's lists of groups are not
#: published with the experiments, so these groups are this package's choice,
#: one per top-level hierarchy as far as possible.
NEWSGROUP_SUBSETS = {
    "sb-7-1": (
        "comp.graphics",
        "misc.forsale",
        "rec.autos",
        "rec.sport.hockey",
        "sci.med",
        "sci.space",
        "talk.politics.mideast",
    ),
    "sb-7-2": (
        "alt.atheism",
        "comp.windows.x",
        "misc.forsale",
        "rec.motorcycles",
        "rec.sport.baseball",
        "sci.crypt",
        "talk.politics.guns",
    ),
    "sb-8-1": (
        "comp.graphics",
        "misc.forsale",
        "rec.autos",
        "rec.sport.hockey",
        "sci.med",
        "sci.space",
        "soc.religion.christian",
        "talk.politics.mideast",
    ),
    "sb-8-2": (
        "alt.atheism",
        "comp.windows.x",
        "misc.forsale",
        "rec.motorcycles",
        "rec.sport.baseball",
        "sci.crypt",
        "sci.electronics",
        "talk.politics.guns",
    ),
}

_SOURCE = """\
The documents and their features come from scikit-learn's
:func:`~sklearn.datasets.fetch_20newsgroups_vectorized` (bag-of-words counts
of the "bydate" split, each row scaled to unit Euclidean norm); see its
documentation for the corpus itself.
"""

_MULTILABEL_DESCR = f"""\
20 Newsgroups with super-category labels
----------------------------------------

A multilabel view of 20 Newsgroups for label ranking: each document keeps its
newsgroup as one label and gets its super-category ({", ".join(SUPER_CATEGORIES)})
as a second label when its newsgroup belongs to one, so a row has one or two
relevant labels out of 24.

=================   ==============
Labels                          24
Labels per row              1 or 2
Samples (train)              11314
Samples (test)                7532
Features                    130107
=================   ==============

{_SOURCE}"""

_SUBSET_DESCR = """\
20 Newsgroups category subsets
------------------------------

Named subsets of 20 Newsgroups, "separated and balanced": ``n_per_class``
documents drawn at random (without replacement) from each of 7 or 8
newsgroups on distinct topics, taken from both the train and the test parts
of the corpus.  The columns no drawn document uses are dropped.

Subset ``{name}``: {groups}.

{source}"""


def multilabel_targets(target, target_names):
    """Indicator matrix: the newsgroup, then its super-category if any.

    Parameters
    ----------
    target : ndarray of shape (n_samples,)
        Newsgroup indices.
    target_names : list of str
        Newsgroup names, such as ``"comp.graphics"``.

    Returns
    -------
    Y : ndarray of shape (n_samples, n_groups + 4)
        Columns ``0 .. n_groups - 1`` are the newsgroups, then one column per
        entry of :data:`SUPER_CATEGORIES`.
    names : list of str
        The column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa.datasets import multilabel_targets
    >>> Y, names = multilabel_targets(
    ...     np.array([0, 1]), ["comp.graphics", "misc.forsale"]
    ... )
    >>> Y
    array([[1, 0, 1, 0, 0, 0],
           [0, 1, 0, 0, 0, 0]])
    >>> names[2:]
    ['comp', 'rec', 'sci', 'talk']
    """
    target = np.asarray(target)
    n_groups = len(target_names)
    Y = np.zeros((target.shape[0], n_groups + len(SUPER_CATEGORIES)), dtype=np.int64)
    Y[np.arange(target.shape[0]), target] = 1
    for j, prefix in enumerate(SUPER_CATEGORIES):
        members = [
            k for k, name in enumerate(target_names) if name.split(".")[0] == prefix
        ]
        Y[np.isin(target, members), n_groups + j] = 1
    return Y, list(target_names) + list(SUPER_CATEGORIES)


def _data_home(data_home):
    return None if data_home is None else os.fspath(data_home)


@validate_params(
    {
        "data_home": [str, os.PathLike, None],
        "subset": [StrOptions({"train", "test", "all"})],
        "download_if_missing": ["boolean"],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def fetch_20newsgroups_multilabel(
    *,
    data_home=None,
    subset="train",
    download_if_missing=True,
    return_X_y=False,
):
    """Load 20 Newsgroups with super-category labels (multilabel, 24 labels).

    =================   ==============
    Labels                          24
    Labels per row              1 or 2
    Samples (train)              11314
    Samples (test)                7532
    Features                    130107
    =================   ==============

    Each document keeps its newsgroup as a label and gets its super-category
    (:data:`SUPER_CATEGORIES`: ``comp``, ``rec``, ``sci``, ``talk``) as a
    second one when it has one.  The documents and features are those of
    :func:`sklearn.datasets.fetch_20newsgroups_vectorized`, which this
    function calls.

    Parameters
    ----------
    data_home : str or path-like, default=None
        scikit-learn data home holding (or receiving) the 20 Newsgroups
        cache, passed to :func:`~sklearn.datasets.fetch_20newsgroups_vectorized`.
        ``None`` means :func:`sklearn.datasets.get_data_home`.
    subset : {"train", "test", "all"}, default="train"
        The split of the corpus.
    download_if_missing : bool, default=True
        Passed through: if False, a missing cache raises :class:`OSError`
        instead of downloading the corpus.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_samples, 130107) CSR matrix of unit-norm word counts,
        ``target`` (n_samples, 24) int64 indicator matrix (the 20 newsgroups,
        then the 4 super-categories), ``target_names`` the 24 label names,
        ``newsgroup`` (n_samples,) the newsgroup index of each row,
        ``feature_names`` and ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True.

    Raises
    ------
    OSError
        If the cache is missing and ``download_if_missing=False`` (raised by
        scikit-learn's loader).

    See Also
    --------
    multilabel_targets : The label construction, for any newsgroup targets.

    Examples
    --------
    >>> from sklearn_pa.datasets import fetch_20newsgroups_multilabel
    >>> X, Y = fetch_20newsgroups_multilabel(return_X_y=True)  # doctest: +SKIP
    >>> X.shape, Y.shape  # doctest: +SKIP
    ((11314, 130107), (11314, 24))
    >>> sorted(set(Y.sum(axis=1)))  # doctest: +SKIP
    [1, 2]
    """
    bunch = fetch_20newsgroups_vectorized(
        subset=subset,
        data_home=_data_home(data_home),
        download_if_missing=download_if_missing,
    )
    X = bunch.data.tocsr()
    newsgroup = np.asarray(bunch.target)
    Y, names = multilabel_targets(newsgroup, list(bunch.target_names))
    if return_X_y:
        return X, Y
    return Bunch(
        data=X,
        target=Y,
        target_names=names,
        newsgroup=newsgroup,
        feature_names=bunch.get("feature_names"),
        DESCR=_MULTILABEL_DESCR,
    )


@validate_params(
    {
        "name": [str],
        "data_home": [str, os.PathLike, None],
        "n_per_class": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "download_if_missing": ["boolean"],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def fetch_20newsgroups_subset(
    name,
    *,
    data_home=None,
    n_per_class=500,
    random_state=0,
    download_if_missing=True,
    return_X_y=False,
):
    """Load a named category subset of 20 Newsgroups (classification).

    =================   ======================
    Classes                             7 or 8
    Samples (default)       3500 or 4000
    Features                words the subset uses
    =================   ======================

    ``n_per_class`` documents are drawn at random from each newsgroup of
    ``NEWSGROUP_SUBSETS[name]`` (train and test parts together) out of
    :func:`sklearn.datasets.fetch_20newsgroups_vectorized`, which this
    function calls; the columns no drawn document uses are dropped.

    Parameters
    ----------
    name : str
        A key of :data:`NEWSGROUP_SUBSETS`: ``"sb-7-1"``, ``"sb-7-2"``,
        ``"sb-8-1"`` or ``"sb-8-2"``.
    data_home : str or path-like, default=None
        scikit-learn data home holding (or receiving) the 20 Newsgroups
        cache, passed to :func:`~sklearn.datasets.fetch_20newsgroups_vectorized`.
        ``None`` means :func:`sklearn.datasets.get_data_home`.
    n_per_class : int, default=500
        Documents drawn from each newsgroup (all of them if it has fewer).
    random_state : int, RandomState instance or None, default=0
        Seed of the draw.
    download_if_missing : bool, default=True
        Passed through: if False, a missing cache raises :class:`OSError`
        instead of downloading the corpus.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` CSR matrix of unit-norm word counts (only the columns the
        subset uses), ``target`` int64 class index in
        ``range(len(target_names))``, ``target_names`` the newsgroups,
        ``feature_names`` (of the kept columns), ``DESCR``.  Rows are grouped
        by class, in the order of ``target_names``.
    (data, target) : tuple if ``return_X_y`` is True.

    Raises
    ------
    ValueError
        If ``name`` is not a key of :data:`NEWSGROUP_SUBSETS`.
    OSError
        If the cache is missing and ``download_if_missing=False`` (raised by
        scikit-learn's loader).

    Examples
    --------
    >>> from sklearn_pa.datasets import NEWSGROUP_SUBSETS, fetch_20newsgroups_subset
    >>> NEWSGROUP_SUBSETS["sb-7-1"][:2]
    ('comp.graphics', 'misc.forsale')
    >>> X, y = fetch_20newsgroups_subset("sb-7-1", return_X_y=True)  # doctest: +SKIP
    >>> X.shape[0], y.max()  # doctest: +SKIP
    (3500, 6)
    """
    if name not in NEWSGROUP_SUBSETS:
        raise ValueError(
            f"Unknown subset {name!r}; available: {', '.join(NEWSGROUP_SUBSETS)}."
        )
    from sklearn.utils import check_random_state

    bunch = fetch_20newsgroups_vectorized(
        subset="all",
        data_home=_data_home(data_home),
        download_if_missing=download_if_missing,
    )
    groups = NEWSGROUP_SUBSETS[name]
    names = list(bunch.target_names)
    rng = check_random_state(random_state)
    rows, labels = [], []
    for k, group in enumerate(groups):
        idx = np.flatnonzero(bunch.target == names.index(group))
        idx = rng.choice(idx, size=min(n_per_class, idx.shape[0]), replace=False)
        rows.append(np.sort(idx))
        labels.append(np.full(idx.shape[0], k, dtype=np.int64))
    rows, y = np.concatenate(rows), np.concatenate(labels)
    X = bunch.data.tocsr()[rows]
    used = np.unique(X.indices)
    X = X[:, used].tocsr()
    if return_X_y:
        return X, y
    feature_names = bunch.get("feature_names")
    return Bunch(
        data=X,
        target=y,
        target_names=list(groups),
        feature_names=None if feature_names is None else feature_names[used],
        DESCR=_SUBSET_DESCR.format(name=name, groups=", ".join(groups), source=_SOURCE),
    )
