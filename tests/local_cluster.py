"""A Dask client on a local cluster of its own, for the tests that run
parameter mixing or read partitions on workers: each test module starts one
(a module-scoped fixture), so that a test that kills a worker never touches
another module's cluster."""

from contextlib import contextmanager


@contextmanager
def local_client(n_workers=2, *, processes=True):
    """A ``distributed.Client`` on a ``LocalCluster`` of ``n_workers``
    single-threaded workers on the loopback address, closed with it."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=":0",
            host="127.0.0.1",
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client
