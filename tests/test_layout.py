"""The package's layout: one core, one folder per family, modules small
enough to read in one sitting.

The architecture is read from the sources (``ast``), not by importing them.
"""

import ast
from pathlib import Path

import sklearn_pa

ROOT = Path(sklearn_pa.__file__).parent
LIMIT = 1500  # lines

#: The core every family runs on: the Python core, the compiled code and
#: the shared helpers.
CORE = {"_core", "_compiled", "utils"}

#: One folder per family of learners.
FAMILIES = {"linear", "second_order", "kernel", "bayes_point", "one_class", "sequence"}

#: The services over the learners: parameter mixing, model selection, data
#: sets, benchmarks, and calibration (a meta-estimator around a classifier).
SERVICES = {"distributed", "model_selection", "datasets", "benchmark", "calibration"}

#: The only family-to-family imports: the Bayes point machine averages
#: copies of a linear learner (``PassiveAggressiveClassifier`` by default,
#: on the linear base class); the second-order learners extend the linear
#: base class (and the second-order regressors the gradient regressors').
FAMILY_EDGES = {
    "bayes_point": {"linear"},
    "second_order": {"linear"},
}

#: The modules at the top of the package: the package itself and its public
#: modules.  No private module lives there; it belongs to the core or to a
#: family.
TOP_MODULES = {
    "__init__.py",
    "exceptions.py",
    "migration.py",
    "onnx.py",
    "persistence.py",
}

#: The core modules that import the top of the package (the public
#: estimators), and why: discovery lists them.
CORE_READS_THE_TOP = {"utils/discovery.py"}


def _sources():
    return sorted(p for p in ROOT.rglob("*") if p.suffix in {".py", ".pyx", ".pxd"})


def _python_sources():
    return sorted(p for p in ROOT.rglob("*.py") if "_build_utils" not in p.parts)


def _imports(path):
    """The ``sklearn_pa`` modules (dotted, relative imports resolved) that
    the source at ``path`` imports, at any depth of the module."""
    rel = path.relative_to(ROOT.parent).with_suffix("")
    package = list(rel.parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "sklearn_pa" or module.startswith("sklearn_pa."):
                if module == "sklearn_pa":
                    # ``from sklearn_pa import linear``: a folder or module
                    for alias in node.names:
                        if (ROOT / alias.name).is_dir() or (
                            ROOT / f"{alias.name}.py"
                        ).exists():
                            names.add(f"sklearn_pa.{alias.name}")
                        else:
                            names.add("sklearn_pa")
                else:
                    names.add(module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "sklearn_pa" or alias.name.startswith("sklearn_pa."):
                    names.add(alias.name)
    return names


def _folder(path):
    """The first folder of ``path`` inside the package (``""`` at the top)."""
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else ""


def _imported_folders(path):
    """The top folders and modules of the package that ``path`` imports
    (``""`` for the package itself), its own folder left out."""
    own = _folder(path)
    folders = set()
    for name in _imports(path):
        parts = name.split(".")
        folders.add(parts[1] if len(parts) > 1 else "")
    folders.discard(own)
    return folders


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {
        "_core/driver.py",
        "_core/session.py",
        "linear/_base.py",
        "kernel/_base.py",
        "_compiled/_first_order.pyx",
    } <= names


def test_no_module_over_the_limit():
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines())
        for p in _sources()
    }
    too_long = {name: n for name, n in sizes.items() if n > LIMIT}
    assert not too_long, f"split these modules (over {LIMIT} lines): {too_long}"


def test_no_private_module_at_the_top():
    top = {p.name for p in ROOT.glob("*.py")}
    assert top == TOP_MODULES, (
        "a module at the top of the package belongs to the core or a family: "
        f"{sorted(top - TOP_MODULES)}"
    )


def test_the_folders_are_the_core_the_families_and_the_services():
    folders = {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and p.name not in {"__pycache__", "_build_utils"}
    }
    assert folders == CORE | FAMILIES | SERVICES


def test_every_family_exports_its_estimators():
    for family in FAMILIES:
        tree = ast.parse((ROOT / family / "__init__.py").read_text())
        exported = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        ]
        assert exported, f"{family}/__init__.py has no __all__"
    # and the top of the package exports each of them
    for family in FAMILIES:
        module = __import__(f"sklearn_pa.{family}", fromlist=["__all__"])
        estimators = [
            name for name in module.__all__ if isinstance(getattr(module, name), type)
        ]
        assert set(estimators) <= set(sklearn_pa.__all__), family


def test_the_core_imports_no_family():
    offending = {}
    for path in _python_sources():
        folder = _folder(path)
        if folder not in CORE:
            continue
        name = path.relative_to(ROOT).as_posix()
        imported = _imported_folders(path)
        bad = imported & (FAMILIES | (SERVICES - {"datasets"}))
        if "" in imported and name not in CORE_READS_THE_TOP:
            bad.add("sklearn_pa")
        if bad:
            offending[name] = sorted(bad)
    assert not offending, f"the core imports a family: {offending}"


def test_a_family_imports_the_core_and_its_named_families_only():
    offending = {}
    for path in _python_sources():
        family = _folder(path)
        if family not in FAMILIES:
            continue
        allowed = CORE | {"exceptions"} | FAMILY_EDGES.get(family, set())
        bad = _imported_folders(path) - allowed
        if bad:
            offending[path.relative_to(ROOT).as_posix()] = sorted(bad)
    assert not offending, f"a family imports outside its edges: {offending}"


def test_the_named_family_edges_are_real():
    # an edge no module needs any more is dropped from FAMILY_EDGES
    seen = {family: set() for family in FAMILIES}
    for path in _python_sources():
        family = _folder(path)
        if family in FAMILIES:
            seen[family] |= _imported_folders(path) & FAMILIES
    for family, edges in FAMILY_EDGES.items():
        assert edges <= seen[family], (family, edges - seen[family])


#: The functions that check rows (scikit-learn's validation, the structure
#: and duplicates of a sparse matrix, the cheap check of rows already in the
#: kernels' form).  One function of the core calls them for every batch
#: (``check_rows`` in ``_core/batch.py``, with ``fitted_rows`` for the
#: scores); the other callers are listed below, each with its reason.
ROW_CHECKS = {
    "validate_data",
    "check_array",
    "canonical_csr",
    "check_csr_structure",
    "lean_rows",
}

#: module -> {row check it may call: why it does not go through check_rows}
ROWS_CHECKED_ELSEWHERE = {
    "sequence/_validation.py": {
        "canonical_csr": "sentences of feature dicts, each a small matrix",
        "check_csr_structure": "a sentence given as its own sparse matrix",
        "check_array": "a sentence given as a dense matrix",
    },
    "second_order/_base.py": {
        "canonical_csr": "the scoring helper's rows a caller did not check",
    },
    "kernel/_base.py": {
        "canonical_csr": "support vectors assigned to the model",
        "check_csr_structure": "support vectors assigned to the model",
    },
    "linear/_base.py": {
        "check_csr_structure": "the structure, before scikit-learn's scores",
    },
    "bayes_point/_bayes_point.py": {
        "check_csr_structure": "the structure, before scikit-learn's scores",
    },
    "one_class/_one_class.py": {
        "canonical_csr": "rows the scoring helper is given already checked",
        "lean_rows": "the cheap scores of the centre on a few rows",
    },
    "kernel/_lean.py": {"lean_rows": "the cheap scores on a few rows"},
    "bayes_point/_lean.py": {"lean_rows": "the cheap scores on a few rows"},
    "linear/_scaled.py": {"lean_rows": "the cheap scores of a scale times a vector"},
    "_core/session.py": {"lean_rows": "the cheap checks of a later call"},
    "_core/weights.py": {"check_array": "the rows' norms for a warning"},
    "migration.py": {
        "check_csr_structure": "a sparsified coef_ read from a scikit-learn "
        "pickle, before scipy reads through it",
    },
    "benchmark/_reference.py": {
        "validate_data": "reference implementations the benchmarks compare to",
    },
}


def _calls(path):
    """The names of the functions the source at ``path`` calls by name."""
    return {
        node.func.id
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def test_rows_are_checked_in_one_place():
    """Every family, ``fit``, ``partial_fit``, the scores and the mixing
    partitions check their rows through ``check_rows``; a module that calls
    a row check itself is listed above with its reason."""
    found = {}
    for path in _python_sources():
        name = path.relative_to(ROOT).as_posix()
        if name == "_core/batch.py":
            continue
        calls = _calls(path) & ROW_CHECKS
        if calls:
            found[name] = calls
    allowed = {name: set(checks) for name, checks in ROWS_CHECKED_ELSEWHERE.items()}
    unlisted = {
        name: sorted(calls - allowed.get(name, set()))
        for name, calls in found.items()
        if calls - allowed.get(name, set())
    }
    assert not unlisted, f"rows checked outside check_rows: {unlisted}"
    stale = {
        name: sorted(checks - found.get(name, set()))
        for name, checks in allowed.items()
        if checks - found.get(name, set())
    }
    assert not stale, f"listed but no longer called: {stale}"


def test_every_family_checks_its_rows_with_check_rows():
    users = {
        path.relative_to(ROOT).as_posix()
        for path in _python_sources()
        if "check_rows" in _calls(path)
    }
    for module in (
        "linear/_base.py",
        "_core/targets.py",
        "second_order/_base.py",
        "kernel/_base.py",
        "bayes_point/_bayes_point.py",
        "one_class/_one_class.py",
        "distributed/_partitions.py",
        "_core/batch.py",
    ):
        assert module in users, module
