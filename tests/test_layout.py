"""The package's layout: modules small enough to read in one sitting."""

from pathlib import Path

import sklearn_pa

ROOT = Path(sklearn_pa.__file__).parent
LIMIT = 800  # lines


def _sources():
    return sorted(p for p in ROOT.rglob("*") if p.suffix in {".py", ".pyx", ".pxd"})


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {"_engine.py", "_base.py", "_kernels/_first_order.pyx"} <= names


def test_no_module_over_the_limit():
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines())
        for p in _sources()
    }
    too_long = {name: n for name, n in sizes.items() if n > LIMIT}
    assert not too_long, f"split these modules (over {LIMIT} lines): {too_long}"
