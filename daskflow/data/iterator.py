"""``tf.data.Iterator``: a dataset's elements as graph tensors, in TF1's four kinds.

An iterator is a *resource* tensor (a string token naming a pass over a
dataset, see ``ops/dataset_ops.py``) and a ``get_next()`` op reading it:

- one-shot: the resource is a ``OneShotIterator`` op's output, an iterator
  made in each session on first use, with its pass;
- initializable: an ``IteratorV2`` op's output, which the ``initializer`` (a
  ``MakeIterator`` op) starts on a fresh pass, from the values the dataset's
  placeholders are fed at that run;
- reinitializable (``from_structure``): the same, started on whichever
  dataset's ``make_initializer(dataset)`` ran last;
- feedable (``from_string_handle``): a string tensor, fed the value of
  another iterator's ``string_handle()``; each of those keeps its position.

The ops reading and starting an iterator are colocated with the op making
it, as TF colocates them: they meet in one process.

``get_next()`` builds its op once and returns the same tensors on every call:
a second op would read the same resource, but TF1 programs call it once per
step of graph building and expect one op.
"""

from __future__ import annotations

import contextlib

from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, get_default_graph
from ..framework.tensor_shape import TensorShape, compatible
from ..ops.core_array_ops import identity
from ..ops.dataset_ops import IteratorGetNext, IteratorV2, MakeIterator, OneShotIterator
from . import nest
from .spec import DatasetSpec, specs_from


class Iterator:
    """Reads a dataset's elements in a graph, one element per step.

    Make one with :meth:`.dataset.Dataset.make_one_shot_iterator`,
    :meth:`.dataset.Dataset.make_initializable_iterator`, :meth:`from_structure` or
    :meth:`from_string_handle`.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> it = tf.data.Dataset.from_tensor_slices(np.arange(3)).make_one_shot_iterator()
    >>> x = it.get_next()
    >>> with tf.Session() as sess:
    ...     [int(sess.run(x)) for _ in range(3)]
    [0, 1, 2]
    """

    def __init__(self, iterator_resource, initializer, output_types, output_shapes, output_classes):
        # TF1's constructor (programs call the factories below): a resource tensor, its
        # initializer op or None, and the element's structure.
        self._resource, self._initializer = iterator_resource, initializer
        self._structure = specs_from(output_types, output_shapes)
        self._dataset = None  # the dataset of a one-shot or initializable iterator
        # The op making this iterator, which its readers are colocated with (None when fed).
        maker = iterator_resource.op
        self._maker = maker if maker.type in ("IteratorV2", "OneShotIterator") else None
        self._graph = get_default_graph()
        self._next = None

    @classmethod
    def _of(cls, dataset, resource, structure=None, initializer=None):
        structure = dataset._structure if structure is None else structure
        types = nest.map_structure(lambda s: s.dtype, structure)
        shapes = nest.map_structure(lambda s: s.dims, structure)
        iterator = cls(resource, initializer, types, shapes, None)
        iterator._dataset, iterator._structure = dataset, structure  # DatasetSpecs and all
        return iterator

    # -- the four kinds -------------------------------------------------------------------
    @classmethod
    def one_shot(cls, dataset):
        _refuse_windows(dataset)
        _refuse_placeholders(dataset)
        captures = dataset.captures()  # tensors computed once per session, by value
        resource = apply(
            OneShotIterator,
            *[c.tensor for c in captures],
            dataset=dataset,
            keys=tuple(c.key for c in captures),
        )
        return cls._of(dataset, resource)

    @classmethod
    def initializable(cls, dataset, shared_name=None):
        _refuse_windows(dataset)
        resource = apply(IteratorV2, name="Iterator")
        return cls._of(dataset, resource, initializer=_make_iterator(resource, dataset, "MakeIterator"))

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """A reinitializable iterator: any dataset of this structure, chosen by :meth:`make_initializer`.

        Parameters
        ----------
        output_types : DType, or a nested tuple / dict of them
        output_shapes : TensorShape-likes in the same structure, optional
            Unknown (any shape) where not given.
        shared_name, output_classes
            Accepted as TF1 does; ``output_classes`` must be ``tf.Tensor``.

        Examples
        --------
        >>> import daskflow as tf
        >>> train, val = tf.data.Dataset.range(10), tf.data.Dataset.range(100, 103)
        >>> it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        >>> x = it.get_next()
        >>> to_val = it.make_initializer(val)
        >>> with tf.Session() as sess:
        ...     sess.run(to_val)
        ...     int(sess.run(x))
        100
        """
        structure = specs_from(output_types, output_shapes)
        return Iterator._of(None, apply(IteratorV2, name="Iterator"), structure)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """A feedable iterator: reads whichever iterator's ``string_handle()`` value ``string_handle`` holds.

        Each iterator so read keeps its own position. Feeding the handle of an
        iterator of other types or shapes fails the step with
        ``InvalidArgumentError``, as in TF.

        Examples
        --------
        >>> import daskflow as tf
        >>> handle = tf.placeholder(tf.string, shape=[])
        >>> it = tf.data.Iterator.from_string_handle(handle, tf.int64, tf.TensorShape([]))
        >>> train = tf.data.Dataset.range(10).make_one_shot_iterator()
        >>> x = it.get_next()
        >>> with tf.Session() as sess:
        ...     h = sess.run(train.string_handle())
        ...     int(sess.run(x, {handle: h}))
        0
        """
        structure = specs_from(output_types, output_shapes)
        handle = convert_to_tensor(string_handle)
        if handle.dtype.name != "string":
            raise ValueError(
                "Tensor conversion requested dtype string for Tensor with dtype "
                f"{handle.dtype.name}: {handle}"
            )
        return Iterator._of(None, handle, structure)

    # -- TF1's methods ----------------------------------------------------------------------
    @property
    def initializer(self):
        """The op that (re)starts an initializable iterator at the first element."""
        if self._initializer is None:
            raise ValueError(
                "The iterator does not have an initializer. This means it was likely created using "
                "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
                "`tf.data.Dataset.make_initializable_iterator()` instead."
            )
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that points this iterator at the start of ``dataset`` (of a compatible structure).

        Raises
        ------
        TypeError
            If ``dataset``'s types, or shapes, are not this iterator's.
        ValueError
            If its structure differs, or the iterator is not reinitializable.
        """
        if self._maker is None or self._maker.type != "IteratorV2":
            raise ValueError("make_initializer needs an iterator made by Iterator.from_structure")
        _refuse_windows(dataset)
        _check_compatible(self._structure, dataset._structure)
        with self._graph.as_default():
            return _make_iterator(self._resource, dataset, name or "make_initializer")

    def string_handle(self, name=None):
        """A string scalar naming this iterator, to feed to a :meth:`from_string_handle` iterator."""
        with self._graph.as_default(), self._colocated():
            return _identity(self._resource, name or "IteratorToStringHandle")

    @property
    def output_types(self):
        return nest.map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda s: TensorShape(s.dims), self._structure)

    @property
    def output_classes(self):
        return nest.map_structure(lambda s: Tensor, self._structure)

    def get_next(self, name=None):
        """The next element, as tensors in the element's structure.

        Running them advances the iterator by one element per step; past the
        end, ``Session.run`` raises :class:`~daskflow.errors.OutOfRangeError`,
        and before an initializable iterator is initialised
        :class:`~daskflow.errors.FailedPreconditionError`. Later calls return
        the same tensors (``name`` is then ignored).
        """
        if self._next is None:
            self._next = self._build_get_next(name)
        return self._next

    def _colocated(self):
        return self._graph.colocate_with(self._maker) if self._maker is not None else contextlib.nullcontext()

    def _build_get_next(self, name):
        specs = nest.flatten(self._structure)
        with self._graph.as_default(), self._colocated():
            flat = apply(
                IteratorGetNext,
                self._resource,
                dataset=self._dataset,
                output_types=tuple(s.dtype for s in specs),
                output_shapes=tuple(s.dims for s in specs),
                name=name or "IteratorGetNext",
            )
        return nest.pack(self._structure, flat)


def _make_iterator(resource, dataset, name):
    """The op starting ``resource`` on a fresh pass over ``dataset`` (from its captured tensors' values)."""
    graph = resource.graph
    captures = dataset.captures()
    inputs = [resource] + [convert_to_tensor(c.tensor, graph=graph) for c in captures]
    with graph.colocate_with(resource.op):
        return graph.create_op(
            MakeIterator, inputs, {"dataset": dataset, "keys": tuple(c.key for c in captures)}, name=name
        )


def _identity(tensor, name):
    return identity(tensor, name=name)


def _refuse_windows(dataset):
    if any(isinstance(s, DatasetSpec) for s in dataset.flat_specs()):
        raise TypeError(
            "the elements of this dataset are windows (datasets), which an iterator cannot return; "
            "turn each into tensors first: ds.window(n).flat_map(lambda w: w.batch(n))"
        )


def _refuse_placeholders(dataset):
    """TF1: a one-shot iterator captures tensors by value, and a placeholder has none."""
    seen, stack = set(), [c.tensor for c in dataset.captures()]
    while stack:
        op = stack.pop().op
        if op in seen:
            continue
        seen.add(op)
        if op.primitive.is_placeholder:
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
        stack.extend(op.inputs)


def _check_compatible(expected, got):
    """TF's checks of a dataset against a reinitializable iterator's structure."""
    from .transforms import _same_structure  # local import: a cycle, transforms -> dataset -> this module

    if not _same_structure(expected, got) or isinstance(expected, tuple) != isinstance(got, tuple):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {nest.map_structure(lambda s: s.dtype, expected)}\n\n"
            f"Second structure: {nest.map_structure(lambda s: s.dtype, got)}"
        )
    e, g = nest.flatten(expected), nest.flatten(got)
    if [s.dtype for s in e] != [s.dtype for s in g]:
        raise TypeError(
            f"Expected output types {_show(expected, 'dtype')} but got dataset with output types "
            f"{_show(got, 'dtype')}."
        )
    if not all(compatible(a.dims, b.dims) for a, b in zip(e, g)):
        raise TypeError(
            f"Expected output shapes compatible with {_show(expected, 'shape')} but got dataset with "
            f"output shapes {_show(got, 'shape')}."
        )


def _show(structure, what):
    if what == "dtype":
        return nest.map_structure(lambda s: s.dtype, structure)
    return nest.map_structure(lambda s: TensorShape(s.dims), structure)


def make_one_shot_iterator(dataset):
    """``dataset.make_one_shot_iterator()`` (TF 1.15's function form)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """``dataset.make_initializable_iterator()`` (TF 1.15's function form)."""
    return dataset.make_initializable_iterator(shared_name)


def _structure_of(dataset_or_iterator, what):
    from .dataset import Dataset  # local import: a cycle, dataset.py imports this module

    if not isinstance(dataset_or_iterator, (Dataset, Iterator)):
        raise TypeError(
            "Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or "
            f"tf.data.Iterator object, but got {type(dataset_or_iterator)}."
        )
    return getattr(dataset_or_iterator, what)


def get_output_types(dataset_or_iterator):
    """The ``output_types`` of a dataset or iterator.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.get_output_types(tf.data.Dataset.range(3))
    tf.int64
    """
    return _structure_of(dataset_or_iterator, "output_types")


def get_output_shapes(dataset_or_iterator):
    """The ``output_shapes`` of a dataset or iterator.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.get_output_shapes(tf.data.Dataset.range(3).batch(2)).as_list()
    [None]
    """
    return _structure_of(dataset_or_iterator, "output_shapes")


def get_output_classes(dataset_or_iterator):
    """The ``output_classes`` of a dataset or iterator (``tf.Tensor`` per component)."""
    return _structure_of(dataset_or_iterator, "output_classes")
