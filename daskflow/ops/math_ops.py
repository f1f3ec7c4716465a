"""Elementwise math, matmul, reductions, comparisons and casts.

Each primitive sits with its inference, ``xp`` kernel and gradient rule.
Composite ops (``square``-free ``rsqrt``, ``clip_by_value``...) are plain
functions of primitives and need no gradient of their own.
"""

from __future__ import annotations

import math

import numpy

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.arguments import argument_lookup
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import broadcast, compatible, fmt, merge
from ..kernels import elementwise, loops
from ..kernels.compiled import plain
from . import core_array_ops
from . import rewrite_rules as rules
from .infer import (
    binary,
    binary_or_string,
    broadcast_dims,
    check_same_dtype,
    comparison,
    normalize_axes,
    numeric_comparison,
    reduced_dims,
    same,
    same_float,
)

# -- elementwise binary -------------------------------------------------------


def _binary_op(prim, x, y, name):
    """Convert a non-tensor operand to the other operand's dtype, as TF1 does."""
    if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype if not _is_tensor(y) else None)
    elif _is_tensor(y):
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    return apply(prim, x, y, name=name)


def _is_tensor(v):
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


def _bin(name, kernel, grad=None, infer=binary, **rules):
    return Primitive(name, infer, kernel, grad, broadcasting=True, fresh_output=True, **rules)


def _chain(name):
    """What an op computing the array-API function ``name`` declares to join fused chains."""
    return {"elementwise": name, "fuse": rules.elementwise_chain(FusedElementwise)}


# A chain of elementwise float ops, as one kernel: made only by the remapping rewrite.
FusedElementwise = Primitive(
    "_FusedElementwise",
    lambda inputs, **_: (None, inputs[0].dtype),
    elementwise.run_chain,
    fresh_output=True,
)


def _add_kernel(xp, x, y):
    if getattr(y, "ndim", 0) == 1 and getattr(x, "size", 0) >= _LOOP_MIN and x.shape[-1:] == y.shape:
        out = _bias_loop(x, y, relu=False)  # a bias over a conv's channels
        if out is not None:
            return out
    return x + y


def _bias_loop(x, b, relu):
    """``x + b`` (then ReLU) by one compiled pass, or None where the loop does not apply.

    ``x`` (up to 4 axes, any strides: a cropped conv output) is large, ``b`` rank 1 over
    its last axis; numpy's inner loop would run only ``b``'s length per call.
    """
    ready = x.size >= _LOOP_MIN and x.ndim <= 4 and plain(b) and plain(x, b, contiguous=False)
    compiled = loops.add_bias.get() if ready else None
    if compiled is None:
        return None
    out = numpy.empty(x.shape, x.dtype)
    lead = (1,) * (4 - x.ndim)  # leading axes of one: views, even of a strided x
    compiled(x.reshape(lead + x.shape), b, out.reshape(lead + out.shape), relu)
    return out


_LOOP_MIN = 1 << 16  # elements: below, calling the loop costs more than it saves
Add = _bin(
    "Add",
    _add_kernel,
    lambda op, g: [g, g],
    infer=binary_or_string,
    simplify=rules.either(rules.neutral_operand(0, 0, "-"), rules.neutral_operand(1, 0, "-")),
    **_chain("add"),
)
Sub = _bin(
    "Sub",
    lambda xp, x, y: x - y,
    lambda op, g: [g, -g],
    simplify=rules.neutral_operand(0, 0, "+"),
    **_chain("subtract"),
)
Mul = _bin(
    "Mul",
    lambda xp, x, y: x * y,
    lambda op, g: [g * op.inputs[1], op.inputs[0] * g],
    simplify=rules.either(rules.neutral_operand(0, 1), rules.neutral_operand(1, 1)),
    **_chain("multiply"),
)


def _div_infer(inputs, **_):
    dims, dt = binary(inputs)
    return dims, (dt if dt.is_floating else dtypes.float64)


def _div_kernel(xp, x, y):
    return x / y


def _div_grad(op, g):
    x, y = op.inputs
    return [g / y, -g * x / (y * y)]


RealDiv = Primitive(
    "RealDiv",
    _div_infer,
    _div_kernel,
    _div_grad,
    broadcasting=True,
    fresh_output=True,
    simplify=rules.neutral_operand(0, 1),
    **_chain("divide"),
)
FloorDiv = _bin("FloorDiv", lambda xp, x, y: x // y, NOT_DIFFERENTIABLE)


def _truncate_div_kernel(xp, x, y):
    if x.dtype.kind == "f":
        return xp.trunc(x / y)
    q = x // y
    # Floor division rounds a negative inexact quotient down; C's rounds it toward zero.
    return q + ((q < 0) & (q * y != x)).astype(q.dtype)


TruncateDiv = _bin("TruncateDiv", _truncate_div_kernel, NOT_DIFFERENTIABLE)  # TF1's gradient: None for both
TruncateMod = _bin("TruncateMod", lambda xp, x, y: xp.fmod(x, y))
# x % y = x - floor(x / y) * y, and floor is flat: TF's gradient, not "none".
FloorMod = _bin("FloorMod", lambda xp, x, y: x % y, lambda op, g: [g, -g * floordiv(*op.inputs)])


def _pow_grad(op, g):
    x, y = op.inputs
    z = op.outputs[0]
    safe_log = where(x > 0, log(where(x > 0, x, core_array_ops.ones_like(x))), core_array_ops.zeros_like(x))
    return [g * y * pow(x, y - 1), g * z * safe_log]


Pow = _bin("Pow", lambda xp, x, y: x**y, _pow_grad)


def _minmax_grad(op, g, x_wins):
    mask = cast(x_wins, g.dtype)
    return [g * mask, g * (1 - mask)]


Maximum = _bin(
    "Maximum",
    lambda xp, x, y: xp.maximum(x, y),
    lambda op, g: _minmax_grad(op, g, op.inputs[0] >= op.inputs[1]),
    **_chain("maximum"),
)
Minimum = _bin(
    "Minimum",
    lambda xp, x, y: xp.minimum(x, y),
    lambda op, g: _minmax_grad(op, g, op.inputs[0] <= op.inputs[1]),
    **_chain("minimum"),
)


def add(x, y, name=None):
    """``x + y`` with numpy broadcasting."""
    return _binary_op(Add, x, y, name)


def subtract(x, y, name=None):
    """``x - y`` with numpy broadcasting."""
    return _binary_op(Sub, x, y, name)


def multiply(x, y, name=None):
    """``x * y`` with numpy broadcasting."""
    return _binary_op(Mul, x, y, name)


def truediv(x, y, name=None):
    """``x / y``; integer inputs give float64, as in TF1."""
    return _binary_op(RealDiv, x, y, name)


divide = realdiv = truediv


def div(x, y, name=None):
    """Python 2's ``x / y``, as TF1's ``tf.div``: floor division of integers, real division
    of floats (``tf.div(7, 2)`` is 3, ``tf.div(-7, 2)`` is -4)."""
    x, y = _coerce_pair(x, y)
    return _binary_op(RealDiv if x.dtype.is_floating else FloorDiv, x, y, name)


def floordiv(x, y, name=None):
    return _binary_op(FloorDiv, x, y, name)


def floormod(x, y, name=None):
    return _binary_op(FloorMod, x, y, name)


def truncatediv(x, y, name=None):
    """``x / y`` rounded toward zero (C's division: ``truncatediv(-7, 2)`` is -3; floats
    too). Its gradient is None, as in TF1."""
    return _binary_op(TruncateDiv, x, y, name)


def truncatemod(x, y, name=None):
    """The remainder of :func:`truncatediv`, with the sign of ``x`` (C's ``fmod``)."""
    return _binary_op(TruncateMod, x, y, name)


mod = floormod
floor_div = floordiv


def pow(x, y, name=None):  # noqa: A001 - TF1's public name
    """``x ** y`` elementwise."""
    return _binary_op(Pow, x, y, name)


def maximum(x, y, name=None):
    return _binary_op(Maximum, x, y, name)


def minimum(x, y, name=None):
    return _binary_op(Minimum, x, y, name)


# -- elementwise unary --------------------------------------------------------


def _unary(name, kernel, grad=None, infer=same_float, **rules):
    prim = Primitive(name, infer, kernel, grad, fresh_output=True, **rules)

    def op_fn(x, name=None):
        return apply(prim, x, name=name)

    return prim, op_fn


Neg, negative = _unary(
    "Neg",
    lambda xp, x: -x,
    lambda op, g: [-g],
    infer=same,
    simplify=rules.undoes_itself,
    **_chain("negative"),
)
Abs, abs = _unary(  # noqa: A001
    "Abs", lambda xp, x: xp.abs(x), lambda op, g: [g * sign(op.inputs[0])], same, **_chain("abs")
)
Sign, sign = _unary("Sign", lambda xp, x: xp.sign(x), lambda op, g: [None], same)
Square, square = _unary(
    "Square", lambda xp, x: x * x, lambda op, g: [g * 2 * op.inputs[0]], infer=same, **_chain("square")
)
Exp, exp = _unary("Exp", lambda xp, x: xp.exp(x), lambda op, g: [g * op.outputs[0]], **_chain("exp"))
Log, log = _unary("Log", lambda xp, x: xp.log(x), lambda op, g: [g / op.inputs[0]], **_chain("log"))
Sqrt, sqrt = _unary(
    "Sqrt", lambda xp, x: xp.sqrt(x), lambda op, g: [g * 0.5 / op.outputs[0]], **_chain("sqrt")
)
Tanh, tanh = _unary(
    "Tanh",
    lambda xp, x: xp.tanh(x),
    lambda op, g: [g * (1 - op.outputs[0] * op.outputs[0])],
    **_chain("tanh"),
)
# Each is the other's derivative (up to sign); TF1's Cos and Sin, used by the cosine schedules.
Cos, cos = _unary("Cos", lambda xp, x: xp.cos(x), lambda op, g: [-g * sin(op.inputs[0])], **_chain("cos"))
Sin, sin = _unary("Sin", lambda xp, x: xp.sin(x), lambda op, g: [g * cos(op.inputs[0])], **_chain("sin"))
Tan, tan = _unary("Tan", lambda xp, x: xp.tan(x), lambda op, g: [g * square(reciprocal(cos(op.inputs[0])))])
Floor, floor = _unary("Floor", lambda xp, x: xp.floor(x), lambda op, g: [None])
Ceil, ceil = _unary("Ceil", lambda xp, x: xp.ceil(x), lambda op, g: [None])
Round, round = _unary("Round", lambda xp, x: xp.round(x), lambda op, g: [None])  # noqa: A001


def _sigmoid_kernel(xp, x):
    # The tanh form never overflows, unlike 1 / (1 + exp(-x)) for large -x.
    return 0.5 * (xp.tanh(0.5 * x) + 1)


def _sigmoid_grad(op, g):
    y = op.outputs[0]
    return [g * y * (1 - y)]


Sigmoid, sigmoid = _unary("Sigmoid", _sigmoid_kernel, _sigmoid_grad)


def _relu_grad_kernel(xp, g, x):
    large = g.size >= _LOOP_MIN and g.shape == x.shape  # checked first: cheap on small steps
    compiled = loops.relu_grad.get() if large and plain(g, x) else None
    if compiled is None:
        return g * (x > 0)
    out = numpy.empty_like(g)
    compiled(g.reshape(-1), x.reshape(-1), out.reshape(-1))  # one pass, no mask array
    return out


# ReluGrad is linear in g, so its own gradient is itself; x gets none (zero
# almost everywhere).
ReluGrad = Primitive(
    "ReluGrad",
    lambda inputs: (inputs[0]._dims, inputs[0].dtype),
    _relu_grad_kernel,
    lambda op, g: [apply(ReluGrad, g, op.inputs[1]), None],
    fresh_output=True,
)


def _bias_add_relu_kernel(xp, x, b):
    out = _bias_loop(x, b, relu=True)
    return xp.maximum(x + b, 0) if out is None else out


# A bias add and the ReLU after it, as one kernel: made only by the remapping rewrite.
FusedBiasAddRelu = Primitive(
    "_FusedBiasAddRelu",
    lambda inputs: (inputs[0]._dims, inputs[0].dtype),
    _bias_add_relu_kernel,
    fresh_output=True,
)
# The gradient reads the ReLU's output, as TF's does (y > 0 exactly where x > 0), so
# nothing else reads the pre-activation and the remapping rewrite can fuse it away.
Relu, _relu = _unary(
    "Relu",
    lambda xp, x: xp.maximum(x, 0),
    lambda op, g: [apply(ReluGrad, g, op.outputs[0])],
    infer=same,
    fuse=rules.bias_then(FusedBiasAddRelu, Add),
)


def relu(features, name=None):
    """``max(features, 0)``."""
    return _relu(features, name=name)


# -- TF1's other activation ops: one op each, as TF1 builds them (their type is what an
# exported GraphDef and Graph.gradient_override_map see); each gradient reads what TF1's
# reads, and chooses the same side at the kinks.

SELU_SCALE = 1.0507009873554804934193349852946
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123  # TF1's scale * alpha, as one constant


def _exp_minus_one(xp, x):
    # TF1's exp(x) - 1 where x < 0; exp of the other side is never taken, so never overflows.
    return xp.exp(xp.minimum(x, 0)) - 1


# TF1's select(x > 0, x, alpha * x); for 0 <= alpha <= 1 the same values, -0.0 and NaN
# included, without a select (numpy's where is several times slower on a mixed-sign input).
def _leaky_relu_kernel(xp, x, alpha):
    if 0.0 <= alpha <= 1.0:
        return xp.maximum(x, x * alpha)
    return xp.where(x > 0, x, x * alpha)


def _leaky_relu_grad_kernel(xp, g, x, alpha):
    if 0.0 <= alpha <= 1.0:  # the slope: max(1, alpha) = 1 where x > 0, max(0, alpha) = alpha else
        return g * xp.maximum((x > 0).astype(g.dtype), alpha)
    return xp.where(x > 0, g, g * alpha)


# The gradients are one kernel each, as TF1's Relu6Grad and LeakyReluGrad: linear in g, so
# each is its own gradient; the features get none (zero almost everywhere), as ReluGrad's.
Relu6Grad = Primitive(
    "Relu6Grad",
    lambda inputs: (inputs[0]._dims, inputs[0].dtype),
    lambda xp, g, y: g * ((y > 0) & (y < 6)),
    lambda op, gg: [apply(Relu6Grad, gg, op.inputs[1]), None],
    fresh_output=True,
)
LeakyReluGrad = Primitive(
    "LeakyReluGrad",
    lambda inputs, *, alpha: (inputs[0]._dims, inputs[0].dtype),
    lambda xp, g, x, *, alpha: _leaky_relu_grad_kernel(xp, g, x, alpha),
    lambda op, gg: [apply(LeakyReluGrad, gg, op.inputs[1], **op.attrs), None],
    fresh_output=True,
)
Relu6, _relu6 = _unary(
    "Relu6",
    lambda xp, x: xp.minimum(xp.maximum(x, 0), 6),
    lambda op, g: [apply(Relu6Grad, g, op.outputs[0])],
    infer=same,
)
Elu, _elu = _unary(
    "Elu",
    lambda xp, x: xp.where(x < 0, _exp_minus_one(xp, x), x),
    lambda op, g: [where(op.outputs[0] < 0, g * (op.outputs[0] + 1), g)],
)
Selu, _selu = _unary(
    "Selu",
    lambda xp, x: xp.where(x < 0, SELU_SCALE_ALPHA * _exp_minus_one(xp, x), SELU_SCALE * x),
    lambda op, g: [where(op.outputs[0] < 0, g * (op.outputs[0] + SELU_SCALE_ALPHA), g * SELU_SCALE)],
)


def _softplus_kernel(xp, x):
    # TF1's: x itself above -log(eps) - 2, exp(x) below log(eps) + 2 (both exact to the
    # float's precision there), log1p(exp(x)) between, where nothing overflows.
    bound = math.log(float(xp.finfo(x.dtype).eps)) + 2.0
    e = xp.exp(xp.minimum(x, -bound))  # exp(x) wherever it is read; never overflows
    return xp.where(x > -bound, x, xp.where(x < bound, e, xp.log1p(e)))


# The gradient is sigmoid(x): 0.5 at 0, as TF1's.
Softplus, _softplus = _unary("Softplus", _softplus_kernel, lambda op, g: [g * sigmoid(op.inputs[0])])
LeakyRelu = Primitive(
    "LeakyRelu",
    lambda inputs, *, alpha: (inputs[0]._dims, inputs[0].dtype),
    lambda xp, x, *, alpha: _leaky_relu_kernel(xp, x, alpha),
    lambda op, g: [apply(LeakyReluGrad, g, op.inputs[0], **op.attrs)],
    fresh_output=True,
)


def relu6(features, name=None):
    """``min(max(features, 0), 6)``."""
    return _relu6(features, name=name)


def elu(features, name=None):
    """``features`` where positive, else ``exp(features) - 1``."""
    return _elu(features, name=name)


def selu(features, name=None):
    """``scale * (x if x > 0 else alpha * (exp(x) - 1))`` with TF's self-normalising constants."""
    return _selu(features, name=name)


def softplus(features, name=None):
    """``log(1 + exp(features))``, computed stably."""
    return _softplus(features, name=name)


def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, else ``alpha * features`` (integers become float32, as in TF1)."""
    features = convert_to_tensor(features)
    if features.dtype.is_integer:
        features = cast(features, dtypes.float32)
    if isinstance(alpha, Tensor):  # TF1 takes only a number: the same values as two ops
        return maximum(features * alpha, features, name=name)
    alpha = float(numpy.float32(numpy.asarray(alpha).item()))  # TF1's attribute is a float32
    return apply(LeakyRelu, features, alpha=alpha, name=name or "LeakyRelu")


def rsqrt(x, name=None):
    """``1 / sqrt(x)``."""
    return reciprocal(sqrt(x), name=name)


def reciprocal(x, name=None):
    x = convert_to_tensor(x)
    return truediv(core_array_ops.ones_like(x), x, name=name)


def log1p(x, name=None):
    return log(add(1.0, x), name=name)


# -- comparisons and logic (not differentiable) --------------------------------


def _cmp(name, kernel, infer=numeric_comparison):
    prim = Primitive(name, infer, kernel, grad=NOT_DIFFERENTIABLE)

    def op_fn(x, y, name=None):
        return _binary_op(prim, x, y, name)

    return prim, op_fn


Equal, equal = _cmp("Equal", lambda xp, x, y: xp.equal(x, y), comparison)
NotEqual, not_equal = _cmp("NotEqual", lambda xp, x, y: xp.not_equal(x, y), comparison)
Less, less = _cmp("Less", lambda xp, x, y: x < y)
LessEqual, less_equal = _cmp("LessEqual", lambda xp, x, y: x <= y)
Greater, greater = _cmp("Greater", lambda xp, x, y: x > y)
GreaterEqual, greater_equal = _cmp("GreaterEqual", lambda xp, x, y: x >= y)
LogicalAnd, logical_and = _cmp("LogicalAnd", lambda xp, x, y: x & y)
LogicalOr, logical_or = _cmp("LogicalOr", lambda xp, x, y: x | y)
LogicalNot, logical_not = _unary("LogicalNot", lambda xp, x: ~x, NOT_DIFFERENTIABLE, infer=same)


# -- cast and select ----------------------------------------------------------


def _cast_grad(op, g):
    src = op.inputs[0].dtype
    return [cast(g, src) if src.is_floating and g.dtype.is_floating else None]


Cast = Primitive(
    "Cast",
    lambda inputs, *, dtype: (inputs[0]._dims, dtype),
    lambda xp, x, *, dtype: x.astype(dtype.np),
    _cast_grad,
)


def cast(x, dtype, name=None):
    """Convert ``x`` to ``dtype`` (a no-op when it already has it)."""
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    return apply(Cast, x, dtype=dtype, name=name)


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def _select_infer(inputs, **_):
    cond, x, y = inputs
    if not cond.dtype.is_bool:
        raise TypeError(f"condition {cond.name} must be bool, got {cond.dtype.name}")
    return _select_dims(inputs), check_same_dtype([x, y])


def _select_dims(inputs):
    """TF1's ``Select`` gives ``x`` and ``y`` one shape, their most specific (an
    unknown rank takes the other's); the condition and ``x``, ``y`` of other ranks
    broadcast, as TF2's ``where_v2`` that the kernel follows."""
    cond, x, y = inputs
    if x._dims is None or y._dims is None:
        xy = y._dims if x._dims is None else x._dims
    elif compatible(x._dims, y._dims):
        xy = merge(x._dims, y._dims)
    else:
        xy = broadcast_dims([x, y])
    if cond._dims is None or xy is None:
        return xy
    try:
        return broadcast(cond._dims, xy)
    except ValueError:
        raise ValueError(f"condition {cond.name} {cond.shape} does not fit {x.name} {x.shape}") from None


def _select_grad(op, g):
    cond = op.inputs[0]
    zeros = core_array_ops.zeros_like(g)
    return [None, where(cond, g, zeros), where(cond, zeros, g)]


Select = Primitive(
    "Select",
    _select_infer,
    lambda xp, c, x, y: xp.where(c, x, y),
    _select_grad,
    broadcasting=True,
)


def where(condition, x=None, y=None, name=None):
    """TF1's ``tf.where``: ``x if condition else y`` entry by entry, or, where ``condition``
    is a vector and ``x`` has a higher rank, row by row (``condition[i]`` picks ``x[i]`` or
    ``y[i]``).

    With only ``condition``, returns the int64 coordinates of its true entries.
    """
    if x is None and y is None:
        return apply(WhereIndices, condition, name=name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither")
    condition = convert_to_tensor(condition)
    x, y = _coerce_pair(x, y)
    rank = x.shape.ndims if x.shape.ndims is not None else y.shape.ndims
    if condition.shape.ndims == 1 and rank is not None and rank > 1:
        from .array_ops import reshape  # local import: a cycle, array_ops builds on this module

        condition = reshape(condition, [-1] + [1] * (rank - 1))
    return apply(Select, condition, x, y, name=name)


def where_broadcast(condition, x=None, y=None, name=None):
    """TF2's ``where_v2``: ``x if condition else y`` with all three broadcast together."""
    if x is None and y is None:
        return apply(WhereIndices, condition, name=name)
    if x is None or y is None:
        raise ValueError("where_v2 needs both x and y, or neither")
    x, y = _coerce_pair(x, y)
    return apply(Select, condition, x, y, name=name)


def _coerce_pair(x, y):
    if _is_tensor(x):
        x = convert_to_tensor(x)
        return x, convert_to_tensor(y, dtype=None if _is_tensor(y) else x.dtype)
    y = convert_to_tensor(y)
    return convert_to_tensor(x, dtype=y.dtype), y


WhereIndices = Primitive(
    "Where",
    lambda inputs: ((None, len(inputs[0]._dims) if inputs[0]._dims is not None else None), dtypes.int64),
    lambda xp, c: xp.argwhere(c).astype("int64"),
)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp ``t`` into ``[clip_value_min, clip_value_max]``."""
    return minimum(maximum(t, clip_value_min), clip_value_max, name=name)


# -- matmul ---------------------------------------------------------------------


def _matmul_infer(inputs, **_):
    a, b = inputs
    dt = _check_matmul_dtype(a, b)
    if a._dims is None or b._dims is None:
        return None, dt
    if len(a._dims) < 2 or len(b._dims) < 2:
        raise ValueError(f"matmul needs rank >= 2 inputs, got shapes {a.shape} and {b.shape}")
    k1, k2 = a._dims[-1], b._dims[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(
            f"inner dimensions differ: {a.name} has shape {a.shape}, {b.name} has shape {b.shape}"
        )
    # Batch dimensions broadcast, as the kernel's `@` (and TF's BatchMatMulV2) does.
    try:
        batch = broadcast(a._dims[:-2], b._dims[:-2])
    except ValueError:
        raise ValueError(
            f"batch dimensions differ: {a.name} has shape {a.shape}, {b.name} has shape {b.shape}"
        ) from None
    return batch + (a._dims[-2], b._dims[-1]), dt


def _check_matmul_dtype(a, b):
    if a.dtype is not b.dtype:
        raise TypeError(f"matmul inputs differ in dtype: {a.dtype.name} and {b.dtype.name}")
    return a.dtype


def _matmul_grad(op, g):
    a, b = op.inputs
    return [matmul(g, b, transpose_b=True), matmul(a, g, transpose_a=True)]


# broadcasting: a gradient with broadcast batch dimensions is summed back centrally.
MatMul = Primitive(
    "MatMul", _matmul_infer, lambda xp, a, b: a @ b, _matmul_grad, broadcasting=True, fresh_output=True
)


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product of the last two dimensions; optional transposes.

    ``a_is_sparse``, ``b_is_sparse``, ``grad_a`` and ``grad_b`` are hints to
    pick a kernel in TF; the product is the same without them. ``output_type``
    other than the inputs' dtype (TF's int8 x int8 -> int32) is refused.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.matmul(tf.ones([2, 3]), tf.ones([2, 4]), transpose_a=True).shape.as_list()
    [3, 4]
    """
    a, b = _coerce_pair(a, b)
    if output_type is not None and dtypes.as_dtype(output_type) is not a.dtype:
        raise NotImplementedError(
            f"matmul: output_type={dtypes.as_dtype(output_type).name} differs from the inputs' "
            f"{a.dtype.name}; daskflow multiplies in the inputs' dtype: cast the result instead"
        )
    if transpose_a or adjoint_a:
        a = core_array_ops.matrix_transpose(a)
    if transpose_b or adjoint_b:
        b = core_array_ops.matrix_transpose(b)
    return apply(MatMul, a, b, name=name)


# -- reductions -----------------------------------------------------------------


def _reduce_infer(inputs, *, axis, keepdims):
    return reduced_dims(inputs[0]._dims, axis, keepdims), inputs[0].dtype


def _sum_grad(op, g):
    x = op.inputs[0]
    return [core_array_ops.broadcast_back(g, x, op.attrs["axis"], op.attrs["keepdims"])]


def _mean_grad(op, g):
    return [core_array_ops.broadcast_back(g, op.inputs[0], op.attrs["axis"], op.attrs["keepdims"], mean=True)]


def _extremum_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    hits = cast(equal(x, core_array_ops.broadcast_back(y, x, axis, keepdims)), g.dtype)
    ties = core_array_ops.broadcast_back(reduce_sum(hits, axis, keepdims=keepdims), x, axis, keepdims)
    return [hits / ties * core_array_ops.broadcast_back(g, x, axis, keepdims)]


def _prod_grad(op, g):
    # d y / d x_i is the product of the other entries. y / x_i is NaN at a zero, so use the
    # product p of the nonzero entries: p / x_i if there is no zero, p at the only zero, else 0.
    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]

    def back(t):
        return core_array_ops.broadcast_back(t, x, axis, keepdims)

    is_zero = equal(x, 0)
    nonzero = where(is_zero, core_array_ops.ones_like(x), x)
    n_zeros = back(reduce_sum(cast(is_zero, x.dtype), axis, keepdims=keepdims))
    p = back(reduce_prod(nonzero, axis, keepdims=keepdims))
    at_zero = p * cast(equal(n_zeros, 1), x.dtype)
    elsewhere = p / nonzero * cast(equal(n_zeros, 0), x.dtype)
    others = where(is_zero, at_zero, elsewhere)
    return [back(g) * others]


def _reduction(name, method, grad):
    def kernel(xp, x, *, axis, keepdims):
        # numpy widens int32 sums and products to int64 and int means to float64;
        # TF (and inference) keep the input's dtype.
        return getattr(xp, method)(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)

    return Primitive(name, _reduce_infer, kernel, grad)


Sum = _reduction("Sum", "sum", _sum_grad)
Mean = _reduction("Mean", "mean", _mean_grad)
Max = _reduction("Max", "max", _extremum_grad)
Min = _reduction("Min", "min", _extremum_grad)
Prod = _reduction("Prod", "prod", _prod_grad)
All = _reduction("All", "all", None)
Any = _reduction("Any", "any", None)


def _reduce_over_infer(inputs, *, method, keepdims):
    dims = inputs[0]._dims
    return (None if dims is None or not keepdims else (None,) * len(dims)), inputs[0].dtype


def _reduce_over_kernel(xp, x, axes, *, method, keepdims):
    given = [int(a) for a in axes.reshape(-1)]  # int(): a device scalar's read
    bad = [a for a in given if not -max(x.ndim, 1) <= a < max(x.ndim, 1)]
    if bad or len({a % max(x.ndim, 1) for a in given}) != len(given):
        raise InvalidArgumentError(
            None, None, f"Invalid reduction dimension(s) {given} for input with {x.ndim} dimensions"
        )
    axes = tuple(a % max(x.ndim, 1) for a in given)
    return getattr(xp, method)(x, axis=axes, keepdims=keepdims).astype(x.dtype, copy=False)


# A reduction over axes computed at run time, as TF1's gradients write them (a sum over
# ``BroadcastGradientArgs``): made by import_graph_def; daskflow's own are static.
ReduceOver = Primitive("ReduceOver", _reduce_over_infer, _reduce_over_kernel)


def _reduce(prim, x, axis, keepdims, name, reduction_indices, keep_dims):
    x = convert_to_tensor(x)
    axis = argument_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    try:
        axes = normalize_axes(axis, x.shape.ndims)
    except ValueError as e:
        raise ValueError(f"{prim.name} of {x.name} (shape {x.shape}): {e}") from None
    return apply(prim, x, axis=axes, keepdims=bool(keepdims), name=name)


def _public_reduction(prim, doc):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        return _reduce(prim, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)

    fn.__doc__ = doc
    return fn


reduce_sum = _public_reduction(Sum, "Sum over ``axis`` (all axes when None).")
reduce_mean = _public_reduction(Mean, "Mean over ``axis`` (all axes when None).")
reduce_max = _public_reduction(Max, "Maximum over ``axis`` (all axes when None).")
reduce_min = _public_reduction(Min, "Minimum over ``axis`` (all axes when None).")
reduce_prod = _public_reduction(Prod, "Product over ``axis`` (all axes when None).")
reduce_all = _public_reduction(All, "Logical and over ``axis``.")
reduce_any = _public_reduction(Any, "Logical or over ``axis``.")


def _argm_infer(inputs, *, axis, output_type):
    dims = inputs[0]._dims
    return (None if dims is None else dims[:axis] + dims[axis + 1 :]), output_type


def _argm(name, method):
    def kernel(xp, x, *, axis, output_type):
        return getattr(xp, method)(x, axis=axis).astype(output_type.np)

    return Primitive(name, _argm_infer, kernel, grad=NOT_DIFFERENTIABLE)  # TF1's rule: None for both


ArgMax = _argm("ArgMax", "argmax")
ArgMin = _argm("ArgMin", "argmin")


def _arg(prim, x, axis, name, dimension, output_type):
    x = convert_to_tensor(x)
    axis = argument_lookup("axis", axis, "dimension", dimension)
    axis = 0 if axis is None else axis
    (axis,) = normalize_axes(axis, x.shape.ndims)
    return apply(prim, x, axis=axis, output_type=dtypes.as_dtype(output_type), name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """Index of the largest entry along ``axis`` (default 0)."""
    return _arg(ArgMax, input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """Index of the smallest entry along ``axis`` (default 0)."""
    return _arg(ArgMin, input, axis, name, dimension, output_type)


# -- add_n ------------------------------------------------------------------------


def _add_n_infer(inputs):
    dt = inputs[0].dtype
    dims = inputs[0]._dims
    for t in inputs[1:]:
        if t.dtype is not dt:
            raise TypeError(f"add_n inputs differ in dtype: {dt.name} and {t.dtype.name} ({t.name})")
        try:
            dims = merge(dims, t._dims)
        except ValueError:
            raise ValueError(f"add_n inputs differ in shape: {fmt(dims)} and {t.shape} ({t.name})") from None
    return dims, dt


def _add_n_kernel(xp, *xs):
    total = xs[0] + xs[1] if len(xs) > 1 else xs[0]
    for x in xs[2:]:
        total += x  # total is a fresh array here, so adding in place is safe
    return total


AddN = Primitive("AddN", _add_n_infer, _add_n_kernel, lambda op, g: [g] * len(op.inputs))


def add_n(inputs, name=None):
    """Sum a list of tensors of the same shape and dtype."""
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("add_n needs at least one input")
    if len(inputs) == 1:
        return inputs[0] if name is None else core_array_ops.identity(inputs[0], name=name)
    return apply(AddN, *inputs, name=name)


# -- TF1's older names and small composites -----------------------------------------


def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF1's old name for ``argmax``."""
    return argmax(input, dimension=dimension, output_type=output_type, name=name)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF1's old name for ``argmin``."""
    return argmin(input, dimension=dimension, output_type=output_type, name=name)


def to_double(x, name="ToDouble"):
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)


def squared_difference(x, y, name=None):
    """``(x - y) ** 2`` elementwise."""
    return square(subtract(x, y), name=name)


def reduce_logsumexp(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """``log(sum(exp(x)))`` over ``axis``, computed stably (the maximum is taken out first)."""
    x = convert_to_tensor(input_tensor)
    axis = argument_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    top = core_array_ops.stop_gradient(reduce_max(x, axis, keepdims=True))
    total = log(reduce_sum(exp(x - top), axis, keepdims=True)) + top
    return total if keepdims else reduce_sum(total, axis, name=name)


def count_nonzero(
    input_tensor=None,
    axis=None,
    keepdims=None,
    dtype=dtypes.int64,
    name=None,
    reduction_indices=None,
    keep_dims=None,
    input=None,  # noqa: A002 - TF1's newer name for input_tensor
):
    """How many entries are not zero, over ``axis``."""
    x = convert_to_tensor(argument_lookup("input", input, "input_tensor", input_tensor))
    axis = argument_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    nonzero = cast(not_equal(x, core_array_ops.zeros_like(x)), dtypes.int64)
    return cast(reduce_sum(nonzero, axis, keepdims=keepdims), dtype, name=name)


def _cumsum_kernel(xp, x, *, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    out = xp.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = out - x
    return xp.flip(out, axis) if reverse else out


def _cumsum_grad(op, g):
    attrs = op.attrs
    return [apply(Cumsum, g, axis=attrs["axis"], exclusive=attrs["exclusive"], reverse=not attrs["reverse"])]


Cumsum = Primitive(
    "Cumsum", lambda inputs, **_: (inputs[0]._dims, inputs[0].dtype), _cumsum_kernel, _cumsum_grad
)


def _cumprod_kernel(xp, x, *, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    if exclusive:  # a shifted product, not a division: x may hold zeros
        ones = xp.ones_like(xp.take(x, [0], axis=axis))
        x = xp.concatenate([ones, xp.take(x, range(x.shape[axis] - 1), axis=axis)], axis=axis)
    out = xp.cumprod(x, axis=axis, dtype=x.dtype)
    return xp.flip(out, axis) if reverse else out


def _cumprod_grad(op, g):
    # TF1's rule: a running sum of g * y taken the other way, over x (NaN where x is 0, as TF1).
    attrs = op.attrs
    summed = apply(
        Cumsum,
        g * op.outputs[0],
        axis=attrs["axis"],
        exclusive=attrs["exclusive"],
        reverse=not attrs["reverse"],
    )
    return [summed / op.inputs[0]]


Cumprod = Primitive(
    "Cumprod", lambda inputs, **_: (inputs[0]._dims, inputs[0].dtype), _cumprod_kernel, _cumprod_grad
)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along ``axis`` (``exclusive``: each leaves out its own entry)."""
    x = convert_to_tensor(x)
    (axis,) = normalize_axes(axis, x.shape.ndims)
    return apply(Cumprod, x, axis=axis, exclusive=bool(exclusive), reverse=bool(reverse), name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along ``axis``."""
    x = convert_to_tensor(x)
    (axis,) = normalize_axes(axis, x.shape.ndims)
    return apply(Cumsum, x, axis=axis, exclusive=bool(exclusive), reverse=bool(reverse), name=name)
