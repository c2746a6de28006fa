"""The public names of ``sklearn_pa.model_selection``, a subpackage."""

import importlib
import pkgutil

import sklearn_pa.model_selection as ms

PUBLIC = {"progressive_val_predict", "progressive_val_score", "search_learning_rate"}


def test_public_names():
    assert set(ms.__all__) == PUBLIC
    namespace = {}
    exec("from sklearn_pa.model_selection import *", namespace)
    assert PUBLIC <= set(namespace)
    for name in PUBLIC:
        assert callable(getattr(ms, name))
        assert getattr(ms, name).__doc__


def test_modules_stay_small():
    for info in pkgutil.iter_modules(ms.__path__, ms.__name__ + "."):
        module = importlib.import_module(info.name)
        with open(module.__file__) as f:
            assert sum(1 for _ in f) <= 500, info.name
