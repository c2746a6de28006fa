"""Run every asv benchmark directly, on tiny data, so that a broken benchmark
fails the tests without running asv.

Each suite of ``asv_benchmarks/benchmarks`` is imported with
``SKLEARN_PA_ASV_SMALL=1`` (problems of a few hundred samples) and a
temporary cache directory; its ``setup_cache``, then ``setup`` and every
``time_*``, ``peakmem_*`` and ``track_*`` method run for each parameter
combination.  Timings are not looked at.
"""

import atexit
import importlib
import importlib.util
import inspect
import itertools
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest

BENCH_DIR = Path(__file__).resolve().parent.parent / "asv_benchmarks" / "benchmarks"
PACKAGE = "_sklearn_pa_asv_benchmarks"
MODULES = sorted(
    p.stem for p in BENCH_DIR.glob("*.py") if p.stem not in ("__init__", "common")
)
PREFIXES = ("time_", "timeraw_", "peakmem_", "track_", "mem_")

_CACHE = tempfile.mkdtemp(prefix="sklearn-pa-asv-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def _import_suites():
    env = {"SKLEARN_PA_ASV_SMALL": "1", "SKLEARN_PA_ASV_CACHE": _CACHE}
    with mock.patch.dict(os.environ, env):
        spec = importlib.util.spec_from_file_location(
            PACKAGE,
            BENCH_DIR / "__init__.py",
            submodule_search_locations=[str(BENCH_DIR)],
        )
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
        modules = [importlib.import_module(f"{PACKAGE}.{name}") for name in MODULES]
    return modules, {
        f"{module.__name__.rsplit('.', 1)[1]}.{name}": cls
        for module in modules
        # what asv collects: public concrete classes with benchmark methods,
        # wherever they are defined (the abstract bases are skipped)
        for name, cls in inspect.getmembers(module, inspect.isclass)
        if not name.startswith("_")
        and not inspect.isabstract(cls)
        and any(attr.startswith(PREFIXES) for attr in dir(cls))
    }


MODULE_OBJECTS, SUITES = _import_suites()


def test_every_module_has_suites():
    found = {name.split(".")[0] for name in SUITES}
    assert found == set(MODULES)


def test_no_module_level_benchmarks():
    # asv would collect a module-level ``track_*`` (e.g. an imported helper)
    # as a benchmark without arguments
    for module in [*MODULE_OBJECTS, sys.modules[f"{PACKAGE}.common"]]:
        names = [name for name in vars(module) if name.startswith(PREFIXES)]
        assert not names, (module.__name__, names)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_suite_runs(suite):
    cls = SUITES[suite]
    bench = cls()
    methods = sorted(m for m in dir(cls) if m.startswith(PREFIXES))
    cache = bench.setup_cache() if hasattr(bench, "setup_cache") else None
    params = cls.params if hasattr(cls, "params") else ()
    ran = 0
    for combo in itertools.product(*params):
        args = combo if cache is None else (cache, *combo)
        if hasattr(bench, "setup"):
            try:
                bench.setup(*args)
            except NotImplementedError:
                continue
        for method in methods:
            result = getattr(bench, method)(*args)
            if method.startswith("track_"):
                assert isinstance(result, (int, float)), (method, combo, result)
                assert math.isfinite(result), (method, combo, result)
        if hasattr(bench, "teardown"):
            bench.teardown(*args)
        ran += 1
    assert ran > 0


@pytest.fixture(autouse=True)
def _close_clusters():
    # a suite may start a Dask cluster for its process (asv runs one process
    # per benchmark); here the process is the test session's: close it
    yield
    for module in MODULE_OBJECTS:
        close = getattr(module, "_close_client", None)
        if close is not None:
            close()
