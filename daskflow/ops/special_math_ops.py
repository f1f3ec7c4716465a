"""TF1's remaining elementwise math: inverse trigonometric and hyperbolic
functions, the error and gamma families, and a few safe-arithmetic helpers.

Each primitive sits with its inference, ``xp`` kernel and gradient rule, as in
:mod:`daskflow.ops.math_ops`. Inference refuses the dtypes TF1's op
registrations refuse (``tf.erf`` of an int32 tensor is a ``TypeError`` when
the graph is built). Gradients are TF1's rules (``math_grad.py``), inputs TF1
does not differentiate (``polygamma``'s order, ``zeta``'s exponent,
``betainc``'s ``a`` and ``b``) get None. The special functions run on
``scipy.special`` for numpy arrays and ``cupyx.scipy.special`` on a GPU
(:func:`special`), both imported on first use so ``import daskflow`` does not
pay for scipy. ``lbeta``, ``div_no_nan``'s integer form, ``scalar_mul``,
``saturate_cast`` and ``accumulate_n`` are composites, built as TF1 builds them.
"""

from __future__ import annotations

import math

import numpy

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.primitive import Primitive
from ..framework.tensor_shape import as_dims, fmt, merge
from . import core_array_ops
from .infer import broadcast_dims, check_same_dtype
from .math_ops import (
    _chain,
    add_n,
    cast,
    clip_by_value,
    equal,
    exp,
    log,
    multiply,
    reciprocal,
    reduce_sum,
    sqrt,
    square,
    where,
)

_REAL = (dtypes.float16, dtypes.float32, dtypes.float64)
_REAL_OR_COMPLEX = _REAL + (dtypes.complex64, dtypes.complex128)
_WIDE = (dtypes.float32, dtypes.float64)  # TF1 has only these kernels for Zeta, Polygamma, Betainc


def special(xp):
    """The special-function module for ``xp``'s arrays: ``scipy.special`` on numpy,
    ``cupyx.scipy.special`` on cupy.

    A GPU partition's namespace wraps its module (``xp._module``); a module that
    plays cupy in tests carries its own as ``scipy_special``.
    """
    module = getattr(xp, "_module", xp)
    if module is numpy:
        import scipy.special  # here, not at the top: only a step that needs it pays for it

        return scipy.special
    own = getattr(module, "scipy_special", None)
    if own is not None:
        return own
    import cupyx.scipy.special

    return cupyx.scipy.special


def _special_kernel(fn_name):
    """A kernel calling the special function ``fn_name``, in its inputs' dtype
    (scipy has no float16 loops: it computes such inputs in float32)."""

    def kernel(xp, *arrays):
        out = getattr(special(xp), fn_name)(*arrays)
        return out.astype(arrays[0].dtype, copy=False)

    return kernel


# -- inference ----------------------------------------------------------------------------------


def _checked(allowed, inputs):
    """The inputs' one dtype, when it is one of ``allowed`` (TF1's op registration)."""
    for t in inputs:
        if t.dtype not in allowed:
            names = ", ".join(d.name for d in allowed)
            raise TypeError(f"{t.name} has dtype {t.dtype.name}, not one of the allowed {names}")
    return check_same_dtype(inputs)


def _elementwise(allowed):
    """Inference of a broadcasting elementwise op on ``allowed`` dtypes."""

    def infer(inputs, **_):
        dtype = _checked(allowed, inputs)
        return broadcast_dims(inputs), dtype

    return infer


def _betainc_infer(inputs, **_):
    # TF1's shape function: the inputs that are not scalars share one shape (no broadcasting).
    dtype = _checked(_WIDE, inputs)
    dims = ()
    shaped = [t for t in inputs if t._dims != ()]
    for t in shaped:
        try:
            dims = merge(None if t is shaped[0] else dims, t._dims)
        except ValueError:
            raise ValueError(
                f"betainc's inputs that are not scalars must share one shape: {shaped[0].name} has "
                f"shape {fmt(shaped[0]._dims)}, {t.name} has {t.shape}"
            ) from None
    return dims, dtype


# -- declarations -------------------------------------------------------------------------------


def _declare(name, kernel, grad, allowed, **rules):
    return Primitive(name, _elementwise(allowed), kernel, grad, broadcasting=True, fresh_output=True, **rules)


def _gen_op(prim, *values, name=None):
    """An op of ``prim`` built as TF's generated wrappers build it: inputs converted in
    order, a Python value taking the dtype of the tensors before it."""
    inputs, dtype = [], None
    for v in values:
        is_tensor = isinstance(v, Tensor) or hasattr(v, "_as_tensor")
        t = convert_to_tensor(v, dtype=None if is_tensor else dtype)
        dtype = dtype or t.dtype
        inputs.append(t)
    return apply(prim, *inputs, name=name)


def _unary_public(prim):
    def op_fn(x, name=None):
        return _gen_op(prim, x, name=name)

    op_fn.__name__ = op_fn.__qualname__ = prim.name.lower()
    op_fn.__doc__ = f"TF1's ``{prim.name}``, elementwise."
    return op_fn


def _one_minus_square(x):
    return 1 - square(x)


# Inverse trigonometric and hyperbolic functions: floats and complex numbers, as TF1.
Acos = _declare(
    "Acos",
    lambda xp, x: xp.acos(x),
    lambda op, g: [-g * reciprocal(sqrt(_one_minus_square(op.inputs[0])))],
    _REAL_OR_COMPLEX,
    **_chain("acos"),
)
Asin = _declare(
    "Asin",
    lambda xp, x: xp.asin(x),
    lambda op, g: [g * reciprocal(sqrt(_one_minus_square(op.inputs[0])))],
    _REAL_OR_COMPLEX,
    **_chain("asin"),
)
Atan = _declare(
    "Atan",
    lambda xp, x: xp.atan(x),
    lambda op, g: [g * reciprocal(1 + square(op.inputs[0]))],
    _REAL_OR_COMPLEX,
    **_chain("atan"),
)
# TF1 writes Acosh's and Asinh's derivatives through their outputs: 1/sinh(y), 1/cosh(y).
Acosh = _declare(
    "Acosh",
    lambda xp, x: xp.acosh(x),
    lambda op, g: [g / sinh(op.outputs[0])],
    _REAL_OR_COMPLEX,
    **_chain("acosh"),
)
Asinh = _declare(
    "Asinh",
    lambda xp, x: xp.asinh(x),
    lambda op, g: [g / cosh(op.outputs[0])],
    _REAL_OR_COMPLEX,
    **_chain("asinh"),
)
Atanh = _declare(
    "Atanh",
    lambda xp, x: xp.atanh(x),
    lambda op, g: [g * reciprocal(_one_minus_square(op.inputs[0]))],
    _REAL_OR_COMPLEX,
    **_chain("atanh"),
)
Cosh = _declare(
    "Cosh",
    lambda xp, x: xp.cosh(x),
    lambda op, g: [g * sinh(op.inputs[0])],
    _REAL_OR_COMPLEX,
    **_chain("cosh"),
)
Sinh = _declare(
    "Sinh",
    lambda xp, x: xp.sinh(x),
    lambda op, g: [g * cosh(op.inputs[0])],
    _REAL_OR_COMPLEX,
    **_chain("sinh"),
)
Expm1 = _declare(
    "Expm1",
    lambda xp, x: xp.expm1(x),
    lambda op, g: [g * exp(op.inputs[0])],
    _REAL_OR_COMPLEX,
    **_chain("expm1"),
)


def _atan2_grad(op, g):
    y, x = op.inputs
    scaled = g / (square(y) + square(x))
    return [x * scaled, -y * scaled]


Atan2 = _declare("Atan2", lambda xp, y, x: xp.atan2(y, x), _atan2_grad, _REAL, **_chain("atan2"))
Rint = _declare("Rint", lambda xp, x: xp.rint(x), lambda op, g: [None], _REAL)  # TF1: flat, no gradient

acos, asin, atan = _unary_public(Acos), _unary_public(Asin), _unary_public(Atan)
acosh, asinh, atanh = _unary_public(Acosh), _unary_public(Asinh), _unary_public(Atanh)
cosh, sinh, expm1, rint = _unary_public(Cosh), _unary_public(Sinh), _unary_public(Expm1), _unary_public(Rint)


def atan2(y, x, name=None):
    """The angle of the point ``(x, y)`` in ``[-pi, pi]``, elementwise with broadcasting."""
    return _gen_op(Atan2, y, x, name=name)


# -- the error and gamma families ----------------------------------------------------------------

_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)

Erf = _declare(
    "Erf",
    _special_kernel("erf"),
    lambda op, g: [g * _TWO_OVER_ROOT_PI * exp(-square(op.inputs[0]))],
    _REAL,
)
Erfc = _declare(
    "Erfc",
    _special_kernel("erfc"),
    lambda op, g: [g * -_TWO_OVER_ROOT_PI * exp(-square(op.inputs[0]))],
    _REAL,
)
Lgamma = _declare("Lgamma", _special_kernel("gammaln"), lambda op, g: [g * digamma(op.inputs[0])], _REAL)


def _digamma_kernel(xp, x):
    # scipy's psi(0) is -inf; TF1's is NaN, as at the other poles.
    return xp.where(x == 0, xp.nan, special(xp).psi(x)).astype(x.dtype, copy=False)


Digamma = _declare(
    "Digamma",
    _digamma_kernel,
    lambda op, g: [g * polygamma(core_array_ops.ones_like(op.inputs[0]), op.inputs[0])],
    _REAL,
)


def _polygamma_kernel(xp, n, x):
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x); TF1 gives NaN for an order that is not a
    # natural number, where scipy's formula would give -inf or a value.
    sp = special(xp)
    natural = (n >= 0) & (n == xp.floor(n))
    order = xp.where(natural, n, 1)
    higher = (1 - 2 * (order % 2 == 0)) * sp.gamma(order + 1) * _hurwitz(xp, order + 1, x)
    out = xp.where(order == 0, sp.psi(x), higher)
    return xp.where(natural, out, xp.nan).astype(x.dtype, copy=False)


def _polygamma_grad(op, g):
    n, x = op.inputs
    return [None, g * polygamma(n + 1, x)]  # TF1 has no derivative in the order


def _zeta_grad(op, g):
    s, q = op.inputs
    return [None, g * (-s * zeta(s + 1, q))]  # TF1 has no derivative in the exponent


def _hurwitz(xp, s, q):
    """Hurwitz's zeta as TF1 (Eigen) gives it: at a pole ``q`` = 0, -1, ... it is +inf
    only for an even integer ``s`` (scipy's is +inf for every ``s``), NaN otherwise."""
    pole = (q <= 0) & (q == xp.floor(q))
    even = (s == xp.floor(s)) & (s % 2 == 0)
    return xp.where(pole & ~even, xp.nan, special(xp).zeta(s, q))


Polygamma = _declare("Polygamma", _polygamma_kernel, _polygamma_grad, _WIDE)
Zeta = _declare("Zeta", lambda xp, s, q: _hurwitz(xp, s, q).astype(s.dtype, copy=False), _zeta_grad, _WIDE)


def _igamma_grad_a_kernel(xp, a, x):
    """d/da of the regularized lower incomplete gamma function P(a, x).

    By a fourth-order central difference in float64, of P where P < 1/2 and of
    -Q = P - 1 elsewhere, so that the tails keep their relative accuracy
    (TF1's own kernel differentiates implicitly; both agree far beyond float32).
    """
    sp = special(xp)
    a64, x64 = a.astype("float64"), x.astype("float64")
    h = 1e-3 * xp.minimum(a64, 1.0) + 1e-4 * xp.maximum(a64 - 1.0, 0.0)

    def diff(f):
        return (8 * (f(a64 + h, x64) - f(a64 - h, x64)) - (f(a64 + 2 * h, x64) - f(a64 - 2 * h, x64))) / (
            12 * h
        )

    lower = sp.gammainc(a64, x64) < 0.5
    out = xp.where(lower, diff(sp.gammainc), -diff(sp.gammaincc))
    return out.astype(a.dtype, copy=False)


# TF1's IgammaGradA has no gradient of its own.
IgammaGradA = Primitive("IgammaGradA", _elementwise(_WIDE), _igamma_grad_a_kernel, fresh_output=True)


def _igamma_grads(op, g):
    a, x = op.inputs
    # In log space, as TF1: Gamma(a) and x^(a-1) alone overflow for large a.
    d_x = exp(-x + (a - 1) * log(x) - lgamma(a))
    return [g * apply(IgammaGradA, a, x), g * d_x]


def _domain_kernel(fn_name, *positive):
    """A special function NaN where an argument at ``positive`` is not > 0, as TF1's
    (scipy's incomplete gamma and beta functions take 0 as a limit instead)."""

    def kernel(xp, *arrays):
        out = getattr(special(xp), fn_name)(*arrays)
        for i in positive:
            out = xp.where(arrays[i] > 0, out, xp.nan)
        return out.astype(arrays[0].dtype, copy=False)

    return kernel


Igamma = _declare("Igamma", _domain_kernel("gammainc", 0), _igamma_grads, _REAL)
Igammac = _declare(
    "Igammac",
    _domain_kernel("gammaincc", 0),
    lambda op, g: [-d for d in _igamma_grads(op, g)],
    _REAL,
)


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (TF's ``xlogy``, so that the tails at ``y`` = 0 stay finite)."""
    is_zero = equal(x, 0)  # not ==: a Tensor's == is identity, as in TF1
    safe = where(is_zero, core_array_ops.ones_like(y), y)
    return where(is_zero, core_array_ops.zeros_like(x), x * log(safe))


def _betainc_grad(op, g):
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    d_x = exp(_xlogy(b - 1, 1 - x) + _xlogy(a - 1, x) - log_beta)  # TF1's xlog1py(b - 1, -x)
    return [None, None, g * d_x]  # TF1 has no derivative in a or b


Betainc = Primitive(
    "Betainc",
    _betainc_infer,
    _domain_kernel("betainc", 0, 1),
    _betainc_grad,
    broadcasting=True,
    fresh_output=True,
)


def erf(x, name=None):
    """The Gauss error function, elementwise."""
    return _gen_op(Erf, x, name=name)


def erfc(x, name=None):
    """``1 - erf(x)``, accurate where ``erf(x)`` is near 1."""
    return _gen_op(Erfc, x, name=name)


def lgamma(x, name=None):
    """``log(|Gamma(x)|)``, elementwise."""
    return _gen_op(Lgamma, x, name=name)


def digamma(x, name=None):
    """The derivative of :func:`lgamma`, ``Psi(x)``."""
    return _gen_op(Digamma, x, name=name)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of :func:`digamma` (``a`` a natural number; NaN otherwise)."""
    return _gen_op(Polygamma, a, x, name=name)


def zeta(x, q, name=None):
    """Hurwitz's zeta function, ``sum((q + n) ** -x for n >= 0)``."""
    return _gen_op(Zeta, x, q, name=name)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return _gen_op(Igamma, a, x, name=name)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _gen_op(Igammac, a, x, name=name)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)``.

    The inputs that are not scalars must share one shape, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.betainc(tf.ones([2, 3]), 2.0, 0.5).shape.as_list()
    [2, 3]
    """
    return _gen_op(Betainc, a, b, x, name=name)


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``.

    An empty last axis gives ``-inf``, as in TF1.
    """
    with name_scope(name, "lbeta"):
        x = convert_to_tensor(x, name="x")
        return reduce_sum(lgamma(x), axis=[-1]) - lgamma(reduce_sum(x, axis=[-1]))


# -- safe arithmetic and casts --------------------------------------------------------------------


def _div_no_nan_kernel(xp, x, y):
    zero = y == 0
    return xp.where(zero, 0, x / xp.where(zero, 1, y)).astype(x.dtype, copy=False)


def _div_no_nan_grad(op, g):
    x, y = op.inputs
    return [div_no_nan(g, y), g * div_no_nan(div_no_nan(-x, y), y)]


DivNoNan = _declare("DivNoNan", _div_no_nan_kernel, _div_no_nan_grad, _REAL_OR_COMPLEX)

# TF1's true division: integers divide as floats of these widths.
_TRUEDIV = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64,
    dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64,
    dtypes.int64: dtypes.float64,
}


def div_no_nan(x, y, name=None):
    """``x / y``, but 0 wherever ``y`` is 0 (even where ``x`` is NaN or infinite).

    Integer inputs divide as floats, as ``tf.truediv`` does (int32 -> float64).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.div_no_nan([3.0, 1.0], [0.0, 2.0])).tolist()
    [0.0, 0.5]
    """
    with name_scope(name, "div_no_nan") as scope:
        if not _is_tensor(x) and _is_tensor(y):
            y = convert_to_tensor(y, name="y")
            x = convert_to_tensor(x, dtype=y.dtype, name="x")
        else:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, dtype_hint=x.dtype, name="y")
        if x.dtype is not y.dtype:
            raise TypeError(f"div_no_nan: x ({x.name}) is {x.dtype.name}, y ({y.name}) is {y.dtype.name}")
        if x.dtype not in _TRUEDIV and x.dtype not in _REAL_OR_COMPLEX:
            raise TypeError(f"div_no_nan: {x.name} and {y.name} are {x.dtype.name}, which does not divide")
        if x.dtype in _TRUEDIV:
            x, y = cast(x, _TRUEDIV[x.dtype]), cast(y, _TRUEDIV[x.dtype])
        return apply(DivNoNan, x, y, name=scope)


def _is_tensor(v):
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-D ``scalar``, converted to ``x``'s dtype.

    Raises
    ------
    ValueError
        If ``scalar`` is not known to be 0-D, or is a tensor of another dtype (as TF1).
    """
    x = x if hasattr(x, "dtype") else convert_to_tensor(x)
    dtype = dtypes.as_dtype(x.dtype)
    try:
        scalar = convert_to_tensor(scalar, dtype=dtype, name="scalar")
    except TypeError as e:
        if not _is_tensor(scalar):
            raise
        raise ValueError(f"scalar_mul: scalar: {e}") from None
    if scalar.shape.ndims != 0:
        raise ValueError(f"scalar_mul: the scalar {scalar.name} must be 0-D, got shape {scalar.shape}")
    return multiply(scalar, x, name=name)


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, clamped first to the range both dtypes hold.

    The bounds are TF1's: each is moved one step toward zero where it is not
    exactly representable in ``value``'s dtype (float32 to int32 clamps at
    2147483520), so the cast itself never overflows.
    """
    with name_scope(name, "saturate_cast") as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype)
        if value.dtype.is_complex or dtype.is_complex:
            raise NotImplementedError(
                f"saturate_cast of {value.name} ({value.dtype.name}) to {dtype.name}: daskflow has no "
                "complex clamp; clamp the real and imaginary parts yourself"
            )
        low, high = _saturation_bounds(value.dtype, dtype)
        value = clip_by_value(value, low, high)
        return cast(value, dtype, name=scope)


def _saturation_bounds(source, target):
    """TF1's clamp bounds, in ``source``'s numpy type (``math_ops.saturate_cast``)."""
    np_type = source.as_numpy_dtype
    promoted = numpy.promote_types(np_type, target.as_numpy_dtype)
    low = np_type(numpy.maximum(source.min, target.min))
    if numpy.array([low, target.min], dtype=promoted)[0] < numpy.array(target.min, dtype=promoted):
        low = numpy.nextafter(low, np_type(0), dtype=np_type)
    high = np_type(numpy.minimum(float(source.max), float(target.max)))
    if numpy.array([high, target.max], dtype=promoted)[0] > numpy.array(target.max, dtype=promoted):
        high = numpy.nextafter(high, np_type(0), dtype=np_type)
    return low, high


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (``add_n``).

    ``shape`` and ``tensor_dtype``, when given, are checked against the inputs.
    """
    if isinstance(inputs, Tensor):
        raise TypeError(
            f"accumulate_n: inputs must be a list or tuple of tensors, got the tensor {inputs.name}"
        )
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(
            "accumulate_n: inputs must be a list of at least one Tensor with the same dtype and shape"
        )
    inputs = [convert_to_tensor(t) for t in inputs]
    if any(t.dtype is not inputs[0].dtype for t in inputs):
        differ = next(t for t in inputs if t.dtype is not inputs[0].dtype)
        raise ValueError(
            f"accumulate_n: inputs must share one dtype: {inputs[0].name} is {inputs[0].dtype.name}, "
            f"{differ.name} is {differ.dtype.name}"
        )
    dims = None if shape is None else as_dims(shape)
    for t in inputs:
        try:
            dims = merge(dims, t._dims)
        except ValueError:
            raise ValueError(
                f"accumulate_n: {t.name} has shape {t.shape}, not compatible with {fmt(dims)}"
            ) from None
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) is not inputs[0].dtype:
        raise TypeError(
            f"accumulate_n: tensor_dtype is {dtypes.as_dtype(tensor_dtype).name}, but {inputs[0].name} "
            f"is {inputs[0].dtype.name}"
        )
    return add_n(inputs, name=name)
