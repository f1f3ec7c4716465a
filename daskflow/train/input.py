"""TF1's queue-based input (``tf.train.slice_input_producer``, ``tf.train.batch``...) on ``tf.data``.

TF1 built input from queues: a producer queue of examples (or file names,
or indices) filled by a thread, per-example ops reading from it, and a batch
queue filled by more threads. daskflow builds the same API on datasets and
runs no threads of its own:

- a **producer** is an iterator over ``Slices(values).shuffle(n).repeat(num_epochs)``;
  its ``get_next()`` outputs are the per-example tensors (``slice_input_producer``)
  or what the returned queue's ``dequeue()`` gives (``string_input_producer``,
  ``input_producer``, ``range_input_producer``). The graph records which dataset
  stands behind those outputs.
- a **batch** finds the producer behind its tensors. The ops between (per-example
  preprocessing) become a ``Dataset.map`` function (:mod:`._per_example`); the
  batch is then one iterator over ``producer_dataset.map(...).batch(n)``
  (``shuffle(capacity)`` first for ``shuffle_batch``). Its tensors are that
  iterator's ``get_next()``.

What TF1 users see stays: static batch shapes (``[batch_size, ...]``, or
``None`` first with ``allow_smaller_final_batch``); ``num_epochs`` ends the input
with ``tf.errors.OutOfRangeError`` from ``sess.run`` (a last, smaller batch first
when allowed); ``num_epochs`` makes the local variable ``.../limit_epochs/epochs``
that ``tf.local_variables_initializer()`` initialises (forgetting it fails the
step with ``FailedPreconditionError`` naming it, as in TF1; running it again starts
the input over); each producer and batch adds a :class:`~.queue_runner.QueueRunner`
to ``QUEUE_RUNNERS``, whose threads have nothing to do.

Differences: a batch reads its own pass over the producer's dataset, so two
batches of one producer do not share its examples (in TF1 they race for them),
and ``dequeue()`` returns the same tensor each time; ``num_threads`` is ignored
(examples come in order, as TF1 with one thread); ``shuffle_batch`` mixes through
a buffer of ``capacity`` examples, with its own random order (TF1's cannot be
reproduced); no ``fraction_of_N_full`` summaries are made.

Examples
--------
>>> import numpy as np
>>> import daskflow as tf
>>> images = np.arange(12, dtype=np.uint8).reshape(6, 2)
>>> image, label = tf.train.slice_input_producer([images, np.arange(6)], num_epochs=1, shuffle=False)
>>> image = tf.cast(image, tf.float32) / 255.0
>>> image_batch, label_batch = tf.train.batch([image, label], batch_size=4, allow_smaller_final_batch=True)
>>> with tf.Session() as sess:
...     sess.run(tf.local_variables_initializer())
...     sess.run(label_batch).tolist(), sess.run(label_batch).tolist()
([0, 1, 2, 3], [4, 5])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dtypes
from ..data.iterator import Iterator
from ..data.spec import Spec
from ..framework.apply import apply
from ..framework.graph import Tensor, get_default_graph
from ..framework.tensor_shape import TensorShape
from ..ops.dataset_ops import IteratorGeneration
from ..variables import GraphKeys, Variable
from . import _input_datasets as nodes
from ._per_example import Recipe, trace_back
from .queue_runner import QueueRunner, add_queue_runner

# The graph collection of producer records: how a batch finds the dataset behind its tensors.
_PRODUCERS = "daskflow_input_producers"


@dataclass(eq=False)
class _Producer:
    """A producer: its dataset, the epochs variable (or None) and its per-example tensors."""

    name: str
    dataset: object
    generation: Variable | None
    outputs: tuple


class ProducerQueue:
    """The queue an input producer fills, as TF1's ``FIFOQueue`` shows it to readers.

    Made by :func:`string_input_producer`, :func:`input_producer` and
    :func:`range_input_producer`; :meth:`dequeue` reads one element per step.
    """

    def __init__(self, producer):
        self._producer = producer

    @property
    def name(self):
        return self._producer.name

    @property
    def dtypes(self):
        return [t.dtype for t in self._producer.outputs]

    @property
    def shapes(self):
        return [t.shape for t in self._producer.outputs]

    @property
    def names(self):
        return None

    def dequeue(self, name=None):
        """The next element: one tensor, the same on every call (one reading position per session)."""
        return self._producer.outputs[0]

    def __repr__(self):
        return f"<ProducerQueue '{self.name}' dtype={self.dtypes[0].name}>"


# -- producers ------------------------------------------------------------------------------------


def slice_input_producer(
    tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """Slices of each tensor in ``tensor_list`` along the first axis, one example per step.

    Parameters
    ----------
    tensor_list : list of array-like or constant tensors
        All with the same size in dimension 0; values known when the graph is
        built (numpy arrays, lists, ``tf.constant``).
    num_epochs : int, optional
        Produce each example this many times, then ``OutOfRangeError``
        (needs ``tf.local_variables_initializer()``). None: forever.
    shuffle : bool
        A new random order in every epoch.
    seed : int, optional
    capacity, shared_name
        Accepted for TF1 compatibility.

    Returns
    -------
    list of Tensor
        One example's slice of each tensor.

    Raises
    ------
    ValueError
        If ``tensor_list`` is empty or its tensors differ in dimension 0 (naming them).

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> x, y = tf.train.slice_input_producer([np.zeros((5, 3)), np.arange(5)])
    >>> x.shape.as_list(), y.dtype
    ([3], tf.int64)
    """
    who = "slice_input_producer"
    with get_default_graph().name_scope(name or "input_producer") as scope:
        arrays, types = _known_values(tensor_list, who)
        if not arrays:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        _check_first_dims(arrays, tensor_list, who)
        producer = _producer(arrays, types, num_epochs, shuffle, seed, scope, inner="input_producer")
    return list(producer.outputs)


def input_producer(
    input_tensor,
    element_shape=None,
    num_epochs=None,
    shuffle=True,
    seed=None,
    capacity=32,
    shared_name=None,
    summary_name=None,
    name=None,
    cancel_op=None,
):
    """A queue of the rows of ``input_tensor`` (its slices along dimension 0).

    Returns
    -------
    ProducerQueue
        Read it with ``dequeue()``.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> row = tf.train.input_producer(np.eye(3), shuffle=False).dequeue()
    >>> row.shape.as_list()
    [3]
    """
    who = "input_producer"
    with get_default_graph().name_scope(name or "input_producer") as scope:
        arrays, types = _known_values([input_tensor], who)
        if arrays[0].ndim == 0:
            raise ValueError(f"{who}: input_tensor must have a first dimension to slice, got a scalar")
        producer = _producer(arrays, types, num_epochs, shuffle, seed, scope)
        if element_shape is not None:
            producer.outputs[0].set_shape(element_shape)
    return ProducerQueue(producer)


def string_input_producer(
    string_tensor,
    num_epochs=None,
    shuffle=True,
    seed=None,
    capacity=32,
    shared_name=None,
    name=None,
    cancel_op=None,
):
    """A queue of the strings of ``string_tensor`` (file names, typically), one per dequeue.

    Raises
    ------
    ValueError
        If ``string_tensor`` is empty.
    TypeError
        If it holds no strings.

    Examples
    --------
    >>> import daskflow as tf
    >>> queue = tf.train.string_input_producer(["a.csv", "b.csv"], num_epochs=1, shuffle=False)
    >>> name = queue.dequeue()
    >>> with tf.Session() as sess:
    ...     sess.run(tf.local_variables_initializer())
    ...     sess.run(name), sess.run(name)
    (b'a.csv', b'b.csv')
    """
    who = "string_input_producer"
    with get_default_graph().name_scope(name or "input_producer") as scope:
        arrays, types = _known_values([string_tensor], who)
        if arrays[0].ndim != 1 or len(arrays[0]) == 0:
            raise ValueError("string_input_producer requires a non-null input tensor")
        if types[0] is not dtypes.string:
            raise TypeError(f"{who}: string_tensor must hold strings, got {types[0].name}")
        producer = _producer(arrays, types, num_epochs, shuffle, seed, scope)
    return ProducerQueue(producer)


def range_input_producer(
    limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """A queue of the int32 numbers ``0 .. limit - 1``.

    Examples
    --------
    >>> import daskflow as tf
    >>> i = tf.train.range_input_producer(10, shuffle=False).dequeue()
    >>> i.dtype
    tf.int32
    """
    (values,), _ = _known_values([limit], "range_input_producer")
    with get_default_graph().name_scope(name or "input_producer") as scope:
        indices = np.arange(int(values), dtype=np.int32)
        indices.flags.writeable = False
        producer = _producer([indices], [dtypes.int32], num_epochs, shuffle, seed, scope)
    return ProducerQueue(producer)


def _producer(arrays, types, num_epochs, shuffle, seed, scope, inner=None):
    """The producer's dataset, epochs variable, iterator and queue runner, recorded on the graph."""
    graph = get_default_graph()
    dataset = nodes.Slices(arrays, types)
    if shuffle:
        dataset = dataset.shuffle(max(len(arrays[0]), 1), seed=seed)  # a whole permutation per epoch, as TF1
    dataset = dataset.repeat(num_epochs)
    if inner is not None:  # TF1 names slice_input_producer's epochs input_producer/input_producer/...
        with graph.name_scope(inner):
            generation = _epochs_variable(num_epochs)
    else:
        generation = _epochs_variable(num_epochs)
    outputs = Iterator(dataset, generation).get_next(name="Dequeue")
    producer = _Producer(scope.rstrip("/"), dataset, generation, tuple(outputs))
    graph.add_to_collection(_PRODUCERS, producer)
    add_queue_runner(QueueRunner.for_dataset(ProducerQueue(producer)))
    return producer


def _epochs_variable(num_epochs):
    """TF1's ``limit_epochs/epochs`` local variable; here the iterator's generation token.

    Initialising it (``local_variables_initializer``) starts the producer's
    pass over its epochs; an iterator reading it restarts whenever it is
    initialised again (see ``ops/dataset_ops.py``).
    """
    if num_epochs is None:
        return None
    if int(num_epochs) <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with get_default_graph().name_scope("limit_epochs"):
        return Variable(
            lambda: apply(IteratorGeneration),
            trainable=False,
            collections=[GraphKeys.LOCAL_VARIABLES],
            name="epochs",
        )


def _known_values(values, who):
    """Each value as a read-only numpy array with TF1's dtype, and the dtypes."""
    pairs = [_known_value(v, i, who) for i, v in enumerate(values)]
    return [a for a, _ in pairs], [t for _, t in pairs]


def _known_value(value, index, who):
    convert = getattr(value, "_as_tensor", None)
    if convert is not None:
        value = convert()
    if isinstance(value, Tensor):
        if value.op.type != "Const":
            raise TypeError(
                f"{who}: tensor {index} ({value.name}, made by a {value.op.type} op) is not known when the "
                "graph is built; give numpy arrays, lists or tf.constant values"
            )
        array, dtype = np.array(value.op.attrs["value"]), value.dtype
    else:
        dtype = _default_dtype(value)
        array = dtypes.as_string_array(value) if dtype is dtypes.string else np.array(value, dtype=dtype.np)
    array.flags.writeable = False
    return array, dtype


def _default_dtype(value):
    """TF1's: numpy keeps its dtype, Python floats are float32, ints int32, text is string."""
    raw = value if isinstance(value, (np.ndarray, np.generic)) else np.asarray(value)
    if raw.dtype.kind in "SUO":
        return dtypes.string
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(raw.dtype)
    return {"f": dtypes.float32, "i": dtypes.int32, "u": dtypes.int32}.get(raw.dtype.kind) or dtypes.as_dtype(
        raw.dtype
    )


def _check_first_dims(arrays, tensor_list, who):
    labels = [_label(t, i) for i, t in enumerate(tensor_list)]
    scalars = [label for label, a in zip(labels, arrays) if a.ndim == 0]
    if scalars:
        raise ValueError(f"{who}: cannot slice scalars: {', '.join(scalars)}")
    sizes = {label: a.shape[0] for label, a in zip(labels, arrays)}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{label} has {n}" for label, n in sizes.items())
        raise ValueError(f"{who}: the tensors differ in dimension 0: {listed}")


def _label(value, index):
    name = getattr(value, "name", None)
    return f"tensor_list[{index}] ({name})" if isinstance(name, str) else f"tensor_list[{index}]"


# -- batches --------------------------------------------------------------------------------------


def batch(
    tensors,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``batch_size`` consecutive examples of ``tensors``, stacked.

    ``tensors`` must come from an input producer (``slice_input_producer``'s
    outputs, a producer queue's ``dequeue()``), directly or through per-example
    ops.

    Parameters
    ----------
    tensors : list, tuple or dict of Tensor
    batch_size : int
    num_threads, capacity, shared_name
        Accepted for TF1 compatibility.
    enqueue_many : bool
        Each of ``tensors`` is already a batch of examples (first dimension).
    shapes : list of shapes, optional
        Refine the examples' static shapes.
    dynamic_pad : bool
        Pad each batch to its longest example (dimensions unknown statically).
    allow_smaller_final_batch : bool
        Give a last, smaller batch before ``OutOfRangeError`` (the batch
        dimension is then None); otherwise it is dropped.

    Returns
    -------
    list or dict of Tensor, or one Tensor
        In the structure of ``tensors`` (a list for a tuple, one tensor for one
        component), each with a batch dimension.

    Raises
    ------
    ValueError
        If ``tensors`` do not come from a producer, or their shapes are not
        fully defined (without ``dynamic_pad`` or ``shapes``), naming them.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> x, y = tf.train.slice_input_producer([np.zeros((10, 3), np.float32), np.arange(10)])
    >>> xb, yb = tf.train.batch([x * 2.0, y], batch_size=4)
    >>> xb.shape.as_list(), yb.shape.as_list()
    ([4, 3], [4])
    """
    return _batch_join(
        [tensors],
        batch_size,
        "batch",
        name=name,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
    )


def batch_join(
    tensors_list,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches of examples from several readers (``tensors_list``), taken in turn.

    Readers of one producer (TF1's ``[read(queue) for _ in range(n)]``) share
    its examples: example ``k`` is computed by reader ``k % n``. Readers of
    different producers are interleaved until all are exhausted.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> (x,) = tf.train.slice_input_producer([np.arange(6.0)], num_epochs=1, shuffle=False)
    >>> xb = tf.train.batch_join([[x], [x * 10.0]], batch_size=3)
    >>> with tf.Session() as sess:
    ...     sess.run(tf.local_variables_initializer())
    ...     sess.run(xb).tolist()
    [0.0, 10.0, 2.0]
    """
    return _batch_join(
        tensors_list,
        batch_size,
        "batch_join",
        name=name,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
    )


def shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches of examples in random order, mixed through a buffer of ``capacity`` examples.

    As :func:`batch`, plus ``capacity`` (the mixing buffer, which must exceed
    ``min_after_dequeue``) and ``seed``.

    Raises
    ------
    ValueError
        If ``capacity <= min_after_dequeue``.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> (x,) = tf.train.slice_input_producer([np.arange(100)])
    >>> xb = tf.train.shuffle_batch([x], batch_size=8, capacity=40, min_after_dequeue=20, seed=1)
    >>> xb.shape.as_list()
    [8]
    """
    _check_capacity(capacity, min_after_dequeue)
    return _batch_join(
        [tensors],
        batch_size,
        "shuffle_batch",
        name=name,
        shuffle=(capacity, seed),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
    )


def shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """:func:`batch_join`, in random order as :func:`shuffle_batch`.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> (x,) = tf.train.slice_input_producer([np.arange(100)])
    >>> xb = tf.train.shuffle_batch_join([[x], [x + 100]], 8, capacity=40, min_after_dequeue=20)
    >>> xb.shape.as_list()
    [8]
    """
    _check_capacity(capacity, min_after_dequeue)
    return _batch_join(
        tensors_list,
        batch_size,
        "shuffle_batch_join",
        name=name,
        shuffle=(capacity, seed),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
    )


def _check_capacity(capacity, min_after_dequeue):
    if capacity <= min_after_dequeue:
        raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")


def _batch_join(
    tensors_list,
    batch_size,
    who,
    *,
    name,
    shuffle=None,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
):
    """The batch tensors over the producers behind ``tensors_list`` (a list of readers' tensors).

    ``shuffle``: None, or ``(capacity, seed)`` for a shuffle buffer before batching.
    """
    if not tensors_list:
        raise ValueError(f"Expected at least one input in {who}().")
    batch_size = _known_int(batch_size, "batch_size", who)
    flat_list = [_flat(tensors, who) for tensors in tensors_list]
    graph = get_default_graph()
    producers = {p.outputs[0].op: p for p in graph.get_collection(_PRODUCERS)}
    with graph.name_scope(name or who) as scope:
        specs = _element_specs(flat_list, who, enqueue_many, shapes, dynamic_pad)
        traced = [trace_back(flat, producers, who) for flat in flat_list]
        dataset = _examples(flat_list, traced)
        if enqueue_many:
            dataset = nodes.Unbatch(dataset, who)
        dataset = nodes.WithSpecs(dataset, specs)
        if shuffle is not None:
            capacity, seed = shuffle
            dataset = dataset.shuffle(capacity, seed=seed)
        drop = not allow_smaller_final_batch
        if dynamic_pad:
            dataset = nodes.PaddedBatch(dataset, batch_size, drop)
        else:
            dataset = dataset.batch(batch_size, drop_remainder=drop)
        generation = next((p.generation for p, _ in traced if p.generation is not None), None)
        outputs = Iterator(dataset, generation).get_next(name=scope)
        add_queue_runner(QueueRunner.for_dataset(_BatchQueue(scope.rstrip("/"))))
    return _as_original_type(tensors_list[0], list(outputs))


def _known_int(value, what, who):
    """``value`` as an int: a Python / numpy int, or a constant tensor."""
    convert = getattr(value, "_as_tensor", None)
    value = convert() if convert is not None else value
    if isinstance(value, Tensor):
        if value.op.type != "Const":
            raise TypeError(f"{who}: {what} must be a constant; {value.name} is not a constant")
        value = value.op.attrs["value"]
    return int(value)


@dataclass
class _BatchQueue:
    """What a batch's queue runner names: the batch's scope."""

    name: str


def _flat(tensors, who):
    """TF1's order: a dict's values by sorted key, a list or tuple as given."""
    if isinstance(tensors, dict):
        items = [tensors[k] for k in sorted(tensors, key=str)]
    elif isinstance(tensors, (list, tuple)):
        items = list(tensors)
    else:
        raise TypeError(
            f"{who}: tensors must be a list, tuple or dict of tensors, got {type(tensors).__name__}"
        )
    if not items:
        raise ValueError(f"Expected at least one tensor in {who}().")
    out = []
    for t in items:
        t = t._as_tensor() if hasattr(t, "_as_tensor") else t
        if not isinstance(t, Tensor):
            raise TypeError(f"{who}: expected tensors, got {t!r}")
        out.append(t)
    return out


def _as_original_type(original, outputs):
    if isinstance(original, dict):
        return dict(zip(sorted(original, key=str), outputs))
    return outputs[0] if len(outputs) == 1 else outputs


def _element_specs(flat_list, who, enqueue_many, given_shapes, dynamic_pad):
    """One example's specs: dtypes agreeing across readers, shapes merged, refined by ``shapes``."""
    first = flat_list[0]
    for other in flat_list[1:]:
        if len(other) != len(first) or any(a.dtype is not b.dtype for a, b in zip(first, other)):
            names = lambda ts: ", ".join(t.dtype.name for t in ts)  # noqa: E731
            raise TypeError(f"{who}: Expected types to be consistent: {names(first)} vs. {names(other)}.")
    shapes = [_merged_shape([flat[i] for flat in flat_list], who, enqueue_many) for i in range(len(first))]
    if given_shapes is not None:
        shapes = _refined(shapes, given_shapes, first, who)
    for t, shape in zip(first, shapes):
        if shape.dims is None:
            raise ValueError(f"{who}: Cannot infer Tensor's rank: {t.name}")
        if not dynamic_pad and not shape.is_fully_defined():
            raise ValueError(
                f"{who}: All shapes must be fully defined (or pass shapes= or dynamic_pad=True): "
                f"{t.name} has shape {shape}"
            )
    return tuple(Spec(s.dims, t.dtype) for s, t in zip(shapes, first))


def _merged_shape(tensors, who, enqueue_many):
    merged = TensorShape(None)
    for t in tensors:
        shape = t.shape
        if enqueue_many:
            if shape.dims is not None and not shape.dims:
                raise ValueError(f"{who}: with enqueue_many=True, {t.name} must have a batch dimension")
            shape = shape[1:]
        try:
            merged = merged.merge_with(shape)
        except ValueError:
            raise ValueError(
                f"{who}: shapes differ between readers: {t.name} has {shape}, others {merged}"
            ) from None
    return merged


def _refined(shapes, given, tensors, who):
    if len(given) != len(shapes):
        raise ValueError(f"{who}: shapes has {len(given)} entries for {len(shapes)} tensors")
    out = []
    for shape, new, t in zip(shapes, given, tensors):
        try:
            out.append(shape.merge_with(new))
        except ValueError:
            raise ValueError(
                f"{who}: shapes entry {TensorShape(new)} does not fit {t.name}'s shape {shape}"
            ) from None
    return out


def _examples(flat_list, traced):
    """The dataset of examples (before batching) for the readers in ``flat_list``."""
    recipes = [Recipe.between(p.outputs, ops, flat) for flat, (p, ops) in zip(flat_list, traced)]
    producers = [p for p, _ in traced]
    if len(flat_list) == 1:
        (producer,), (flat,) = producers, flat_list
        if list(flat) == list(producer.outputs):
            return producer.dataset
        return producer.dataset.map(recipes[0])
    if all(p is producers[0] for p in producers):
        return nodes.AlternatingMap(producers[0].dataset, recipes)
    mapped = [p.dataset.map(r) for p, r in zip(producers, recipes)]
    return nodes.Interleave(mapped)
