"""The install commands are written once: the README's, as CI runs them and
as the documentation repeats them."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands(path):
    """The one-line shell commands of a page's literal blocks."""
    return [
        line.strip()
        for line in (ROOT / path).read_text().splitlines()
        if line.startswith("    ") and ("pip install" in line or "pytest" in line)
    ]


def _readme():
    commands = _commands("README.rst")
    test = [c for c in commands if c.endswith("&& pytest")]
    bench = [c for c in commands if c.endswith("python -m sklearn_pa.benchmark")]
    docs = [c for c in commands if '".[doc]"' in c]
    assert len(test) == len(bench) == len(docs) == 1, commands
    return test[0], bench[0], docs[0]


def test_ci_runs_the_readme_test_command():
    test, _, _ = _readme()
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    assert [line for line in script if "pip install" in line] == [test]
    # with the cache a fresh machine has: its own, empty
    assert 'PIP_CACHE_DIR="$(mktemp -d)"' in script
    assert "export PIP_CACHE_DIR" in script


def test_the_docs_repeat_the_readme_commands():
    test, _, docs = _readme()
    assert test in _commands("doc/install.rst")
    assert docs in _commands("doc/install.rst")
    assert test in _commands("doc/developers.rst")


def test_the_quick_start_installs_as_the_test_command():
    test, bench, _ = _readme()
    prefix = test.split(" && pip install --no-build-isolation")[0]
    assert bench.startswith(prefix + " && pip install --no-build-isolation -e . && ")


def test_a_new_environment_can_build_the_source_only_extras():
    # seqeval (a test extra) is published as source only; without build
    # isolation pip builds it with the environment's setuptools, wheel and
    # setuptools-scm (which setuptools' own fetch installs incompletely)
    test, _, _ = _readme()
    tools = re.search(r"pip install ([^&]+) && pip install --no-build", test)
    assert {"setuptools", "wheel", "setuptools-scm"} <= set(tools.group(1).split())
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"seqeval' in pyproject
