"""The version is written once, as ``sklearn_pa.__version__``; the build
(meson.build, pyproject.toml), the installed metadata, the documentation and
the release notes all agree with it."""

import re
import runpy
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.version import Version

import sklearn_pa

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_a_valid_version():
    assert str(Version(sklearn_pa.__version__)) == sklearn_pa.__version__


def test_the_build_reads_the_version_from_the_package():
    # (read as text: tomllib is not in Python 3.10's standard library)
    pyproject = (ROOT / "pyproject.toml").read_text()
    project = pyproject.split("[project]\n")[1].split("\n[")[0]
    assert not re.search(r"^version\s*=", project, re.MULTILINE)
    assert re.search(r'^dynamic = \[[^]]*"version"', project, re.MULTILINE)
    meson = (ROOT / "meson.build").read_text()
    script = "sklearn_pa/_build_utils/version.py"
    assert f"version: run_command('{script}', check: true)" in meson
    assert not re.search(r"version: '\d", meson)
    printed = subprocess.run(
        [sys.executable, str(ROOT / script)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == sklearn_pa.__version__


def test_the_installed_metadata_has_the_version():
    # an install made before the version changed says so here: reinstall
    assert version("sklearn_pa") == sklearn_pa.__version__


def test_the_documentation_has_the_version(monkeypatch):
    monkeypatch.setenv("SKLEARN_PA_DOCS_OFFLINE", "1")
    conf = runpy.run_path(str(ROOT / "doc" / "conf.py"))
    assert conf["release"] == sklearn_pa.__version__
    assert conf["version"] == sklearn_pa.__version__


def test_the_release_notes_open_with_the_version():
    text = (ROOT / "doc" / "changelog.rst").read_text()
    heading = re.search(r"^(\d[^\s]*) \(([^)]+)\)\n-+$", text, re.MULTILINE)
    assert heading is not None, "the release notes have no 'X.Y.Z (...)' heading"
    this = Version(sklearn_pa.__version__)
    assert Version(heading.group(1)) == Version(this.base_version)
    if this.is_devrelease or this.is_prerelease:
        assert heading.group(2) == "unreleased"
    else:
        # a release is dated: "1.0.0 (2027-01-31)"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", heading.group(2))


@pytest.mark.parametrize("path", ["README.rst", "doc/install.rst"])
def test_no_other_version_is_written(path):
    assert sklearn_pa.__version__ not in (ROOT / path).read_text()
