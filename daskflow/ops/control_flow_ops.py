"""Grouping and ordering: ``no_op``, ``group``, ``tuple``."""

from __future__ import annotations

from ..framework.graph import _as_op, control_dependencies, get_default_graph
from ..framework.primitive import Primitive
from . import array_ops

NoOp = Primitive("NoOp", lambda inputs: [], lambda xp: ())


def no_op(name=None):
    """An op that does nothing; useful as a target of control dependencies."""
    return get_default_graph()._create_op(NoOp, [], {}, name=name)


def group(*inputs, **kwargs):
    """An op that runs all ``inputs`` (tensors or ops) and outputs nothing.

    Examples
    --------
    >>> import daskflow as tf
    >>> a, b = tf.Variable(1.0), tf.Variable(2.0)
    >>> init = tf.group(a.initializer, b.initializer)
    """
    name = kwargs.pop("name", None)
    if kwargs:  # TF1's group takes name= only
        raise ValueError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    ops = [_as_op(x) for x in _flatten(inputs)]
    with control_dependencies(ops):
        return no_op(name or "group_deps")


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF1's public name
    """Each tensor's value, available only once all of them are computed."""
    gate = group(*tensors, *(control_inputs or []))
    with control_dependencies([gate]):
        return [array_ops.identity(t) for t in tensors]


def _flatten(items):
    for x in items:
        if isinstance(x, (list, set, frozenset)) or type(x).__name__ == "tuple":
            yield from _flatten(x)
        else:
            yield x
