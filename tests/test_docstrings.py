"""The shared docstring entries (``sklearn_pa/_docstrings.py``) are filled
into every public docstring, and each serves more than one estimator."""

import inspect

import pytest

import sklearn_pa
from sklearn_pa import model_selection, sequence
from sklearn_pa._docstrings import ENTRIES, fill_text


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
    docs = [obj.__doc__ or "" for _, obj in _public_objects() if inspect.isclass(obj)]
    for key, entry in ENTRIES.items():
        first_line = entry.split("\n", 1)[0]
        users = sum(f"\n    {first_line}\n" in doc for doc in docs)
        assert users >= 2, (key, users)


def test_fill_text_indents_and_refuses_unknown_names():
    text = "Parameters\n    ----------\n    %(shuffle)s\n    other : int\n"
    filled = fill_text(text)
    assert "    shuffle : bool, default=True\n        Whether to shuffle" in filled
    assert filled.endswith("    other : int\n")
    with pytest.raises(KeyError):
        fill_text("    %(no_such_entry)s\n")
