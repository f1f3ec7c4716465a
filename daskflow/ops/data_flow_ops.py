"""TF1's queues: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``, ``tf.PaddingFIFOQueue``,
``tf.PriorityQueue`` and their base, ``tf.QueueBase`` (also ``tf.queue.*``).

A queue is a stateful op (``FIFOQueueV2``...) whose output is the queue's
handle (``queue.queue_ref``, dtype ``resource``): each session gives it one
:class:`~.queue_runtime.QueueState` (``make_state``) and the kernel returns
that state. The ops that use the queue take the handle as their first input,
as in TF1: ``QueueEnqueueV2``, ``QueueEnqueueManyV2``, ``QueueDequeueV2``,
``QueueDequeueManyV2`` and ``QueueDequeueUpToV2`` (their batch size an input
tensor), ``QueueCloseV2``, ``QueueSizeV2``, ``QueueIsClosedV2``. Their names,
static shapes and errors are TF1's: ``dequeue_many(n)`` is ``[n] + shape``,
``dequeue_up_to`` ``[None] + shape``; a dequeue that a closed queue cannot
serve raises ``OutOfRangeError``, an enqueue on a closed queue
``CancelledError``.

A dequeue blocks inside ``Session.run`` until its elements come (the session
runs steps from several threads at once: queue runners enqueue while the
training loop dequeues); closing the session cancels what still waits.

Not as TF1: ``shared_name`` does not share a queue between sessions (each
session has its own), and the random order of a ``RandomShuffleQueue`` is its
own (a seed makes it repeat, as TF1's does, but not TF1's order).

Examples
--------
>>> import daskflow as tf
>>> q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []])
>>> x, i = q.dequeue_many(2)
>>> x.shape.as_list(), i.shape.as_list()
([2, 2], [2])
>>> with tf.Session() as sess:
...     sess.run(q.enqueue_many(([[1.0, 2.0], [3.0, 4.0]], [7, 8])))
...     sess.run(i).tolist()
[7, 8]
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError, OutOfRangeError
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, get_default_graph
from ..framework.primitive import Primitive
from ..framework.tensor_shape import TensorShape
from . import queue_runtime as rt
from .infer import static_dim
from .random_ops import get_seed

# TF's DT_RESOURCE: the type of a queue's (and a reader's) handle. Its value is the
# session's runtime object, which only the ops of its kind read.
resource = _dtypes.opaque("resource", 20)


# -- primitives --------------------------------------------------------------------------------


def _handle_infer(inputs, **_):
    return (), resource


def _handle_kernel(xp, state, **_):
    return state


def _queue_primitive(name, state_class):
    return Primitive(
        name,
        _handle_infer,
        _handle_kernel,
        stateful=True,
        make_state=state_class,
        host_only=True,
        shared_resource=True,
    )


FIFOQueueV2 = _queue_primitive("FIFOQueueV2", rt.QueueState)
RandomShuffleQueueV2 = _queue_primitive("RandomShuffleQueueV2", rt.ShuffleState)
PaddingFIFOQueueV2 = _queue_primitive("PaddingFIFOQueueV2", rt.PaddingState)
PriorityQueueV2 = _queue_primitive("PriorityQueueV2", rt.PriorityState)


def _check_handle(t):
    if t.dtype is not resource:
        raise TypeError(f"{t.name} is not a queue handle (a resource), it is {t.dtype.name}")


def _enqueue_infer(inputs, **_):
    _check_handle(inputs[0])
    return []


def _enqueue_kernel(xp, queue, *components, component_types, shapes, many, op_name):
    element = rt.check_element(components, component_types, shapes, many, op_name)
    queue.enqueue(rt.split_many(element, op_name) if many else [tuple(element)], op_name)


QueueEnqueueV2 = Primitive("QueueEnqueueV2", _enqueue_infer, _enqueue_kernel, stateful=True, host_only=True)
QueueEnqueueManyV2 = Primitive(
    "QueueEnqueueManyV2", _enqueue_infer, _enqueue_kernel, stateful=True, host_only=True
)


def _dequeue_infer(inputs, *, component_types, shapes, many, op_name):
    _check_handle(inputs[0])
    if many is None:
        lead = ()
    elif many == "up_to":
        lead = (None,)
    else:
        lead = (static_dim(inputs[1]),)
        if not inputs[1].dtype.is_integer or inputs[1]._dims not in (None, ()):
            raise TypeError(f"dequeue_many's n {inputs[1].name} must be an int32 scalar")
    shapes = shapes or [None] * len(component_types)
    return [(None if s is None else (*lead, *s), dt) for s, dt in zip(shapes, component_types)]


def _dequeue_kernel(xp, queue, *n, component_types, shapes, many, op_name):
    if many is None:
        (element,) = queue.dequeue(1, False, op_name)
        out = element
    else:
        count = int(n[0])
        if count < 0:
            raise rt.error(rt.InvalidArgumentError, f"Dequeue size must be >= 0, got {count}", op_name)
        out = queue.batch(queue.dequeue(count, many == "up_to", op_name), op_name)
    return out[0] if len(out) == 1 else tuple(out)


QueueDequeueV2 = Primitive("QueueDequeueV2", _dequeue_infer, _dequeue_kernel, stateful=True, host_only=True)
QueueDequeueManyV2 = Primitive(
    "QueueDequeueManyV2", _dequeue_infer, _dequeue_kernel, stateful=True, host_only=True
)
QueueDequeueUpToV2 = Primitive(
    "QueueDequeueUpToV2", _dequeue_infer, _dequeue_kernel, stateful=True, host_only=True
)


def _close_kernel(xp, queue, *, cancel_pending_enqueues, op_name):
    queue.close(cancel_pending_enqueues, op_name)


QueueCloseV2 = Primitive("QueueCloseV2", _enqueue_infer, _close_kernel, stateful=True, host_only=True)


def _size_infer(inputs):
    _check_handle(inputs[0])
    return (), _dtypes.int32


QueueSizeV2 = Primitive(
    "QueueSizeV2",
    _size_infer,
    lambda xp, queue: np.int32(queue.size()),
    stateful=True,
    host_only=True,
)
QueueIsClosedV2 = Primitive(
    "QueueIsClosedV2",
    lambda inputs: (_size_infer(inputs)[0], _dtypes.bool),
    lambda xp, queue: np.bool_(queue.is_closed()),
    stateful=True,
    host_only=True,
)


# -- counting epochs (TF1's count_up_to, as limit_epochs uses it) ------------------------------


def _count_up_to_infer(inputs, *, limit):
    ref = inputs[0]
    if not ref.op.primitive.is_variable or not ref.dtype.is_integer or ref._dims not in (None, ()):
        raise TypeError(f"count_up_to needs an integer scalar variable, got {ref.name}")
    return (), ref.dtype


def _count_up_to_kernel(xp, old, *, limit):
    if int(old) >= limit:
        raise OutOfRangeError(None, None, f"Reached limit of {limit}")
    return xp.asarray(old + 1, dtype=old.dtype)


# Its output is the variable's new value (TF1's is the old one): the runtime commits what an
# update returns; limit_epochs uses the op only as a control dependency. An epoch counter:
# host only, as TF1 has CountUpTo on the CPU alone.
CountUpTo = Primitive(
    "CountUpTo", _count_up_to_infer, _count_up_to_kernel, stateful=True, updates_variable=True, host_only=True
)


def count_up_to(ref, limit, name=None):
    """An op adding one to the integer variable ``ref``, failing with ``OutOfRangeError``
    once it reached ``limit``."""
    ref = getattr(ref, "_ref", ref)
    return apply(CountUpTo, ref, limit=int(limit), name=name or "CountUpTo")


def _select_infer(inputs):
    index, *refs = inputs
    if not index.dtype.is_integer or index._dims not in (None, ()):
        raise TypeError(f"the index {index.name} of QueueBase.from_list must be an integer scalar")
    return (), resource


def _select_kernel(xp, index, *refs):
    i = int(index)
    if not 0 <= i < len(refs):
        raise InvalidArgumentError(None, None, f"index {i} is out of range for {len(refs)} queues")
    return refs[i]


# QueueBase.from_list: one of several queues' handles, chosen when the step runs.
RefSelect = Primitive("RefSelect", _select_infer, _select_kernel, stateful=True, host_only=True)


# -- the Python classes --------------------------------------------------------------------------


class QueueBase:
    """A queue of tuples of tensors, as TF1's ``tf.QueueBase``.

    Parameters
    ----------
    dtypes : list of DType
        One per component.
    shapes : list of shapes, or None
        One per component; None leaves them unknown.
    names : list of str, or None
        With names, elements are dicts (``enqueue({...})``, ``dequeue()`` gives one).
    queue_ref : Tensor
        The queue's handle, output of a queue op.

    Raises
    ------
    ValueError
        If ``shapes`` or ``names`` and ``dtypes`` differ in length.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = [_dtypes.as_dtype(d) for d in dtypes]
        if shapes is not None:
            if len(shapes) != len(self._dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    f"len(shapes)={len(shapes)}, len(dtypes)={len(self._dtypes)}"
                )
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError(
                "Queue names must have the same length as dtypes, received "
                f"len(names)={len(names)}, len(dtypes)={len(self._dtypes)}"
            )
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """The queue ``queues[index]`` (``index`` a tensor: chosen when each step runs).

        The shapes are what the queues' shapes have in common.

        Raises
        ------
        TypeError
            If ``queues`` is empty, holds anything but queues, or they differ in
            dtypes or names (naming the first that does).

        Examples
        --------
        >>> import daskflow as tf
        >>> a, b = tf.FIFOQueue(2, tf.int32, shapes=[[]]), tf.FIFOQueue(2, tf.int32, shapes=[[]])
        >>> which = tf.placeholder(tf.int32, [])
        >>> q = tf.QueueBase.from_list(which, [a, b])
        >>> with tf.Session() as sess:
        ...     sess.run(b.enqueue(7))
        ...     int(sess.run(q.dequeue(), {which: 1}))
        7
        """
        if not queues or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        first = queues[0]
        for q in queues[1:]:
            if q.dtypes != first.dtypes:
                raise TypeError(f"Queues do not have matching component dtypes: {q.name} and {first.name}")
            if q.names != first.names:
                raise TypeError(f"Queues do not have matching component names: {q.name} and {first.name}")
        shapes = [_common_shape([q.shapes[i] for q in queues]) for i in range(len(first.dtypes))]
        index = convert_to_tensor(index, dtype=_dtypes.int32 if not isinstance(index, Tensor) else None)
        ref = apply(RefSelect, index, *[q.queue_ref for q in queues])
        return QueueBase(first.dtypes, shapes, first.names, ref)

    queue_ref = property(lambda self: self._queue_ref, doc="The queue's handle (a resource tensor).")
    name = property(lambda self: self._queue_ref.op.name, doc="The queue op's name.")
    dtypes = property(lambda self: self._dtypes, doc="The components' dtypes.")
    shapes = property(lambda self: self._shapes, doc="The components' static shapes.")
    names = property(lambda self: self._names, doc="The components' names, or None.")

    def _attrs(self, op_name, many):
        known = all(s.dims is not None for s in self._shapes)
        shapes = tuple(s.dims for s in self._shapes) if known else None
        return dict(component_types=tuple(self._dtypes), shapes=shapes, many=many, op_name=op_name)

    # -- enqueue ---------------------------------------------------------------------------------
    def enqueue(self, vals, name=None):
        """An op adding one element (a tensor, a list/tuple, or a dict for a named queue).

        It blocks while the queue is full; on a closed queue it raises ``CancelledError``.
        """
        return self._enqueue(QueueEnqueueV2, vals, name, "enqueue", many=False)

    def enqueue_many(self, vals, name=None):
        """An op adding the elements that ``vals`` hold along their first dimension."""
        return self._enqueue(QueueEnqueueManyV2, vals, name, "EnqueueMany", many=True)

    def _enqueue(self, prim, vals, name, suffix, many):
        graph = get_default_graph()
        with graph.name_scope(name or f"{self._name}_{suffix}") as scope:
            tensors = self._check_enqueue_dtypes(vals)
            for t, shape in zip(tensors, self._shapes):
                self._check_shape(t, shape, many)
            if many:
                _check_batch_dims(tensors)
            attrs = self._attrs(scope.rstrip("/"), many)
            op = graph.create_op(prim, [self._queue_ref, *tensors], attrs, name=scope)
        return op

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals, key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  "
                    f"Dictionary: ({sorted(vals)}), Queue: ({sorted(self._names)})"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(
                f"{self._name}: expected {len(self._dtypes)} components to enqueue, got {len(vals)}"
            )
        return [
            convert_to_tensor(v, dtype=dt, name=f"component_{i}")
            for i, (v, dt) in enumerate(zip(vals, self._dtypes))
        ]

    @staticmethod
    def _check_shape(t, shape, many):
        given = t.shape
        if many:
            if given.dims is not None and not given.dims:
                raise ValueError(f"Shape {given} of {t.name} must have rank at least 1 to enqueue_many")
            given = TensorShape(None if given.dims is None else given.dims[1:])
        if not given.is_compatible_with(shape):
            raise ValueError(f"Shapes {given} and {shape} are incompatible ({t.name})")

    # -- dequeue ---------------------------------------------------------------------------------
    def dequeue(self, name=None):
        """One element: a tensor, a list of them, or a dict for a named queue.

        Running it blocks until the queue has an element; a closed, empty queue
        raises ``OutOfRangeError``.
        """
        name = name or f"{self._name}_Dequeue"
        return self._dequeue(QueueDequeueV2, [], name, None)

    def dequeue_many(self, n, name=None):
        """``n`` elements, each component stacked: shape ``[n] + shape``."""
        name = name or f"{self._name}_DequeueMany"
        return self._dequeue(QueueDequeueManyV2, [_count(n)], name, "many")

    def dequeue_up_to(self, n, name=None):
        """As :meth:`dequeue_many`, but a closed queue gives what it has left (at least one)."""
        name = name or f"{self._name}_DequeueUpTo"
        return self._dequeue(QueueDequeueUpToV2, [_count(n)], name, "up_to")

    def _dequeue(self, prim, extra, name, many):
        graph = get_default_graph()
        op_name = name[:-1] if name.endswith("/") else graph.unique_name(name, mark_as_used=False)
        attrs = self._attrs(op_name, many)
        op = graph.create_op(prim, [self._queue_ref, *extra], attrs, name=name)
        lead = [] if many is None else [None] if many == "up_to" else [static_dim(op.inputs[1])]
        for t, shape in zip(op.outputs, self._shapes):
            if shape.dims is not None:
                t.set_shape([*lead, *shape.dims])
        outputs = list(op.outputs)
        if self._names:
            return dict(zip(self._names, outputs))
        return outputs[0] if len(outputs) == 1 else outputs

    # -- the rest --------------------------------------------------------------------------------
    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the queue: later enqueues fail; dequeues take what is left.

        As TF1's, it waits for the enqueues already waiting for room to go in,
        and fails with ``CancelledError`` on a closed queue; with
        ``cancel_pending_enqueues``, it fails those enqueues instead, at once.
        """
        name = name or f"{self._name}_Close"
        graph = get_default_graph()
        op_name = graph.unique_name(name, mark_as_used=False)
        attrs = dict(cancel_pending_enqueues=bool(cancel_pending_enqueues), op_name=op_name)
        return graph.create_op(QueueCloseV2, [self._queue_ref], attrs, name=name)

    def size(self, name=None):
        """An int32 scalar: how many elements the queue holds."""
        return apply(QueueSizeV2, self._queue_ref, name=name or f"{self._name}_Size")

    def is_closed(self, name=None):
        """A bool scalar: whether the queue is closed."""
        return apply(QueueIsClosedV2, self._queue_ref, name=name or f"{self._name}_Is_Closed")

    def __repr__(self):
        return f"<{type(self).__name__} '{self.name}' dtypes={[d.name for d in self._dtypes]}>"


def _common_shape(shapes):
    dims = [s.dims for s in shapes]
    if any(d is None or len(d) != len(dims[0]) for d in dims):
        return TensorShape(None)
    return TensorShape([d[0] if len(set(d)) == 1 else None for d in zip(*dims)])


def _count(n):
    t = convert_to_tensor(n, dtype=_dtypes.int32 if not isinstance(n, Tensor) else None)
    if not t.dtype.is_integer:
        raise TypeError(
            f"the number of elements to dequeue ({t.name}) must be an integer, got {t.dtype.name}"
        )
    return t


def _check_batch_dims(tensors):
    dims = {t.shape.dims[0] for t in tensors if t.shape.dims and t.shape.dims[0] is not None}
    if len(dims) > 1:
        listed = ", ".join(f"{t.name} {t.shape}" for t in tensors)
        raise ValueError(f"enqueue_many: the components differ in their first dimension: {listed}")


def _as_type_list(dtypes):
    return list(dtypes) if isinstance(dtypes, (list, tuple)) else [dtypes]


def _as_shape_list(shapes, unknown_dim_allowed=False):
    """TF1's reading of ``shapes``: None, one shape, or a list of them."""
    if unknown_dim_allowed and (
        not isinstance(shapes, (list, tuple))
        or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            f"Shapes must be a TensorShape or a list or tuple of TensorShapes, got {type(shapes)} instead."
        )
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # one shape
    shapes = [TensorShape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    names = list(names) if isinstance(names, (list, tuple)) else [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return names


def _queue_op(prim, name, types, shapes, capacity, **extra):
    attrs = dict(
        component_types=tuple(types),
        shapes=None if shapes is None else tuple(s.dims for s in shapes),
        capacity=int(capacity),
        **extra,
    )
    return get_default_graph().create_op(prim, [], attrs, name=name).outputs[0]


class FIFOQueue(QueueBase):
    """A queue that gives its elements in the order they came (TF1's ``tf.FIFOQueue``).

    Examples
    --------
    >>> import daskflow as tf
    >>> q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    >>> with tf.Session() as sess:
    ...     sess.run(q.enqueue_many([[1, 2, 3]]))
    ...     sess.run(q.close())  # a closed queue's dequeue_up_to gives what is left
    ...     sess.run(q.dequeue_up_to(5)).tolist()
    [1, 2, 3]
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        ref = _queue_op(FIFOQueueV2, name, dtypes, shapes, capacity, shared_name=shared_name)
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose elements may vary in shape; ``dequeue_many`` pads them
    (zeros, empty strings) to the longest in each dimension.

    ``shapes`` is required; ``None`` marks a dimension that may vary.

    Examples
    --------
    >>> import daskflow as tf
    >>> q = tf.PaddingFIFOQueue(5, [tf.int32], shapes=[[None]])
    >>> q.dequeue_many(2).shape.as_list()
    [2, None]
    """

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                f"Shapes must be provided for all components, but received {len(dtypes)} dtypes and "
                f"{len(shapes)} shapes."
            )
        ref = _queue_op(PaddingFIFOQueueV2, name, dtypes, shapes, capacity, shared_name=shared_name)
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that gives a random element, keeping at least ``min_after_dequeue``
    elements to mix with until it is closed (TF1's ``tf.RandomShuffleQueue``).

    Examples
    --------
    >>> import daskflow as tf
    >>> q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=1)
    >>> with tf.Session() as sess:
    ...     sess.run(q.enqueue_many([[0, 1, 2, 3, 4]]))
    ...     sess.run(q.close())
    ...     sorted(sess.run(q.dequeue_up_to(10)).tolist())
    [0, 1, 2, 3, 4]
    """

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        ref = _queue_op(
            RandomShuffleQueueV2,
            name,
            dtypes,
            shapes,
            capacity,
            min_after_dequeue=int(min_after_dequeue),
            seed=get_seed(seed),
            shared_name=shared_name,
        )
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue giving first the element with the least priority: each element's first
    component, an int64 scalar, before the ``types`` (TF1's ``tf.PriorityQueue``).

    Examples
    --------
    >>> import daskflow as tf
    >>> q = tf.PriorityQueue(5, [tf.string], shapes=[[]])
    >>> with tf.Session() as sess:
    ...     sess.run(q.enqueue_many(([5, 1, 3], ["a", "b", "c"])))
    ...     sess.run(q.dequeue_many(3))[1].tolist()
    [b'b', b'c', b'a']
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes) or []
        names = _as_name_list(names, types)
        all_types = [_dtypes.int64, *types]
        all_shapes = [TensorShape(()), *shapes] if shapes else None
        ref = _queue_op(PriorityQueueV2, name, all_types, all_shapes, capacity, shared_name=shared_name)
        super().__init__(all_types, all_shapes, names, ref)
