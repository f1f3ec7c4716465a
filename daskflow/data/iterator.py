"""``tf.data.Iterator``: a dataset's elements as graph tensors.

``get_next()`` is one ``IteratorGetNext`` op (see ``ops/dataset_ops.py``)
whose outputs are the element's flat components, packed back into the
element's structure. Each op keeps its own position per session, so
``get_next()`` builds that op once and returns the same tensors on every call:
a second op would be a second, independent iterator, not TF's shared one.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.graph import get_default_graph
from ..ops.dataset_ops import IteratorGeneration, IteratorGetNext
from ..variables import Variable
from . import nest


class Iterator:
    """Reads a dataset's elements in a graph, one element per step.

    Make one with :meth:`Dataset.make_one_shot_iterator` or
    :meth:`Dataset.make_initializable_iterator`.

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

    def __init__(self, dataset, generation=None):
        self._dataset = dataset
        self._generation = generation  # the hidden variable of an initializable iterator
        self._graph = get_default_graph()
        self._next = None

    @classmethod
    def one_shot(cls, dataset):
        return cls(dataset)

    @classmethod
    def initializable(cls, dataset):
        # Its initializer assigns a fresh generation token: see ops/dataset_ops.py.
        # In no collection: global_variables_initializer must not initialise it (as in TF).
        token = lambda: apply(IteratorGeneration)
        generation = Variable(token, trainable=False, collections=[], name="Iterator")
        return cls(dataset, generation)

    @property
    def initializer(self):
        """The op that (re)starts an initializable iterator at the first element."""
        if self._generation is None:
            raise ValueError("a one-shot iterator has no initializer")
        return self._generation.initializer

    @property
    def output_types(self):
        return self._dataset.output_types

    @property
    def output_shapes(self):
        return self._dataset.output_shapes

    def get_next(self, name=None):
        """The next element, as tensors in the element's structure.

        Running them advances the iterator by one element per step; past the
        end, ``Session.run`` raises :class:`~daskflow.errors.OutOfRangeError`.
        Later calls return the same tensors (``name`` is then ignored).
        """
        if self._next is None:
            self._next = self._build_get_next(name)
        return self._next

    def _build_get_next(self, name):
        specs = nest.flatten(self._dataset._structure)
        inputs = () if self._generation is None else (self._generation,)
        with self._graph.as_default():
            flat = apply(
                IteratorGetNext,
                *inputs,
                dataset=self._dataset,
                output_types=tuple(s.dtype for s in specs),
                output_shapes=tuple(s.dims for s in specs),
                name=name,
            )
        return nest.pack(self._dataset._structure, flat)


def make_one_shot_iterator(dataset):
    """``dataset.make_one_shot_iterator()`` (TF 1.15's function form)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """``dataset.make_initializable_iterator()`` (TF 1.15's function form)."""
    return dataset.make_initializable_iterator(shared_name)
