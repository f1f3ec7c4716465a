"""TF1's gradient registry: which function gives an op's gradient.

An op type's gradient is the rule declared with its primitive, or a function registered
under its name with :class:`RegisterGradient` (an op type daskflow declares no rule for, or
a name of the user's own that
:meth:`~daskflow.framework.graph.Graph.gradient_override_map` gives ops built in its
scope), or none: :func:`NoGradient` (TF1's ``NotDifferentiable``) and primitives declared
``NOT_DIFFERENTIABLE`` pass no gradient back, and an op type with no entry at all makes
``tf.gradients`` raise ``LookupError``, as TF1's does, rather than leave the layers before
it silently untrained.
"""

from __future__ import annotations

from collections.abc import Callable

from .primitive import NOT_DIFFERENTIABLE, PRIMITIVES

# Op type, or a name given through gradient_override_map -> the function, or None.
_REGISTERED: dict[str, Callable | None] = {}


class RegisterGradient:
    """A decorator registering ``f(op, *output_grads)`` as the gradient of ``op_type``.

    Parameters
    ----------
    op_type : str
        An op type with no gradient yet, or a name that
        :meth:`~daskflow.framework.graph.Graph.gradient_override_map` maps op types to.

    Raises
    ------
    TypeError
        ``op_type`` is not a string.
    KeyError
        ``op_type`` has a gradient already (daskflow's own, or registered).

    Examples
    --------
    >>> import daskflow as tf
    >>> @tf.RegisterGradient("DoctestReverse")
    ... def _reverse(op, grad):
    ...     return -grad
    >>> x = tf.constant([2.0])
    >>> with tf.get_default_graph().gradient_override_map({"Identity": "DoctestReverse"}):
    ...     y = tf.identity(x)
    >>> tf.Session().run(tf.gradients(y, x))
    [array([-1.], dtype=float32)]
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        _register(self._op_type, f)
        return f


def NoGradient(op_type):  # noqa: N802 - TF1's name
    """Declare ``op_type`` not differentiable: ``tf.gradients`` passes nothing back through it.

    Parameters
    ----------
    op_type : str

    Raises
    ------
    TypeError
        ``op_type`` is not a string.
    KeyError
        ``op_type`` has a gradient already.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _register(op_type, None)


def _register(op_type, f):
    prim = PRIMITIVES.get(op_type)
    if op_type in _REGISTERED or (prim is not None and prim.grad is not None):
        where = (
            "daskflow's declaration of the op"
            if op_type not in _REGISTERED
            else _origin(_REGISTERED[op_type])
        )
        raise KeyError(
            f"Registering two gradient with name '{op_type}'! (Previous registration was in {where})"
        )
    _REGISTERED[op_type] = f


def _origin(f):
    code = getattr(f, "__code__", None)
    return "NotDifferentiable" if code is None else f"{code.co_name} {code.co_filename}:{code.co_firstlineno}"


def gradient_type(op) -> str:
    """The name ``op`` 's gradient is registered under: its type, or the name a
    :meth:`~daskflow.framework.graph.Graph.gradient_override_map` gave it."""
    return op._gradient_op_type or op.type


def get_gradient_function(op):
    """The function giving ``op`` 's input gradients, ``f(op, *output_grads)``; None for an
    op without inputs or one not differentiable.

    Raises
    ------
    LookupError
        No gradient is registered for the op's type (or the name it was given).
    """
    return rule_of(op)[0]


def rule_of(op, strict=True):
    """``(f, primitive)``: :func:`get_gradient_function` 's answer, and the primitive whose
    declared rule ``f`` is (None for a registered function, which gets TF1's conventions:
    zeros for unused outputs, its result checked against the op's inputs). An op type with
    no entry raises ``LookupError`` where ``strict``, else answers ``(None, None)``."""
    if not op.inputs:
        return None, None
    name = gradient_type(op)
    if name in _REGISTERED:
        return _REGISTERED[name], None
    prim = PRIMITIVES.get(name)
    if prim is None or prim.grad is None:
        if not strict:
            return None, None
        raise LookupError(f"gradient registry has no entry for: {name}")
    return (None, None) if prim.grad is NOT_DIFFERENTIABLE else (prim.grad, prim)
