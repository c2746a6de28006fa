"""Examples raise no warning of the package's own.

An example that meets a warning it means to show silences it (a warning the
package raises on purpose, e.g. ``NoisyLabelsWarning`` on noisy labels, is
caught where it is expected); one that escapes is an error, in the docs
build (sphinx-gallery's ``reset_modules`` runs
:func:`package_warnings_as_errors` before and after each example, see
``doc/conf.py``) and in ``tests/test_docs.py``, which runs each example
under :func:`install`.

A warning is the package's own when ``warnings.warn`` is called from a
module of ``sklearn_pa``, whatever its category (the package's classes, or
a ``UserWarning``) and whatever frame its ``stacklevel`` names.  It is an
error only when the filters in force would show it: one the example
silences or records (``warnings.catch_warnings``) passes.
"""

import sys
import warnings

__all__ = ["PackageWarningError", "install", "package_warnings_as_errors", "uninstall"]

_PACKAGE = "sklearn_pa"


class PackageWarningError(RuntimeError):
    """A warning of the package was shown while an example ran."""


def _from_package(depth):
    module = sys._getframe(depth).f_globals.get("__name__", "")
    return module == _PACKAGE or module.startswith(_PACKAGE + ".")


def _checked_warn(original):
    def warn(message, category=None, stacklevel=1, source=None, **kwargs):
        if not _from_package(2):
            return original(message, category, stacklevel + 1, source, **kwargs)
        # issued under the filters in force: recorded only if they show it
        with warnings.catch_warnings(record=True) as shown:
            original(message, category, stacklevel + 1, source, **kwargs)
        for caught in shown:
            raise PackageWarningError(
                f"{caught.category.__name__} raised by the package was shown: "
                f"{caught.message}  (An example catches a warning it causes "
                "on purpose, with warnings.catch_warnings, and avoids the "
                "others.)"
            )
        return None

    warn._original = original
    return warn


def install():
    """Make a shown warning of the package raise :class:`PackageWarningError`."""
    if not hasattr(warnings.warn, "_original"):
        warnings.warn = _checked_warn(warnings.warn)


def uninstall():
    """Restore ``warnings.warn``."""
    original = getattr(warnings.warn, "_original", None)
    if original is not None:
        warnings.warn = original


def package_warnings_as_errors(gallery_conf, fname, when="before"):
    """sphinx-gallery's ``reset_modules`` hook: on before each example,
    off after it."""
    if when == "before":
        install()
    else:
        uninstall()
