"""The benchmark command: accuracy and fit time of the online learners beside
their scikit-learn (and CRFsuite) peers.

Run it as a module::

    python -m sklearn_pa.benchmark                       # digits, 10-fold CV
    python -m sklearn_pa.benchmark --dataset usps --cv 10 --epochs 3
    python -m sklearn_pa.benchmark --list                # data sets, estimators

The data set picks the protocol; every protocol prints a table and takes
``--output FILE.csv|FILE.md`` and ``--plot FILE.png``:

- ``digits``, ``usps``, ``usps-libsvm``: stratified K-fold cross-validation
  (:func:`run_benchmark`); ``digits`` is scikit-learn's bundled
  :func:`~sklearn.datasets.load_digits` and needs no data folder.
- ``20newsgroups``: fit on the ``train`` subset, score on ``test``
  (:func:`run_train_test`).  With ``--timing`` these four time the fits
  instead (:func:`run_timing`).
- ``20newsgroups-multilabel``: label ranking (:func:`run_multilabel`).
- ``20newsgroups-semi``: semi-supervised Online Bayes Point Machines
  (:func:`run_semi_supervised`).
- ``conll2000``: sequence tagging (:func:`run_conll2000`).
- ``preference``, ``preference-synthetic``: progressive validation of the
  regressors (:func:`run_progressive`).
- ``stream-memory``: peak memory of ``partial_fit`` over a long sparse stream
  (:func:`run_stream_memory`).
- ``stream-latency``: the CPU and wall time of one ``partial_fit`` and one
  ``predict`` call on 1, 10, 100 and 1000 rows of 20 Newsgroups, beside
  scikit-learn's SGD, river and Vowpal Wabbit where installed
  (:func:`run_stream_latency`).
- ``stream-2m``: parameter mixing on Dask against the serial fit
  (:func:`run_stream_dask`, needs the ``dask`` extra).

The data folder is ``--data-home``, else the environment variable
``SKLEARN_PA_DATA``; nothing is downloaded.

Estimators are named once, in :data:`REGISTRY` (name -> :class:`Entry` with
a factory ``factory(epochs, random_state) -> estimator``, its task and one
line of description); add an entry to make a new learner available to the
command line, the asv suite and the examples.  Estimators from scikit-learn
(and CRFsuite) are the reference ("peers"): fit times are reported relative
to the first peer in the run.
"""

from ._cli import main
from ._cross_validation import run_benchmark
from ._data import (
    DATA_ENV,
    DATASETS,
    load_dataset,
    load_subset,
    make_stream_block,
    sparse_stream,
)
from ._multilabel import run_multilabel
from ._progressive import run_progressive
from ._registry import (
    BATCH_REFERENCES,
    DEFAULT_ESTIMATORS,
    DEFAULT_ESTIMATORS_BY_DATASET,
    ESTIMATORS,
    MULTILABEL_ESTIMATORS,
    PUBLISHED,
    PUBLISHED_SOURCE,
    REGISTRY,
    REGRESSION_ESTIMATORS,
    SEED_TABLES,
    SEQUENCE_ESTIMATORS,
    TABLE2_ESTIMATORS,
    Entry,
)
from ._report import format_markdown, format_table, plot_results, write_output
from ._semi_supervised import run_semi_supervised
from ._sequence import run_conll2000
from ._stream_dask import run_stream_dask
from ._stream_latency import run_stream_latency, stream_latency
from ._stream_memory import run_stream_memory, stream_memory
from ._timing import run_timing
from ._train_test import run_train_test

__all__ = [
    "BATCH_REFERENCES",
    "DATASETS",
    "DATA_ENV",
    "DEFAULT_ESTIMATORS",
    "DEFAULT_ESTIMATORS_BY_DATASET",
    "ESTIMATORS",
    "MULTILABEL_ESTIMATORS",
    "PUBLISHED",
    "PUBLISHED_SOURCE",
    "REGISTRY",
    "REGRESSION_ESTIMATORS",
    "SEED_TABLES",
    "SEQUENCE_ESTIMATORS",
    "TABLE2_ESTIMATORS",
    "Entry",
    "format_markdown",
    "format_table",
    "load_dataset",
    "load_subset",
    "main",
    "make_stream_block",
    "plot_results",
    "run_benchmark",
    "run_conll2000",
    "run_multilabel",
    "run_progressive",
    "run_semi_supervised",
    "run_stream_dask",
    "run_stream_latency",
    "run_stream_memory",
    "run_timing",
    "run_train_test",
    "sparse_stream",
    "stream_latency",
    "stream_memory",
    "write_output",
]
