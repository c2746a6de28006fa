"""Loaders for the benchmark data sets.

They behave like scikit-learn's own loaders: ``data_home=None`` means
:func:`sklearn.datasets.get_data_home`, a local copy is used when present, a
missing file is downloaded and checksum-verified when that is possible, and an
offline machine gets an error that names the files looked for.
"""

from ._usps import fetch_usps

__all__ = ["fetch_usps"]
