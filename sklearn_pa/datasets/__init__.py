"""Loaders for the benchmark data sets.

They behave like scikit-learn's own loaders: ``data_home=None`` means
:func:`sklearn.datasets.get_data_home`, a local copy is used when present, a
missing file is downloaded and checksum-verified when that is possible, and an
offline machine gets an error that names the files looked for.

The chunked readers (:func:`iter_svmlight_file`, :func:`iter_csv_file`)
yield ``(X, y)`` batches of a file in constant memory, for ``partial_fit``;
:func:`read_svmlight_partitions` and :func:`read_csv_partitions` give the
same files as dask arrays read on the workers, for
:func:`~sklearn_pa.distributed.fit_parameter_mixing`.

The 20 Newsgroups views (:func:`fetch_20newsgroups_multilabel`,
:func:`fetch_20newsgroups_subset`) are built on scikit-learn's
:func:`~sklearn.datasets.fetch_20newsgroups_vectorized`, which does the
loading, caching and downloading.
"""

from ._file_partitions import read_csv_partitions, read_svmlight_partitions
from ._files import iter_csv_file, iter_svmlight_file
from ._newsgroups import (
    NEWSGROUP_SUBSETS,
    SUPER_CATEGORIES,
    fetch_20newsgroups_multilabel,
    fetch_20newsgroups_subset,
    multilabel_targets,
)
from ._usps import fetch_usps

__all__ = [
    "NEWSGROUP_SUBSETS",
    "SUPER_CATEGORIES",
    "fetch_20newsgroups_multilabel",
    "fetch_20newsgroups_subset",
    "fetch_usps",
    "iter_csv_file",
    "iter_svmlight_file",
    "multilabel_targets",
    "read_csv_partitions",
    "read_svmlight_partitions",
]
