"""TF1's queue-based input: ``tf.train.slice_input_producer``, ``string_input_producer``,
``batch``, ``shuffle_batch``... built as TF1 builds them, on real queues and threads.

A **producer** is a ``FIFOQueue`` filled by one :class:`~.queue_runner.QueueRunner`
thread with whole epochs of its input (``enqueue_many`` of the input, shuffled
again for each epoch with ``shuffle``); ``num_epochs`` passes the input
through :func:`limit_epochs`, whose local variable ``.../limit_epochs/epochs``
counts the epochs and raises ``OutOfRangeError`` after the last, which closes
the queue. ``slice_input_producer`` is ``range_input_producer`` over the
examples' indices and a ``gather`` of each tensor at the dequeued index.

A **batch** is a queue (``FIFOQueue``, ``PaddingFIFOQueue`` with
``dynamic_pad``, ``RandomShuffleQueue`` for ``shuffle_batch``) that
``num_threads`` threads fill by running the enqueue op of the example tensors,
and whose ``dequeue_many(batch_size)`` (``dequeue_up_to`` with
``allow_smaller_final_batch``) is the batch. Each batch also makes TF1's
``fraction_of_<capacity>_full`` scalar summary.

Nothing runs until ``tf.train.start_queue_runners(sess, coord)`` starts the
threads (a ``MonitoredSession`` and a ``Supervisor`` start them themselves):
as in TF1, a batch run without them waits forever. When the input is
exhausted, the queues close one after the other, and the batch raises
``OutOfRangeError`` in ``sess.run`` (after a last, smaller batch with
``allow_smaller_final_batch``).

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
...     coord = tf.train.Coordinator()
...     threads = tf.train.start_queue_runners(sess, coord)
...     first, second = sess.run(label_batch).tolist(), sess.run(label_batch).tolist()
...     coord.request_stop()
...     coord.join(threads)
>>> first, second
([0, 1, 2, 3], [4, 5])
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import Tensor, control_dependencies, get_default_graph
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, math_ops
from ..ops.core_array_ops import identity
from ..ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, count_up_to
from ..ops.random_ops import random_shuffle
from ..summary.summary_ops import scalar
from ..variables import GraphKeys, Variable
from .queue_runner import QueueRunner, add_queue_runner

# -- producers ------------------------------------------------------------------------------------


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, which may be evaluated only ``num_epochs`` times; then ``OutOfRangeError``.

    Makes the local variable ``<scope>/epochs`` (``tf.local_variables_initializer()``
    initialises it; a run before fails with ``FailedPreconditionError`` naming it).

    Raises
    ------
    ValueError
        If ``num_epochs`` is not positive.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=1)
    >>> with tf.Session() as sess:
    ...     sess.run(tf.local_variables_initializer())
    ...     sess.run(x).tolist()
    [1, 2]
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    graph = get_default_graph()
    with graph.name_scope(name or "limit_epochs") as scope:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=scope)


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
    """A queue of the rows of ``input_tensor`` (its slices along dimension 0), refilled
    with the whole tensor (shuffled anew with ``shuffle``) by a queue runner.

    Returns
    -------
    FIFOQueue

    Raises
    ------
    ValueError
        If the rows' shape is not fully defined (give ``element_shape``).

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> row = tf.train.input_producer(np.eye(3), shuffle=False).dequeue()
    >>> row.shape.as_list()
    [3]
    """
    graph = get_default_graph()
    with graph.name_scope(name or "input_producer") as scope:
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        if input_tensor.shape.ndims == 0:
            raise ValueError(f"input_producer: {input_tensor.name} must have a first dimension to slice")
        rows = TensorShape(None if input_tensor.shape.dims is None else input_tensor.shape.dims[1:])
        element_shape = rows.merge_with(TensorShape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or `element_shape` must be specified"
            )
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(
            capacity, [input_tensor.dtype], shapes=[element_shape], shared_name=shared_name, name=scope
        )
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fraction_summary(summary_name, q.size(), 0, capacity)
    return q


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
    """A queue of the strings of ``string_tensor`` (file names, typically), for readers.

    Raises
    ------
    ValueError
        If ``string_tensor`` is empty.
    TypeError
        If it holds no strings.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     queue = tf.train.string_input_producer(["a.csv", "b.csv"], num_epochs=1, shuffle=False)
    ...     queue.name, queue.dequeue().dtype
    ('input_producer', tf.string)
    """
    if not isinstance(string_tensor, Tensor) and not _non_empty(string_tensor):
        raise ValueError("string_input_producer requires a non-null input tensor")
    with get_default_graph().name_scope(name or "input_producer") as scope:
        try:
            string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        except TypeError:
            raise TypeError(
                f"string_input_producer: string_tensor must hold strings, got {string_tensor!r}"
            ) from None
        return input_producer(
            string_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            summary_name=f"fraction_of_{capacity}_full",
            name=scope,
            cancel_op=cancel_op,
        )


def _non_empty(value):
    try:
        return len(value) > 0
    except TypeError:
        return True


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
    with get_default_graph().name_scope(name or "input_producer") as scope:
        range_tensor = array_ops.range_(limit)
        return input_producer(
            range_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            f"fraction_of_{capacity}_full",
            scope,
        )


def slice_input_producer(
    tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """One example's slice of each tensor in ``tensor_list`` (along dimension 0) per dequeue.

    Parameters
    ----------
    tensor_list : list of array-like or Tensor
        All with the same size in dimension 0.
    num_epochs : int, optional
        Produce each example this many times, then ``OutOfRangeError``
        (needs ``tf.local_variables_initializer()``). None: forever.
    shuffle : bool
        A new random order in every epoch.
    seed : int, optional
    capacity : int
        The index queue's capacity.
    shared_name
        Accepted for TF1 compatibility.

    Returns
    -------
    list of Tensor

    Raises
    ------
    ValueError
        If ``tensor_list`` is empty, holds scalars, or its tensors differ in
        dimension 0 (naming them).

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> x, y = tf.train.slice_input_producer([np.zeros((5, 3)), np.arange(5)])
    >>> x.shape.as_list(), y.dtype
    ([3], tf.int64)
    """
    graph = get_default_graph()
    with graph.name_scope(name or "input_producer"):
        tensors = [convert_to_tensor(t) for t in tensor_list]
        if not tensors:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        _check_first_dims(tensors, tensor_list)
        range_size = array_ops.shape(tensors[0])[0]
        queue = range_input_producer(
            range_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensors]


def _check_first_dims(tensors, given):
    labels = [_label(t, i) for i, t in enumerate(given)]
    scalars = [label for label, t in zip(labels, tensors) if t.shape.ndims == 0]
    if scalars:
        raise ValueError(f"slice_input_producer: cannot slice scalars: {', '.join(scalars)}")
    sizes = {label: t.shape.dims[0] for label, t in zip(labels, tensors) if t.shape.dims}
    if len({n for n in sizes.values() if n is not None}) > 1:
        listed = ", ".join(f"{label} has {n}" for label, n in sizes.items())
        raise ValueError(f"slice_input_producer: the tensors differ in dimension 0: {listed}")


def _label(value, index):
    name = getattr(value, "name", None)
    return f"tensor_list[{index}] ({name})" if isinstance(name, str) else f"tensor_list[{index}]"


def _fraction_summary(name, size, minimum, capacity):
    """TF1's summary of how full a queue is (beyond ``minimum``, of ``capacity``)."""
    if minimum:
        size = math_ops.maximum(0, size - minimum)
    scalar(name, math_ops.cast(size, dtypes.float32) * (1.0 / (capacity - minimum)))


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
    """``batch_size`` examples of ``tensors``, stacked, in the order ``num_threads``
    threads computed them.

    Parameters
    ----------
    tensors : list, tuple or dict of Tensor
        One example (or, with ``enqueue_many``, a batch of them along dimension 0).
    batch_size : int or int32 scalar Tensor
    num_threads : int
        Threads running the enqueue op.
    capacity : int
        The queue's capacity.
    shapes : list of shapes, optional
        The examples' shapes, when their static shapes are not fully defined.
    dynamic_pad : bool
        Pad each batch to its longest example (dimensions may be None in ``shapes``).
    allow_smaller_final_batch : bool
        Give a last, smaller batch before ``OutOfRangeError`` (the batch
        dimension is then None).
    shared_name : str, optional

    Returns
    -------
    list or dict of Tensor, or one Tensor
        In the structure of ``tensors`` (one tensor for a one-element list).

    Raises
    ------
    ValueError
        If ``tensors`` is empty, or shapes are not fully defined (without
        ``dynamic_pad`` or ``shapes``), naming the tensor.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> x, y = tf.train.slice_input_producer([np.zeros((10, 3), np.float32), np.arange(10)])
    >>> xb, yb = tf.train.batch([x * 2.0, y], batch_size=4)
    >>> xb.shape.as_list(), yb.shape.as_list()
    ([4, 3], [4])
    """
    return _batch(
        [tensors],
        batch_size,
        "batch",
        name=name,
        threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
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
    """Batches of examples from several readers (``tensors_list``), one thread each.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> (x,) = tf.train.slice_input_producer([np.arange(6.0)], num_epochs=1, shuffle=False)
    >>> xb = tf.train.batch_join([[x], [x * 10.0]], batch_size=3)
    >>> xb.shape.as_list()
    [3]
    """
    return _batch(
        tensors_list,
        batch_size,
        "batch_join",
        name=name,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
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
    """Batches of examples in random order, drawn from a ``RandomShuffleQueue`` that
    keeps at least ``min_after_dequeue`` examples to mix with.

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
    return _batch(
        [tensors],
        batch_size,
        "shuffle_batch",
        name=name,
        threads=num_threads,
        capacity=capacity,
        shuffle=(min_after_dequeue, seed),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
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
    return _batch(
        tensors_list,
        batch_size,
        "shuffle_batch_join",
        name=name,
        capacity=capacity,
        shuffle=(min_after_dequeue, seed),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
    )


def _check_capacity(capacity, min_after_dequeue):
    if capacity <= min_after_dequeue:
        raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")


def _batch(
    tensors_list,
    batch_size,
    who,
    *,
    name,
    capacity,
    threads=None,
    shuffle=None,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
):
    """The batch of the readers' tensors in ``tensors_list``: one enqueue op per reader
    (``threads`` copies of it for a single reader), a queue, and its dequeue.

    ``shuffle``: None, or ``(min_after_dequeue, seed)`` for a ``RandomShuffleQueue``.
    """
    if not tensors_list:
        raise ValueError(f"Expected at least one input in {who}().")
    with get_default_graph().name_scope(name or who) as scope:
        flat_list = [_flat(tensors, who) for tensors in tensors_list]
        types = _dtypes(flat_list, who)
        shapes = _shapes(flat_list, shapes, enqueue_many, dynamic_pad, who)
        if shuffle is not None:
            min_after, seed = shuffle
            queue = RandomShuffleQueue(
                capacity, min_after, types, shapes=shapes, seed=seed, shared_name=shared_name
            )
            summary = (f"fraction_over_{min_after}_of_{capacity - min_after}_full", min_after)
        else:
            kind = PaddingFIFOQueue if dynamic_pad else FIFOQueue
            queue = kind(capacity, types, shapes=shapes, shared_name=shared_name)
            summary = (f"fraction_of_{capacity}_full", 0)
        enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
        if threads is not None:
            ops = [enqueue(flat_list[0])] * threads
        else:
            ops = [enqueue(flat) for flat in flat_list]
        add_queue_runner(QueueRunner(queue, ops))
        _fraction_summary(summary[0], queue.size(), summary[1], capacity)
        if allow_smaller_final_batch:
            dequeued = queue.dequeue_up_to(batch_size, name=scope)
        else:
            dequeued = queue.dequeue_many(batch_size, name=scope)
    return _as_original_type(tensors_list[0], dequeued)


def _flat(tensors, who):
    """TF1's order: a dict's values by sorted key, a list or tuple as given."""
    if isinstance(tensors, dict):
        items = [tensors[k] for k in sorted(tensors, key=str)]
    elif isinstance(tensors, (list, tuple)):
        items = list(tensors)
    else:
        items = [tensors]
    if not items:
        raise ValueError(f"Expected at least one tensor in {who}().")
    return [convert_to_tensor(t) for t in items]


def _as_original_type(original, dequeued):
    if isinstance(original, dict):
        outputs = [dequeued] if len(original) == 1 else dequeued
        return dict(zip(sorted(original, key=str), outputs))
    return dequeued


def _dtypes(flat_list, who):
    first = [t.dtype for t in flat_list[0]]
    for other in flat_list[1:]:
        if [t.dtype for t in other] != first:
            names = lambda ts: ", ".join(t.dtype.name for t in ts)  # noqa: E731
            raise TypeError(
                f"{who}: Expected types to be consistent: {names(flat_list[0])} vs. {names(other)}."
            )
    return first


def _shapes(flat_list, given, enqueue_many, dynamic_pad, who):
    """One example's shape per component: merged across readers, or ``given``."""
    if given is not None:
        shapes = [TensorShape(s) for s in given]
        if len(shapes) != len(flat_list[0]):
            raise ValueError(f"{who}: shapes has {len(shapes)} entries for {len(flat_list[0])} tensors")
        for flat in flat_list:
            for t, shape in zip(flat, shapes):
                _fits(t, shape, enqueue_many, who)
    else:
        shapes = [
            _merged_shape([flat[i] for flat in flat_list], who, enqueue_many)
            for i in range(len(flat_list[0]))
        ]
    for t, shape in zip(flat_list[0], shapes):
        if shape.dims is None:
            raise ValueError(f"{who}: Cannot infer Tensor's rank: {t.name}")
        if not dynamic_pad and not shape.is_fully_defined():
            raise ValueError(
                f"{who}: All shapes must be fully defined (or pass shapes= or dynamic_pad=True): "
                f"{t.name} has shape {shape}"
            )
    return shapes


def _fits(t, shape, enqueue_many, who):
    own = t.shape
    if enqueue_many and own.dims is not None:
        own = TensorShape(own.dims[1:])
    if not own.is_compatible_with(shape):
        raise ValueError(f"{who}: shapes entry {shape} does not fit {t.name}'s shape {own}")


def _merged_shape(tensors, who, enqueue_many):
    merged = TensorShape(None)
    for t in tensors:
        shape = t.shape
        if enqueue_many:
            if shape.dims is not None and not shape.dims:
                raise ValueError(f"{who}: with enqueue_many=True, {t.name} must have a batch dimension")
            shape = TensorShape(None if shape.dims is None else shape.dims[1:])
        try:
            merged = merged.merge_with(shape)
        except ValueError:
            raise ValueError(
                f"{who}: shapes differ between readers: {t.name} has {shape}, others {merged}"
            ) from None
    return merged
