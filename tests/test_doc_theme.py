"""The documentation theme: long API identifiers wrap between their words."""

import importlib.util
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "doc"


def _conf():
    spec = importlib.util.spec_from_file_location(
        "_sklearn_pa_doc_conf", DOC / "conf.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_titles_and_signatures_break_between_words():
    conf = _conf()
    body = (
        '<h1>KernelPassiveAggressiveClassifier<a class="headerlink" href="#k">#</a>'
        '</h1><dt class="sig sig-object py"><em class="property">'
        '<span class="pre">class</span> </em>'
        '<span class="sig-prename descclassname"><span class="pre">sklearn_pa.'
        '</span></span><span class="sig-name descname"><span class="pre">'
        "SCWClassifier</span></span>"
    )
    out = conf.break_identifiers(body)
    assert out.startswith(
        "<h1>Kernel<wbr>Passive<wbr>Aggressive<wbr>Classifier<a class="
    )
    assert '<span class="pre">sklearn_<wbr>pa.</span>' in out
    # an acronym stays whole; the break comes where the next word starts
    assert '<span class="pre">SCW<wbr>Classifier</span>' in out
    # the markup and the other text are untouched
    assert out.replace("<wbr>", "") == body


def test_function_title_and_sentences():
    conf = _conf()
    body = '<h1>progressive_val_predict<a class="headerlink" href="#p">#</a></h1>'
    out = conf.break_identifiers(body)
    assert out.startswith("<h1>progressive_<wbr>val_<wbr>predict<a")
    init = '<span class="sig-name descname"><span class="pre">__init__</span>'
    assert conf.break_identifiers(init) == init
    prose = '<h1>Passive-Aggressive family<a class="headerlink" href="#f">#</a></h1>'
    assert conf.break_identifiers(prose) == prose


def test_style_sheet_does_not_break_inside_words():
    css = (DOC / "_static" / "custom.css").read_text()
    assert "anywhere" not in css
    assert "word-break: break-all" not in css


def test_sidebar_identifiers_break_between_words():
    """The section navigation and "On this page" list the long class names
    too; they get the same break opportunities as the titles."""
    conf = _conf()
    nav = (
        '<li class="toctree-l1"><a class="reference internal" '
        'href="sklearn_pa.KernelPassiveAggressiveRegressor.html">'
        "KernelPassiveAggressiveRegressor</a></li>"
        '<li class="toctree-l1"><a class="reference internal" '
        'href="pa_family.html">The Passive-Aggressive family</a></li>'
        '<li class="toctree-l1 current active"><a aria-current="page" '
        'class="current reference internal" href="#">OnlineBayesPointClassifier'
        "</a></li>"
    )
    out = conf.break_sidebar_identifiers(nav)
    assert ">Kernel<wbr>Passive<wbr>Aggressive<wbr>Regressor</a>" in out
    assert ">The Passive-Aggressive family</a>" in out  # prose is left alone
    assert ">Online<wbr>Bayes<wbr>Point<wbr>Classifier</a>" in out  # this page
    assert 'href="sklearn_pa.KernelPassiveAggressiveRegressor.html"' in out
    toc = (
        '<a class="reference internal nav-link" href="#x"><code class="docutils '
        'literal notranslate"><span class="pre">'
        "SCWClassifier.partial_fit()</span></code></a>"
    )
    out = conf.break_sidebar_identifiers(toc)
    assert '<span class="pre">SCW<wbr>Classifier.<wbr>partial_<wbr>fit()</span>' in out

    # the navigation function is wrapped, keeping its result type, and the
    # page's table of contents (which "On this page" is built from) edited
    class Markup(str):
        pass

    context = {"generate_toctree_html": lambda kind: Markup(nav), "toc": toc}
    conf._break_toc_identifiers(None, "page", "page.html", context, None)
    conf._break_page_identifiers(None, "page", "page.html", context, None)
    html = context["generate_toctree_html"]("sidebar")
    assert isinstance(html, Markup)
    assert "Kernel<wbr>Passive" in html
    assert "SCW<wbr>Classifier" in context["toc"]


def test_parsed_sidebar_trees_are_passed_through():
    """A template that asks the theme for the parsed tree (not HTML) gets it
    unchanged."""
    conf = _conf()
    tree = object()
    context = {"generate_toctree_html": lambda kind: tree}
    conf._break_page_identifiers(None, "page", "page.html", context, None)
    assert context["generate_toctree_html"]("raw") is tree
