"""Training on a Dask cluster, or on the cores of one machine, by iterative
parameter mixing.

Iterative parameter mixing (McDonald, Hall & Mann, NAACL 2010): the data stay
split in partitions, each checked and converted once where it lives (a Dask
worker, or this process); at every epoch each partition runs one bare epoch
of the estimator's compiled update starting from the current mixed model, and
the driver mixes the partitions' models into the next one.

The modules here reach an estimator only through its state protocol
(``estimator.__sklearn_pa_state__()``): adding a learner to parameter mixing
means implementing that protocol, not editing these modules.

- ``_partitions``: cutting, converting, checking and summarising the blocks;
- ``_executors``: where the partitions live and their epochs run (threads of
  this process, or a ``distributed.Client``);
- ``_driver``: :func:`fit_parameter_mixing`, the epoch loop of the mixing.

Running on a Dask cluster needs the optional ``dask`` extra (``pip install
"sklearn_pa[dask]"``); the threaded mode and the rest of the package never
import Dask.
"""

from .._core.mixing import mix_gaussians
from ._driver import fit_parameter_mixing
from ._partitions import _summarize_partition, _typical_value  # noqa: F401

__all__ = ["fit_parameter_mixing", "mix_gaussians"]
