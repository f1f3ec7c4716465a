"""2-D convolution and pooling (NHWC, SAME/VALID, strides).

The array work lives in :mod:`daskflow.kernels.conv`; this module declares the
primitives: inference (with the same output-size rule the kernels use),
kernels, and gradient rules built from the backprop primitives.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.arguments import argument_lookup
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive
from ..kernels import conv
from . import array_ops
from .infer import static_shape_value


def _spatial(dims, ksize, strides, padding):
    def one(size, k, s):
        return None if size is None or k is None else conv.output_size(size, k, s, padding)[0]

    return one(dims[1], ksize[0], strides[0]), one(dims[2], ksize[1], strides[1])


def _conv_infer(inputs, *, strides, padding):
    x, w = inputs
    if x.dtype is not w.dtype or not x.dtype.is_floating:
        raise TypeError(f"conv2d input ({x.dtype.name}) and filter ({w.dtype.name}) must share a float dtype")
    if x._dims is None or w._dims is None:
        return None, x.dtype
    if len(x._dims) != 4 or len(w._dims) != 4:
        raise ValueError(f"conv2d needs a 4-D NHWC input and a 4-D HWIO filter, got {x.shape} and {w.shape}")
    cin, fin = x._dims[3], w._dims[2]
    if cin is not None and fin is not None and cin != fin:
        raise ValueError(f"input channels {cin} ({x.name}) differ from the filter's {fin} ({w.name})")
    oh, ow = _spatial(x._dims, w._dims[:2], strides, padding)
    return (x._dims[0], oh, ow, w._dims[3]), x.dtype


def _conv_grad(op, g):
    x, w = op.inputs
    attrs = op.attrs
    dx = apply(Conv2DBackpropInput, array_ops.shape_of(x), w, g, **attrs)
    dw = apply(Conv2DBackpropFilter, x, array_ops.shape_of(w), g, **attrs)
    return [dx, dw]


def _shape_out(index):
    def infer(inputs, **_):
        return static_shape_value(inputs[index]), inputs[2].dtype

    return infer


def _ints(s):
    return tuple(int(d) for d in s)


Conv2D = Primitive(
    "Conv2D",
    _conv_infer,
    lambda xp, x, w, *, strides, padding: conv.conv2d(xp, x, w, strides, padding),
    _conv_grad,
)


# The backprops are linear in each data input; their adjoints are the other two
# convolutions, so gradients of conv2d gradients (e.g. gradient penalties) work.
def _backprop_input_grad(op, gg):
    _, w, g = op.inputs
    return [
        None,
        apply(Conv2DBackpropFilter, gg, array_ops.shape_of(w), g, **op.attrs),
        apply(Conv2D, gg, w, **op.attrs),
    ]


def _backprop_filter_grad(op, gg):
    x, _, g = op.inputs
    return [
        apply(Conv2DBackpropInput, array_ops.shape_of(x), gg, g, **op.attrs),
        None,
        apply(Conv2D, x, gg, **op.attrs),
    ]


Conv2DBackpropInput = Primitive(
    "Conv2DBackpropInput",
    _shape_out(0),
    lambda xp, s, w, g, *, strides, padding: conv.conv2d_backprop_input(xp, _ints(s), w, g, strides, padding),
    _backprop_input_grad,
)
Conv2DBackpropFilter = Primitive(
    "Conv2DBackpropFilter",
    _shape_out(1),
    lambda xp, x, s, g, *, strides, padding: conv.conv2d_backprop_filter(
        xp, x, _ints(s), g, strides, padding
    ),
    _backprop_filter_grad,
)


def _pool_infer(inputs, *, ksize, strides, padding):
    x = inputs[0]
    if x._dims is None:
        return None, x.dtype
    if len(x._dims) != 4:
        raise ValueError(f"pooling needs a 4-D NHWC input, got {x.shape}")
    oh, ow = _spatial(x._dims, ksize, strides, padding)
    return (x._dims[0], oh, ow, x._dims[3]), x.dtype


def _max_pool_grad(op, g):
    return [apply(MaxPoolGrad, op.inputs[0], op.outputs[0], g, **op.attrs)]


def _max_pool_grad_grad(op, g):
    # x and y only choose which position wins: zeros for them, as TF1 gives.
    x, y, _ = op.inputs
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), apply(MaxPoolGradGrad, x, y, g, **op.attrs)]


def _max_pool_grad_grad_grad(op, g):
    x, y, _ = op.inputs
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), apply(MaxPoolGrad, x, y, g, **op.attrs)]


def _avg_pool_grad(op, g):
    return [apply(AvgPoolGrad, array_ops.shape_of(op.inputs[0]), g, **op.attrs)]


MaxPool = Primitive(
    "MaxPool",
    _pool_infer,
    lambda xp, x, *, ksize, strides, padding: conv.max_pool(xp, x, ksize, strides, padding),
    _max_pool_grad,
)
MaxPoolGrad = Primitive(
    "MaxPoolGrad",
    lambda inputs, **_: (inputs[0]._dims, inputs[0].dtype),
    lambda xp, x, y, g, *, ksize, strides, padding: conv.max_pool_grad(xp, x, y, g, ksize, strides, padding),
    _max_pool_grad_grad,
)
MaxPoolGradGrad = Primitive(
    "MaxPoolGradGrad",
    lambda inputs, **_: (inputs[1]._dims, inputs[2].dtype),
    lambda xp, x, y, g, *, ksize, strides, padding: conv.max_pool_grad_grad(
        xp, x, y, g, ksize, strides, padding
    ),
    _max_pool_grad_grad_grad,
)
AvgPool = Primitive(
    "AvgPool",
    _pool_infer,
    lambda xp, x, *, ksize, strides, padding: conv.avg_pool(xp, x, ksize, strides, padding),
    _avg_pool_grad,
)
AvgPoolGrad = Primitive(
    "AvgPoolGrad",
    lambda inputs, **_: (static_shape_value(inputs[0]), inputs[1].dtype),
    lambda xp, s, g, *, ksize, strides, padding: conv.avg_pool_grad(xp, _ints(s), g, ksize, strides, padding),
    lambda op, gg: [None, apply(AvgPool, gg, **op.attrs)],  # linear in g: its adjoint is the pooling
)


def _hw(values, what):
    """TF passes NHWC 4-vectors ``[1, h, w, 1]``; accept those or a pair/int."""
    if isinstance(values, int):
        return (values, values)
    values = [int(v) for v in values]
    if len(values) == 4:
        if values[0] != 1 or values[3] != 1:
            raise ValueError(f"{what} must be 1 on the batch and channel axes, got {values}")
        return (values[1], values[2])
    if len(values) == 2:
        return tuple(values)
    raise ValueError(f"{what} must have 2 or 4 entries, got {values}")


def _check(padding, data_format):
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    if data_format not in (None, "NHWC"):
        raise NotImplementedError(
            f"data_format={data_format!r} is not supported: daskflow works on NHWC data only; "
            "transpose the input to NHWC and pass data_format='NHWC'"
        )


def conv2d(
    input,  # noqa: A002
    filter=None,  # noqa: A002
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006 - TF1's default, never mutated
    name=None,
    filters=None,
):
    """2-D convolution of an NHWC ``input`` with an HWIO ``filter``.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    >>> w = tf.zeros([3, 3, 1, 4])
    >>> tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME").shape.as_list()
    [None, 8, 8, 4]
    """
    _check(padding, data_format)
    if dilations is not None and any(int(d) != 1 for d in dilations):
        raise NotImplementedError(
            f"conv2d: dilations={list(dilations)} is not supported: daskflow convolves with "
            "dilation 1 only; leave dilations at [1, 1, 1, 1]"
        )
    x = convert_to_tensor(input)
    w = convert_to_tensor(argument_lookup("filters", filters, "filter", filter), dtype=x.dtype)
    return apply(Conv2D, x, w, strides=_hw(strides, "strides"), padding=padding, name=name)


def conv2d_transpose(
    value=None,
    filter=None,  # noqa: A002
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NHWC",
    name=None,
    input=None,  # noqa: A002
    filters=None,
    dilations=None,
):
    """The transpose of ``conv2d`` (its gradient with respect to its input), a "deconvolution".

    ``filter`` is ``[kh, kw, out_channels, in_channels]``: its last axis
    matches ``value``'s channels, its third the output's. ``output_shape``
    is the NHWC shape of the result (a list or a 1-D tensor); it must be a
    shape that ``conv2d`` with the same ``strides`` and ``padding`` maps back
    to ``value``'s.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [2, 4, 4, 3])
    >>> w = tf.zeros([3, 3, 8, 3])
    >>> y = tf.nn.conv2d_transpose(x, w, [2, 8, 8, 8], strides=[1, 2, 2, 1], padding="SAME")
    >>> y.shape.as_list()
    [2, 8, 8, 8]
    """
    _check(padding, data_format)
    if dilations is not None and any(int(d) != 1 for d in _flat(dilations)):
        raise NotImplementedError(
            f"conv2d_transpose: dilations={dilations} is not supported: daskflow convolves with "
            "dilation 1 only; leave dilations at None"
        )
    x = convert_to_tensor(argument_lookup("input", input, "value", value))
    w = convert_to_tensor(argument_lookup("filters", filters, "filter", filter), dtype=x.dtype)
    x_ch = x._dims[3] if x._dims is not None and len(x._dims) == 4 else None
    w_ch = w._dims[3] if w._dims is not None and len(w._dims) == 4 else None
    if x_ch is not None and w_ch is not None and x_ch != w_ch:
        raise ValueError(
            f"conv2d_transpose: input channels ({x_ch}, {x.name}) do not match the filter's "
            f"last dimension ({w_ch}, {w.name})"
        )
    shape = array_ops._as_shape_tensor(output_shape)
    out = apply(
        Conv2DBackpropInput,
        shape,
        w,
        x,
        strides=_hw(strides, "strides"),
        padding=padding,
        name=name or "conv2d_transpose",
    )
    if isinstance(output_shape, (list, tuple)):
        out.set_shape([d if isinstance(d, int) else None for d in output_shape])
    return out


def _flat(values):
    return [values] if isinstance(values, int) else list(values)


def _pool(prim, value, ksize, strides, padding, data_format, name):
    _check(padding, data_format)
    return apply(
        prim, value, ksize=_hw(ksize, "ksize"), strides=_hw(strides, "strides"), padding=padding, name=name
    )


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Max pooling over ``ksize`` windows (NHWC)."""
    value = argument_lookup("input", input, "value", value)
    return _pool(MaxPool, value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Average pooling over ``ksize`` windows; SAME windows average real pixels only."""
    value = argument_lookup("input", input, "value", value)
    return _pool(AvgPool, value, ksize, strides, padding, data_format, name)
