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
