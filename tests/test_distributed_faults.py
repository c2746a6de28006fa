"""Parameter mixing on a Dask cluster that loses a worker mid-fit.

A worker process killed (SIGKILL) while the driver sends the model used to
block the driver for minutes (Dask's ``scatter(broadcast=True)`` kept
retrying the dead worker, and held the next fit's broadcast behind it), or
failed with a bare ``FutureCancelledError``.  Now: partitions Dask can
recompute (from a graph) are recomputed and the epoch is run again, giving
the model of an undisturbed fit; partitions scattered from the driver
cannot be, and the fit fails promptly, naming them, with the estimator
untouched and the client usable for the next fit.

The worker is killed from the driver, just before the model of a chosen
epoch is sent, so that the scheduler has not yet noticed when the driver
sends it.  Every fit runs under a bounded wait: a regression fails the test
instead of hanging the run.
"""

import os
import signal
import threading
import time

import numpy as np
import pytest
from local_cluster import local_client
from sklearn.base import clone
from sklearn.datasets import make_classification

import sklearn_pa as S

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sklearn_pa.distributed import _executors, fit_parameter_mixing  # noqa: E402

N_WORKERS = 3
# the longest any fit here may take: a fit of a few epochs on 600 rows takes
# about a second, and the driver's own limit on a transfer is set to 5 s
BOUND = 60.0

X, Y = make_classification(n_samples=600, n_features=10, random_state=0)
ESTIMATOR = S.PassiveAggressiveClassifier(random_state=0, tol=None)


@pytest.fixture(scope="module")
def cluster_client():
    with local_client(N_WORKERS) as client:
        yield client


@pytest.fixture
def client(cluster_client, monkeypatch):
    # the nanny restarts a killed worker: start each test with all of them
    cluster_client.wait_for_workers(N_WORKERS, timeout=BOUND)
    monkeypatch.setattr(_executors.ClientExecutor, "transfer_timeout", 5.0)
    return cluster_client


def _bounded(func):
    """``func()``'s result or exception, failing the test if it runs past
    :data:`BOUND` seconds; returns ``(result, exception, seconds)``."""
    outcome = {}

    def target():
        try:
            outcome["result"] = func()
        except Exception as exc:
            outcome["error"] = exc

    start = time.perf_counter()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BOUND)
    assert not thread.is_alive(), f"the fit still runs after {BOUND:.0f} s"
    return outcome.get("result"), outcome.get("error"), time.perf_counter() - start


def _kill_a_worker_before_sending(monkeypatch, client, call):
    """Kill one worker process (SIGKILL) just before the ``call``-th time
    the driver sends the model (1: the learner, before the first epoch;
    2 + e: the mixed model of epoch e)."""
    send = _executors.ClientExecutor.broadcast
    calls = []

    def broadcast(self, obj):
        calls.append(obj)
        if len(calls) == call:
            pids = client.run(os.getpid)
            os.kill(pids[sorted(pids)[1]], signal.SIGKILL)
        return send(self, obj)

    monkeypatch.setattr(_executors.ClientExecutor, "broadcast", broadcast)
    return calls


@pytest.mark.parametrize("call, when", [(1, "while preparing"), (4, "in epoch 3")])
def test_lost_scattered_partition_fails_promptly_and_the_client_still_works(
    client, monkeypatch, call, when
):
    est = clone(ESTIMATOR)
    _kill_a_worker_before_sending(monkeypatch, client, call)
    _, error, seconds = _bounded(
        lambda: fit_parameter_mixing(est, X, Y, n_epochs=6, client=client)
    )
    assert isinstance(error, RuntimeError), error
    message = str(error)
    assert f"lost partition 1 {when}" in message
    assert "Dask cannot recompute data scattered from this process" in message
    assert "dask collections" in message
    assert seconds < 30
    assert not hasattr(est, "coef_")  # the estimator is untouched
    # the next fit on the same client works (before the nanny has
    # restarted the worker)
    monkeypatch.undo()
    model, error, _ = _bounded(
        lambda: fit_parameter_mixing(est, X, Y, n_epochs=2, client=client)
    )
    assert error is None, error
    assert model.score(X, Y) > 0.8


@pytest.mark.parametrize("call", [1, 4])
def test_lost_worker_with_dask_partitions_redoes_the_epoch(client, monkeypatch, call):
    """The partitions of a dask array are recomputed where the lost worker
    held them; the round is run again from the same mixed model and random
    states, so the model is that of an undisturbed fit."""
    Xd, Yd = da.from_array(X, chunks=200), da.from_array(Y, chunks=200)
    expected = fit_parameter_mixing(ESTIMATOR, Xd, Yd, n_epochs=6, client=client)
    sent = _kill_a_worker_before_sending(monkeypatch, client, call)
    model, error, _ = _bounded(
        lambda: fit_parameter_mixing(ESTIMATOR, Xd, Yd, n_epochs=6, client=client)
    )
    assert error is None, error
    assert len(sent) >= 7  # the learner and six epochs' models at least
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)
    assert model.n_iter_ == 6
