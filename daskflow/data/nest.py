"""Nested structures of dataset elements: tuples and dicts of components.

tf.data's convention: tuples (namedtuples too) and dicts are structure;
anything else — a Python list included — is one component. Dicts flatten in
sorted key order, as TF's ``nest`` does, so the flat order of components never
depends on the order in which a user happened to write the keys.
"""

from __future__ import annotations


def flatten(structure) -> list:
    """The leaves of ``structure``, in order."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack(structure, flat):
    """``structure`` with its leaves replaced, in order, by the items of ``flat``."""
    leaves = iter(flat)
    packed = _pack(structure, leaves)
    if next(leaves, _END) is not _END:
        raise ValueError(f"too many values to pack into a structure of {len(flatten(structure))}")
    return packed


def map_structure(fn, structure):
    """``structure`` with ``fn`` applied to every leaf."""
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


_END = object()


def _pack(structure, leaves):
    if isinstance(structure, dict):
        values = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return {key: values[key] for key in structure}  # keep the user's key order
    if isinstance(structure, tuple):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    leaf = next(leaves, _END)
    if leaf is _END:
        raise ValueError("too few values to pack into the structure")
    return leaf
