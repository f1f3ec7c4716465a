"""Dataset transformations: each node holds its input(s), its arguments and its static structure.

``_iterate(state)`` gives a generator of flat elements over the input's
generator(s); see :mod:`.dataset` for the pass state. Functions given to
``map``, ``filter``, ``flat_map`` and ``interleave`` are traced once into a
private graph (:mod:`.traced`); a pickled node traces again where it is
iterated, since graphs do not travel and functions do.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.graph import get_default_graph
from ..framework.tensor_shape import TensorShape, as_dims, fmt
from ..ops.random_ops import get_seed
from . import nest
from .dataset import Dataset
from .options import Options
from .sources import component, spec_of
from .spec import Captured, DatasetSpec, Spec
from .traced import trace, trace_dataset


class Shuffle(Dataset):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        if int(buffer_size) < 1:
            raise ValueError(f"shuffle needs buffer_size >= 1, got {buffer_size}")
        self._input, self._buffer_size, self._reshuffle = input_dataset, int(buffer_size), reshuffle
        self._seed = get_seed(seed)  # fixed now, at graph-building time, as TF1 fixes op seeds
        self._structure = input_dataset._structure

    def _iterate(self, state):
        epoch = state.epoch(self) if self._reshuffle else 0
        seed = self._seed if self._seed is not None else (state.entropy(self),)
        rng = np.random.default_rng([*seed, epoch])
        return _buffer_shuffle(self._input._iterate(state), self._buffer_size, rng)


def _buffer_shuffle(elements, size, rng):
    """TF's shuffle: fill a buffer, emit a random element of it, refill its place."""
    buffer = []
    for element in elements:
        if len(buffer) < size:
            buffer.append(element)
            continue
        i = rng.integers(size)
        yield buffer[i]
        buffer[i] = element
    while buffer:  # the input is exhausted: drain the buffer in random order
        i = rng.integers(len(buffer))
        buffer[i], buffer[-1] = buffer[-1], buffer[i]
        yield buffer.pop()


def _no_sparse(structure, who):
    if nest.has_sparse(structure):
        raise TypeError(
            f"{who}: daskflow does not batch SparseTensor components; batch the records first, then "
            "map a batch parser over them (dataset.batch(n).map(lambda r: tf.parse_example(r, features)))"
        )


class Batch(Dataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        _no_sparse(input_dataset._structure, "batch")
        if int(batch_size) < 1:
            raise ValueError(f"batch needs batch_size >= 1, got {batch_size}")
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)
        size = self._size if self._drop else None  # a last, smaller batch may come
        self._structure = nest.map_structure(lambda s: s.batched(size), input_dataset._structure)

    def _iterate(self, state):
        for chunk in _chunks(self._input._iterate(state), self._size, self._drop):
            yield tuple(_stack(parts) for parts in zip(*chunk))


def _chunks(elements, size, drop):
    while True:
        chunk = list(itertools.islice(elements, size))
        if not chunk or (drop and len(chunk) < size):
            return
        yield chunk


def _stack(parts):
    try:
        return np.stack(parts)
    except ValueError:
        shapes = sorted({np.shape(p) for p in parts})
        raise ValueError(
            f"Cannot batch tensors with different shapes in component: {shapes}; "
            "use padded_batch, or map each element to one shape first"
        ) from None


class PaddedBatch(Dataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        _no_sparse(input_dataset._structure, "padded_batch")
        if int(batch_size) < 1:
            raise ValueError(f"padded_batch needs batch_size >= 1, got {batch_size}")
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)
        specs = nest.flatten(input_dataset._structure)
        if padded_shapes is None:
            shapes = [s.dims for s in specs]
        else:
            shapes = [
                as_dims(p) for p in _flat_like(input_dataset._structure, padded_shapes, "padded_shapes")
            ]
        for spec, dims in zip(specs, shapes):
            _check_padded_shape(spec.dims, dims)
        self._shapes = shapes
        self._values = [
            _padding_value(s, v) for s, v in zip(specs, _paddings(input_dataset._structure, padding_values))
        ]
        size = self._size if self._drop else None
        padded = [Spec(d, s.dtype) for d, s in zip(shapes, specs)]
        self._structure = nest.pack(input_dataset._structure, [s.batched(size) for s in padded])

    def _iterate(self, state):
        for chunk in _chunks(self._input._iterate(state), self._size, self._drop):
            yield tuple(_pad_stack(p, d, v) for p, d, v in zip(zip(*chunk), self._shapes, self._values))


def _flat_like(structure, values, what):
    """``values`` (``padded_shapes``, ``padding_values``) flattened as the elements' ``structure``."""
    if not _same_structure(structure, values):
        raise ValueError(f"`{what}` {values} does not match the structure of the dataset's elements")
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _flat_like(structure[k], values[k], what)]
    if isinstance(structure, tuple):
        return [x for s, v in zip(structure, values) for x in _flat_like(s, v, what)]
    return [values]


def _same_structure(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(_same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(_same_structure, a, b))
    return True


def _check_padded_shape(dims, padded):
    if dims is None or padded is None:
        return
    if len(dims) != len(padded) or any(
        p is not None and d is not None and p < d for p, d in zip(padded, dims)
    ):
        raise ValueError(
            f"The padded shape {fmt(padded)} is not compatible with the shape {fmt(dims)} of the "
            "corresponding input component."
        )


def _paddings(structure, values):
    specs = nest.flatten(structure)
    if values is None:
        return [None] * len(specs)
    return _flat_like(structure, values, "padding_values")


def _padding_value(spec, value):
    if value is None:
        return b"" if spec.dtype is dtypes.string else np.zeros((), spec.dtype.np)
    c = component(value)
    if isinstance(c, Captured) or spec_of(c).dims != ():
        raise ValueError(f"Invalid `padding_values`: {value} must be a known scalar")
    if spec_of(c).dtype is not spec.dtype:
        raise TypeError(
            f"Invalid `padding_values`. `padding_values` values type {spec_of(c).dtype!r} does not match "
            f"type {spec.dtype!r} of the corresponding input component."
        )
    return c


def _pad_stack(parts, padded, value):
    shapes = [np.shape(p) for p in parts]
    rank = len(shapes[0])
    if padded is None:
        padded = (None,) * rank
    target = tuple(d if d is not None else max(s[i] for s in shapes) for i, d in enumerate(padded))
    out = np.full((len(parts), *target), value, dtype=np.asarray(parts[0]).dtype)
    for i, (p, s) in enumerate(zip(parts, shapes)):
        if len(s) != rank or any(n > t for n, t in zip(s, target)):
            raise ValueError(f"Attempted to pad to a smaller size than the input element: {s} into {target}")
        out[(i, *(slice(0, n) for n in s))] = p
    return out


class Unbatch(Dataset):
    def __init__(self, input_dataset):
        _no_sparse(input_dataset._structure, "unbatch")
        specs = nest.flatten(input_dataset._structure)
        if any(s.dims == () for s in specs):
            raise ValueError("Cannot unbatch an input with scalar components.")
        self._input = input_dataset
        self._structure = nest.map_structure(
            lambda s: Spec(None if s.dims is None else s.dims[1:], s.dtype), input_dataset._structure
        )

    def _iterate(self, state):
        for element in self._input._iterate(state):
            sizes = {len(c) for c in element}
            if len(sizes) > 1:
                raise ValueError(f"unbatch: the components' first dimensions differ: {sorted(sizes)}")
            for i in range(sizes.pop()):
                yield tuple(np.asarray(c[i]) for c in element)


class Repeat(Dataset):
    def __init__(self, input_dataset, count):
        self._input = input_dataset
        self._count = None if count is None or int(count) < 0 else int(count)
        self._structure = input_dataset._structure

    def _iterate(self, state):
        epochs = itertools.count() if self._count is None else range(self._count)
        for _ in epochs:
            empty = True
            for element in self._input._iterate(state):
                empty = False
                yield element
            if empty:
                return  # an empty dataset repeated forever is empty, not a hang (as in TF)


class Map(Dataset):
    def __init__(self, input_dataset, fn):
        self._input, self._fn = input_dataset, fn
        # Traced now, not lazily: output_types / output_shapes come from the trace.
        self._seed = get_default_graph().seed  # random ops in fn follow the outer graph's seed
        self._traced = trace(fn, input_dataset._structure, self._seed)
        self._structure = self._traced.structure

    def _iterate(self, state):
        if self._traced is None:  # unpickled: graphs do not travel, functions do
            self._traced = trace(self._fn, self._input._structure, self._seed)
        run = state.runner(self, self._traced)
        return (run(element) for element in self._input._iterate(state))

    def __getstate__(self):
        return {**self.__dict__, "_traced": None}


class Filter(Map):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset, predicate)
        out = self._structure
        if not isinstance(out, Spec) or out.dtype is not dtypes.bool or out.dims not in ((), None):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type "
                f"is {_describe(out)}."
            )
        self._structure = input_dataset._structure

    def _iterate(self, state):
        if self._traced is None:
            self._traced = trace(self._fn, self._input._structure, self._seed)
        run = state.runner(self, self._traced)
        return (element for element in self._input._iterate(state) if bool(run(element)[0]))


class TakeWhile(Filter):
    def _iterate(self, state):
        if self._traced is None:
            self._traced = trace(self._fn, self._input._structure, self._seed)
        run = state.runner(self, self._traced)
        return itertools.takewhile(lambda element: bool(run(element)[0]), self._input._iterate(state))


class Unique(Dataset):
    def __init__(self, input_dataset):
        spec = input_dataset._structure
        if not isinstance(spec, Spec) or spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(
                "`tf.data.Dataset.unique` does not support type "
                f"{_describe(spec)}: one component of tf.int32, tf.int64 or tf.string only"
            )
        self._input, self._structure = input_dataset, spec

    def _iterate(self, state):
        seen = set()
        for element in self._input._iterate(state):
            key = element[0].item() if element[0].ndim == 0 else element[0].tobytes()
            if key not in seen:
                seen.add(key)
                yield element


class Choose(Dataset):
    """``choose_from_datasets`` (``choices`` a dataset of indices) and ``sample_from_datasets``
    (``choices`` None: drawn with ``weights``)."""

    def __init__(self, datasets, choices, weights, seed, stop_on_empty):
        datasets = list(datasets)
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("Invalid `datasets`. `datasets` should be a non-empty list of `tf.data.Dataset`.")
        first = datasets[0]._structure
        for d in datasets[1:]:
            _check_same_elements(first, d._structure)
        if choices is not None:
            spec = choices._structure
            if not isinstance(spec, Spec) or spec.dtype is not dtypes.int64 or spec.dims not in ((), None):
                raise TypeError(
                    "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                    f"tensors but are {_describe(spec)}."
                )
        self._datasets = [*datasets, *([choices] if choices is not None else [])]
        self._count, self._stop, self._choices = len(datasets), bool(stop_on_empty), choices is not None
        self._weights = None if weights is None else np.asarray(weights, np.float64).reshape(-1)
        if self._weights is not None and len(self._weights) != len(datasets):
            raise ValueError(f"`weights` has {len(self._weights)} entries for {len(datasets)} datasets")
        self._seed = None if self._choices else get_seed(seed)
        structure = first
        for d in datasets[1:]:
            structure = _merged(structure, d._structure)
        self._structure = structure

    def _iterate(self, state):
        inputs = [d._iterate(state) for d in self._datasets[: self._count]]
        live = [True] * self._count
        for i in self._indices(state, live):
            if not 0 <= i < self._count:
                raise InvalidArgumentError(
                    None, None, f"choice {i} is not the index of one of the {self._count} datasets"
                )
            element = next(inputs[i], None) if live[i] else None
            if element is not None:
                yield element
                continue
            live[i] = False
            if self._stop or not any(live):
                return

    def _indices(self, state, live):
        if self._choices:
            return (int(c[0]) for c in self._datasets[-1]._iterate(state))
        seed = self._seed if self._seed is not None else (state.entropy(self),)
        rng = np.random.default_rng([*seed, state.epoch(self)])
        weights = np.ones(self._count) if self._weights is None else self._weights

        def draw():
            while any(live):  # an exhausted input's weight goes to the others (TF's renormalisation)
                w = np.where(live, weights, 0.0)
                yield int(rng.choice(self._count, p=w / w.sum()))

        return draw()


def _check_same_elements(a, b):
    if not _same_structure(a, b) or [s.dtype for s in nest.flatten(a)] != [s.dtype for s in nest.flatten(b)]:
        raise TypeError(f"Incompatible dataset elements:\n  {_describe(a)} vs.   {_describe(b)}")


def _merged(a, b):
    merged = [Spec(_most_specific(x.dims, y.dims), x.dtype) for x, y in zip(nest.flatten(a), nest.flatten(b))]
    return nest.pack(a, merged)


def _describe(structure):
    return nest.map_structure(
        lambda s: f"TensorSpec(shape={TensorShape(s.dims)}, dtype={s.dtype!r})", structure
    )


class Interleave(Dataset):
    """``interleave`` (and ``flat_map``: one slot, blocks of one), TF's algorithm step by step."""

    def __init__(self, input_dataset, fn, cycle_length, block_length, who):
        self._input, self._fn, self._who = input_dataset, fn, who
        self._cycle = int(cycle_length) if cycle_length not in (None, -1) else (os.cpu_count() or 1)
        self._block = int(block_length)
        if self._cycle < 1 or self._block < 1:
            raise InvalidArgumentError(None, None, f"{who}: cycle_length and block_length must be positive")
        self._seed = get_default_graph().seed
        self._traced = trace_dataset(fn, input_dataset._structure, self._seed, who)
        self._structure = self._traced.dataset._structure

    def _iterate(self, state):
        if self._traced is None:
            self._traced = trace_dataset(self._fn, self._input._structure, self._seed, self._who)
        run, inner = state.runner(self, self._traced), self._traced.dataset
        opened = (inner._iterate(state.child(run(element))) for element in self._input._iterate(state))
        return _interleave(opened, self._cycle, self._block)

    def __getstate__(self):
        return {**self.__dict__, "_traced": None}


def _interleave(opened, cycle, block):
    """TF's InterleaveDataset: slots give ``block`` elements in turn; an ended slot takes the next input."""
    slots, index, in_block, open_count, end_of_input = [None] * cycle, 0, 0, 0, False
    while not end_of_input or open_count:
        if slots[index] is not None:
            element = next(slots[index], None)
            if element is not None:
                yield element
                in_block += 1
                if in_block == block:
                    index, in_block = (index + 1) % cycle, 0
                continue
            slots[index], open_count = None, open_count - 1
            index, in_block = (index + 1) % cycle, 0
        elif not end_of_input:
            slots[index] = next(opened, None)
            if slots[index] is None:
                end_of_input = True
            else:
                open_count += 1
        else:
            index, in_block = (index + 1) % cycle, 0


class Zip(Dataset):
    def __init__(self, datasets):
        _check_zip(datasets)
        self._datasets = nest.flatten(datasets)
        self._structure = nest.pack(datasets, [d._structure for d in self._datasets])

    def _iterate(self, state):
        for parts in zip(*(d._iterate(state) for d in self._datasets)):
            yield tuple(c for part in parts for c in part)


def _check_zip(datasets):
    if isinstance(datasets, list):
        raise TypeError(
            "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
            "objects. Python `list` is not supported and you should use `tuple` instead."
        )
    for d in nest.flatten(datasets):
        if not isinstance(d, Dataset):
            raise TypeError(
                "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                f"objects but encountered object of type {type(d)}."
            )


class Concatenate(Dataset):
    def __init__(self, input_dataset, dataset):
        a, b = input_dataset._structure, dataset._structure
        if (
            not _same_structure(a, b)
            or type(a) is not type(b)
            or [s.dtype for s in nest.flatten(a)] != [s.dtype for s in nest.flatten(b)]
        ):
            raise TypeError(f"Incompatible dataset elements:\n  {_describe(a)} vs.   {_describe(b)}")
        self._datasets = [input_dataset, dataset]
        merged = [
            Spec(_most_specific(x.dims, y.dims), x.dtype) for x, y in zip(nest.flatten(a), nest.flatten(b))
        ]
        self._structure = nest.pack(a, merged)

    def _iterate(self, state):
        return itertools.chain(*(d._iterate(state) for d in self._datasets))


def _most_specific(a, b):
    """The most specific shape both ``a`` and ``b`` have (TF's ``most_specific_compatible_shape``)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


class Window(Dataset):
    """Windows of ``size`` elements ``stride`` apart, one every ``shift`` elements, each a dataset."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size, self._stride = int(size), int(stride)
        self._shift = self._size if shift is None else int(shift)
        if min(self._size, self._shift, self._stride) < 1:
            raise InvalidArgumentError(None, None, "window: size, shift and stride must be positive")
        self._input, self._drop = input_dataset, bool(drop_remainder)
        if any(isinstance(s, DatasetSpec) for s in nest.flatten(input_dataset._structure)):
            raise TypeError("window: the elements are windows already; flat_map them into tensors first")
        self._structure = nest.map_structure(lambda s: DatasetSpec(s.dims, s.dtype), input_dataset._structure)

    def _iterate(self, state):
        elements, buffer, first = self._input._iterate(state), [], 0  # buffer[0] is element `first`
        for start in itertools.count(0, self._shift):
            wanted = range(start, start + (self._size - 1) * self._stride + 1, self._stride)
            while first + len(buffer) <= wanted[-1]:
                element = next(elements, None)
                if element is None:
                    break
                buffer.append(element)
            rows = [buffer[i - first] for i in wanted if i - first < len(buffer)]
            if not rows or (self._drop and len(rows) < self._size):
                return
            yield tuple(np.stack(parts) for parts in zip(*rows))
            drop = min(self._shift, len(buffer))
            buffer, first = buffer[drop:], first + drop


class Take(Dataset):
    def __init__(self, input_dataset, count):
        self._input, self._count = input_dataset, int(count)
        self._structure = input_dataset._structure

    def _iterate(self, state):
        elements = self._input._iterate(state)
        return elements if self._count < 0 else itertools.islice(elements, self._count)


class Skip(Dataset):
    def __init__(self, input_dataset, count):
        self._input, self._count = input_dataset, int(count)
        self._structure = input_dataset._structure

    def _iterate(self, state):
        if self._count < 0:
            return iter(())
        return itertools.islice(self._input._iterate(state), self._count, None)


class Shard(Dataset):
    def __init__(self, input_dataset, num_shards, index):
        num_shards, index = int(num_shards), int(index)
        if num_shards < 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Number of shards must be greater than zero (currently num_shards = {num_shards}).",
            )
        if not 0 <= index < num_shards:
            raise InvalidArgumentError(
                None, None, f"Index must be between 0 and {num_shards - 1} (currently index = {index})."
            )
        self._input, self._shards, self._index = input_dataset, num_shards, index
        self._structure = input_dataset._structure

    def _iterate(self, state):
        return itertools.islice(self._input._iterate(state), self._index, None, self._shards)


class Cache(Dataset):
    def __init__(self, input_dataset):
        self._input, self._structure = input_dataset, input_dataset._structure

    def _iterate(self, state):
        record = state.cache(self)
        if record["elements"] is not None:
            yield from record["elements"]
            return
        seen = []
        for element in self._input._iterate(state):
            seen.append(element)
            yield element
        record["elements"] = seen  # only a pass read to its end is kept


class WithOptions(Dataset):
    def __init__(self, input_dataset, options):
        if not isinstance(options, Options):
            raise TypeError(f"with_options takes a tf.data.Options, got {type(options)}")
        self._input, self._options, self._structure = input_dataset, options, input_dataset._structure

    def _iterate(self, state):
        return self._input._iterate(state)
