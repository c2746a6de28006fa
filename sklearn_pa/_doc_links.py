"""Where the documentation and the source are published.

The "?" of an estimator's HTML representation (in a notebook) opens the
estimator's page of this package's API reference, which the documentation
build writes to ``gen_modules/sklearn_pa.<Estimator>.html``.
"""

#: Root of the published documentation (``doc/conf.py`` uses it as
#: ``html_baseurl``).
DOCS_URL = "https://sklearn-pa.readthedocs.io/en/latest/"

#: The source repository (the documentation's header links to it).
REPOSITORY_URL = "https://github.com/sklearn-pa/sklearn-pa"

#: The API page of an estimator exported at the top of the package.
DOC_LINK_TEMPLATE = DOCS_URL + "gen_modules/sklearn_pa.{estimator_name}.html"


def set_doc_links(classes):
    """Point the HTML representation's documentation link of ``classes``
    (scikit-learn's ``_doc_link_module`` / ``_doc_link_template`` protocol)
    to this package's API pages instead of scikit-learn's."""
    for cls in classes:
        cls._doc_link_module = "sklearn_pa"
        cls._doc_link_template = DOC_LINK_TEMPLATE
