#!/usr/bin/env python3
"""Print the package's version, read from ``sklearn_pa/__init__.py``.

``meson.build`` runs this script to set the project's version, so that
``sklearn_pa.__version__`` is the one place the version is written (the
wheel's metadata, ``pyproject.toml``'s dynamic version and the documentation
all take it from there), as scikit-learn does.
"""

import re
from pathlib import Path

INIT = Path(__file__).resolve().parents[1] / "__init__.py"

match = re.search(r'^__version__ = "([^"]+)"$', INIT.read_text(), re.MULTILINE)
if match is None:
    raise SystemExit(f'{INIT} has no line __version__ = "..."')
print(match.group(1))
