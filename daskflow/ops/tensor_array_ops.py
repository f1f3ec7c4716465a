"""``tf.TensorArray``: a list of same-shaped tensors, written and read by index.

TF1 keeps a TensorArray's elements in a resource on one device and threads a
``flow`` tensor through the ops that touch it. Here a TensorArray is a *value*:
a Python wrapper around one tensor of shape ``[size, *element_shape]`` (its
buffer). ``write`` is a primitive that returns a new buffer with one row set,
so a TensorArray passes through ``while_loop`` like any loop variable (the loop
flattens it to its buffer and rebuilds it), and gradients are ordinary rules:
a write sends ``g`` with the written row zeroed to the old buffer and ``g[i]``
to the value; a read sends ``g`` to row ``i``.

A write copies the buffer, except where it is handed the buffer (``donate``):
in a loop body, where the previous iteration made it and nothing else holds
it (:class:`~daskflow.framework.function.SubProgram`), or in a step where
nothing else reads it. Then it writes its row in place, so a loop of ``size``
writes costs O(size) rows instead of O(size**2).

The element shape may be unknown until the first write (TF1's
``infer_shape``), which may happen inside a loop body. Until then the buffer
is a zero-size placeholder array of shape ``[size, 0]`` (:class:`_Unwritten`)
that still says the size; the first write allocates ``[size, *value.shape]``.
The static element shape is shared by every TensorArray built from one
``TensorArray(...)`` call, as in TF1, so a write traced in a loop body tells
``stack()`` after the loop what shape the elements have.

Not as TF1: an element may be overwritten (last write wins), an element read
twice is not cleared (``clear_after_read`` is ignored), rows never written
read as zeros once any row is written, and all elements have one shape
(``concat`` joins equal-length elements; ``split`` is not provided).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import TensorShape, as_dims, compatible, fmt, merge
from . import array_ops
from .control_flow_ops import no_op
from .infer import shaped_like_second


class _Unwritten(np.ndarray):
    """The buffer of a TensorArray no write has shaped yet: zero-size, ``[size, 0]``."""


def _unwritten(n, dtype):
    # numpy even under cupy: it holds no data, only the size
    return np.zeros((int(n), 0), dtype=dtype.np).view(_Unwritten)


def _is_unwritten(buffer, element_shape):
    """Whether ``buffer`` holds no element yet (also when a transfer lost the marker class)."""
    return isinstance(buffer, _Unwritten) or (buffer.size == 0 and buffer.shape[1:] != element_shape)


# -- primitives ----------------------------------------------------------------------------


def _create_infer(inputs, *, dtype, element_dims, n):
    if not inputs[0].dtype.is_integer or inputs[0]._dims not in (None, ()):
        raise TypeError(f"TensorArray size {inputs[0].name} must be an integer scalar")
    full = element_dims is not None and None not in element_dims
    return ((n, *element_dims) if full else None), dtype


def _create_kernel(xp, size, *, dtype, element_dims, n):
    if int(size) < 0:
        raise ValueError(f"TensorArray size must be >= 0, got {int(size)}")
    if element_dims is not None and None not in element_dims:
        return xp.zeros((int(size), *element_dims), dtype=dtype.np)
    return _unwritten(size, dtype)


TensorArrayV3 = Primitive("TensorArrayV3", _create_infer, _create_kernel, grad=NOT_DIFFERENTIABLE)


def _set_infer(inputs, *, n, dynamic):
    buffer, index, value = inputs
    if not index.dtype.is_integer:
        raise TypeError(f"TensorArray index {index.name} must be integers, got {index.dtype.name}")
    if value.dtype is not buffer.dtype:
        raise TypeError(f"TensorArray of {buffer.dtype.name} is given {value.name} of {value.dtype.name}")
    dims = value._dims
    if index._dims is not None and len(index._dims) == 1:  # a scatter: value's rows are the elements
        dims = None if dims is None else dims[1:]
    out = None if dims is None else (n, *dims)
    if buffer._dims is not None:
        out = merge(out, (n, *buffer._dims[1:]))
    return out, buffer.dtype


def _set_kernel(xp, buffer, index, value, *, n, dynamic, donate=False):
    """``buffer`` with the rows ``index`` (a scalar or a vector) set to ``value``: a new
    array, or ``buffer`` itself when it is donated (nothing else reads it)."""
    rows = xp.asarray(index).astype(np.int64)
    value = xp.asarray(value, dtype=buffer.dtype)  # a string scalar arrives as bytes
    element = value.shape if rows.ndim == 0 else value.shape[1:]
    if rows.ndim == 1 and value.shape[:1] != rows.shape:
        raise ValueError(f"scatter of {rows.shape[0]} indices is given {value.shape[0]} values")
    size = buffer.shape[0]
    if rows.size and rows.min() < 0:
        raise ValueError(f"Tried to write to index {int(rows.min())}: TensorArray indices must be >= 0")
    top = int(rows.max()) + 1 if rows.size else 0
    if top > size and not dynamic:
        raise ValueError(f"Tried to write to index {top - 1} but array is not resizeable and size is: {size}")
    if _is_unwritten(buffer, element):
        out = xp.zeros((max(size, top), *element), dtype=buffer.dtype)
    elif buffer.shape[1:] != element:
        raise ValueError(
            f"Could not write to TensorArray index {int(rows.reshape(-1)[0])} because the value shape "
            f"is {list(element)} which is incompatible with the TensorArray's element shape "
            f"{list(buffer.shape[1:])}"
        )
    elif top > size:
        out = xp.zeros((top, *element), dtype=buffer.dtype)
        out[:size] = buffer
    elif donate and getattr(buffer.flags, "writeable", True):
        out = buffer  # a copy per write would make a loop of T writes cost T^2 rows
    else:
        out = buffer.copy()  # others may read the old buffer again
    # A 0-d object array would be stored as itself in an object array: store its item.
    out[rows] = value[()] if value.dtype == object and value.ndim == 0 else value
    return out


def _set_grad(op, g):
    buffer, index, _ = op.inputs
    value_grad = array_ops.gather(g, index)  # made first: then the buffer's gradient may take g over
    return [apply(TensorArrayWriteGrad, g, buffer, index), None, value_grad]


# A write's result is a new buffer, or the old one donated to it: either way no other
# value aliases it, so a later write may take it over in turn.
_WRITES = dict(fresh_output=True, can_donate=True, donates=0)
TensorArrayWriteV3 = Primitive("TensorArrayWriteV3", _set_infer, _set_kernel, _set_grad, **_WRITES)
TensorArrayScatterV3 = Primitive("TensorArrayScatterV3", _set_infer, _set_kernel, _set_grad, **_WRITES)


def _write_grad_kernel(xp, g, old, index, donate=False):
    """The gradient for the buffer a write replaced: ``g`` over its rows, zero where written
    (in ``g`` itself when it is donated)."""
    if _is_unwritten(old, g.shape[1:]):
        return np.zeros(old.shape, old.dtype).view(_Unwritten)  # no data: a host marker, like ``old``
    writable = donate and getattr(g.flags, "writeable", True)
    out = g[: old.shape[0]] if writable else g[: old.shape[0]].copy()
    rows = xp.asarray(index).reshape(-1)
    out[rows[rows < old.shape[0]]] = 0
    return out


TensorArrayWriteGrad = Primitive(
    "TensorArrayWriteGrad",
    shaped_like_second,
    _write_grad_kernel,
    shape_only=(1,),
    **_WRITES,
)


def _never_written(what, buffer):
    return ValueError(
        f"Could not {what} the TensorArray: no element has been written to it, so its element "
        f"shape is unknown (size {buffer.shape[0]})"
    )


def _read_infer(inputs, *, element_dims):
    buffer, index = inputs
    if not index.dtype.is_integer or index._dims not in (None, ()):
        raise TypeError(f"TensorArray read index {index.name} must be an integer scalar")
    dims = buffer._dims[1:] if buffer._dims is not None else None
    return merge(dims, element_dims), buffer.dtype


def _read_kernel(xp, buffer, index, *, element_dims):
    i = int(index)
    if isinstance(buffer, _Unwritten):
        raise _never_written(f"read index {i} of", buffer)
    if not 0 <= i < buffer.shape[0]:
        raise ValueError(f"Tried to read from index {i} but array size is: {buffer.shape[0]}")
    return buffer[i]


def _read_grad(op, g):
    buffer, index = op.inputs
    return [apply(array_ops.ScatterAddTo, g, index, array_ops.shape_of(buffer), axis=0), None]


TensorArrayReadV3 = Primitive("TensorArrayReadV3", _read_infer, _read_kernel, _read_grad)


def _stack_infer(inputs, *, n, element_dims):
    dims = inputs[0]._dims
    known = (n, *element_dims) if element_dims is not None else None
    return merge(dims, known), inputs[0].dtype


def _stack_kernel(xp, buffer, *, n, element_dims):
    if isinstance(buffer, _Unwritten):
        raise _never_written("stack", buffer)
    return buffer


TensorArrayStack = Primitive("TensorArrayStack", _stack_infer, _stack_kernel, lambda op, g: [g])


# -- the TensorArray object ------------------------------------------------------------------


class _ElementShape:
    """The static element shape, shared by all TensorArrays of one ``TensorArray(...)`` call."""

    def __init__(self, dims):
        self.dims = dims


class TensorArray:
    """A list of tensors of one dtype and shape, for writing in ``while_loop`` bodies.

    Each method that changes the array (``write``, ``scatter``, ``unstack``)
    returns a new TensorArray; use the returned one, as in TF1. A TensorArray
    may be a loop variable of ``tf.while_loop``.

    Parameters
    ----------
    dtype : DType
        The elements' dtype.
    size : int or int32 scalar Tensor
        The number of elements (required).
    dynamic_size : bool, optional
        Whether writes past the end grow the array.
    element_shape : TensorShape, optional
        The elements' shape, if known; otherwise the first write sets it.
    infer_shape : bool
        Whether writes refine the static element shape.
    clear_after_read, tensor_array_name, name
        Accepted for TF1 compatibility (``clear_after_read`` has no effect).

    Examples
    --------
    >>> import daskflow as tf
    >>> ta = tf.TensorArray(tf.float32, size=3)
    >>> _, ta = tf.while_loop(
    ...     lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)), [0, ta]
    ... )
    >>> tf.Session().run(ta.stack())
    array([0., 2., 4.], dtype=float32)
    """

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        if handle is not None or flow is not None:
            raise NotImplementedError("TensorArray(handle=, flow=) is not supported by daskflow")
        if size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._shape = _ElementShape(as_dims(element_shape))
        with name_scope(name or "TensorArray"):
            size_t = convert_to_tensor(size, dtype=dtypes.int32) if not isinstance(size, Tensor) else size
            self._size = size_t
            self._buffer = apply(
                TensorArrayV3,
                size_t,
                dtype=self._dtype,
                element_dims=self._shape.dims,
                n=self._static_size(),
                name="TensorArrayV3",
            )

    # -- what while_loop and cond see ------------------------------------------------------
    def _loop_tensor(self):
        return self._buffer

    def _rebuild(self, buffer):
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__, _buffer=buffer)
        return new

    # -- properties ------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        return TensorShape(self._shape.dims)

    @property
    def flow(self):
        """The tensor that carries this array's value (its buffer)."""
        return self._buffer

    @property
    def dynamic_size(self):
        return self._dynamic

    def _static_size(self):
        if self._dynamic:
            return None
        return array_ops.static_scalar(self._size)

    def _check_element_shape(self, dims, culprit):
        if not compatible(dims, self._shape.dims):
            raise ValueError(
                f"Inconsistent shapes: saw {fmt(dims)} but expected {fmt(self._shape.dims)} "
                f"(writing {culprit.name} to a TensorArray)"
            )
        if self._infer_shape:
            self._shape.dims = merge(self._shape.dims, dims)

    def _value(self, value):
        value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        if value.dtype is not self._dtype:
            raise TypeError(
                f"TensorArray dtype is {self._dtype.name} but {value.name} written to it "
                f"is {value.dtype.name}"
            )
        return value

    # -- writing -----------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """A TensorArray with element ``index`` set to ``value``."""
        with name_scope(name or "TensorArrayWrite"):
            value = self._value(value)
            self._check_element_shape(value._dims, value)
            index = convert_to_tensor(index, dtype=dtypes.int32)
            return self._set(TensorArrayWriteV3, index, value)

    def scatter(self, indices, value, name=None):
        """A TensorArray with elements ``indices`` set to the rows of ``value``."""
        with name_scope(name or "TensorArrayScatter"):
            value = self._value(value)
            if value._dims is not None:
                if not value._dims:
                    raise ValueError(f"scatter needs a value of rank >= 1, got the scalar {value.name}")
                self._check_element_shape(value._dims[1:], value)
            indices = convert_to_tensor(indices, dtype=dtypes.int32)
            if indices._dims is not None and len(indices._dims) != 1:
                raise ValueError(f"scatter indices {indices.name} must be a vector, not {indices.shape}")
            return self._set(TensorArrayScatterV3, indices, value)

    def unstack(self, value, name=None):
        """A TensorArray whose elements ``0..n-1`` are the rows of ``value``."""
        with name_scope(name or "TensorArrayUnstack"):
            value = self._value(value)
            if value._dims is not None and not value._dims:
                raise ValueError(f"unstack needs a value of rank >= 1, got the scalar {value.name}")
            rows = value._dims[0] if value._dims is not None else None
            count = rows if rows is not None else array_ops.shape(value)[0]
            return self.scatter(array_ops.range_(0, count), value, name="TensorArrayScatter")

    def _set(self, prim, index, value):
        buffer = apply(prim, self._buffer, index, value, n=self._static_size(), dynamic=self._dynamic)
        return self._rebuild(buffer)

    # -- reading -----------------------------------------------------------------------------
    def read(self, index, name=None):
        """Element ``index``."""
        index = convert_to_tensor(index, dtype=dtypes.int32)
        return apply(
            TensorArrayReadV3,
            self._buffer,
            index,
            element_dims=self._shape.dims,
            name=name or "TensorArrayReadV3",
        )

    def stack(self, name=None):
        """All elements, stacked along a new first dimension."""
        with name_scope(name or "TensorArrayStack"):
            return apply(
                TensorArrayStack,
                self._buffer,
                n=self._static_size(),
                element_dims=self._shape.dims,
                name="TensorArrayStack",
            )

    def gather(self, indices, name=None):
        """Elements ``indices``, stacked."""
        with name_scope(name or "TensorArrayGather"):
            return array_ops.gather(self.stack(), indices)

    def concat(self, name=None):
        """All elements joined along their first dimension (elements must have one shape here)."""
        with name_scope(name or "TensorArrayConcat"):
            stacked = self.stack()
            dims = stacked._dims
            if dims is not None and len(dims) < 2:
                raise ValueError("concat needs elements of rank >= 1; this TensorArray holds scalars")
            if dims is not None and None not in dims[2:]:
                rows = None if None in dims[:2] else dims[0] * dims[1]
                return array_ops.reshape(stacked, [-1 if rows is None else rows, *dims[2:]])
            rest = array_ops.shape(stacked)[2:]
            return array_ops.reshape(stacked, array_ops.concat([[-1], rest], 0))

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        if not self._dynamic:
            return self._size
        return array_ops.shape(self._buffer)[0]

    def identity(self):
        """The same array, through an identity op (for control dependencies)."""
        return self._rebuild(array_ops.identity(self._buffer))

    def close(self, name=None):
        """A no-op (nothing to release)."""
        return no_op(name=name or "TensorArrayClose")

    def split(self, value, lengths, name=None):
        raise NotImplementedError("TensorArray.split is not supported by daskflow; use unstack")

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is not supported by daskflow; use tf.gradients")

    def __repr__(self):
        shape = self.element_shape
        return f"<TensorArray {self._buffer.op.name} dtype={self._dtype.name} element_shape={shape}>"
