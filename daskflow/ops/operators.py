"""Python operators on tensors and variables (``x + y``, ``x @ w``, ``x[1:]``...).

Installed once on :class:`Tensor` and :class:`Variable` when the package is
imported; ``==`` stays identity, as in TF1, so tensors can be dict keys.
"""

from __future__ import annotations

from . import array_ops, math_ops


def _swap(fn, name):
    return lambda a, b: fn(b, a, name=name)


_BINARY = {
    "add": math_ops.add,
    "sub": math_ops.subtract,
    "mul": math_ops.multiply,
    "truediv": math_ops.truediv,
    "floordiv": math_ops.floordiv,
    "mod": math_ops.floormod,
    "pow": math_ops.pow,
    "matmul": math_ops.matmul,
    "and": math_ops.logical_and,
    "or": math_ops.logical_or,
}
_COMPARE = {
    "__lt__": math_ops.less,
    "__le__": math_ops.less_equal,
    "__gt__": math_ops.greater,
    "__ge__": math_ops.greater_equal,
}
_UNARY = {
    "__neg__": math_ops.negative,
    "__abs__": math_ops.abs,
    "__invert__": math_ops.logical_not,
}


def install(*classes):
    """Give ``classes`` TF's operator overloads."""
    for cls in classes:
        for name, fn in _BINARY.items():
            # TF1 names an operator's op after the operator: `x * 2` is "mul", tf.multiply "Mul".
            setattr(cls, f"__{name}__", lambda a, b, fn=fn, name=name: fn(a, b, name=name))
            setattr(cls, f"__r{name}__", _swap(fn, name))
        for dunder, fn in {**_COMPARE, **_UNARY}.items():
            setattr(cls, dunder, fn)
        cls.__getitem__ = array_ops.getitem
        cls.__array_priority__ = 100  # numpy defers to us: ndarray + tensor -> tensor
