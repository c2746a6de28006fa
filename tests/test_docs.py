"""The documentation: docstring examples run, every gallery example runs on
small data, and the Sphinx site builds with warnings as errors."""

import doctest
import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import sklearn_pa

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
DATA_ENV = "SKLEARN_PA_DATA"


def _modules():
    names = ["sklearn_pa"]
    for info in pkgutil.walk_packages(sklearn_pa.__path__, "sklearn_pa."):
        if "._kernels" in info.name or info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def _run(args, cwd, env_extra, timeout):
    env = dict(os.environ, MPLBACKEND="Agg", **env_extra)
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, tmp_path):
    pytest.importorskip("matplotlib")
    if DATA_ENV in path.read_text() and not os.environ.get(DATA_ENV):
        pytest.skip(f"{path.name} reads real data: set {DATA_ENV}")
    proc = _run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env_extra={"SKLEARN_PA_EXAMPLES_QUICK": "1"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    """The whole site, warnings as errors; the examples are not executed here
    (``test_example_runs`` runs each one)."""
    for module in ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme"):
        pytest.importorskip(module)
    proc = _run(
        [
            sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
            "-b", "html", "-D", "plot_gallery=0",
            "-d", str(tmp_path / "doctrees"), ".", str(tmp_path / "html"),
        ],
        cwd=ROOT / "doc",
        env_extra={"SKLEARN_PA_DOCS_OFFLINE": "1"},
        timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert (tmp_path / "html" / "index.html").is_file()
