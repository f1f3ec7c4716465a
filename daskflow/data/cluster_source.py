"""A dataset whose source is dask arrays: data already spread over the cluster.

``Dataset.from_tensor_slices(x)`` with ``x`` a ``dask.array`` (or a nested
structure of them) gives this source. On a cluster session the runtime
persists the arrays once, when it plans the step, and hands each replica
the blocks it reads — those its own worker holds, as far as the balance of
rows allows — by key (:mod:`daskflow.runtime.cluster.sources`). A replica fetches its
blocks from the workers holding them once per pass; nothing goes through the
client, and the arrays themselves are not shipped with the compiled step.
Embedded, the arrays are computed in-process (Dask's own scheduler).

This module imports no dask: it knows the arrays only by their methods.
"""

from __future__ import annotations

import uuid

import numpy as np

from .. import dtypes
from ..framework.replica import current_source
from . import nest
from .dataset import SLICE_SOURCES, Dataset
from .spec import Spec


def is_dask_array(value) -> bool:
    return hasattr(value, "__dask_graph__") and hasattr(value, "chunks") and hasattr(value, "rechunk")


class DaskSlices(Dataset):
    """Elements are the slices of dask arrays along their first axis."""

    def __init__(self, tensors):
        flat = nest.flatten(tensors)
        others = [i for i, a in enumerate(flat) if not is_dask_array(a)]
        if others:
            raise TypeError(
                f"from_tensor_slices: components {others} are not dask arrays while others are; "
                "make every component a dask array (dask.array.from_array) or none"
            )
        _check(flat)
        first = flat[0].chunks[0]
        # One block per range of rows, whole in the other dimensions, the same rows in every component.
        self._arrays = [a.rechunk({0: first, **{k: -1 for k in range(1, a.ndim)}}) for a in flat]
        self.source_id = uuid.uuid4().hex
        specs = [Spec(a.shape[1:], dtypes.as_dtype(a.dtype)) for a in self._arrays]
        self._structure = nest.pack(tensors, specs)

    def dask_arrays(self):
        """The arrays, one per component, for the runtime to place on a cluster."""
        if self._arrays is None:
            raise RuntimeError("this dataset's dask arrays stay with the client that built it")
        return self._arrays

    def _iterate(self, state):
        for block in state.blocks(self, self._blocks):
            for i in range(len(block[0])):
                yield tuple(np.asarray(c[i]) for c in block)

    def _blocks(self, shard):
        """This replica's rows, computed in-process (an embedded session)."""
        placed = current_source(self.source_id)
        if placed is not None:
            return placed  # on a cluster: the blocks given to this replica, fetched by the runtime
        if self._arrays is None:
            raise RuntimeError(
                "a dask-array dataset reached a worker without its blocks: it must be read through "
                "a daskflow cluster session, which places them"
            )
        index, count = shard
        return [tuple(np.asarray(a[index::count].compute()) for a in self._arrays)]

    def __getstate__(self):
        # The arrays' graphs may embed the data itself (dask.array.from_array): never
        # ship them with a compiled step; workers get blocks by key instead.
        return {**self.__dict__, "_arrays": None}


def _check(arrays):
    scalars = [i for i, a in enumerate(arrays) if a.ndim == 0]
    if scalars:
        raise ValueError(f"from_tensor_slices cannot slice scalars (components {scalars})")
    sizes = [a.shape[0] for a in arrays]
    if any(s != s for s in sizes) or len(set(sizes)) > 1:  # nan: unknown sizes
        raise ValueError(f"from_tensor_slices: components need equal, known sizes in dimension 0: {sizes}")


SLICE_SOURCES.append((is_dask_array, DaskSlices))
