"""Function graphs: the bodies of ``cond`` and ``while_loop``.

A :class:`FuncGraph` is a graph built inside another one while a Python
function (a branch, a loop body) runs. A tensor of an enclosing graph used in
it is *captured*: it becomes a placeholder of the function graph and an input
of the op that runs it. Variables are never made in a function graph: they
are lifted to the outermost graph (TF1's ``init_scope``), where the session
keeps them, and read through a capture.

A :class:`SubProgram` is the runnable form of a function graph for given
inputs and outputs: its needed ops in order, each a kernel call on a list of
slots. The control-flow kernels call it once per branch taken or iteration.
"""

from __future__ import annotations

import collections
import contextlib
import functools

from ..errors import OpError
from ..ops.array_ops import Placeholder
from .graph import Graph, _as_op, get_default_graph


class FuncGraph(Graph):
    """A graph built while a branch or loop body runs, capturing tensors from ``outer``."""

    def __init__(self, outer: Graph, name: str, lifts_updates: bool = False):
        super().__init__()
        self.outer = outer
        self.name = name
        self.lifts_updates = lifts_updates  # a cond branch: the variables it assigns are written back
        self.captures: dict = {}  # outer tensor -> placeholder here
        self.seed = outer.seed

    @property
    def outermost(self) -> Graph:
        graph = self
        while isinstance(graph, FuncGraph):
            graph = graph.outer
        return graph

    def capture(self, t):
        """``t`` (of an enclosing graph) as a tensor of this graph."""
        if t.graph is self:
            return t
        inner = self.captures.get(t)
        if inner is None:
            source = t
            if isinstance(self.outer, FuncGraph) and t.graph is not self.outer:
                source = self.outer.capture(t)

            with self.as_default(), self.name_scope(None), self.control_dependencies(None):
                op = self._create_op(Placeholder, [], {"dims": t._dims, "dtype": t.dtype}, name="capture")
            inner = self.captures[t] = op.outputs[0]
            self._sources = getattr(self, "_sources", {})
            self._sources[inner] = source
        return inner

    def outer_tensor(self, placeholder):
        """The tensor of the enclosing graph a capture placeholder stands for."""
        return self._sources[placeholder]

    def colocate_with(self, op, ignore_existing=False):
        """As the graph's, except that an op of an enclosing graph (a variable an update in a
        branch is colocated with) places nothing: a body runs whole where its op runs."""
        if op is not None and _as_op(op).graph is not self:
            op = None
        return super().colocate_with(op, ignore_existing)

    def _create_op(self, prim, inputs, attrs, name=None, compute_device=True):
        inputs = [self.capture(t) if t.graph is not self else t for t in inputs]
        return super()._create_op(prim, inputs, attrs, name=name, compute_device=compute_device)

    def _apply_scopes(self, op, compute_device=True):
        super()._apply_scopes(op, compute_device)
        op.control_inputs = [c for c in op.control_inputs if c.graph is self]


@contextlib.contextmanager
def init_scope():
    """Build in the outermost graph, under the current name scope (where variables live)."""
    graph = get_default_graph()
    if not isinstance(graph, FuncGraph):
        yield
        return
    outer = graph.outermost
    scope = graph._name_scope
    with outer.as_default(), outer.name_scope(scope + "/" if scope else None):
        yield


class SubProgram:
    """The ops of a function graph between ``inputs`` and ``outputs``, ready to run.

    ``run(*values)`` takes one value per input (None where the input is
    unused) and returns a tuple of the outputs' values.
    """

    def __init__(self, graph, inputs, outputs, what, updates=False):
        self.graph, self.inputs, self.outputs = graph, list(inputs), list(outputs)
        self._hoists: dict = {}  # invariant input positions -> (steps once, steps per iteration, slots)
        ops = needed_ops(self.outputs, {t for t in self.inputs if t is not None})
        _check_body(ops, self.inputs, what, updates)
        self._ops = sorted(ops, key=lambda o: o._id)
        self._steps = None

    def __getstate__(self):
        return {"graph": self.graph, "inputs": self.inputs, "outputs": self.outputs, "_ops": self._ops}

    def __setstate__(self, state):
        self.__dict__.update(state, _steps=None, _hoists={})

    def _compile(self, xp):
        slot: dict = {}
        for t in self.inputs:
            if t is not None:
                slot.setdefault(t, len(slot))
        self._in_slots = [slot.get(t) if t is not None else None for t in self.inputs]
        placed = []
        for op in self._ops:
            ins = tuple(slot[t] for t in op.inputs)
            for t in op.outputs:
                slot[t] = len(slot)
            placed.append((op, ins, tuple(slot[t] for t in op.outputs)))
        self._size = len(slot)
        self._out_slots = [slot[t] for t in self.outputs]
        readers = collections.defaultdict(list)  # slot -> the steps reading it, in order
        for k, (_, ins, _) in enumerate(placed):
            for s in ins:
                readers[s].append(k)
        fresh = {s for op, _, outs in placed if op.primitive.fresh_output for s in outs}
        self._made_here = frozenset(fresh)
        self._given: dict = {}  # owned positions -> the slots kernels may then write into
        # Read by nothing here, so no view of it (a TensorArray read's row) outlives the call.
        self.owned_outputs = frozenset(
            k
            for k, s in enumerate(self._out_slots)
            if s in fresh and self._out_slots.count(s) == 1 and not readers[s]
        )
        donors = self._donors(placed, fresh, readers)
        # The slots some step reads the value of (not only its shape), or outputs.
        self._values_read = frozenset(
            {s for op, ins, _ in placed for k, s in enumerate(ins) if k not in op.primitive.shape_only}
            | set(self._out_slots)
        )
        unread = {
            k: tuple(i for i, s in enumerate(outs) if s not in self._values_read)
            for k, (op, _, outs) in enumerate(placed)
            if op.primitive.lazy_outputs
        }
        self._steps = [
            self._step(xp, op, ins, outs, donors.get(k), unread.get(k))
            for k, (op, ins, outs) in enumerate(placed)
        ]

    def _donors(self, placed, fresh, readers):
        """Per step, the slot its kernel may write into: read last by that step, once, and
        before only by ``fresh_output`` steps (so no view of it outlives the write), and
        no output; made fresh here (always given) or an input (given when the caller
        hands it over: :meth:`run`'s ``owned``)."""
        donors = {}
        for k, (op, ins, _) in enumerate(placed):
            prim = op.primitive
            if not (prim.can_donate and ins) or prim.updates_variable:
                continue
            s = ins[prim.donates]
            before = readers[s][:-1]
            last = readers[s][-1] == k and ins.count(s) == 1
            if last and all(placed[j][0].primitive.fresh_output for j in before) and s not in self._out_slots:
                if s in fresh or s in self._in_slots:
                    donors[k] = s
        return donors

    @staticmethod
    def _step(xp, op, ins, outs, donor, unread):
        prim = op.primitive
        bound = (xp, prim.make_state(op)) if prim.make_state else (xp,)
        attrs = {**op.attrs, "unread": unread} if unread else op.attrs
        kernel = _bound(prim.kernel, bound, attrs)
        giving = _bound(prim.kernel, bound, {**attrs, "donate": True}) if donor is not None else None
        return kernel, giving, donor, ins, outs, len(outs) == 1, op

    def compiled(self, xp):
        """This program, its steps made for namespace ``xp`` (once)."""
        if self._steps is None:
            self._compile(xp)
        return self

    def kept_inputs(self, xp):
        """The input positions some step may keep or pass on (it reads the value and does
        not make a fresh output: a view, a Python function's argument) or that are outputs."""
        steps = self.compiled(xp)._steps
        kept = {s for *_, ins, _, _, op in steps if not op.primitive.fresh_output for s in ins}
        kept.update(self._out_slots)
        return frozenset(k for k, s in enumerate(self._in_slots) if s in kept)

    def shape_only_inputs(self, xp):
        """The input positions whose values only ``shape_only`` kernel inputs read (or
        nothing): a value changed in place after it was given still serves this program."""
        values_read = self.compiled(xp)._values_read
        return frozenset(k for k, s in enumerate(self._in_slots) if s not in values_read)

    def run(self, xp, *values, owned=()):
        """The outputs' values for the inputs' ``values``. ``owned``: positions of values
        the caller hands over (no one else holds them): kernels may write into them."""
        self.compiled(xp)
        env = [None] * self._size
        for i, v in zip(self._in_slots, values):
            if i is not None:
                env[i] = v
        given = self._given.get(owned)
        if given is None:
            given = self._given[owned] = self._writable(owned)
        return self._execute(self._steps, env, given)

    def hoisted(self, xp, invariant, *values):
        """This program for a loop whose inputs at positions ``invariant`` keep the
        ``values`` given here in every iteration: the steps reading only those and
        constants run once, with the first iteration (loop-invariant code motion; a
        transposed weight is then made contiguous once, so the loop's products read it
        untransposed; a loop that never iterates runs none of them). Returns a
        :class:`Hoisted` whose ``run`` takes every input, as :meth:`run` does."""
        self.compiled(xp)
        plan = self._hoists.get(invariant)
        if plan is None:
            plan = self._hoists[invariant] = self._hoist_plan(invariant)
        env = [None] * self._size
        for k, (i, v) in enumerate(zip(self._in_slots, values)):
            if i is not None and k in invariant:
                env[i] = v
        return Hoisted(self, env, *plan)

    def _hoist_plan(self, invariant):
        """(steps to run once, steps per iteration, the slots the first ones make)."""
        moving = {s for k, s in enumerate(self._in_slots) if k not in invariant}
        held = {s for k, s in enumerate(self._in_slots) if k in invariant and s is not None} - moving
        outputs, pre, rest = set(self._out_slots), [], []
        for step in self._steps:
            ins, outs, op = step[3], step[4], step[6]
            once = not op.primitive.stateful and all(s in held for s in ins) and not outputs & set(outs)
            (pre if once else rest).append(step)
            if once:
                held.update(outs)
        return pre, rest, frozenset(s for step in pre for s in step[4])

    def _execute(self, steps, env, given):
        for kernel, giving, donor, ins, outs, single, op in steps:
            if donor is not None and donor in given:
                kernel = giving
            try:
                result = kernel(*[env[i] for i in ins])
            except Exception as e:  # noqa: BLE001 - re-raised naming the op inside the body
                named = _naming(e, op)
                if named is e:
                    raise
                raise named from e
            if single:
                env[outs[0]] = result
            else:
                for i, r in zip(outs, result):
                    env[i] = r
        return tuple(env[i] for i in self._out_slots)

    def _writable(self, owned):
        """The slots kernels may write into: those made here, and inputs handed over at
        every position that feeds them."""
        if not owned:
            return self._made_here
        handed = {s for k, s in enumerate(self._in_slots) if k in owned and s is not None}
        held = {s for k, s in enumerate(self._in_slots) if k not in owned and s is not None}
        return self._made_here | (handed - held)


class Hoisted:
    """A :class:`SubProgram` whose loop-invariant steps run once (:meth:`SubProgram.hoisted`)."""

    def __init__(self, program, env, once, steps, kept):
        self.program, self.env, self.steps, self.kept = program, env, steps, kept
        self._once = once
        self._given: dict = {}

    def run(self, xp, *values, owned=()):
        """As :meth:`SubProgram.run`; the invariant inputs' values are those hoisted with."""
        if self._once is not None:  # the first iteration: the invariant steps run now
            self.program._execute(self._once, self.env, frozenset())
            for s in self.kept:
                self.env[s] = _contiguous(xp, self.env[s])
            self._once = None
        program, env = self.program, list(self.env)
        for i, v in zip(program._in_slots, values):
            if i is not None:
                env[i] = v
        given = self._given.get(owned)
        if given is None:  # what the once-run steps made is read by every iteration: never written
            given = self._given[owned] = program._writable(owned) - self.kept
        return program._execute(self.steps, env, given)


def _contiguous(xp, value):
    """``value``, a view made contiguous (a transpose): read by every iteration, copied once."""
    flags, copy = getattr(value, "flags", None), getattr(xp, "ascontiguousarray", None)
    if flags is None or copy is None or getattr(value, "ndim", 0) < 2 or flags.c_contiguous:
        return value
    return copy(value) if value.size <= _COPIED_ONCE else value


_COPIED_ONCE = 1 << 22  # elements: a larger invariant view stays a view (its copy's memory)


def _naming(exc, op):
    """``exc`` with the failing body op named in its message (the session names only the
    control-flow op that ran the body). Errors of the runtime's own kinds pass through."""
    if isinstance(exc, OpError) or str(exc).startswith(f"{op.name} ("):
        return exc
    try:
        return type(exc)(f"{op.name} ({op.type}): {exc}")
    except Exception:  # noqa: BLE001 - an exception type that cannot be rebuilt from a message
        return exc


def _bound(kernel, bound, attrs):
    return functools.partial(kernel, *bound, **attrs)  # called in C: cheaper than a lambda


def needed_ops(outputs, fed):
    """The ops computing ``outputs`` from ``fed``: their inputs' and control inputs' ops
    (TF1 runs a body's control dependencies with it)."""
    needed, stack = set(), [t.op for t in outputs if t not in fed]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(t.op for t in op.inputs if t not in fed)
        stack.extend(c for c in op.control_inputs if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed


def _check_body(ops, inputs, what, updates=False):
    """Refuse what a body cannot do: ask for a device, read a placeholder it is not given,
    update a variable (unless ``updates``: a ``cond`` branch's, whose new values the
    ``If`` op returns and writes back)."""
    given = set(inputs)
    for op in ops:
        prim = op.primitive
        if prim.updates_variable and not updates:
            raise NotImplementedError(
                f"{op.name} assigns a variable inside {what}: variable updates inside control flow "
                "are supported in tf.cond, not here; return the new value and assign it outside"
            )
        if op.device:
            raise ValueError(
                f"{op.name} inside {what} asks for device {op.device!r}: a body runs whole where its "
                "control-flow op runs; bodies spanning devices are not supported yet"
            )
        if prim.is_placeholder and op.outputs[0] not in given:
            raise ValueError(f"{what} reads the placeholder {op.name}, which it is not given")
