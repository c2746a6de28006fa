"""Parameter mixing on a Dask cluster that loses a worker mid-fit.

A worker process killed (SIGKILL) while the driver sends the model used to
block the driver for minutes (Dask's ``scatter(broadcast=True)`` kept
retrying the dead worker, and held the next fit's broadcast behind it), or
failed with a bare ``FutureCancelledError``.  Now: partitions Dask can
recompute (from a graph) are recomputed, partitions scattered from the
driver are sent again from the blocks it holds, and the round is run again,
giving the model of an undisturbed fit; a loss that recurs in every try is
a clear error, with the estimator untouched and the client usable for the
next fit.

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


@pytest.mark.parametrize("call", [1, 2, 4])
def test_lost_scattered_partition_is_sent_again(client, monkeypatch, call):
    """Data scattered from this process cannot be recomputed by Dask: the
    driver sends the lost partition again from the block it holds and runs
    the round again from the same mixed model and random states, so the fit
    finishes with the model of an undisturbed fit, promptly."""
    expected = fit_parameter_mixing(ESTIMATOR, X, Y, n_epochs=6, client=client)
    est = clone(ESTIMATOR)
    sent = _kill_a_worker_before_sending(monkeypatch, client, call)
    model, error, seconds = _bounded(
        lambda: fit_parameter_mixing(est, X, Y, n_epochs=6, client=client)
    )
    assert error is None, error
    assert len(sent) >= 8  # the learner, six epochs' models and a resend
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)
    assert model.n_iter_ == 6
    assert seconds < 30
    assert not hasattr(est, "coef_")  # the estimator is untouched
    # the next fit on the same client works
    monkeypatch.undo()
    model, error, _ = _bounded(
        lambda: fit_parameter_mixing(est, X, Y, n_epochs=2, client=client)
    )
    assert error is None, error
    assert model.score(X, Y) > 0.8


def test_a_worker_lost_in_every_try_ends_with_a_clear_error(client, monkeypatch):
    """A loss that recurs in every try of a round is an error that says so,
    with the estimator untouched."""
    from sklearn_pa.distributed import _driver

    monkeypatch.setattr(_driver, "_ROUND_ATTEMPTS", 2)
    send = _executors.ClientExecutor.broadcast
    calls = []

    def broadcast(self, obj):
        calls.append(obj)
        if len(calls) >= 3:
            raise _executors.WorkerLost("sending the model failed", OSError("gone"))
        return send(self, obj)

    monkeypatch.setattr(_executors.ClientExecutor, "broadcast", broadcast)
    est = clone(ESTIMATOR)
    _, error, seconds = _bounded(
        lambda: fit_parameter_mixing(est, X, Y, n_epochs=6, client=client)
    )
    assert isinstance(error, RuntimeError), error
    assert "lost a worker in epoch 2 2 times" in str(error)
    assert "fit again" in str(error)
    assert not hasattr(est, "coef_")
    assert seconds < 30


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
