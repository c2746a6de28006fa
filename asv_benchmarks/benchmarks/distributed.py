"""Parameter mixing on a local Dask cluster against the serial fit.

The 20 Newsgroups-like sparse problem of ``common``, three epochs of PA-I
and AROW: the serial ``fit`` and ``fit_parameter_mixing`` on one and two
partitions of a two-worker ``LocalCluster`` (worker processes, loopback).
The one-partition figure is the overhead of Dask (scheduling, shipping the
model each epoch); the two-partition one adds the parallel epochs.  Skipped
when the ``dask`` extra is not installed.
"""

import warnings

from sklearn.base import clone

from .common import EPOCHS, Benchmark, get_data, registry_estimator

#: Classifiers of the benchmark command's registry.
ESTIMATORS = {
    name: (lambda name=name: registry_estimator(name)) for name in ["PA-I", "AROW"]
}


_CLIENT = []


def _client():
    """One two-worker LocalCluster per process (asv runs each benchmark in a
    process of its own), closed when the process exits."""
    if not _CLIENT:
        import atexit

        from distributed import Client, LocalCluster

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cluster = LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                host="127.0.0.1",
            )
        client = Client(cluster, set_as_default=False)
        _CLIENT.append((client, cluster))
        atexit.register(_close_client)
    return _CLIENT[0][0]


def _close_client():
    """Close the cluster of :func:`_client`, if one is running."""
    while _CLIENT:
        client, cluster = _CLIENT.pop()
        client.close()
        cluster.close()


class ParameterMixingSuite(Benchmark):
    """Serial fit against parameter mixing over 1 and 2 partitions."""

    param_names = ["estimator", "training"]
    params = (list(ESTIMATORS), ["serial", "mixing-1", "mixing-2"])

    def setup(self, estimator, training):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data("sparse")
        self.estimator = ESTIMATORS[estimator]()
        if training == "serial":
            self._fit = lambda: clone(self.estimator).fit(self.X_train, self.y_train)
            return
        try:
            from sklearn_pa.distributed import fit_parameter_mixing

            client = _client()
        except ImportError as exc:  # asv skips a benchmark on NotImplementedError
            raise NotImplementedError("needs the dask extra") from exc
        n_partitions = int(training.split("-")[1])
        self._fit = lambda: fit_parameter_mixing(
            self.estimator,
            self.X_train,
            self.y_train,
            n_epochs=EPOCHS,
            n_partitions=n_partitions,
            client=client,
        )

    def time_fit(self, estimator, training):
        self._fit()

    def track_test_score(self, estimator, training):
        return float(self._fit().score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"
