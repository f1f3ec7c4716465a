"""Nested structures with TF's ``nest`` conventions (RNN states, loop variables, branch results).

A structure is a list, a tuple (namedtuples such as ``LSTMStateTuple`` keep
their type) or a dict (flattened in sorted key order); anything else is a
leaf. RNN states are such structures of tensors, and ``state_size`` the same
structure of ints.
"""

from __future__ import annotations


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def _children(structure):
    if isinstance(structure, dict):
        return [structure[key] for key in sorted(structure)]
    return list(structure)


def _rebuild(structure, items):
    """A structure like ``structure`` (same type, same keys) holding ``items``."""
    if isinstance(structure, dict):
        by_key = dict(zip(sorted(structure), items))
        return type(structure)((key, by_key[key]) for key in structure)
    if hasattr(structure, "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


def flatten(structure) -> list:
    """The leaves of ``structure``, in order."""
    if not is_nested(structure):
        return [structure]
    return [leaf for child in _children(structure) for leaf in flatten(child)]


def pack_sequence_as(structure, flat):
    """``structure`` with its leaves replaced, in order, by the items of ``flat``."""
    flat = list(flat)
    if len(flat) != len(flatten(structure)):
        raise ValueError(
            f"Could not pack sequence: the structure has {len(flatten(structure))} leaves, "
            f"the sequence {len(flat)} items"
        )
    leaves = iter(flat)

    def pack(s):
        return _rebuild(s, [pack(c) for c in _children(s)]) if is_nested(s) else next(leaves)

    return pack(structure)


def assert_same_structure(a, b, what="the two structures"):
    """Raise ValueError unless ``a`` and ``b`` nest the same way (leaf types may differ)."""
    if is_nested(a) != is_nested(b) or (is_nested(a) and len(a) != len(b)):
        raise ValueError(f"{what} don't have the same nested structure: {_outline(a)} vs {_outline(b)}")
    if is_nested(a):
        for x, y in zip(_children(a), _children(b)):
            assert_same_structure(x, y, what)


def map_structure(fn, *structures):
    """``fn`` applied to the corresponding leaves of ``structures`` (which must nest alike)."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flats)])


def _outline(structure):
    if not is_nested(structure):
        return "."
    inner = ", ".join(_outline(c) for c in _children(structure))
    return f"{type(structure).__name__}({inner})"
