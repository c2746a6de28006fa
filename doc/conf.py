"""Sphinx configuration for the sklearn_pa documentation."""

import os
import re
import socket

import sklearn_pa
from sklearn_pa._core.docs import DOCS_URL, REPOSITORY_URL

project = "sklearn_pa"
author = "The sklearn_pa developers"
copyright = "2026, The sklearn_pa developers"
release = sklearn_pa.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # MathJax served from _static/mathjax, not a CDN: formulas render offline
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
numpydoc_show_class_members = False
templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
# a short title: the long default ("sklearn_pa 0.1.0.dev0 documentation")
# overlapped the top bar's links
html_title = "sklearn_pa"
html_baseurl = DOCS_URL
html_theme_options = {
    # the pages a user looks for in the top bar, the rest under "More"
    "header_links_before_dropdown": 6,
    "icon_links": [
        {
            "name": "Source repository",
            "url": REPOSITORY_URL,
            "icon": "fa-brands fa-github",
            "type": "fontawesome",
        }
    ],
    "navbar_align": "left",
    "show_toc_level": 2,
}
html_context = {"default_mode": "light"}

SKLEARN_URL = "https://scikit-learn.org/stable/"


def _online(host="docs.python.org", timeout=3.0):
    """Whether the intersphinx inventories can be fetched."""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


# SKLEARN_PA_DOCS_OFFLINE=1 builds without fetching the intersphinx
# inventories (a machine without internet; the test suite's build), =0 always
# fetches them; unset, they are fetched when their host answers, so that the
# README's command builds a fresh clone offline as well as online.
_OFFLINE_SWITCH = os.environ.get("SKLEARN_PA_DOCS_OFFLINE")
if _OFFLINE_SWITCH is None:
    OFFLINE = not _online()
else:
    OFFLINE = _OFFLINE_SWITCH not in ("", "0")
intersphinx_mapping = (
    {}
    if OFFLINE
    else {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": (SKLEARN_URL, None),
    }
)

# Labels of scikit-learn's user guide that inherited docstrings (``score``)
# refer to; offline they link to the page instead of going through the
# inventory.
_SKLEARN_LABELS = {
    "accuracy_score": "modules/model_evaluation.html#accuracy-score",
    "r2_score": "modules/model_evaluation.html#r2-score",
}


def _offline_sklearn_label(app, env, node, contnode):
    from docutils import nodes

    target = node.get("reftarget")
    if node.get("reftype") == "ref" and target in _SKLEARN_LABELS:
        ref = nodes.reference("", "", internal=False)
        ref["refuri"] = SKLEARN_URL + _SKLEARN_LABELS[target]
        ref.append(contnode)
        return ref
    return None


# A long identifier (``KernelPassiveAggressiveClassifier``) as a page title or
# an API signature wraps only between its words: a ``<wbr>`` break
# opportunity goes before each capital that follows a lower-case letter or a
# digit, before the capital that starts a word after an acronym
# (``SCW|Classifier``), and after each ``_`` and ``.`` between two letters or
# digits (``__init__`` stays whole); the style sheet never
# breaks inside a word that fits the column.
_TITLE = re.compile(r"(<h1>)(.*?)(<a class=\"headerlink\")", re.S)
_SIG_NAME = re.compile(
    r'(<span class="(?:sig-name descname|sig-prename descclassname)">'
    r'<span class="pre">)'
    r"([^<]*)(</span>)"
)
_WORD_BREAK = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z0-9][_.])(?=[A-Za-z0-9])"
)


def _break_words(match):
    head, text, tail = match.groups()
    if "<" in text or " " in text.strip():
        return match.group(0)  # markup or a sentence: left as it is
    return head + _WORD_BREAK.sub("<wbr>", text) + tail


def break_identifiers(body):
    """Add ``<wbr>`` break opportunities inside the identifiers of a page
    body's title and of its API signatures' names."""
    body = _TITLE.sub(_break_words, body, count=1)
    return _SIG_NAME.sub(_break_words, body)


# The theme's two sidebars list the same identifiers: the section navigation
# (the API pages by class name) and "On this page" (the class and its
# methods, in code font).  Their HTML comes from template functions, whose
# output gets the same break opportunities.
_NAV_LINK = re.compile(
    r'(<a [^>]*class="(?:current )?reference internal"[^>]*>)([^<]*)(</a>)'
)
_CODE_NAME = re.compile(r'(<span class="pre">)([^<]*)(</span>)')


def break_sidebar_identifiers(html):
    """Add ``<wbr>`` break opportunities inside the identifiers that the
    navigation and the page's table of contents link to."""
    return _CODE_NAME.sub(_break_words, _NAV_LINK.sub(_break_words, html))


def _with_breaks(generate):
    def wrapped(*args, **kwargs):
        html = generate(*args, **kwargs)
        if isinstance(html, str):
            return type(html)(break_sidebar_identifiers(html))
        return html  # a parsed tree that a template works on ("raw")

    return wrapped


def _break_toc_identifiers(app, pagename, templatename, context, doctree):
    if "toc" in context:  # what the theme's "On this page" is built from
        context["toc"] = break_sidebar_identifiers(context["toc"])


def _break_page_identifiers(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = break_identifiers(context["body"])
    if callable(context.get("generate_toctree_html")):
        context["generate_toctree_html"] = _with_breaks(
            context["generate_toctree_html"]
        )


def setup(app):
    if OFFLINE:
        app.connect("missing-reference", _offline_sklearn_label)
    # the page's table of contents before the theme's handlers, which build
    # (and cache) "On this page" from it; the navigation function after the
    # theme's handler that puts it in the context
    app.connect("html-page-context", _break_toc_identifiers, priority=100)
    app.connect("html-page-context", _break_page_identifiers, priority=900)


# The gallery runs the full examples.  ``SKLEARN_PA_EXAMPLES_QUICK=1`` in the
# environment (the test suite's setting) runs them on small data instead; the
# examples hide that switch from the code shown.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "reference_url": {"sklearn_pa": None},
    # "Examples using ..." on the API pages
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("sklearn_pa",),
    "inspect_global_variables": False,
    # a warning of the package's own shown by an example fails its run, hence
    # the build: an example catches a warning it causes on purpose
    # (sklearn_pa/utils/_example_checks.py; tests/test_docs.py runs the
    # examples under the same check)
    "reset_modules": (
        "matplotlib",
        "sklearn_pa.utils._example_checks.package_warnings_as_errors",
    ),
    "reset_modules_order": "both",
}
