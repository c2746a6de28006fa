# cython: language_level=3
"""Python access to the step-rule enums declared in ``_rules.pxd``."""
