# The check every kernel makes of its parameter dict before it converts the
# dict to its struct (``_rules_linear.pxd``, ``_rules_second_order.pxd``,
# ``_uniclass.pyx``).


cdef inline int check_param_names(dict params, tuple names) except -1:
    """Raise ValueError unless ``params`` has exactly the keys ``names``."""
    unknown = sorted(set(params) - set(names))
    missing = [name for name in names if name not in params]
    if unknown or missing:
        raise ValueError(
            f"kernel parameters: unknown {unknown}, missing {missing}; "
            f"expected exactly {list(names)}"
        )
    return 0
