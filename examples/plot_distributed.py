"""
==========================================================
Training on a Dask cluster: parameter mixing and friends
==========================================================

Three ways to use a Dask cluster with the online learners of this package:

1. :func:`sklearn_pa.distributed.fit_parameter_mixing` trains one model on
   partitioned data, every partition in parallel, mixing the partitions'
   models after each epoch (iterative parameter mixing);
2. ``dask_ml.wrappers.Incremental`` streams the blocks of a dask array through
   ``partial_fit``, one block after the other;
3. :class:`~sklearn.model_selection.GridSearchCV` runs its fits on the
   cluster through joblib's Dask backend.

The cluster here is a ``LocalCluster`` of two worker processes on this
machine; on a real cluster only the line that creates the client changes
(``Client("tcp://scheduler-host:8786")``).  It needs the ``dask`` extra
(``pip install "sklearn_pa[dask]"``).
"""

# %%
# A local cluster and a partitioned data set
# ------------------------------------------
# A sparse text-like problem: rows of a few hundred non-zeros among many
# features, in a dask array of CSR blocks, each block a partition.
import os
import time

import dask
import dask.array as da
import joblib
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from distributed import Client, LocalCluster
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, train_test_split

from sklearn_pa import AROWClassifier, PassiveAggressiveClassifier
from sklearn_pa.distributed import fit_parameter_mixing

n_samples = 60_000
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    n_samples = 6_000
# sphinx_gallery_end_ignore

X, y = make_classification(
    n_samples=n_samples, n_features=300, n_informative=50, n_classes=4,
    n_clusters_per_class=1, class_sep=1.5, random_state=0,
)  # fmt: skip
X[np.abs(X) < 1.0] = 0.0  # sparse rows
X = sp.csr_matrix(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
print(f"{X_train.shape[0]} training rows, {X_train.nnz / X_train.shape[0]:.0f} "
      "non-zeros per row")  # fmt: skip

# Two workers of one thread each, inside this process: the compiled epochs
# release the GIL, so the two partitions' epochs run in parallel.  Worker
# *processes* (``processes=True``, the default) need a script's code under
# ``if __name__ == "__main__":``, since each worker process imports it.
cluster = LocalCluster(
    n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
)  # fmt: skip
client = Client(cluster)


def as_dask(X, y, n_partitions):
    """Row blocks of a CSR matrix as a dask array with that many chunks.

    The blocks are sent to the workers first (``client.scatter``), so the
    task graph refers to them instead of carrying the data."""
    bounds = np.linspace(0, X.shape[0], n_partitions + 1).astype(int)
    parts = client.scatter([X[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    blocks = [
        da.from_delayed(dask.delayed(part), (b - a, X.shape[1]), meta=X[:0])
        for part, a, b in zip(parts, bounds[:-1], bounds[1:])
    ]
    return da.concatenate(blocks), da.from_array(
        y, chunks=(tuple(np.diff(bounds).tolist()),)
    )


# %%
# Iterative parameter mixing
# --------------------------
# Each epoch, every partition runs one epoch of the estimator's own update from
# the current mixed model, and the driver mixes the results.  With one
# partition this is exactly the serial ``fit``; with more, the accuracy stays
# close to it.  AROW keeps a Gaussian over the weights, which is mixed in
# information form (precision-weighted means, combined precisions).
n_epochs = 5
estimators = {
    "PA-I": PassiveAggressiveClassifier(C=0.1, random_state=0),
    "AROW": AROWClassifier(random_state=0),
}
partitions = [1, 2, 4]
results = {}
for name, est in estimators.items():
    serial = clone(est).set_params(max_iter=n_epochs, tol=None)
    tic = time.perf_counter()
    serial.fit(X_train, y_train)
    results[name, "serial"] = (serial.score(X_test, y_test), time.perf_counter() - tic)
    for k in partitions:
        Xd, yd = as_dask(X_train, y_train, k)
        tic = time.perf_counter()
        model = fit_parameter_mixing(est, Xd, yd, n_epochs=n_epochs, client=client)
        elapsed = time.perf_counter() - tic
        results[name, k] = (model.score(X_test, y_test), elapsed)
    row = ", ".join(
        f"{key}: {acc:.3f} ({sec:.1f} s)"
        for (n, key), (acc, sec) in results.items()
        if n == name
    )
    print(f"{name} -- {row}")

# %%
# The mixed model is an ordinary fitted estimator of the same class.
print(type(model).__name__, model.n_iter_, model.classes_)

fig, ax = plt.subplots(figsize=(6, 3.5))
labels = ["serial", *(f"{k} partitions" for k in partitions)]
width = 0.38
for j, name in enumerate(estimators):
    accs = [results[name, key][0] for key in ["serial", *partitions]]
    ax.bar(np.arange(len(labels)) + (j - 0.5) * width, accs, width, label=name)
ax.set_xticks(np.arange(len(labels)), labels)
ax.set_ylabel("test accuracy")
ax.set_ylim(0.7, 1.0)
ax.set_title(f"Parameter mixing, {n_epochs} epochs")
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# Streaming ``partial_fit`` with dask-ml's ``Incremental``
# ---------------------------------------------------------
# ``Incremental`` passes the blocks through ``partial_fit`` one after the other
# (the model travels to the block): the data need never fit in one memory, but
# the blocks are learned sequentially.
from dask_ml.wrappers import Incremental

Xd, yd = as_dask(X_train, y_train, 4)
inc = Incremental(PassiveAggressiveClassifier(C=0.1, random_state=0))
for _ in range(n_epochs):
    inc.partial_fit(Xd, yd, classes=np.unique(y_train))
print(f"Incremental: {inc.estimator_.score(X_test, y_test):.3f}")

# %%
# The same without dask-ml: a loop over the blocks, each computed where it
# lives and brought to the model.
est = PassiveAggressiveClassifier(C=0.1, random_state=0)
for _ in range(n_epochs):
    for X_block, y_block in zip(Xd.to_delayed().ravel(), yd.to_delayed()):
        X_block, y_block = dask.compute(X_block, y_block)
        est.partial_fit(X_block, y_block, classes=np.unique(y_train))
print(f"partial_fit over the blocks: {est.score(X_test, y_test):.3f}")

# %%
# Grid search on the cluster
# --------------------------
# Each candidate is fitted serially, on one worker; joblib's Dask backend
# spreads the fits over the cluster.
with joblib.parallel_backend("dask"):
    search = GridSearchCV(
        PassiveAggressiveClassifier(max_iter=n_epochs, tol=None, random_state=0),
        {"C": [0.01, 0.1, 1.0]},
        cv=3,
        n_jobs=-1,
    ).fit(X_train, y_train)
print(f"best C: {search.best_params_['C']}, CV accuracy {search.best_score_:.3f}")

# %%
# Close the client and the cluster (their worker processes end here).
client.close()
cluster.close()
