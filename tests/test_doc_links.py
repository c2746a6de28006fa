"""The HTML representation's "?" opens this package's API pages."""

import re

import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import sklearn_pa
from sklearn_pa._core.docs import DOCS_URL


@pytest.mark.parametrize("name", sklearn_pa.__all__)
def test_doc_link_is_the_package_api_page(name):
    est = getattr(sklearn_pa, name)()
    assert est._get_doc_link() == f"{DOCS_URL}gen_modules/sklearn_pa.{name}.html"


def test_html_repr_links_to_both_projects():
    html = make_pipeline(
        StandardScaler(), sklearn_pa.PassiveAggressiveClassifier()
    )._repr_html_()
    links = set(re.findall(r'href="([^"#]+)', html))
    assert f"{DOCS_URL}gen_modules/sklearn_pa.PassiveAggressiveClassifier.html" in links
    assert not any(
        "scikit-learn.org" in link and "sklearn_pa" in link for link in links
    )
    assert any("sklearn.preprocessing.StandardScaler" in link for link in links)


def test_the_api_pages_exist_where_the_links_point():
    """The documentation writes one page per exported estimator under
    gen_modules/ (autosummary in doc/api.rst)."""
    from pathlib import Path

    api = (Path(__file__).resolve().parents[1] / "doc" / "api.rst").read_text()
    assert ":toctree: gen_modules" in api
    for name in sklearn_pa.__all__:
        assert re.search(rf"^\s+{name}$", api, re.M), name


def test_package_metadata_names_the_same_addresses():
    """pyproject.toml's project URLs and the documentation's links (the
    header's repository link, the HTML representation's "?") are one set of
    addresses: a move of the site or the repository changes both."""
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    from sklearn_pa._core.docs import REPOSITORY_URL

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    urls = tomllib.loads(pyproject.read_text())["project"]["urls"]
    assert urls["Documentation"] == DOCS_URL
    assert urls["Source"] == urls["Homepage"] == REPOSITORY_URL
    assert urls["Changelog"] == DOCS_URL + "changelog.html"
