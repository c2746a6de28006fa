import os
from pathlib import Path

import pytest

DATA_ENV = "SKLEARN_PA_DATA"


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
