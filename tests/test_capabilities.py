"""The capability table of the property tests (tests/_capabilities.py)
names real estimators, and every public estimator is in the per-call tests
of its family."""

import test_per_call
import test_per_call_families
import test_sequence_per_call
from _capabilities import KNOWN_FAILURES, OUTSIDE

from sklearn_pa.utils import all_estimators

NAMES = {name for name, _ in all_estimators(type_filter="all")}


def test_the_table_names_public_estimators_and_says_why():
    for table in (OUTSIDE, KNOWN_FAILURES):
        for prop, entries in table.items():
            for name, reason in entries.items():
                assert name in NAMES, f"{prop}: {name} is not a public estimator"
                assert isinstance(reason, str) and len(reason) > 20, (prop, name)


def test_every_public_estimator_is_in_a_per_call_test():
    """The lean-path tests of the linear learners, those of the other
    families and those of the taggers cover every public estimator between
    them."""
    covered = {type(make()).__name__ for _, make, _ in test_per_call.LEAN_FAMILIES}
    covered |= {
        type(make()).__name__ for _, make, *_ in test_per_call_families.FAMILIES
    }
    covered |= {type(make()).__name__ for _, make in test_sequence_per_call.TAGGERS}
    assert NAMES <= covered, sorted(NAMES - covered)
