"""Saving and loading models safely: the types a saved model of this package
holds, for :func:`skops.io.load` (optional extra: ``pip install
"sklearn_pa[skops]"``).

A model saved with ``pickle`` or ``joblib`` runs, as it loads, any code the
file names: load only files you made.  :mod:`skops.io` saves the same state
in a format that names types instead, and loads only the types it is told to
trust; :func:`trusted_types` lists those of this package::

    import skops.io as sio
    from sklearn_pa.persistence import trusted_types

    sio.dump(clf, "model.skops")
    clf = sio.load("model.skops", trusted=trusted_types())

Every format carries the package's state format
(:data:`~sklearn_pa._core.pickled_state.STATE_FORMAT`), and every load
checks what it reads (shapes, dtypes, finite numbers, known options) before
the model is usable: see the user guide's page "Saving, loading, serving".
"""

import scipy.sparse as sp

from ._core.pickled_state import STATE_FORMAT
from ._core.targets import (
    BinaryTargets,
    MulticlassTargets,
    MultilabelTargets,
    SingleClassTargets,
)
from .sequence._validation import FeatureDictMapper
from .utils import all_estimators

__all__ = ["STATE_FORMAT", "trusted_types"]

#: The helper objects an estimator's saved state may hold besides numpy
#: arrays, numbers, strings, lists and dicts: how a classifier reads its
#: targets (a type and no data) and a tagger's feature vocabulary (a dict).
_HELPERS = (
    BinaryTargets,
    MulticlassTargets,
    MultilabelTargets,
    SingleClassTargets,
    FeatureDictMapper,
)


def _name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def trusted_types():
    """The types a saved model of this package holds, for ``skops.io.load``.

    Every public estimator of the package (sequence taggers and
    meta-estimators included), the
    few helper objects their state holds, and scipy's CSR matrix (a
    ``coef_`` after ``sparsify()``).  None of them runs code as it
    loads: each is rebuilt from plain arrays, numbers and strings, and
    checked (an estimator refuses a state it could not have saved).
    numpy's arrays, scalars and random generators are trusted by
    ``skops.io`` itself.

    A model that holds what is not listed here (a kernel given as a Python
    function, a base estimator of another package) names it in
    ``skops.io.get_untrusted_types``: trust it only if you trust the file.

    Returns
    -------
    types : list of str
        Full names (``"module.Class"``), sorted, as ``skops.io.load`` takes
        them in ``trusted``.

    Examples
    --------
    >>> from sklearn_pa.persistence import trusted_types
    >>> "sklearn_pa.linear._passive_aggressive.PassiveAggressiveClassifier" in (
    ...     trusted_types()
    ... )
    True
    >>> import skops.io as sio  # doctest: +SKIP
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PassiveAggressiveClassifier(random_state=0).fit(X, y)
    >>> sio.dump(clf, "model.skops")  # doctest: +SKIP
    >>> loaded = sio.load("model.skops", trusted=trusted_types())  # doctest: +SKIP
    """
    estimators = [
        cls for _, cls in all_estimators(type_filter=["all", "meta_estimator"])
    ]
    # scipy's CSR matrix: a coef_ after sparsify()
    csr = type(sp.csr_matrix((1, 1)))
    return sorted({_name(cls) for cls in (*estimators, *_HELPERS, csr)})
