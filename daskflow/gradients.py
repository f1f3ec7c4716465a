"""Symbolic reverse-mode differentiation: ``gradients(ys, xs, grad_ys)``.

Walks the ops between ``xs`` and ``ys`` in reverse topological order and asks
each op's primitive for its gradient rule, which builds ordinary graph ops —
so gradients of gradients work wherever the rules' own ops are
differentiable. Contributions reaching a tensor along several paths are
summed with ``add_n`` (rows of ``IndexedSlices``, the gradients of embedding
lookups, are joined instead; an ``x`` 's gradient may be one). Broadcasting is
undone here, once, for every primitive flagged ``broadcasting``; no rule
reduces its own broadcasts.
"""

from __future__ import annotations

import contextlib
import enum

from .framework import gradient_registry
from .framework.constant import convert_to_tensor
from .framework.graph import colocate_with, name_scope
from .framework.indexed_slices import IndexedSlices
from .ops import array_ops, math_ops


class UnconnectedGradients(enum.Enum):
    """What :func:`gradients` gives an ``x`` that ``ys`` do not depend on (TF1's enum)."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How gradients reaching a tensor along several paths are summed (TF1's names).

    Every method gives the same sum; daskflow always adds them with one ``add_n``.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    colocate_gradients_with_ops=False,
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=UnconnectedGradients.NONE,
):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Parameters
    ----------
    ys, xs : Tensor, Variable or list of them
    grad_ys : list, optional
        Initial gradients for each of ``ys`` (default: ones).
    name : str
        The name scope of the gradient ops.
    colocate_gradients_with_ops : bool
        Place each op's gradient ops with that op (its device), as TF1.
    gate_gradients : bool
        TF1 groups each op's input gradients so none is used before all are
        computed; a daskflow step reads every variable before it updates any,
        so the numbers are the same without it.
    aggregation_method : AggregationMethod, optional
        Any of TF1's methods; all give the same sum (daskflow uses ``add_n``).
    stop_gradients : list, optional
        Tensors treated as constants.
    unconnected_gradients : UnconnectedGradients or str
        ``"none"`` (default): None for an ``x`` the ``ys`` do not depend on;
        ``"zero"``: zeros of that ``x``'s shape and dtype.

    Returns
    -------
    list
        One gradient per ``x``.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.constant(3.0)
    >>> (dx,) = tf.gradients(x * x, [x])
    """
    unconnected = _unconnected(unconnected_gradients)
    return _gradients(ys, xs, grad_ys, name, colocate_gradients_with_ops, stop_gradients, unconnected)


def gradients_of_body(ys, xs, grad_ys):
    """:func:`gradients` for a branch's or loop body's own gradient program, which asks for
    every float output's gradient with respect to every float input: an op with no gradient
    there may lie off the path the outer gradient takes, so it passes none back instead of
    raising (TF1 differentiates only the path taken)."""
    return _gradients(ys, xs, grad_ys, "gradients", False, None, UnconnectedGradients.NONE, strict=False)


def _gradients(ys, xs, grad_ys, name, colocate, stop_gradients, unconnected, strict=True):
    ys, xs = _as_list(ys), _as_list(xs)
    ys = [convert_to_tensor(y) for y in ys]
    xs = [convert_to_tensor(x) for x in xs]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    stops = {id(convert_to_tensor(t)) for t in _as_list(stop_gradients or [])}
    with name_scope(name):
        grads = _backprop(ys, xs, grad_ys, stops, colocate, strict)
        out = []
        for x in xs:
            with _colocated(x.op, colocate):
                out.append(_total(grads.get(x)))
    if unconnected is UnconnectedGradients.ZERO:  # TF1 makes them outside its name scope
        out = [array_ops.zeros_like(x) if g is None else g for g, x in zip(out, xs)]
    return out


def _unconnected(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _between(ys, xs, stops):
    """Ops on a path from some x to some y (data edges only: control edges carry no gradient),
    going forward from the xs through floating-point tensors only, as TF1's walk does: an op
    that only integers or booleans reach is not differentiated."""
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
    from_x, stack = set(), [op for x in xs if x.dtype.is_floating for op in consumers.get(x, ())]
    while stack:
        op = stack.pop()
        if op not in from_x:
            from_x.add(op)
            stack.extend(c for t in op.outputs if t.dtype.is_floating for c in consumers.get(t, ()))
    return from_x


def _backprop(ys, xs, grad_ys, stops, colocate=False, strict=True):
    ops = _between(ys, xs, stops)
    grads: dict = {}
    for y, gy in zip(ys, grad_ys):
        gy = array_ops.ones_like(y) if gy is None else convert_to_tensor(gy, dtype=y.dtype)
        grads.setdefault(y, []).append(gy)
    for op in sorted(ops, key=lambda o: o._id, reverse=True):
        with _colocated(op, colocate):
            out_grads = [_dense(_total(grads.get(t))) for t in op.outputs]
            if all(g is None for g in out_grads):
                continue
            rule, prim = _rule(op, strict)
            if rule is None:
                continue
            in_grads = _input_grads(op, out_grads, rule, prim)
        for x, g in zip(op.inputs, in_grads):
            if g is not None and id(x) not in stops and x.dtype.is_floating:
                grads.setdefault(x, []).append(g)
    return grads


def _colocated(op, colocate):
    """TF1's colocate_gradients_with_ops: an op's gradient ops (and the sum of the
    gradients reaching its outputs) go where the op goes."""
    return colocate_with(op) if colocate else contextlib.nullcontext()


def _rule(op, strict=True):
    """``op`` 's gradient function and the primitive declaring it (None: a registered one),
    or ``(None, None)`` where none flows back; TF1's ``LookupError`` where none is registered
    (``strict``; else none flows back there either)."""
    try:
        return gradient_registry.rule_of(op, strict)
    except LookupError:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type}). Every operation a "
            "gradient flows through needs one (tf.RegisterGradient); to treat this one's output as a "
            "constant, pass it through tf.stop_gradient."
        ) from None


def _input_grads(op, out_grads, rule, prim):
    # Unused outputs of a multi-output op get None, not zeros: daskflow's rules skip the
    # terms they would contribute (zeros would cost a full kernel per step). A registered
    # function gets zeros for its floating outputs, as TF1 passes them.
    with name_scope(op.name.rpartition("/")[2] + "_grad"):
        if prim is None:
            out_grads = [
                array_ops.zeros_like(t) if g is None and t.dtype.is_floating else g
                for g, t in zip(out_grads, op.outputs)
            ]
        in_grads = rule(op, *out_grads)
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        if len(in_grads) != len(op.inputs):
            raise ValueError(
                f"Num gradients {len(in_grads)} generated for op {op.name} ({op.type}) do not match "
                f"num inputs {len(op.inputs)}"
            )
        if prim is None:
            _check_shapes(op, in_grads)
        if prim is not None and prim.broadcasting:
            in_grads = [
                g if g is None or _not_broadcast(g, x, op.inputs) else array_ops.reduce_to(g, x)
                for g, x in zip(in_grads, op.inputs)
            ]
    return in_grads


def _check_shapes(op, in_grads):
    """A registered function's gradients have their inputs' static shapes, as TF1 checks."""
    for i, (g, x) in enumerate(zip(in_grads, op.inputs)):
        if g is None or isinstance(g, IndexedSlices):
            continue
        g = convert_to_tensor(g)
        if not g.shape.is_compatible_with(x.shape):
            raise ValueError(
                "Incompatible shapes between op input and calculated input gradient. Forward operation: "
                f"{op.name}. Input index: {i}. Original input shape: {x.shape}. Calculated input "
                f"gradient shape: {g.shape}"
            )


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
    """The sum of a tensor's gradient contributions: ``IndexedSlices`` joined as rows when
    all are, else everything dense added with one ``add_n``."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, IndexedSlices) for p in parts):
        values = array_ops.concat([p.values for p in parts], 0)
        return IndexedSlices(values, array_ops.concat([p.indices for p in parts], 0), parts[0].dense_shape)
    return math_ops.add_n([_dense(p) for p in parts])


def _dense(gradient):
    """A gradient an op's rule reads: dense (its rules take tensors)."""
    return convert_to_tensor(gradient) if isinstance(gradient, IndexedSlices) else gradient
