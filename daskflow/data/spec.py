"""The static type of one element component (its dims and dtype), and captured tensors."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from .. import dtypes
from ..dtypes import DType
from ..framework.tensor_shape import as_dims
from . import nest


@dataclass(frozen=True)
class Spec:
    """Static dims (``None`` entries unknown; ``None`` for unknown rank) and dtype.

    Not a tuple on purpose: ``nest`` treats tuples as structure, and a Spec is a leaf.
    """

    dims: tuple | None
    dtype: DType

    def batched(self, size):
        """The spec of a stack of ``size`` (None: unknown) of these."""
        return Spec(None if self.dims is None else (size, *self.dims), self.dtype)


@dataclass(frozen=True)
class DatasetSpec(Spec):
    """A component that is itself a dataset (``window``'s): elements of these dims and dtype.

    Its flat value is the stack of those elements (one more, leading dimension).
    """


class Captured:
    """A graph tensor a dataset reads when an iterator is initialised (TF1's captured inputs).

    Only its key and static :class:`Spec` travel with a pickled dataset; the
    iterator's ``MakeIterator`` op takes the tensor itself as an input, and a
    pass over the dataset reads the value by the key (``_Pass.value``).
    """

    def __init__(self, tensor):
        self.tensor, self.key = tensor, uuid.uuid4().hex
        self.spec = Spec(tensor._dims, tensor.dtype)

    def __getstate__(self):
        return {**self.__dict__, "tensor": None}

    def __repr__(self):
        return f"<captured {self.tensor.name if self.tensor is not None else self.key}>"


def specs_from(output_types, output_shapes=None):
    """The nested Specs of TF's ``output_types`` and ``output_shapes`` (unknown where not given)."""
    types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        return nest.map_structure(lambda t: Spec(None, t), types)
    shapes = _like(types, output_shapes)
    return nest.pack(types, [Spec(as_dims(s), t) for s, t in zip(shapes, nest.flatten(types))])


def _like(types, shapes):
    """``shapes`` flattened as ``types`` (a shape is a leaf, though it may be a list)."""
    if isinstance(types, dict):
        if not isinstance(shapes, dict) or set(shapes) != set(types):
            raise ValueError(f"output_shapes {shapes} do not match the structure of output_types {types}")
        return [x for k in sorted(types) for x in _like(types[k], shapes[k])]
    if isinstance(types, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise ValueError(f"output_shapes {shapes} do not match the structure of output_types {types}")
        return [x for t, s in zip(types, shapes) for x in _like(t, s)]
    return [shapes]
