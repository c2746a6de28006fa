import os
from pathlib import Path

import pytest
from hypothesis import settings

DATA_ENV = "SKLEARN_PA_DATA"

# The property tests draw the same examples on every run by default, so that
# a test run is reproducible (a green run stays green); HYPOTHESIS_PROFILE=explore
# draws fresh random examples, to search for new counterexamples.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


def data_home():
    """The folder holding the benchmark data, or None when it is not configured."""
    value = os.environ.get(DATA_ENV)
    return Path(value) if value else None


@pytest.fixture
def data_dir():
    """The benchmark-data folder; skips (saying how to provide it) when unset."""
    home = data_home()
    if home is None:
        pytest.skip(
            f"set {DATA_ENV} to the folder holding the benchmark data "
            "(20 Newsgroups as a scikit-learn data_home in sklearn/, USPS in usps/)"
        )
    if not home.is_dir():
        pytest.fail(f"{DATA_ENV}={home} is not a folder")
    return home
