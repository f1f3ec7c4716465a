"""Rules the plan-time rewrites apply (:mod:`daskflow.runtime.plan.rewrite`), used in
the ops' declarations as ``Primitive(simplify=...)`` and ``Primitive(fuse=...)``.

Every identity here is exact, NaN, infinities and the sign of zero included:
``x * 1``, ``x / 1``, ``x - (+0)`` and ``x + (-0)`` return ``x`` bit for bit,
but ``x + (+0)`` turns ``-0`` into ``+0``, so only integer ``x + 0`` is
simplified.
"""

from __future__ import annotations

import numpy as np


def neutral_operand(keep, neutral, zero_sign=None):
    """A ``simplify`` rule for a binary op: its result is operand ``keep`` wherever the
    other operand is a known constant of one element equal to ``neutral``.

    ``zero_sign`` (``"+"`` or ``"-"``): a float zero must have that sign; integer
    zeros always qualify. The constant has one element and no more axes than the
    kept operand, so broadcasting changes neither its shape nor its dtype.
    """

    def rule(view, op, *inputs):
        x, c = inputs[keep], inputs[1 - keep]
        value = view.constant(c)
        out = op.outputs[0]
        if value is None or out.dtype != x.dtype or x._dims is None:
            return None
        value = np.asarray(value)
        if value.size != 1 or value.ndim > len(x._dims) or value.dtype.kind not in "fiuc":
            return None
        if value.reshape(()) != neutral:
            return None
        negative = bool(np.signbit(value.real).any())
        if zero_sign and value.dtype.kind in "fc" and negative != (zero_sign == "-"):
            return None
        return x

    return rule


def either(*rules):
    """A ``simplify`` rule trying ``rules`` in turn."""

    def rule(view, op, *inputs):
        for r in rules:
            same = r(view, op, *inputs)
            if same is not None:
                return same
        return None

    return rule


def undoes_itself(view, op, x):
    """``simplify`` for an involution (``Neg``): ``f(f(y))`` is ``y``."""
    producer, inputs = view.producer_of(x)
    if producer.primitive is op.primitive and producer.attrs == op.attrs:
        return inputs[0]
    return None


def inverse_permutations(view, op, x):
    """``simplify`` for ``Transpose``: a transpose undoing the one before it gives its input."""
    producer, inputs = view.producer_of(x)
    if producer.primitive is not op.primitive:
        return None
    first, second = producer.attrs["perm"], op.attrs["perm"]
    if [first[p] for p in second] == list(range(len(second))):
        return inputs[0]
    return None


def reshape_rule(view, op, x, shape):
    """``simplify`` for ``Reshape``: a reshape to the shape ``x`` already has is ``x``
    (the shapes equal axis by axis, at most one axis unknown in both: the element
    count then fixes it); a reshape of a reshape (on one device, no control inputs)
    reshapes the first one's input instead: the same values in the same order."""
    dims, out = x._dims, op.outputs[0]._dims
    if dims is not None and out is not None and tuple(dims) == tuple(out) and list(dims).count(None) <= 1:
        return x
    producer, inputs = view.producer_of(x)
    if producer.primitive is op.primitive and producer.device == op.device and not producer.control_inputs:
        return (inputs[0], shape)
    return None


def bias_then(fused, bias_add):
    """A ``fuse`` rule for an activation: run it and the ``bias_add`` (``Add`` of a
    rank-1 bias over the last axis) before it as the one kernel ``fused(x, bias)``,
    where the sum is read by nothing else."""

    def rule(view, op, z):
        producer, inputs = view.producer_of(z)
        if producer.primitive is not bias_add or producer.control_inputs or not view.sole_reader(z):
            return None
        if producer in view.fused:  # already part of another fused kernel
            return None
        x, b = inputs
        if producer.device != op.device or x.dtype != z.dtype or b.dtype != z.dtype:
            return None
        if b._dims is None or len(b._dims) != 1 or not x._dims or x._dims[-1] != b._dims[0]:
            return None
        if b._dims[0] is None or z.dtype.name not in ("float32", "float64"):
            return None
        return fused, (x, b)

    return rule


FUSED_FLOATS = ("float16", "float32", "float64")


def elementwise_chain(fused):
    """A ``fuse`` rule for an ``elementwise`` op (``Primitive.elementwise``): run it and
    the elementwise ops before it whose values only it (or another of them) reads, on
    its device and dtype, as one kernel ``fused(*inputs, steps=...)`` (see
    :func:`daskflow.kernels.elementwise.run_chain`). Taken at the chain's last op only:
    an op whose value one elementwise op reads is left to that reader."""

    def rule(view, op, *inputs):
        if not _chainable(op) or _chainable(view.reader_of(op.outputs[0]), op):
            return None
        steps, sources = [], []
        _collect(view, op, steps, sources)
        if len(steps) < 2:
            return None
        return fused, tuple(sources), {"steps": tuple(steps)}

    return rule


def _chainable(op, like=None) -> bool:
    """Whether ``op`` can join a chain (of ``like``'s device, dtype, when given)."""
    if op is None or op.primitive.elementwise is None or op.control_inputs or len(op.outputs) != 1:
        return False
    dtype = op.outputs[0].dtype
    if like is not None and (op.device != like.device or dtype != like.outputs[0].dtype):
        return False
    return dtype.name in FUSED_FLOATS and all(t.dtype == dtype for t in op.inputs)


def _collect(view, op, steps, sources) -> int:
    """Append ``op``'s step after those of the chain ops it reads; its argument code."""
    args = []
    for t in view.inputs_of(op):
        producer = t.op
        inner = view.computed(t) and view.reader_of(t) is op and producer not in view.fused
        if inner and _chainable(producer, op):
            args.append(_collect(view, producer, steps, sources))
        else:
            if t not in sources:
                sources.append(t)
            args.append(sources.index(t))
    steps.append((op.primitive.elementwise, tuple(args)))
    return ~(len(steps) - 1)
