"""Symbolic reverse-mode differentiation: ``gradients(ys, xs, grad_ys)``.

Walks the ops between ``xs`` and ``ys`` in reverse topological order and asks
each op's primitive for its gradient rule, which builds ordinary graph ops —
so gradients of gradients work wherever the rules' own ops are
differentiable. Contributions reaching a tensor along several paths are
summed with ``add_n``. Broadcasting is undone here, once, for every primitive
flagged ``broadcasting``; no rule reduces its own broadcasts.
"""

from __future__ import annotations

from .framework.constant import convert_to_tensor
from .framework.graph import name_scope
from .ops import array_ops, math_ops


def gradients(ys, xs, grad_ys=None, name="gradients", stop_gradients=None, **_):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Parameters
    ----------
    ys, xs : Tensor, Variable or list of them
    grad_ys : list, optional
        Initial gradients for each of ``ys`` (default: ones).
    stop_gradients : list, optional
        Tensors treated as constants.

    Returns
    -------
    list
        One gradient per ``x``; None where ``x`` does not affect ``ys``.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.constant(3.0)
    >>> (dx,) = tf.gradients(x * x, [x])
    """
    ys, xs = _as_list(ys), _as_list(xs)
    ys = [convert_to_tensor(y) for y in ys]
    xs = [convert_to_tensor(x) for x in xs]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    stops = {id(convert_to_tensor(t)) for t in _as_list(stop_gradients or [])}
    with name_scope(name):
        grads = _backprop(ys, xs, grad_ys, stops)
    return [_total(grads.get(x)) for x in xs]


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _between(ys, xs, stops):
    """Ops on a path from some x to some y (data edges only: control edges carry no gradient)."""
    reach_y, stack = set(), [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op not in reach_y:
            reach_y.add(op)
            stack.extend(t.op for t in op.inputs if id(t) not in stops)
    consumers: dict = {}
    for op in reach_y:
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    from_x, stack = set(), [op for x in xs for op in consumers.get(x, ())]
    while stack:
        op = stack.pop()
        if op not in from_x:
            from_x.add(op)
            stack.extend(c for t in op.outputs for c in consumers.get(t, ()))
    return from_x


def _backprop(ys, xs, grad_ys, stops):
    ops = _between(ys, xs, stops)
    grads: dict = {}
    for y, gy in zip(ys, grad_ys):
        gy = array_ops.ones_like(y) if gy is None else convert_to_tensor(gy, dtype=y.dtype)
        grads.setdefault(y, []).append(gy)
    for op in sorted(ops, key=lambda o: o._id, reverse=True):
        out_grads = [_total(grads.get(t)) for t in op.outputs]
        if all(g is None for g in out_grads) or op.primitive.grad is None:
            continue
        for x, g in zip(op.inputs, _input_grads(op, out_grads)):
            if g is not None and id(x) not in stops and x.dtype.is_floating:
                grads.setdefault(x, []).append(g)
    return grads


def _input_grads(op, out_grads):
    # Unused outputs of a multi-output op get None, not zeros: rules skip the
    # terms they would contribute (zeros would cost a full kernel per step).
    with name_scope(op.name.rpartition("/")[2] + "_grad"):
        in_grads = list(op.primitive.grad(op, *out_grads))
        if op.primitive.broadcasting:
            in_grads = [
                g if g is None or _not_broadcast(g, x, op.inputs) else array_ops.reduce_to(g, x)
                for g, x in zip(in_grads, op.inputs)
            ]
    return in_grads


def _not_broadcast(g, x, inputs):
    """Whether ``g`` provably has ``x``'s shape already, so no ``ReduceTo`` is needed.

    True when the static shapes agree and every unknown dimension of ``x``
    lines up only with absent or size-1 dimensions of the other inputs (so it
    alone sets that output dimension: the batch dimension of ``x + bias``).
    """
    dims = x._dims
    if dims is None or g._dims != dims:
        return False
    for i, d in enumerate(dims):
        if d is None:
            back = len(dims) - i  # position counted from the right, as broadcasting aligns
            for other in inputs:
                if other is x:
                    continue
                od = other._dims
                if od is None or (len(od) >= back and od[len(od) - back] != 1):
                    return False
    return True


def _total(parts):
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else math_ops.add_n(parts)
