"""The few dataset nodes TF1's queue-based input needs beyond ``tf.data``'s own.

They follow :mod:`daskflow.data.dataset`: a node holds its arguments and its
element structure (here always a flat tuple of :class:`Spec`), ``_iterate(state)``
makes a fresh generator of flat tuples of numpy arrays, and nothing holds
iteration state, so a node pickles and every pass starts afresh.

- :class:`Slices`: a producer's source; unlike ``from_tensor_slices`` it holds
  string components too (file names for ``string_input_producer``).
- :class:`Unbatch`: ``enqueue_many=True``, each element a batch of examples.
- :class:`PaddedBatch`: ``dynamic_pad=True``, a batch padded to its longest example.
- :class:`AlternatingMap`: ``batch_join`` of several readers of one producer,
  example ``k`` computed by reader ``k % n``.
- :class:`Interleave`: ``batch_join`` of several producers, taken in turn.
- :class:`WithSpecs`: the same elements under refined static shapes (``shapes=``).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..data.dataset import Dataset
from ..data.spec import Spec
from ..data.traced import trace
from ..errors import InvalidArgumentError
from ..framework.graph import get_default_graph


class Slices(Dataset):
    """The slices of ``arrays`` (already TF-typed, read-only) along their first axis."""

    def __init__(self, arrays, dtypes):
        self._arrays = list(arrays)
        self._structure = tuple(Spec(a.shape[1:], dt) for a, dt in zip(arrays, dtypes))

    def _iterate(self, state):
        index, count = state.shard
        for i in range(index, len(self._arrays[0]), count):
            yield tuple(a[i, ...] for a in self._arrays)  # [i, ...]: an array even for 0-d slices


class Unbatch(Dataset):
    """Each input element's examples (its first axis), one per element."""

    def __init__(self, input_dataset, who):
        self._input = input_dataset
        specs = input_dataset._structure
        for i, s in enumerate(specs):
            if s.dims is not None and not s.dims:
                raise ValueError(f"{who}: with enqueue_many=True component {i} must have a batch dimension")
        self._structure = tuple(Spec(None if s.dims is None else s.dims[1:], s.dtype) for s in specs)

    def _iterate(self, state):
        for element in self._input._iterate(state):
            sizes = {len(c) for c in element}
            if len(sizes) > 1:
                raise InvalidArgumentError(
                    None, None, f"enqueue_many: components differ in dimension 0: {sizes}"
                )
            for i in range(len(element[0])):
                yield tuple(c[i, ...] for c in element)


class PaddedBatch(Dataset):
    """``batch_size`` consecutive elements, each padded (zeros, empty strings) to the batch's largest."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)
        size = self._size if self._drop else None
        self._structure = tuple(s.batched(size) for s in input_dataset._structure)

    def _iterate(self, state):
        elements = self._input._iterate(state)
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            yield tuple(_pad_stack(parts) for parts in zip(*chunk))


def _pad_stack(parts):
    shape = tuple(max(dims) for dims in zip(*(p.shape for p in parts)))
    fill = b"" if parts[0].dtype == object else 0
    out = np.full((len(parts), *shape), fill, dtype=parts[0].dtype)
    for i, part in enumerate(parts):
        out[(i, *(slice(0, d) for d in part.shape))] = part
    return out


class AlternatingMap(Dataset):
    """Element ``k`` mapped by ``fns[k % len(fns)]``, each traced as ``Dataset.map`` traces."""

    def __init__(self, input_dataset, fns):
        self._input, self._fns = input_dataset, list(fns)
        self._seed = get_default_graph().seed
        self._traced = self._trace()
        self._structure = self._traced[0].structure  # the caller declares the merged one (WithSpecs)

    def _trace(self):
        return [trace(fn, self._input._structure, self._seed) for fn in self._fns]

    def _iterate(self, state):
        if self._traced is None:  # unpickled: graphs do not travel, recipes do
            self._traced = self._trace()
        runs = [state.runner((self, i), traced) for i, traced in enumerate(self._traced)]
        return (runs[k % len(runs)](e) for k, e in enumerate(self._input._iterate(state)))

    def __getstate__(self):
        return {**self.__dict__, "_traced": None}


class Interleave(Dataset):
    """One element of each input in turn, until all are exhausted."""

    def __init__(self, inputs):
        self._inputs = list(inputs)
        self._structure = self._inputs[0]._structure  # the caller declares the merged one (WithSpecs)

    def _iterate(self, state):
        active = [d._iterate(state) for d in self._inputs]
        while active:
            for elements in list(active):
                element = next(elements, None)
                if element is None:
                    active.remove(elements)
                else:
                    yield element


class WithSpecs(Dataset):
    """The input's elements, declared with ``structure`` (shapes refined by the caller)."""

    def __init__(self, input_dataset, structure):
        self._input, self._structure = input_dataset, structure

    def _iterate(self, state):
        return self._input._iterate(state)
