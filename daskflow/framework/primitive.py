"""Primitives: the one declaration of each op.

A :class:`Primitive` holds everything about an op kind in one place, next to
each other in the op's module: shape/dtype inference over the input tensors,
a kernel written against an array namespace ``xp`` (numpy or cupy), and a
symbolic gradient rule that builds graph ops. Ops are registered by object;
``PRIMITIVES`` (name -> primitive) exists only so tests can walk the table.

Flags tell the compiler how to treat an op without it knowing the op:
``stateful`` ops are never folded at plan time; an op whose primitive has
``make_state`` keeps state across steps: each session calls
``make_state(op)`` once (a seeded generator for random ops, a position in
a dataset for an iterator) and the kernel receives it after ``xp`` — a new
session starts afresh, so it replays a random sequence as TF1 does;
``updates_variable`` kernels get the variable's current value as their first
input (None when ``ignores_old_value`` and it has none yet) and return its new
value; ``broadcasting`` marks ops whose input gradients are reduced back to
the input's shape centrally (in ``gradients``). ``fresh_output`` kernels
return arrays that no other value aliases: new ones, or an input donated to
them; a ``can_donate`` kernel accepts ``donate=True``, letting it write into
its input at position ``donates`` (the last by default), which the runtime
passes only when that input is a fresh array no one else reads (an
``aggregates_replicas`` kernel: when nothing else in its partition reads
its input; it may then overwrite only the values that
:attr:`~daskflow.framework.replica.PerReplica.own` marks as this worker's
own copies). ``shape_only`` names the inputs a kernel reads only for their
shape and type, never their values (a value changed in place later still
serves it).
A ``host_only`` op has no device kernel (strings, Python functions, input
pipelines): on a GPU device it runs on its task's CPU instead (soft placement).
An ``elementwise`` op's kernel is, on floats, the array-API function of that
name (``"tanh"``, ``"multiply"``): chains of them run as one kernel
(:func:`daskflow.ops.rewrite_rules.elementwise_chain`).
An ``in_place`` kernel (``in_place``: for each output, the input position
whose variable it holds the new value of, as Adam's ``(var, m, v)``) accepts
``in_place=True``: it then writes those outputs into the variables' own
buffers and returns the input arrays. The runtime passes it only embedded,
where each of those outputs goes to one ``Assign`` of its variable and
nothing else in the step reads the old value after the op
(:mod:`daskflow.runtime.plan.compile`).
A ``lazy_outputs`` kernel accepts ``unread=(positions, ...)``: its outputs whose values
nothing in the step reads (nor fetches; a ``shape_only`` input reads only the shape). It
returns for them, without computing them, an array of their shape and dtype (a softmax
cross-entropy's loss in a training step) or None where nothing can read even that (a
loop's history, kept only where its gradient runs in the same step).
A ``shared_resource`` op makes a resource that runs of other signatures share (a
queue, filled by a feeding thread's or a ``QueueRunner``'s runs; an initializable
iterator, set by its initializer's): a step reading it runs its ops where it is, not
once per replica (:mod:`daskflow.runtime.plan.partition`).
A ``starts_early`` op starts work that goes on beside the step (a collective among
ranks): the plan runs it as soon as its inputs exist, before other ready ops.
An ``accepts_uninitialized`` kernel gets None for a variable input that
has no value yet, instead of the step failing (``is_variable_initialized``).
A ``forwards_input`` op's output is its first input's value: the compiler
binds a name instead of calling the kernel. An ``aggregates_replicas`` op
(attr ``replicas_to_aggregate``) combines its input's values from several
replicas: under replication its kernel receives a
:class:`~daskflow.framework.replica.PerReplica`, and the runtime hands it
the first ``replicas_to_aggregate`` replicas to finish.

Two rules serve the plan-time rewrites (:mod:`daskflow.runtime.plan.rewrite`),
each given a view of the plan, the op and its current inputs:
``simplify(view, op, *inputs)`` returns an existing tensor whose value equals
the op's output exactly (``x`` for ``x * 1``), a tuple of other inputs the op
gives the same output from (a reshape of a reshape reads the first one's
input), or None; ``fuse(view, op,
*inputs)`` returns ``(primitive, inputs)`` that compute the op's outputs in
one kernel from tensors further up (a bias add and its ReLU), or None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PRIMITIVES: dict[str, Primitive] = {}


class _NotDifferentiable:
    """The ``grad`` of an op TF1 declares ``NotDifferentiable``: no gradient flows through it."""

    def __repr__(self):
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()


@dataclass(eq=False)
class Primitive:
    """The declaration of one op kind.

    Parameters
    ----------
    name : str
        The op type, as TF names it (``"MatMul"``).
    infer : callable
        ``infer(inputs, **attrs)`` returns ``(dims, dtype)`` for one output or
        a list of them; ``inputs`` are :class:`Tensor` objects.
    kernel : callable or None
        ``kernel(xp, *arrays, **attrs)`` (``kernel(xp, state, ...)`` with
        ``make_state``) returning an array, or a tuple for several outputs.
    grad : callable, NOT_DIFFERENTIABLE or None
        ``grad(op, *output_grads)`` returns one symbolic gradient (or None)
        per input. ``NOT_DIFFERENTIABLE``: TF1's ``NotDifferentiable``, no
        gradient flows back through the op. None: no gradient is registered
        for the op type, as for TF1's queues, readers or ``Unique``;
        ``tf.gradients`` through it raises ``LookupError``, as TF1's does
        (:mod:`daskflow.framework.gradient_registry`).
    """

    name: str
    infer: Callable
    kernel: Callable | None
    grad: Callable | _NotDifferentiable | None = None
    broadcasting: bool = False
    stateful: bool = False
    make_state: Callable | None = None
    updates_variable: bool = False
    ignores_old_value: bool = False
    fresh_output: bool = False
    forwards_input: bool = False
    can_donate: bool = False
    donates: int = -1
    is_variable: bool = False
    is_placeholder: bool = False
    aggregates_replicas: bool = False
    accepts_uninitialized: bool = False
    host_only: bool = False
    simplify: Callable | None = None
    fuse: Callable | None = None
    elementwise: str | None = None
    in_place: tuple = ()
    shape_only: tuple = ()
    lazy_outputs: bool = False
    starts_early: bool = False
    shared_resource: bool = False

    def __post_init__(self):
        if self.name in PRIMITIVES:
            raise ValueError(f"primitive {self.name!r} is declared twice")
        PRIMITIVES[self.name] = self

    def __repr__(self):
        return f"<Primitive {self.name}>"
