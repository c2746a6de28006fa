"""Where the partitions live and their epochs run.

Two executors with one interface:

- :class:`ThreadExecutor`: the partitions stay in this process and run on a
  pool of threads (the compiled kernels release the GIL), no cluster needed;
- :class:`ClientExecutor`: a ``distributed.Client``; each partition is
  persisted once on one worker (round-robin over the sorted addresses) and
  its epochs run there, so that an epoch ships only the model.

``persist`` converts and checks the raw blocks where they will live;
``transform`` replaces every partition by a function of it (the prepared
block), on the same worker; ``map`` runs a function on every partition and
returns the results with the warnings it raised (``models=True``: results
holding a model each, counted by the client executor); ``map_reduce`` (client
only) sums the models pairwise on the workers instead; ``broadcast`` makes an
object (the learner, the state) available to every worker once; ``release``
lets partitions go and ``close`` ends the executor.

A worker lost while the client executor works (its process killed, its
machine gone) never leaves the driver waiting: every transfer has a time
limit and a failed one raises :class:`WorkerLost`; ``recover`` then waits,
within a time limit, for Dask to recompute the lost partitions (those that
came from a graph the scheduler still holds) and names those it cannot,
which the driver sends again from the blocks it holds.
"""

import contextlib
import os
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

from ._partitions import _prepare_partition, cut_rows

# the BLAS libraries loaded in this process (scipy's, which the kernels call,
# and numpy's), found once (a search costs milliseconds, a limit
# microseconds), and the maps running under the limit of one thread
_blas = {"controller": None, "limiter": None, "users": 0}
_blas_lock = threading.Lock()


@contextlib.contextmanager
def _one_blas_thread():
    """A context in which every BLAS library of this process runs on one
    thread, as it does in a Dask worker (whose nanny sets
    ``OPENBLAS_NUM_THREADS=1`` and the like).

    The full covariance's ``Sigma x`` (second-order kernels) is a BLAS
    ``dsymv``.  OpenBLAS before 0.3.22 (the 0.3.18 of scipy 1.9's wheels
    among them) splits a ``dsymv`` of any size, even a 9 x 9 one, between
    its threads (whose sum of the parts differs in its last bits from one
    thread's in most cases), and with two partitions' kernels calling it
    from two threads at once about one fit in a thousand came out different
    in its last bits from the same epochs run alone (a mixed AROW state
    about 1e-14 away; measured in a process of its own per run, never with
    one BLAS thread, nor with OpenBLAS 0.3.22 or later, which runs a small
    ``dsymv`` on one thread).  With one BLAS thread, threads, one thread
    and a Dask cluster give the same model to the last bit.

    The limit is the process's (a BLAS library has no other): it is taken
    around a whole map by the calling thread, never by the partitions'
    threads, and counted, so that the first of overlapping maps (two fits
    on threads of their own) sets it and the last restores the previous
    thread counts.  threadpoolctl is a dependency of scikit-learn
    (``threadpoolctl>=3.1``); without it the context does nothing.
    """
    with _blas_lock:
        if _blas["users"] == 0:
            if _blas["controller"] is None:
                try:
                    from threadpoolctl import ThreadpoolController
                except ImportError:  # pragma: no cover - scikit-learn needs it
                    _blas["controller"] = False
                else:
                    _blas["controller"] = ThreadpoolController()
            if _blas["controller"]:
                _blas["limiter"] = _blas["controller"].limit(limits=1, user_api="blas")
        _blas["users"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas["users"] -= 1
            if _blas["users"] == 0 and _blas["limiter"] is not None:
                _blas["limiter"].restore_original_limits()
                _blas["limiter"] = None


def _is_delayed(block):
    return hasattr(block, "dask") and hasattr(block, "compute")


def _recording_warnings(func, *args):
    """``func(*args)`` and the warnings it raised, as (message, category)
    pairs to re-emit in the driver (a worker process's warnings are lost)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args)
    return result, [(str(w.message), w.category) for w in caught]


class WorkerLost(Exception):
    """A task or a transfer of the client executor failed because a worker
    was lost; ``cause`` is the exception Dask raised."""

    def __init__(self, what, cause):
        super().__init__(f"{what}: {type(cause).__name__}: {cause}")
        self.cause = cause


class ThreadExecutor:
    """The partitions in this process, their epochs on ``n_jobs`` threads.

    Warnings raised in a thread propagate as in a serial fit.

    Parameters
    ----------
    n_jobs : int
        Number of threads (``os.cpu_count()`` when None).
    """

    #: whether mixes that are weighted sums are summed in a binary tree
    #: (:meth:`map_reduce`) rather than in the order of the partitions
    tree_reduce = True

    def __init__(self, n_jobs=None):
        self.n_workers = int(n_jobs) if n_jobs else (os.cpu_count() or 1)
        self._pool = None

    def _map(self, func, items):
        # the partitions' work on one BLAS thread, as on a Dask worker (see
        # _one_blas_thread), on one thread of ours or several alike
        items = list(items)
        with _one_blas_thread():
            if self.n_workers == 1 or len(items) <= 1:
                return [func(*item) for item in items]
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.n_workers)
            return list(self._pool.map(lambda item: func(*item), items))

    def persist(self, x_blocks, y_blocks, indices=None):
        if indices is None:
            indices = range(len(x_blocks))
        indexed = list(zip(x_blocks, y_blocks, indices))
        if any(_is_delayed(xb) or _is_delayed(yb) for xb, yb, _ in indexed):
            import dask

            tasks = [
                dask.delayed(_prepare_partition, pure=False)(xb, yb, i)
                for xb, yb, i in indexed
            ]
            return list(dask.compute(*tasks, scheduler="threads"))
        return self._map(_prepare_partition, indexed)

    def transform(self, func, parts, common):
        return self._map(func, [(part, *common) for part in parts])

    def map(self, func, parts, per_part, common, *, models=False):
        results = self._map(
            func, [(part, *args, *common) for part, args in zip(parts, per_part)]
        )
        return [(result, []) for result in results]

    def map_reduce(
        self, func, parts, per_part, common, *, weights, terms, add, context
    ):
        """As :meth:`ClientExecutor.map_reduce`, in this process: the sums
        are taken in the same binary tree, so that threads and a cluster
        give the same model to the last bit."""
        results = self.map(func, parts, per_part, common)
        w = weights([result[1] for result, _ in results])
        leaves = [terms(context, result[0], wi) for (result, _), wi in zip(results, w)]
        total = _tree_sum(leaves, lambda a, b: add(context, a, b))
        return [((None, *result[1:]), messages) for result, messages in results], total

    def broadcast(self, obj):
        return obj

    def release(self, parts):
        pass

    def recover(self, parts):
        return []

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class ClientExecutor:
    """A ``distributed.Client``: the partitions are persisted once, spread
    round-robin over the workers, and stay there across epochs; each epoch
    ships only the model, and a partition's epoch runs where it lives."""

    #: whether mixes that are weighted sums are summed on the workers
    #: (:meth:`map_reduce`) rather than gathered
    tree_reduce = True
    #: seconds a broadcast may take, plus one per ``transfer_rate`` bytes
    #: (a worker that died before the scheduler noticed makes it wait)
    transfer_timeout = 30.0
    transfer_rate = 20e6
    #: seconds ``recover`` waits for Dask to recompute the lost partitions
    recover_timeout = 60.0

    def __init__(self, client):
        self.client = client
        self.addresses = sorted(client.scheduler_info().get("workers", {}))
        self.n_workers = max(len(self.addresses), 1)
        self.home = {}  # partition key -> worker address
        # the models (a partition's state, or the sum of a map_reduce) the
        # driver has received
        self.models_received = 0

    def _where(self, i):
        if not self.addresses:
            return {}
        return {
            "workers": [self.addresses[i % len(self.addresses)]],
            "allow_other_workers": True,
        }

    def persist(self, x_blocks, y_blocks, indices=None):
        """The blocks persisted as partitions, block ``indices[j]`` (its
        number in the fit: its worker, its errors) for ``x_blocks[j]``."""
        import dask
        from dask.delayed import Delayed

        client = self.client
        futures = []
        if indices is None:
            indices = range(len(x_blocks))
        for i, xb, yb in zip(indices, x_blocks, y_blocks):
            where = self._where(i)
            if isinstance(xb, Delayed):
                # computed (or moved) once onto its worker
                task = dask.delayed(_prepare_partition, pure=False)(xb, yb, i)
                future = client.compute(task, **where)
            else:
                # hash=False: a content-hashed key would be shared by identical
                # partitions (repeated rows, all-zero blocks), so that one
                # partition's release or move loses another's data
                xb, yb = self._scatter_block(cut_rows(xb), yb, where.get("workers"))
                future = client.submit(
                    _prepare_partition, xb, yb, i, pure=False, **where
                )
            self.home[future.key] = where
            futures.append(future)
        return futures

    def _scatter_block(self, xb, yb, workers):
        """A raw block (and its targets) scattered to ``workers``, within
        the time limit of a transfer."""
        blocks = [b for b in (xb, yb) if b is not None]
        futures = self._transfer(
            "scattering a partition",
            blocks,
            lambda: self.client.scatter(blocks, workers=workers, hash=False),
        )
        return futures[0], (futures[1] if yb is not None else None)

    def transform(self, func, parts, common):
        client = self.client
        new = []
        for part in parts:
            where = self.home.get(part.key, {})
            future = client.submit(func, part, *common, pure=False, **where)
            self.home[future.key] = where
            new.append(future)
        # wait for the new partitions before letting the old ones go
        self._gather([client.submit(_done, f, pure=False) for f in new])
        self.release(parts)
        return new

    def _submit(self, func, parts, per_part, common):
        """One task per partition, on the worker that holds it: ``func(part,
        *args, *common)`` with the warnings it raises recorded."""
        return [
            self.client.submit(
                _recording_warnings,
                func,
                part,
                *args,
                *common,
                pure=False,
                **self.home.get(part.key, {}),
            )
            for part, args in zip(parts, per_part)
        ]

    def map(self, func, parts, per_part, common, *, models=False):
        futures = self._submit(func, parts, per_part, common)
        try:
            results = self._gather(futures)
            if models:
                self.models_received += len(results)
            return results
        finally:
            for future in futures:
                future.release()

    def map_reduce(
        self, func, parts, per_part, common, *, weights, terms, add, context
    ):
        """``map`` whose results' first items (the partitions' states) stay
        on the workers: the rest of each result is gathered, ``weights``
        of the list of their second items gives each state's weight, and
        ``terms(context, state, weight)`` of every partition are summed
        with ``add(context, a, b)`` pairwise on the workers (a binary tree
        of tasks), so that the driver receives one summed object instead of
        one state per partition.  Returns the results without their states, with the
        warnings raised, and the sum."""
        client = self.client
        futures = self._submit(func, parts, per_part, common)
        tasks = list(futures)
        try:
            heads = [client.submit(_without_state, f, pure=False) for f in futures]
            tasks += heads
            heads = self._gather(heads)
            w = weights([head[0][1] for head in heads])
            leaves = [
                client.submit(
                    _terms,
                    f,
                    wi,
                    terms,
                    context,
                    pure=False,
                    **self.home.get(p.key, {}),
                )
                for f, wi, p in zip(futures, w, parts)
            ]
            tasks += leaves
            root = self._tree(leaves, add, context, tasks)
            total = self._gather(root)
            self.models_received += 1
            return heads, total
        finally:
            for future in tasks:
                future.release()

    def _tree(self, futures, add, context, tasks):
        """The pairwise sum of ``futures`` as a binary tree of tasks (the
        tree of :func:`_tree_sum`)."""

        def submit(left, right):
            node = self.client.submit(add, context, left, right, pure=False)
            tasks.append(node)
            return node

        return _tree_sum(futures, submit)

    def _gather(self, futures):
        """The results of ``futures``; a task lost with a worker (or
        cancelled because its inputs were) raises :class:`WorkerLost`."""
        try:
            return self.client.gather(futures)
        except Exception as exc:
            if _is_worker_loss(exc):
                raise WorkerLost("a task was lost with a worker", exc) from exc
            raise

    def broadcast(self, obj):
        # in a list: a dict would be scattered value by value.  Sent to one
        # worker, from which the others fetch it: Dask's broadcast=True
        # replicates it through the scheduler, which keeps retrying a worker
        # that died before it noticed, and holds every later broadcast
        # behind it.  Within a time limit all the same.
        (future,) = self._transfer(
            "sending the model",
            obj,
            lambda: self.client.scatter([obj], hash=False),
        )
        return future

    def _transfer(self, what, obj, call):
        """``call()``, a scatter of ``obj``, within the time limit of a
        transfer: Dask's own ``timeout`` bounds only its wait for a worker,
        and a scatter to a worker that died before the scheduler noticed
        waits for its connection attempts, so the call runs in a thread
        the driver stops waiting for."""
        timeout = self.transfer_timeout + _nbytes(obj) / self.transfer_rate
        outcome = {}

        def target():
            try:
                outcome["result"] = call()
            except BaseException as exc:  # re-raised in the driver below
                outcome["error"] = exc

        thread = threading.Thread(target=target, name="sklearn_pa-scatter", daemon=True)
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            cause = TimeoutError(f"no answer from the workers in {timeout:.0f} s")
            raise WorkerLost(f"{what} failed", cause)
        if "error" in outcome:
            exc = outcome["error"]
            if _is_worker_loss(exc):
                raise WorkerLost(f"{what} failed", exc) from exc
            raise exc
        return outcome["result"]

    def recover(self, parts):
        """After a :class:`WorkerLost`: wait (at most ``recover_timeout``
        seconds in all) while Dask recomputes the partitions it can; returns
        the indices of those it cannot (lost with data scattered from this
        process: Dask cancels what depends on them), or of those still not
        back at the time limit.  A tiny task on each partition tells: it runs
        once the partition is back."""
        deadline = time.monotonic() + self.recover_timeout
        probes = [self.client.submit(_done, part, pure=False) for part in parts]
        failed = []
        for i, probe in enumerate(probes):
            try:
                probe.result(timeout=max(deadline - time.monotonic(), 0.01))
            except Exception:  # cancelled, lost, or past the time limit
                failed.append(i)
            probe.release()
        self.addresses = sorted(self.client.scheduler_info().get("workers", {}))
        self.n_workers = max(len(self.addresses), 1)
        return failed

    def release(self, parts):
        for part in parts:
            self.home.pop(part.key, None)
            part.release()

    def close(self):
        pass


def _done(_):
    return None


def _is_worker_loss(exc):
    """Whether a Dask error means that a worker, or data it held, was lost."""
    from distributed import KilledWorker, TimeoutError
    from distributed.comm import CommClosedError

    lost = (KilledWorker, TimeoutError, CommClosedError, OSError)
    if isinstance(exc, lost):
        return True
    # FutureCancelledError ("already forgotten", "lost dependencies") and
    # the CancelledError of older versions
    return "Cancelled" in type(exc).__name__


def _nbytes(obj):
    """The bytes of the arrays in ``obj`` (a state dict, a block)."""
    if hasattr(obj, "data") and hasattr(obj.data, "nbytes"):  # sparse
        return int(obj.data.nbytes) * 2
    if hasattr(obj, "nbytes"):
        return int(obj.nbytes)
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    return 0


def _tree_sum(items, add):
    """``add`` applied pairwise over ``items`` as a balanced binary tree:
    the left half's sum plus the right half's."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return add(_tree_sum(items[:mid], add), _tree_sum(items[mid:], add))


def _without_state(recorded):
    """A recorded result whose first item (the state) is left out."""
    result, messages = recorded
    return (None, *result[1:]), messages


def _terms(recorded, weight, terms, context):
    """``terms(context, state, weight)`` of a recorded result's state."""
    return terms(context, recorded[0][0], weight)


def executor_for(client, n_jobs):
    """The executor: threads when ``n_jobs`` is given or no Dask client runs
    (``client=None`` and no default client), else the client's cluster."""
    if n_jobs is not None:
        if client is not None:
            raise ValueError(
                "Pass either client (run on a Dask cluster) or n_jobs (run on "
                "threads in this process), not both."
            )
        return ThreadExecutor(n_jobs)
    if client is None:
        # no default client without the distributed package imported: the
        # threaded mode does not import Dask
        distributed = sys.modules.get("distributed")
        if distributed is None:
            return ThreadExecutor()
        try:
            client = distributed.default_client()
        except ValueError:
            return ThreadExecutor()
    return ClientExecutor(client)
