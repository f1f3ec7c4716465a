"""Run-time checks (``tf.Assert``, ``assert_*``), printing ops and ``is_nan``/``is_inf``/``is_finite``.

As TF1: a check whose answer is known when the graph is built raises then
(ValueError/TypeError naming the tensor); otherwise it becomes an ``Assert``
op whose kernel fails the run (``InvalidArgumentError`` naming the op, with
the message and the data). Assert and print ops are stateful, so they are
never folded away; run them, or make other ops wait on them::

    with tf.control_dependencies([tf.assert_positive(x)]):
        y = tf.log(x)
"""

from __future__ import annotations

import sys

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, get_default_graph
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from . import math_ops
from .array_ops import rank as rank_of
from .array_ops import static_scalar
from .control_flow_ops import no_op
from .infer import same

# -- is_nan, is_inf, is_finite, logical_xor -------------------------------------------------------


def _float_to_bool(inputs):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(f"expects a floating-point input, got {x.dtype.name} ({x.name})")
    return x._dims, dtypes.bool


IsNan = Primitive("IsNan", _float_to_bool, lambda xp, x: xp.isnan(x))
IsInf = Primitive("IsInf", _float_to_bool, lambda xp, x: xp.isinf(x))
IsFinite = Primitive("IsFinite", _float_to_bool, lambda xp, x: xp.isfinite(x))


def is_nan(x, name=None):
    """Elementwise: whether ``x`` is NaN."""
    return apply(IsNan, x, name=name)


def is_inf(x, name=None):
    """Elementwise: whether ``x`` is +-Inf."""
    return apply(IsInf, x, name=name)


def is_finite(x, name=None):
    """Elementwise: whether ``x`` is neither NaN nor Inf."""
    return apply(IsFinite, x, name=name)


def logical_xor(x, y, name="LogicalXor"):
    """``(x or y) and not (x and y)``, as TF1 composes it."""
    both = math_ops.logical_and(x, y)
    return math_ops.logical_and(math_ops.logical_or(x, y), math_ops.logical_not(both), name=name)


# -- formatting data for messages ---------------------------------------------------------------------


def _entry(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, (float, np.floating)):
        return f"{v:g}"  # TF prints 1 for 1.0
    return str(v)


def _summarize(value, summarize):
    """``[v1 v2 v3...]``: the first ``summarize`` entries (all when negative), as TF shows data."""
    flat = np.asarray(value).reshape(-1)
    n = flat.size if summarize is None or summarize < 0 else min(summarize, flat.size)
    body = " ".join(_entry(v) for v in flat[:n].tolist()) + ("..." if n < flat.size else "")
    return f"[{body}]"


# -- Assert -------------------------------------------------------------------------------------------


def _assert_infer(inputs, **_):
    cond = inputs[0]
    if not cond.dtype.is_bool or (cond._dims is not None and cond._dims != ()):
        raise TypeError(
            f"Assert: condition {cond.name} must be a bool scalar, got {cond.dtype.name} {cond.shape}"
        )
    return []


def _assert_kernel(xp, cond, *data, summarize):
    if not bool(cond):
        text = " ".join(_summarize(d, summarize) for d in data)
        # A ValueError: the session reports it as InvalidArgumentError naming this op.
        raise ValueError(f"assertion failed: {text}")
    return ()


# Assert and the print ops format their data as text on the host, as TF1 runs them on the CPU.
Assert_ = Primitive(
    "Assert", _assert_infer, _assert_kernel, stateful=True, host_only=True, grad=NOT_DIFFERENTIABLE
)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF1's public name
    """An op that fails the run, showing ``data``, when ``condition`` is False.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32)
    >>> check = tf.Assert(tf.reduce_all(x > 0), ["x must be positive:", x])
    >>> with tf.control_dependencies([check]):
    ...     y = tf.identity(x)
    """
    graph = get_default_graph()
    tensors = [convert_to_tensor(condition)] + [convert_to_tensor(d) for d in data]
    return graph._create_op(
        Assert_, tensors, {"summarize": 3 if summarize is None else int(summarize)}, name=name
    )


def _static_value(t):
    if t.op.type == "Const":
        return t.op.attrs["value"]
    return None


def _binary_assert(x, y, np_check, fn, condition, data, summarize, message, name, checked=None):
    """Check ``fn(x, y)`` everywhere; ``condition`` words it (``x < y``, or ``x > 0`` against a
    zero, when the message shows only the ``checked`` tensor, as TF1's messages do)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype if not isinstance(y, Tensor) else None)
    if x.dtype is not y.dtype:
        raise TypeError(f"cannot compare {x.name} ({x.dtype.name}) with {y.name} ({y.dtype.name})")
    header = f"{message + ' ' if message else ''}Condition {condition} did not hold element-wise:"
    shown = [("x", x), ("y", y)] if checked is None else [("x", checked)]
    sx, sy = _static_value(x), _static_value(y)
    if sx is not None and sy is not None:
        if not bool(np.all(np_check(sx, sy))):
            values = ", ".join(
                f"{n} ({t.name}) = {_summarize(_static_value(t), summarize)}" for n, t in shown
            )
            # TF1 raises InvalidArgumentError here; daskflow's is also a ValueError.
            raise InvalidArgumentError(None, None, f"{header} {values}")
        return no_op(name=name)
    if data is None:
        data = [header] + [v for n, t in shown for v in (f"{n} ({t.name}) = ", t)]
    return Assert(math_ops.reduce_all(fn(x, y)), data, summarize, name=name)


def _make_binary(np_check, symbol, fn, doc):
    def check(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(x, y, np_check, fn, f"x {symbol} y", data, summarize, message, name)

    check.__doc__ = doc
    return check


assert_equal = _make_binary(np.equal, "==", math_ops.equal, "Check ``x == y`` elementwise.")
assert_less = _make_binary(np.less, "<", math_ops.less, "Check ``x < y`` elementwise.")
assert_less_equal = _make_binary(np.less_equal, "<=", math_ops.less_equal, "Check ``x <= y`` elementwise.")
assert_greater = _make_binary(np.greater, ">", math_ops.greater, "Check ``x > y`` elementwise.")
assert_greater_equal = _make_binary(
    np.greater_equal, ">=", math_ops.greater_equal, "Check ``x >= y`` elementwise."
)


def _make_sign_check(zero_first, np_check, fn, condition, doc):
    def check(x, data=None, summarize=None, message=None, name=None):
        x = convert_to_tensor(x)
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return _binary_assert(a, b, np_check, fn, condition, data, summarize, message, name, checked=x)

    check.__doc__ = doc
    return check


assert_positive = _make_sign_check(True, np.less, math_ops.less, "x > 0", "Check ``x > 0`` elementwise.")
assert_non_negative = _make_sign_check(
    True, np.less_equal, math_ops.less_equal, "x >= 0", "Check ``x >= 0`` elementwise."
)
assert_negative = _make_sign_check(False, np.less, math_ops.less, "x < 0", "Check ``x < 0`` elementwise.")


def _rank_check(x, rank, at_least, message, name):
    x = convert_to_tensor(x)
    want = static_scalar(convert_to_tensor(rank)) if isinstance(rank, Tensor) else int(rank)
    if want is None:
        raise NotImplementedError("assert_rank needs a rank known when the graph is built")
    words = "at least rank" if at_least else "rank"
    prefix = f"{message} " if message else ""
    have = x.shape.ndims
    if have is not None:
        if have < want or (not at_least and have != want):
            raise ValueError(
                f"{prefix}Tensor {x.name} must have {words} {want}. Received rank {have}, shape {x.shape}"
            )
        return no_op(name=name)

    r = rank_of(x)
    cond = math_ops.greater_equal(r, want) if at_least else math_ops.equal(r, want)
    return Assert(cond, [f"{prefix}Tensor {x.name} must have {words}", want, "Received rank", r], name=name)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Check that ``x`` has rank ``rank`` (at build time when its rank is known)."""
    return _rank_check(x, rank, False, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Check that ``x`` has rank ``rank`` or more."""
    return _rank_check(x, rank, True, message, name)


def assert_type(tensor, tf_type, message=None, name=None):
    """Raise TypeError now unless ``tensor`` has dtype ``tf_type``."""
    tensor = convert_to_tensor(tensor)
    tf_type = dtypes.as_dtype(tf_type)
    if tensor.dtype is not tf_type:
        prefix = f"{message} " if message else ""
        raise TypeError(f"{prefix}{tensor.name} must be of type {tf_type.name}; got {tensor.dtype.name}")
    return no_op(name=name)


def assert_integer(x, message=None, name=None):
    """Raise TypeError now unless ``x`` has an integer dtype."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        prefix = f"{message} " if message else ""
        raise TypeError(f"{prefix}Expected integer type for {x.name}, got {x.dtype.name}")
    return no_op(name=name)


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself; raise ValueError now if its rank is known and not 0."""
    tensor = convert_to_tensor(tensor)
    if tensor.shape.ndims not in (None, 0):
        prefix = f"{message} " if message else ""
        raise ValueError(f"{prefix}Expected scalar shape for {tensor.name}, saw shape: {tensor.shape}")
    return tensor


# -- printing ---------------------------------------------------------------------------------------


def _print_kernel(xp, state, x, *data, message, first_n, summarize):
    state["count"] += 1
    if first_n is None or first_n < 0 or state["count"] <= first_n:
        print(message + "".join(_summarize(d, summarize) for d in data), file=sys.stderr, flush=True)
    return x


Print_ = Primitive(
    "Print",
    same,
    _print_kernel,
    lambda op, g: [g] + [None] * (len(op.inputs) - 1),
    stateful=True,
    make_state=lambda op: {"count": 0},
    host_only=True,
)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF1's name
    """``input_`` itself; running it prints ``message`` and ``data`` to stderr (the first ``first_n`` times).

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> x = tf.Print(x, [x], "x: ")  # prints "x: [1 2]" to stderr when run
    """
    tensors = [convert_to_tensor(input_)] + [convert_to_tensor(d) for d in data]
    attrs = dict(
        message="" if message is None else str(message),
        first_n=None if first_n is None else int(first_n),
        summarize=3 if summarize is None else int(summarize),
    )
    return apply(Print_, *tensors, name=name, **attrs)


def _print_v2_kernel(xp, *values, template, stream, summarize, sep, end):
    it = iter(values)
    parts = [_summarize(next(it), summarize) if is_tensor else text for is_tensor, text in template]
    print(sep.join(parts), end=end, file=getattr(sys, stream), flush=True)
    return ()


PrintV2 = Primitive("PrintV2", lambda inputs, **_: [], _print_v2_kernel, stateful=True, host_only=True)


def print_(*inputs, **kwargs):
    """``tf.print``: an op that prints ``inputs`` (tensors and Python values) when run.

    Keywords, as TF1's: ``output_stream`` (``sys.stderr``, the default, or
    ``sys.stdout`` of the process that runs the op: a worker's, on a
    cluster), ``summarize`` (3), ``sep`` (" "), ``end`` ("\\n"), ``name``.
    """
    known = {"output_stream": sys.stderr, "summarize": 3, "sep": " ", "end": "\n", "name": None}
    unknown = set(kwargs) - set(known)
    if unknown:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(unknown)}")
    known.update(kwargs)
    output_stream, summarize, sep, end, name = known.values()
    streams = {id(sys.stderr): "stderr", id(sys.stdout): "stdout", "stderr": "stderr", "stdout": "stdout"}
    key = output_stream if isinstance(output_stream, str) else id(output_stream)
    if key not in streams:
        raise ValueError(f"tf.print: output_stream must be sys.stderr or sys.stdout, got {output_stream!r}")
    tensors, template = [], []
    for v in inputs:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            tensors.append(convert_to_tensor(v))
            template.append((True, ""))
        else:
            template.append((False, str(v)))
    attrs = dict(template=tuple(template), stream=streams[key], summarize=int(summarize), sep=sep, end=end)
    return get_default_graph()._create_op(PrintV2, tensors, attrs, name=name)
