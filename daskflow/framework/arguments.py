"""TF1's arguments at the API edge.

- Renamed arguments (``keep_dims`` → ``keepdims``, ``dim`` → ``axis``): the
  old name is still taken, as TF1 takes it, and giving both is an error.
- Arguments daskflow accepts but cannot honour (a DTensor ``layout``,
  ``data_format="NCHW"``): taken at their default, refused otherwise with a
  ``NotImplementedError`` that names the argument and what to do instead, so a
  program never runs with an argument silently dropped.
"""


def argument_lookup(new_name, new_value, old_name, old_value):
    """The value of a renamed argument: the old one's when given, else the new one's.

    Raises
    ------
    ValueError
        When both are given (not None), as TF1's ``deprecated_argument_lookup``.

    Examples
    --------
    >>> argument_lookup("axis", None, "dim", 1)
    1
    """
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old_value
    return new_value


def refuse(fn, argument, value, advice):
    """``NotImplementedError`` for ``fn(argument=value)``, which daskflow cannot honour.

    Examples
    --------
    >>> str(refuse("tf.zeros", "layout", "L", "leave it None"))
    "tf.zeros: layout='L' is not supported by daskflow; leave it None"
    """
    return NotImplementedError(f"{fn}: {argument}={value!r} is not supported by daskflow; {advice}")


def refuse_unless_none(fn, argument, value, advice):
    """Raise :func:`refuse`'s error when ``value`` is not None (the argument's default)."""
    if value is not None:
        raise refuse(fn, argument, value, advice)
