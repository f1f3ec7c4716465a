"""Nested structures of dataset elements: tuples and dicts of components.

tf.data's convention: tuples (namedtuples too) and dicts are structure;
anything else — a Python list included — is one component. Dicts flatten in
sorted key order, as TF's ``nest`` does, so the flat order of components never
depends on the order in which a user happened to write the keys.

A sparse component (a ``SparseTensor``, its value, or its :class:`SparseSpec`) is three
flat parts: indices, values, dense shape. Packed again, they make a ``SparseTensor`` of
tensors, a ``SparseTensorValue`` of arrays, or a ``SparseSpec`` of specs.
"""

from __future__ import annotations

import collections

from ..framework.graph import Tensor
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from .spec import Spec


class SparseSpec(collections.namedtuple("SparseSpec", ["indices", "values", "dense_shape"])):
    """A sparse component's three parts' specs."""

    __slots__ = ()


def _is_sparse(structure):
    return isinstance(structure, (SparseSpec, SparseTensor, SparseTensorValue))


def has_sparse(structure) -> bool:
    """Whether any component of ``structure`` is sparse."""
    if isinstance(structure, dict):
        return any(has_sparse(v) for v in structure.values())
    if _is_sparse(structure):
        return True
    return isinstance(structure, tuple) and any(has_sparse(v) for v in structure)


def _parts(sparse):
    return (sparse.indices, sparse.values, sparse.dense_shape)


def _packed_sparse(parts):
    if all(isinstance(p, Spec) for p in parts):
        return SparseSpec(*parts)
    if any(isinstance(p, Tensor) for p in parts):
        return SparseTensor(*parts)
    return SparseTensorValue(*parts)


def flatten(structure) -> list:
    """The leaves of ``structure``, in order."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if _is_sparse(structure):
        return list(_parts(structure))
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
    if _is_sparse(structure):
        return _packed_sparse([_pack(part, leaves) for part in _parts(structure)])
    if isinstance(structure, tuple):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    leaf = next(leaves, _END)
    if leaf is _END:
        raise ValueError("too few values to pack into the structure")
    return leaf
