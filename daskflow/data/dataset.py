"""``tf.data.Dataset``: input pipelines as plain, picklable descriptions.

A dataset is a small tree of nodes: a source (tensor slices, a single
element, a range, a generator, files: :mod:`.sources`, :mod:`.readers`) and
transformations over it (:mod:`.transforms`). A node holds only its arguments
and the static structure of its elements — no position, no random state — so
it pickles, and the same description can be iterated wherever elements are
needed: by a session's iterator op today, on a worker later.

A source's argument may be a graph tensor (a placeholder) that is known only
when an iterator is initialised: the dataset *captures* it (a
:class:`~.spec.Captured` key), the iterator's ``MakeIterator`` op takes it as
an input, and the pass reads its value by the key. Constant tensors are read
at once.

Iteration state is made fresh by :meth:`Dataset.flat_elements`: one Python
generator per node, plus a :class:`_Pass` that counts the epochs each shuffle
has begun (so ``repeat`` reshuffles), holds each map's private session, the
captured values and the caches. Two passes over one dataset never share state,
which is why a new session (or a re-initialised iterator) starts from the
first element again — and, with a seed, sees the same order again.

Elements travel as flat tuples of numpy arrays (strings as object arrays of
bytes). The nested structure (tuples and dicts, see :mod:`.nest`) lives once
on each node, with a :class:`Spec` per component, and is applied only at the
API edges (``map``'s arguments, ``get_next``'s result, ``output_types`` /
``output_shapes``).

Element dtypes follow TF: numpy arrays keep their dtype (float64 stays
float64, int64 stays int64); Python floats become float32, ints int32 and
text string. Numpy inputs are copied, so later edits by the caller cannot
change a dataset.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.graph import Tensor
from ..framework.tensor_shape import TensorShape
from . import nest
from .iterator import Iterator
from .options import Options
from .spec import Captured

# Sources of slices other than in-memory arrays, as (accepts a component?, dataset
# class): the dask-array source (data/cluster_source.py) registers itself, so this
# module needs no import of it.
SLICE_SOURCES: list = []


class Dataset:
    """A sequence of elements, each a nested structure (tuples, dicts) of arrays.

    Build one with :meth:`from_tensor_slices`, :meth:`from_tensors`,
    :meth:`range`, :meth:`from_generator`, :meth:`zip` or a file reader
    (``tf.data.TextLineDataset``...), transform it, and read it in a graph
    through an iterator.

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
    def from_tensor_slices(tensors, name=None):
        """Elements are the slices of ``tensors`` along their first axis.

        Parameters
        ----------
        tensors : array-like or tensor, or a tuple / dict (nested) of them
            Every component must have the same size in dimension 0. A graph
            tensor (a placeholder) is read when the iterator is initialised:
            use :meth:`make_initializable_iterator` and feed it then.

        Raises
        ------
        ValueError
            If the components' first dimensions differ, or one is a scalar.

        Examples
        --------
        >>> import numpy as np
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_tensor_slices({"x": np.zeros((5, 2)), "y": [0, 1, 0, 1, 1]})
        >>> ds.output_shapes["x"].as_list(), ds.output_types["y"]
        ([2], tf.int32)

        Components may be ``dask.array`` arrays (all of them): data already
        on the cluster, which each replica reads where it lies
        (:mod:`daskflow.data.cluster_source`).
        """
        for accepts, source in SLICE_SOURCES:
            if any(accepts(t) for t in nest.flatten(tensors)):
                return source(tensors)
        return _sources._TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: ``tensors`` itself.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.from_tensors([1.0, 2.0]).output_shapes.as_list()
        [2]
        """
        return _sources._Tensors(tensors)

    @staticmethod
    def range(*args, **kwargs):
        """Scalars (int64, or ``output_type=``) with Python's ``range`` arguments (start, stop, step).

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(5).output_types
        tf.int64
        """
        unknown = set(kwargs) - {"output_type", "name"}
        if unknown:
            raise TypeError(f"Dataset.range() got unexpected keyword arguments {sorted(unknown)}")
        return _sources._Range(*args, output_type=kwargs.get("output_type", dtypes.int64))

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        """``start``, ``start + step``, ... without end.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.counter(3).take(2).output_types
        tf.int64
        """
        return _sources._Counter(start, step, dtype)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side, in their nested structure; as long as the shortest.

        Examples
        --------
        >>> import daskflow as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(5)
        >>> tf.data.Dataset.zip((a, {"b": b})).output_types
        (tf.int64, {'b': tf.int64})
        """
        if datasets is None:
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        return _transforms.Zip(datasets)

    @staticmethod
    def from_generator(
        generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None
    ):
        """Elements that ``generator(*args)`` yields, converted to ``output_types``.

        ``args`` (arrays or tensors; tensors are read when the iterator is
        initialised) reach the generator as numpy values. A yielded element
        of another structure, type or shape fails the step that reads it with
        ``InvalidArgumentError``.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_generator(lambda: iter([[1], [2, 3]]), tf.int32, [None])
        >>> ds.output_shapes.as_list()
        [None]
        """
        if output_signature is not None:
            raise TypeError(
                "from_generator: give output_types (and output_shapes); output_signature "
                "needs tf.TensorSpec, which daskflow lacks"
            )
        if output_types is None:
            raise TypeError("from_generator() missing required argument 'output_types'")
        return _sources._Generator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The names (tf.string) of the files matching ``file_pattern`` (a glob, or several).

        Matched when the iterator starts; shuffled unless ``shuffle=False``.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.list_files("/tmp/*.csv", shuffle=False).output_types
        tf.string
        """
        return _readers.list_files(file_pattern, shuffle, seed)

    # -- transformations ---------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
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
        return _transforms.Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements, component by component.

        The static batch dimension is unknown (None) unless ``drop_remainder``,
        which drops a last, smaller batch.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(10).batch(4, drop_remainder=True).output_shapes.as_list()
        [4]
        """
        return _transforms.Batch(self, batch_size, drop_remainder)

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None
    ):
        """Batch elements of different shapes, padding each component to ``padded_shapes``.

        A ``None`` (or unknown) dimension of ``padded_shapes`` pads to the
        longest element of the batch; ``padded_shapes=None`` does so in every
        unknown dimension. ``padding_values`` defaults to 0 (``b""`` for
        strings) and must have each component's dtype.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_generator(lambda: iter([[1], [2, 3]]), tf.int64, [None])
        >>> ds.padded_batch(2, padded_shapes=[4]).output_shapes.as_list()
        [None, 4]
        """
        return _transforms.PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self, name=None):
        """Split each element along its first dimension into elements.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(6).batch(4).unbatch().output_shapes
        TensorShape([])
        """
        return _transforms.Unbatch(self)

    def repeat(self, count=None, name=None):
        """Repeat the dataset ``count`` times (None or -1: forever).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(3).repeat(2)  # 0 1 2 0 1 2
        """
        return _transforms.Repeat(self, count)

    def map(
        self,
        map_func,
        num_parallel_calls=None,
        deterministic=None,
        synchronous=None,
        use_unbounded_threadpool=False,
        name=None,
    ):
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
        return _transforms.Map(self, map_func)

    def map_with_legacy_function(
        self, map_func, num_parallel_calls=None, deterministic=None, use_unbounded_threadpool=False
    ):
        """:meth:`map` (TF1's name for maps traced as legacy functions)."""
        return self.map(map_func)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (graph ops, traced once) gives a scalar ``True``.

        Raises
        ------
        ValueError
            If ``predicate`` does not return a ``tf.bool`` scalar.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).filter(lambda x: tf.equal(x % 3, 0))  # 0 3 6 9
        """
        return _transforms.Filter(self, predicate)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` (a ``tf.bool`` scalar) is false.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).take_while(lambda x: x < 4)  # 0 1 2 3
        """
        return _transforms.TakeWhile(self, predicate)

    def unique(self, name=None):
        """Each distinct element once, in order of first appearance (int32, int64 or string scalars).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.from_tensor_slices([1, 3, 1, 2]).unique()  # 1 3 2
        """
        return _transforms.Unique(self)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Elements of ``datasets[i]`` for each ``i`` (a ``tf.int64`` scalar) of ``choice_dataset``.

        Examples
        --------
        >>> import daskflow as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
        >>> choice = tf.data.Dataset.range(2).repeat(3)  # 0 1 0 1 0 1
        >>> ds = tf.data.Dataset.choose_from_datasets([a, b], choice)  # 0 10 1 11 2 12
        """
        return _transforms.Choose(datasets, choice_dataset, None, None, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize_each_iteration=None
    ):
        """Elements of ``datasets`` drawn at random, dataset ``i`` with probability ``weights[i]``.

        An exhausted dataset's weight goes to the others, unless
        ``stop_on_empty_dataset``. (``weights`` as a dataset is not supported.)

        Examples
        --------
        >>> import daskflow as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
        >>> ds = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=1)
        """
        if isinstance(weights, Dataset):
            raise TypeError(
                "sample_from_datasets: `weights` as a dataset is not supported; give a list of floats"
            )
        return _transforms.Choose(datasets, None, weights, seed, stop_on_empty_dataset)

    def filter_with_legacy_function(self, predicate):
        """:meth:`filter` (TF1's name for predicates traced as legacy functions)."""
        return self.filter(predicate)

    def flat_map(self, map_func, name=None):
        """Map each element to a dataset (``map_func`` returns one) and chain their elements.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))  # 0 0 1 0 1 2
        """
        return _transforms.Interleave(self, map_func, 1, 1, "flat_map")

    def interleave(
        self,
        map_func,
        cycle_length=None,
        block_length=None,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ):
        """Map each element to a dataset and interleave ``cycle_length`` of them, ``block_length`` at a time.

        As TF: each of ``cycle_length`` slots holds the dataset of one input
        element; the slots give ``block_length`` elements each in turn, and a
        slot whose dataset ends takes the next input element's. ``cycle_length``
        None means this machine's CPU count, as TF's AUTOTUNE does.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(1, 4).interleave(
        ...     lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2, block_length=1)
        """
        return _transforms.Interleave(self, map_func, cycle_length, block_length or 1, "interleave")

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (of the same structure and types).

        Raises
        ------
        TypeError
            If the two datasets' elements differ in structure or types.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7)).output_shapes
        TensorShape([])
        """
        return _transforms.Concatenate(self, dataset)

    def take(self, count, name=None):
        """At most ``count`` elements (-1: all).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).take(3)  # 0 1 2
        """
        return _transforms.Take(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (-1: skip all).

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).skip(7)  # 7 8 9
        """
        return _transforms.Skip(self, count)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, from the ``index``-th on.

        Raises
        ------
        InvalidArgumentError
            If ``num_shards`` < 1 or ``index`` is not in ``[0, num_shards)``.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(10).shard(3, 1)  # 1 4 7
        """
        return _transforms.Shard(self, num_shards, index)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (``stride`` apart), one starting every ``shift`` (default ``size``).

        Each window is a dataset (of the element's structure); ``flat_map``
        turns windows into tensors, as in TF. The last windows may be shorter
        unless ``drop_remainder``. An iterator cannot return windows themselves.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3))
        >>> ds.output_shapes.as_list()  # [0 1 2] [2 3 4] [4 5 6] [6]
        [None]
        """
        return _transforms.Window(self, size, shift, stride, drop_remainder)

    def enumerate(self, start=0, name=None):
        """``(i, element)`` pairs, ``i`` an int64 counting from ``start``.

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(3).enumerate().output_types
        (tf.int64, tf.int64)
        """
        return Dataset.zip((Dataset.counter(start), self))

    def cache(self, filename="", name=None):
        """Keep the elements of the first complete pass and replay them in later epochs.

        The cache is in memory, per iterator pass, whatever ``filename``
        says; a pass that stops early (``take``) caches nothing, as in TF.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(3).map(lambda x: x * 2).cache().repeat(2)
        """
        return _transforms.Cache(self)

    def prefetch(self, buffer_size, name=None):
        """The same dataset: embedded iteration is synchronous, so there is nothing to overlap.

        Examples
        --------
        >>> import daskflow as tf
        >>> ds = tf.data.Dataset.range(3)
        >>> ds.prefetch(1) is ds
        True
        """
        return self

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset (``tf.data.experimental``'s functions).

        Examples
        --------
        >>> import daskflow as tf
        >>> tf.data.Dataset.range(4).batch(2).apply(tf.data.experimental.unbatch()).output_shapes
        TensorShape([])
        """
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(
                f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(result)}."
            )
        return result

    def with_options(self, options, name=None):
        """The same elements, with ``options`` (a :class:`~.options.Options`) merged into :meth:`options`.

        Examples
        --------
        >>> import daskflow as tf
        >>> opts = tf.data.Options()
        >>> opts.experimental_deterministic = False
        >>> tf.data.Dataset.range(3).with_options(opts).options().experimental_deterministic
        False
        """
        return _transforms.WithOptions(self, options)

    def options(self):
        """The :class:`~.options.Options` set on this dataset and its inputs."""
        found = [n._options for n in self._nodes() if getattr(n, "_options", None) is not None]
        merged = Options()
        for options in reversed(found):  # the inner ones first: an outer with_options wins
            merged = merged.merge(options)
        return merged

    # -- static structure ---------------------------------------------------------------------
    @property
    def output_types(self):
        """The element's structure with a :class:`DType` per component."""
        return nest.map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self):
        """The element's structure with a :class:`TensorShape` per component."""
        return nest.map_structure(lambda s: TensorShape(s.dims), self._structure)

    @property
    def output_classes(self):
        """The element's structure with ``tf.Tensor`` per component."""
        return nest.map_structure(lambda s: Tensor, self._structure)

    # -- iterators ------------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that starts at the first element in each session.

        Raises
        ------
        ValueError
            If the dataset reads a placeholder (use an initializable iterator).

        Examples
        --------
        >>> import daskflow as tf
        >>> n = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
        >>> with tf.Session() as sess:
        ...     [int(sess.run(n)) for _ in range(3)]
        [0, 1, 2]
        """
        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator that must be initialised, and restarts whenever it is.

        The placeholders the dataset reads are fed to ``sess.run(iterator.initializer, feed_dict)``.

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
        return Iterator.initializable(self, shared_name)

    def __repr__(self):
        return f"<{type(self).__name__.lstrip('_')} shapes: {self.output_shapes}, types: {self.output_types}>"

    # -- for the iterator ops (and workers) -------------------------------------------------------
    def flat_elements(self, shard=(0, 1), captured=None):
        """A fresh pass over the elements, each a flat tuple of numpy arrays.

        ``shard=(index, count)``: the pass of one of ``count`` replicas, whose
        sources yield only every ``count``-th element from ``index`` on (as
        TF's ``shard`` at the source); ``from_tensors`` is whole for each.
        ``captured``: the values of the tensors the dataset captured, by key.
        A pipeline whose one source is a file dataset shards whole files where there
        are enough (TF's AUTO policy); with several sources every source shards by
        element, so zipped sources stay paired.
        """
        sources = [node for node in self._nodes() if not node._inputs()]
        by_file = len(sources) == 1 and getattr(sources[0], "shards_by_file", False)
        return self._iterate(_Pass(shard, captured, by_file=by_file))

    def flat_specs(self) -> list:
        """The static :class:`Spec` of each flat component."""
        return nest.flatten(self._structure)

    def captures(self) -> list:
        """The :class:`Captured` tensors this dataset reads, in a fixed order."""
        return [c for node in self._nodes() for c in node._arguments() if isinstance(c, Captured)]

    def captures_nothing(self) -> bool:
        return not self.captures()

    def check_captured(self, captured):
        """Raise ValueError where the captured values do not fit (slices of unequal length)."""
        for node in self._nodes():
            node._validate(captured)

    def _validate(self, captured):
        pass

    def _arguments(self) -> list:
        """This node's own arguments that may be captured tensors."""
        return list(getattr(self, "_components", ()))

    def _iterate(self, state):
        raise NotImplementedError

    def _nodes(self):
        """This node and every node it reads from."""
        nodes, stack = [], [self]
        while stack:
            node = stack.pop()
            nodes.append(node)
            stack.extend(reversed(node._inputs()))
        return nodes

    def _inputs(self) -> list:
        inputs = getattr(self, "_datasets", None)
        if inputs is not None:
            return list(inputs)
        return [self._input] if hasattr(self, "_input") else []

    def cluster_sources(self):
        """The nodes of this dataset whose data lives on a cluster (dask-array sources)."""
        return [n for n in self._nodes() if hasattr(n, "dask_arrays")]


class _Pass:
    """The iteration state of one pass over a dataset tree, per node."""

    def __init__(self, shard=(0, 1), captured=None, shared=None, by_file=False):
        self.shard = shard
        self.by_file = by_file  # the one source may shard whole files (see flat_elements)
        self.captured = captured or {}
        # Shared with the inner passes of flat_map / interleave: epochs, seeds, private sessions.
        self._epochs, self._entropy, self._runners = shared or ({}, {}, {})
        self._blocks: dict = {}
        self._caches: dict = {}

    def value(self, component):
        """A source argument's value: its captured tensor's value, or itself."""
        return self.captured[component.key] if isinstance(component, Captured) else component

    def child(self, captured):
        """The pass over a dataset made per element (flat_map): whole, with its own captured values."""
        return _Pass((0, 1), captured, (self._epochs, self._entropy, self._runners))

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
        """A traced function's private session (as a runner), made once per pass."""
        if node not in self._runners:
            self._runners[node] = traced.runner()
        return self._runners[node]

    def cache(self, node) -> dict:
        """A cache node's record for this pass."""
        return self._caches.setdefault(node, {"elements": None})


# The node classes; imported last, as they subclass Dataset.
from . import readers as _readers  # noqa: E402
from . import sources as _sources  # noqa: E402
from . import transforms as _transforms  # noqa: E402

# Names other modules import from here.
_TensorSlices, _Tensors, _Range = _sources._TensorSlices, _sources._Tensors, _sources._Range
