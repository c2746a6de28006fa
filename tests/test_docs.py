"""The documentation: docstring examples run, every gallery example runs on
small data, and the Sphinx site builds with warnings as errors."""

import doctest
import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sklearn_pa

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
DATA_ENV = "SKLEARN_PA_DATA"


def _modules():
    names = ["sklearn_pa"]
    for info in pkgutil.walk_packages(sklearn_pa.__path__, "sklearn_pa."):
        if "._compiled" in info.name or info.name.endswith("__main__"):
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


#: Run the example named by argv[1] as a script, a shown warning of the
#: package's own an error.
_CHECKED_RUN = """\
import runpy, sys
from sklearn_pa.utils._example_checks import install
install()
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _example_cases():
    """Every example; those that read the data folder twice: with it (when
    set) and without it, where they must fall back to bundled data."""
    for path in EXAMPLES:
        if DATA_ENV in path.read_text():
            yield pytest.param(path, True, id=f"{path.name}-data")
            yield pytest.param(path, False, id=f"{path.name}-no-data")
        else:
            yield pytest.param(path, None, id=path.name)


@pytest.mark.parametrize("path, with_data", list(_example_cases()))
def test_example_runs(path, with_data, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    if with_data and not os.environ.get(DATA_ENV):
        pytest.skip(f"{path.name} reads real data: set {DATA_ENV}")
    env_extra = {"SKLEARN_PA_EXAMPLES_QUICK": "1"}
    if with_data is False:
        # a fresh clone: no data folder, and an empty scikit-learn data home
        monkeypatch.delenv(DATA_ENV, raising=False)
        env_extra["SCIKIT_LEARN_DATA"] = str(tmp_path / "empty_data_home")
    # a warning of the package's own shown by the example is an error, as in
    # the docs build (sklearn_pa.utils._example_checks)
    proc = _run(
        [sys.executable, "-c", _CHECKED_RUN, str(path)],
        cwd=tmp_path,
        env_extra=env_extra,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    if with_data is False:
        # it says what it fell back to, and never downloads
        assert "Downloading" not in proc.stdout + proc.stderr


_NOISY_FIT = """
import warnings
from sklearn.datasets import make_classification
from sklearn_pa import ConfidenceWeightedClassifier
X, y = make_classification(n_samples=500, flip_y=0.4, random_state=0)
"""


@pytest.mark.parametrize(
    "body, fails",
    [
        # NoisyLabelsWarning escapes: the run fails, naming it
        ("ConfidenceWeightedClassifier(random_state=0).fit(X, y)", True),
        # caught where it is expected: fine
        (
            "with warnings.catch_warnings():\n"
            "    warnings.simplefilter('ignore')\n"
            "    ConfidenceWeightedClassifier(random_state=0).fit(X, y)",
            False,
        ),
        # a package's UserWarning (-1 beside the label 0) escapes too
        ("ConfidenceWeightedClassifier().fit(X, [-1, 0] * 250)", True),
        # a warning of the example's own, or of another library, is not checked
        ("warnings.warn('the example speaking')", False),
    ],
)
def test_a_shown_warning_of_the_package_fails_an_example(body, fails, tmp_path):
    """The check the gallery and test_example_runs run every example under."""
    script = tmp_path / "plot_check.py"
    script.write_text(_NOISY_FIT + body + "\n")
    proc = _run(
        [sys.executable, "-c", _CHECKED_RUN, str(script)],
        cwd=tmp_path,
        env_extra={},
        timeout=120,
    )
    assert (proc.returncode != 0) == fails, proc.stderr[-2000:]
    if fails:
        assert "PackageWarningError" in proc.stderr
        assert "Warning raised by the package was shown" in proc.stderr


def test_the_gallery_runs_examples_under_the_check():
    sys.path.insert(0, str(ROOT / "doc"))
    try:
        conf = importlib.import_module("conf")
    finally:
        sys.path.pop(0)
    gallery = conf.sphinx_gallery_conf
    hook = "sklearn_pa.utils._example_checks.package_warnings_as_errors"
    assert hook in gallery["reset_modules"]
    assert gallery["reset_modules_order"] == "both"


@pytest.mark.slow
@pytest.mark.parametrize("gallery", ["not-run", "fresh-clone"])
def test_docs_build_without_warnings(gallery, tmp_path, monkeypatch):
    """The whole site, warnings as errors.  ``not-run`` builds the pages
    without executing the examples (``test_example_runs`` runs each one);
    ``fresh-clone`` runs the gallery in quick mode as a fresh clone would,
    without the data folder and with an empty scikit-learn data home, so
    every example must fall back to bundled data (about two minutes more)."""
    for module in ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme"):
        pytest.importorskip(module)
    env_extra = {"SKLEARN_PA_DOCS_OFFLINE": "1"}
    options = []
    if gallery == "not-run":
        options = ["-D", "plot_gallery=0"]
    else:
        pytest.importorskip("matplotlib")
        monkeypatch.delenv(DATA_ENV, raising=False)
        env_extra["SKLEARN_PA_EXAMPLES_QUICK"] = "1"
        env_extra["SCIKIT_LEARN_DATA"] = str(tmp_path / "empty_data_home")
    # a copy of the sources, as in a fresh clone: nothing generated by an
    # earlier build (the gallery's outputs, the API pages) is reused
    src = tmp_path / "src"
    generated = shutil.ignore_patterns("_build", "auto_examples", "gen_modules")
    shutil.copytree(ROOT / "doc", src / "doc", ignore=generated)
    shutil.copytree(ROOT / "examples", src / "examples")
    proc = _run(
        [
            sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
            "-b", "html", *options,
            "-d", str(tmp_path / "doctrees"), ".", str(tmp_path / "html"),
        ],
        cwd=src / "doc",
        env_extra=env_extra,
        timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    html = tmp_path / "html"
    assert (html / "index.html").is_file()
    # the API pages list the examples that use them
    page = html / "gen_modules" / "sklearn_pa.PassiveAggressiveClassifier.html"
    assert "Examples using" in page.read_text()
    # formulas render offline: MathJax is served by the site, not a CDN
    text = (html / "choosing.html").read_text()
    # (Sphinx 8 and later write the tag plain, earlier ones with ?v=<hash>)
    local = r'<script [^>]*src="_static/mathjax/tex-chtml\.js(\?v=[0-9a-f]+)?"'
    assert re.search(local, text), "MathJax is not loaded from the site"
    assert "cdn.jsdelivr" not in text and "mathjax@" not in text
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (html / "_static" / "headline.png").is_file()
    if gallery == "fresh-clone":
        # no path of the build machine in an example's output
        for page in sorted((html / "auto_examples").glob("plot_*.html")):
            text = page.read_text()
            assert str(tmp_path) not in text and str(ROOT) not in text, page.name
        example = html / "auto_examples" / "plot_streaming_20newsgroups.html"
        text = example.read_text()
        assert "using the digits bundled" in text
        # the short run's switch is hidden from readers on every example page
        pages = sorted((html / "auto_examples").glob("plot_*.html"))
        assert len(pages) == len(EXAMPLES)
        for page in pages:
            text = page.read_text()
            assert "SKLEARN_PA_EXAMPLES_QUICK" not in text, page.name
            for name in ("quick", "QUICK"):
                assert f'<span class="n">{name}</span>' not in text, page.name


@pytest.mark.parametrize(
    "switch, reachable, offline",
    [(None, False, True), (None, True, False), ("1", True, True), ("0", False, False)],
)
def test_docs_build_offline_without_the_switch(switch, reachable, offline, monkeypatch):
    """The README's docs command builds on a machine without internet as
    written: unset, the switch follows whether the inventories' host answers."""
    import runpy
    import socket

    class _Connection:
        def close(self):
            pass

    def connect(address, timeout=None):
        if not reachable:
            raise OSError("unreachable")
        return _Connection()

    monkeypatch.setattr(socket, "create_connection", connect)
    if switch is None:
        monkeypatch.delenv("SKLEARN_PA_DOCS_OFFLINE", raising=False)
    else:
        monkeypatch.setenv("SKLEARN_PA_DOCS_OFFLINE", switch)
    conf = runpy.run_path(str(ROOT / "doc" / "conf.py"))
    assert conf["OFFLINE"] is offline
    assert (conf["intersphinx_mapping"] == {}) is offline


def _headline_chart():
    spec = importlib.util.spec_from_file_location(
        "headline_chart", ROOT / "doc" / "headline_chart.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_headline_figures_are_the_benchmarks_pages():
    """Every figure of the front page's chart is in a table of the
    benchmarks page, printed by the command the chart names; the front page
    and the benchmarks page show the chart and the figures' commands."""
    chart = _headline_chart()
    page = (ROOT / "doc" / "benchmarks.rst").read_text()
    rows = page.splitlines()
    assert chart.TEXT_COMMAND in page and chart.STREAM_COMMAND in page
    for label, (accuracy, seconds, _) in chart.TEXT.items():
        assert any(
            r.startswith(label + "  ") and f"{accuracy:.2f}" in r and str(seconds) in r
            for r in rows
        ), label
    for label, (one, thousand) in chart.STREAM.items():
        assert any(
            r.startswith(label + " ") and f"{one:,}" in r and f"{thousand:,}" in r
            for r in rows
        ), label
    front = (ROOT / "doc" / "index.rst").read_text()
    for text in (page, front):
        assert ".. image:: _static/headline.png" in text
        assert "--dataset 20newsgroups --epochs 5" in text
        assert "--dataset stream-latency" in text
    # the benchmarks page opens with them, the paper's tables follow
    assert page.index("Headline\n---") < page.index("The SCCW paper's Table 2")
    assert (ROOT / "doc" / "_static" / "headline.png").read_bytes()[:4] == b"\x89PNG"


def test_headline_chart_draws(tmp_path):
    pytest.importorskip("matplotlib")
    out = _headline_chart().main(tmp_path / "chart.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.realdata
def test_front_page_example_runs(tmp_path):
    """The ten lines of the front page, on the data folder's 20 Newsgroups,
    print what the comment under them says."""
    if not os.environ.get(DATA_ENV):
        pytest.skip(f"set {DATA_ENV}")
    text = (ROOT / "doc" / "index.rst").read_text()
    block = text.split(".. code-block:: python\n\n", 1)[1].split("\nWhy switch", 1)[0]
    code = textwrap.dedent(block)
    env = {"SCIKIT_LEARN_DATA": str(Path(os.environ[DATA_ENV]) / "sklearn")}
    proc = _run([sys.executable, "-c", code], cwd=tmp_path, env_extra=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "PassiveAggressiveClassifier 0.8092" in proc.stdout
    assert "NHERDClassifier 0.8395" in proc.stdout


def test_readme_docs_command_activates_and_runs_quick_examples():
    """The README's docs command runs in the environment the first command
    made, and runs the gallery's examples on small data (about 140 s on 2
    cores from a fresh clone, where the full examples take longer)."""
    readme = (ROOT / "README.rst").read_text()
    (command,) = [
        line.strip() for line in readme.splitlines() if "python -m sphinx" in line
    ]
    assert command.startswith(". .venv/bin/activate && ")
    assert "SKLEARN_PA_EXAMPLES_QUICK=1 python -m sphinx -W" in command
    assert "SKLEARN_PA_EXAMPLES_QUICK=1" in readme.split(command)[0]  # explained
