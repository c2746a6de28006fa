# cython: language_level=3
"""Python access to the enums of ``_rules_sequence.pxd``."""
