"""``tf.data.Dataset``: input pipelines as plain, picklable descriptions.

A dataset is a small tree of nodes: a source (tensor slices, a single
element, a range) and transformations over it (``shuffle``, ``batch``,
``repeat``, ``map``, ``take``, ``skip``). A node holds only its arguments and
the static structure of its elements — no position, no random state — so it
pickles, and the same description can be iterated wherever elements are
needed: by a session's iterator op today, on a worker later.

Iteration state is made fresh by :meth:`Dataset.flat_elements`: one Python
generator per node, plus a :class:`_Pass` that counts the epochs each shuffle
has begun (so ``repeat`` reshuffles) and holds each map's private session.
Two passes over one dataset never share state, which is why a new session
(or a re-initialised iterator) starts from the first element again — and,
with a seed, sees the same order again.

Elements travel as flat tuples of numpy arrays. The nested structure (tuples
and dicts, see :mod:`.nest`) lives once on each node, with a :class:`Spec` per
component, and is applied only at the API edges (``map``'s arguments,
``get_next``'s result, ``output_types`` / ``output_shapes``).

Element dtypes follow TF: numpy arrays keep their dtype (float64 stays
float64, int64 stays int64); Python floats become float32 and Python ints
int32. Numpy inputs are copied, so later edits by the caller cannot change a
dataset.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes
from ..framework.graph import Tensor, get_default_graph
from ..framework.tensor_shape import TensorShape
from ..ops.random_ops import get_seed
from . import nest
from .spec import Spec
from .traced import trace

# Sources of slices other than in-memory arrays, as (accepts a component?, dataset
# class): the dask-array source (data/cluster_source.py) registers itself, so this
# module needs no import of it.
SLICE_SOURCES: list = []

# TF1's types for Python values; numpy values keep theirs.
_PYTHON_DTYPES = {"f": np.float32, "i": np.int32, "u": np.int32}


class Dataset:
    """A sequence of elements, each a nested structure (tuples, dicts) of arrays.

    Build one with :meth:`from_tensor_slices`, :meth:`from_tensors` or
    :meth:`range`, transform it, and read it in a graph through an iterator.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> ds = tf.data.Dataset.from_tensor_slices((np.arange(6.0), np.arange(6)))
    >>> x, y = ds.batch(4).make_one_shot_iterator().get_next()
    >>> x.shape.as_list(), y.dtype
    ([None], tf.int64)
    >>> with tf.Session() as sess:
    ...     sess.run(x)
    array([0., 1., 2., 3.])
    """

    _structure: object  # nested Specs, one per component

    # -- sources -------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        """Elements are the slices of ``tensors`` along their first axis.

        Parameters
        ----------
        tensors : array-like, or a tuple / dict (nested) of them
            Every component must have the same size in dimension 0.

        Raises
        ------
        ValueError
            If the components' first dimensions differ, or one is a scalar.

        Examples
        --------
        >>> import numpy as np
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_tensor_slices({"x": np.zeros((5, 2)), "y": [0, 1, 0, 1, 1]})
        >>> ds.output_shapes["x"], ds.output_types["y"]
        (TensorShape([2]), tf.int32)

        Components may be ``dask.array`` arrays (all of them): data already
        on the cluster, which each replica reads where it lies
        (:mod:`daskflow.data.cluster_source`).
        """
        for accepts, source in SLICE_SOURCES:
            if any(accepts(t) for t in nest.flatten(tensors)):
                return source(tensors)
        return _TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors):
        """One element: ``tensors`` itself.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.from_tensors([1.0, 2.0]).output_shapes
        TensorShape([2])
        """
        return _Tensors(tensors)

    @staticmethod
    def range(*args):
        """int64 scalars, with Python's ``range`` arguments (start, stop, step).

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(5).output_types
        tf.int64
        """
        return _Range(*args)

    # -- transformations ---------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffle through a buffer of ``buffer_size`` elements.

        The buffer is filled first; each output is a random element of it,
        whose place the next input element takes. A buffer at least as large
        as the dataset gives a uniform shuffle; ``buffer_size=1`` none at all.
        With ``seed`` (or a graph seed from ``set_random_seed``) the order is
        the same in every session; ``reshuffle_each_iteration`` draws a new
        order for each ``repeat`` epoch.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).shuffle(10, seed=0)
        """
        return _Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size, drop_remainder=False):
        """Stack ``batch_size`` consecutive elements, component by component.

        The static batch dimension is unknown (None) unless ``drop_remainder``,
        which drops a last, smaller batch.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(10).batch(4, drop_remainder=True).output_shapes
        TensorShape([4])
        """
        return _Batch(self, batch_size, drop_remainder)

    def repeat(self, count=None):
        """Repeat the dataset ``count`` times (None or -1: forever).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(3).repeat(2)  # 0 1 2 0 1 2
        """
        return _Repeat(self, count)

    def map(self, map_func, num_parallel_calls=None):
        """Apply ``map_func`` to each element, as graph ops.

        ``map_func`` receives the element's components as tensors (a tuple is
        unpacked into arguments) and returns tensors, or numpy / Python values,
        in any nested structure. It is traced once into a private graph, which
        a private session then runs once per element; see :mod:`.traced` for
        the cost. ``num_parallel_calls`` is accepted and ignored.

        Examples
        --------
        >>> import numpy as np
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4)))
        >>> ds.map(lambda x, y: (tf.cast(x, tf.float32) / 16.0, y)).output_types
        (tf.float32, tf.int64)
        """
        return _Map(self, map_func)

    def take(self, count):
        """At most ``count`` elements (-1: all).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).take(3)  # 0 1 2
        """
        return _Take(self, count)

    def skip(self, count):
        """All but the first ``count`` elements (-1: skip all).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).skip(7)  # 7 8 9
        """
        return _Skip(self, count)

    def prefetch(self, buffer_size):
        """The same dataset: embedded iteration is synchronous, so there is nothing to overlap.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(3)
        >>> ds.prefetch(1) is ds
        True
        """
        return self

    # -- static structure ---------------------------------------------------------------------
    @property
    def output_types(self):
        """The element's structure with a :class:`DType` per component."""
        return nest.map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self):
        """The element's structure with a :class:`TensorShape` per component."""
        return nest.map_structure(lambda s: TensorShape(s.dims), self._structure)

    # -- iterators ------------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that starts at the first element in each session.

        Examples
        --------
        >>> import daskflow as tf
        >>> n = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
        >>> with tf.Session() as sess:
        ...     [int(sess.run(n)) for _ in range(3)]
        [0, 1, 2]
        """
        from .iterator import Iterator

        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator that must be initialised, and restarts whenever it is.

        Examples
        --------
        >>> import daskflow as tf
        >>> it = tf.data.Dataset.range(3).make_initializable_iterator()
        >>> n = it.get_next()
        >>> with tf.Session() as sess:
        ...     sess.run(it.initializer)
        ...     int(sess.run(n))
        0
        """
        from .iterator import Iterator

        return Iterator.initializable(self)

    def __repr__(self):
        return f"<{type(self).__name__.lstrip('_')} shapes: {self.output_shapes}, types: {self.output_types}>"

    # -- for the iterator ops (and workers) -------------------------------------------------------
    def flat_elements(self, shard=(0, 1)):
        """A fresh pass over the elements, each a flat tuple of numpy arrays.

        ``shard=(index, count)``: the pass of one of ``count`` replicas, whose
        sources yield only every ``count``-th element from ``index`` on (as
        TF's ``shard`` at the source); ``from_tensors`` is whole for each.
        """
        return self._iterate(_Pass(shard))

    def _iterate(self, state):
        raise NotImplementedError

    def cluster_sources(self):
        """The nodes of this dataset whose data lives on a cluster (dask-array sources)."""
        node = self
        while hasattr(node, "_input"):
            node = node._input
        return [node] if hasattr(node, "dask_arrays") else []


class _Pass:
    """The iteration state of one pass over a dataset tree, per node."""

    def __init__(self, shard=(0, 1)):
        self.shard = shard
        self._epochs: dict = {}
        self._entropy: dict = {}
        self._runners: dict = {}
        self._blocks: dict = {}

    def epoch(self, node) -> int:
        """How many times ``node`` began iterating before (in this pass)."""
        n = self._epochs[node] = self._epochs.get(node, -1) + 1
        return n

    def entropy(self, node) -> int:
        """A random seed for an unseeded ``node``, the same for all of this pass's epochs."""
        if node not in self._entropy:
            self._entropy[node] = np.random.SeedSequence().entropy
        return self._entropy[node]

    def blocks(self, node, read):
        """A source's blocks for this pass's shard, read once (``read(shard)``) for all its epochs."""
        if node not in self._blocks:
            self._blocks[node] = read(self.shard)
        return self._blocks[node]

    def runner(self, node, traced):
        """A map node's private session (as a runner), made once per pass."""
        if node not in self._runners:
            self._runners[node] = traced.runner()
        return self._runners[node]


# -- sources ----------------------------------------------------------------------------------------


def _as_array(value) -> np.ndarray:
    """A read-only copy of a component, with TF's dtype for Python values."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        raise TypeError(f"datasets are built from numpy arrays or Python values, not graph tensors: {value}")
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.array(value)
    else:
        raw = np.asarray(value)
        array = raw.astype(_PYTHON_DTYPES.get(raw.dtype.kind, raw.dtype))
    dtypes.as_dtype(array.dtype)  # TypeError for what no tensor can hold (strings, objects)
    array.flags.writeable = False
    return array


def _spec(array) -> Spec:
    return Spec(array.shape, dtypes.as_dtype(array.dtype))


class _Tensors(Dataset):
    def __init__(self, tensors):
        self._arrays = [_as_array(t) for t in nest.flatten(tensors)]
        self._structure = nest.pack(tensors, [_spec(a) for a in self._arrays])

    def _iterate(self, state):
        yield tuple(self._arrays)


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        self._arrays = arrays = [_as_array(t) for t in nest.flatten(tensors)]
        _check_slices(arrays)
        self._structure = nest.pack(tensors, [Spec(a.shape[1:], _spec(a).dtype) for a in arrays])

    def _iterate(self, state):
        index, count = state.shard
        for i in range(index, len(self._arrays[0]), count):
            yield tuple(np.asarray(a[i]) for a in self._arrays)  # asarray: 0-d arrays, not scalars


def _check_slices(arrays):
    if not arrays:
        raise ValueError("from_tensor_slices needs at least one component")
    scalars = [i for i, a in enumerate(arrays) if a.ndim == 0]
    if scalars:
        raise ValueError(f"from_tensor_slices cannot slice scalars (components {scalars})")
    sizes = [a.shape[0] for a in arrays]
    if len(set(sizes)) > 1:
        raise ValueError(f"from_tensor_slices: components differ in dimension 0, sizes {sizes}")


class _Range(Dataset):
    def __init__(self, *args):
        self._range = range(*(int(a) for a in args))
        self._structure = Spec((), dtypes.int64)

    def _iterate(self, state):
        index, count = state.shard
        return ((np.asarray(i, dtype=np.int64),) for i in self._range[index::count])


# -- transformations ----------------------------------------------------------------------------------


class _Shuffle(Dataset):
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


class _Batch(Dataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        if int(batch_size) < 1:
            raise ValueError(f"batch needs batch_size >= 1, got {batch_size}")
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)
        size = self._size if self._drop else None  # a last, smaller batch may come
        self._structure = nest.map_structure(lambda s: s.batched(size), input_dataset._structure)

    def _iterate(self, state):
        elements = self._input._iterate(state)
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            yield tuple(np.stack(parts) for parts in zip(*chunk))


class _Repeat(Dataset):
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


class _Map(Dataset):
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


class _Take(Dataset):
    def __init__(self, input_dataset, count):
        self._input, self._count = input_dataset, int(count)
        self._structure = input_dataset._structure

    def _iterate(self, state):
        elements = self._input._iterate(state)
        return elements if self._count < 0 else itertools.islice(elements, self._count)


class _Skip(Dataset):
    def __init__(self, input_dataset, count):
        self._input, self._count = input_dataset, int(count)
        self._structure = input_dataset._structure

    def _iterate(self, state):
        if self._count < 0:
            return iter(())
        return itertools.islice(self._input._iterate(state), self._count, None)
