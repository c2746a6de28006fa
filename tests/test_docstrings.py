"""The shared docstring entries (``sklearn_pa/_core/docs.py``) are filled
into every public docstring, and each serves more than one estimator."""

import importlib
import inspect
import textwrap

import pytest
from numpydoc.docscrape import NumpyDocString

import sklearn_pa
from sklearn_pa import model_selection, sequence
from sklearn_pa._core.docs import ENTRIES, fill_text


def _public_objects():
    for module in (sklearn_pa, model_selection, sequence):
        for name in module.__all__:
            yield f"{module.__name__}.{name}", getattr(module, name)


@pytest.mark.parametrize("name, obj", list(_public_objects()))
def test_no_placeholder_is_left(name, obj):
    doc = obj.__doc__ or ""
    assert "%(" not in doc, name
    if inspect.isclass(obj):
        for attr, member in vars(obj).items():
            if callable(member) and member.__doc__:
                assert "%(" not in member.__doc__, f"{name}.{attr}"


def test_each_entry_is_shared():
    # cleandoc: the docstrings' indentation is stripped by Python 3.13's
    # compiler and kept by earlier versions
    docs = [
        inspect.cleandoc(obj.__doc__ or "")
        for _, obj in _public_objects()
        if inspect.isclass(obj)
    ]
    for key, entry in ENTRIES.items():
        first_line = entry.split("\n", 1)[0]
        users = sum(f"\n{first_line}\n" in doc for doc in docs)
        assert users >= 2, (key, users)


def test_fill_text_indents_and_refuses_unknown_names():
    text = "Parameters\n    ----------\n    %(shuffle)s\n    other : int\n"
    filled = fill_text(text)
    assert "    shuffle : bool, default=True\n        Whether to shuffle" in filled
    assert filled.endswith("    other : int\n")
    with pytest.raises(KeyError):
        fill_text("    %(no_such_entry)s\n")


def _as_python_313_compiles(doc):
    """``doc`` as Python 3.13 stores a docstring: the indentation that the
    lines after the first share is stripped."""
    first, _, rest = doc.partition("\n")
    return first + "\n" + textwrap.dedent(rest)


@pytest.mark.parametrize(
    "module, blocks",
    [
        (
            "sklearn_pa.second_order._confidence_weighted",
            ["_COMMON_DOC", "_ATTRIBUTES_DOC"],
        ),
        (
            "sklearn_pa.second_order._regression",
            ["_COMMON_DOC", "_ATTRIBUTES_DOC"],
        ),
        ("sklearn_pa.kernel._passive_aggressive", ["_COMMON_PARAMS_DOC"]),
        ("sklearn_pa.second_order._peers", ["_COVARIANCE_DOC"]),
    ],
)
def test_module_blocks_fill_alike_on_every_python(module, blocks):
    """A block written at module level, indented as a class docstring, fills
    a docstring the same whether the docstring kept its indentation (Python
    up to 3.12) or not (3.13): the numpydoc sections parse alike."""
    mod = importlib.import_module(module)
    names = {name.strip("_").lower().removesuffix("_doc"): name for name in blocks}
    names = {key.removesuffix("_params"): name for key, name in names.items()}
    body = "".join(f"    %({key})s\n" for key in names if key != "attributes")
    template = (
        "Summary line.\n\n    Parameters\n    ----------\n"
        f"{body}    tail : int\n        The last one.\n"
    )
    if "attributes" in names:
        template += "\n    %(attributes)s\n"
    template += "    "
    values = {key: getattr(mod, name) for key, name in names.items()}
    kept = fill_text(template, **values)
    stripped = fill_text(_as_python_313_compiles(template), **values)
    assert inspect.cleandoc(kept) == inspect.cleandoc(stripped)
    parsed = NumpyDocString(inspect.cleandoc(stripped))
    params = [p.name for p in parsed["Parameters"]]
    assert params[-1] == "tail" and len(params) > 1, params
    if "attributes" in names:
        assert parsed["Attributes"], "no attribute parsed"
