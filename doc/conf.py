"""Sphinx configuration for the sklearn_pa documentation."""

import os

import sklearn_pa

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
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
numpydoc_show_class_members = False
templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}

# Heavy examples read this to run on small data when building quickly.
os.environ.setdefault("SKLEARN_PA_QUICK", "1")

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "reference_url": {"sklearn_pa": None},
}
