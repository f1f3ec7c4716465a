"""Control flow: ``cond``, ``case`` and ``while_loop``, and their gradients.

Each is one op that runs function graphs (:mod:`daskflow.framework.function`)
inside its kernel: ``If`` runs the branch its predicate picks, ``While`` runs
its body until its condition is false. So a loop is local to the partition
(the worker) its op runs on: an iteration costs a few kernel calls, never a
graph submission. A body that asks for another device is refused.

Gradients are ops of the same kind. ``If``'s gradient is an ``If`` over the
branches' own gradient graphs (built inside each branch graph, so they
recompute the branch's forward values). ``While``'s gradient is a
``WhileGrad`` op that runs the body's gradient graph backwards over each
iteration's loop values and the forward values that graph reads (fed those
values, it does not compute the body again). The forward ``While`` keeps
them, as TF1's forward loop pushes onto stacks: building the gradient adds
a history output to it, which the runtime asks for only in steps where the
gradient runs (``Primitive.lazy_outputs``).
"""

from __future__ import annotations

from .. import dtypes
from ..framework import nest
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.function import FuncGraph, SubProgram, needed_ops
from ..framework.graph import Operation, Tensor, get_default_graph, name_scope
from ..framework.primitive import Primitive
from ..framework.tensor_shape import TensorShape, as_dims, compatible, fmt
from ..gradients import gradients_of_body
from ..kernels import deadline
from . import array_ops, state_ops
from .array_ops import placeholder, zeros_like

# -- nested structures (TF's nest: framework/nest.py) ----------------------------------
# A TensorArray is one leaf: its value tensor travels through the op (TF1 passes its
# flow), and the array is rebuilt around the op's output (``_loop_tensor``/``_rebuild``).


def _flatten(s):
    return [x._loop_tensor() if hasattr(x, "_rebuild") else x for x in nest.flatten(s)]


def _pack(s, leaves):
    return nest.pack_sequence_as(
        s, [x._rebuild(v) if hasattr(x, "_rebuild") else v for x, v in zip(nest.flatten(s), leaves)]
    )


def _trace_branch(outer, name, fn, pred):
    """Run ``fn()`` in a new function graph; returns (graph, flat outputs, structure). An op
    it returns stands for ``pred``'s value once the op has run (TF1's ``cond``)."""
    graph = FuncGraph(outer, name, lifts_updates=True)
    with graph.as_default():
        result = fn()
        flat = [_own(graph, _as_output(x, graph, pred)) for x in _flatten(result)]
    return graph, flat, result


def _own(graph, t):
    """``t`` as a tensor of ``graph``: a function may return an outer tensor unchanged."""
    return graph.capture(t) if t.graph is not graph else t


def _as_output(x, graph, pred):
    if isinstance(x, Operation):
        with graph.control_dependencies([x]):
            return array_ops.identity(graph.capture(pred))
    return convert_to_tensor(x)


def _branch_inputs(graph, captured):
    """The placeholders of ``graph`` for each outer tensor of ``captured`` (None if unused)."""
    return [graph.captures.get(t) for t in captured]


# -- cond ------------------------------------------------------------------------------


class _Branches:
    """An ``If`` op's state in a session: one runnable program per branch."""

    def __init__(self, op):
        what = f"tf.cond {op.name}"
        self.programs = [SubProgram(*spec, what=what, updates=True) for spec in op.attrs["branches"]]


def _if_infer(inputs, *, branches, specs, updates=0):
    pred = inputs[0]
    if pred.dtype is not dtypes.bool or (pred._dims is not None and pred._dims != ()):
        raise TypeError(
            f"the predicate {pred.name} must be a bool scalar, got {pred.dtype.name} {pred.shape}"
        )
    return list(specs)


def _if_kernel(xp, state, pred, *values, branches, specs, updates=0):
    return _results(state.programs[0 if bool(pred) else 1].run(xp, *values))


def _results(values):
    """A kernel's return: the value itself when the op has one output (as the compiler expects)."""
    return values[0] if len(values) == 1 else tuple(values)


def _if_grad(op, *grads):
    branches = op.attrs["branches"]
    captured = list(op.inputs[1:])
    results = op.outputs[: len(op.outputs) - op.attrs.get("updates", 0)]  # not the variables' new values
    float_out = [i for i, t in enumerate(results) if t.dtype.is_floating]
    grad_specs = [_gradient_program(g, ins, outs, float_out, captured) for g, ins, outs in branches]
    filled = [grads[i] if grads[i] is not None else _zeros_like(op.outputs[i]) for i in float_out]
    specs = tuple((t._dims, t.dtype) for t in captured if t.dtype.is_floating)
    outs = apply(If, op.inputs[0], *captured, *filled, branches=tuple(grad_specs), specs=specs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    wanted = iter(outs)
    return [None] + [next(wanted) if t.dtype.is_floating else None for t in captured]


def _zeros_like(t):
    return zeros_like(t)


def _gradient_program(graph, inputs, outputs, float_out, captured):
    """(graph, inputs, outputs) of the gradient of a branch or body, built in ``graph``.

    Inputs: the forward inputs, then one gradient per float output; outputs:
    the gradient of each float forward input (zeros where it has none).
    """
    with graph.as_default(), name_scope(None):
        ins = [t if t is not None else graph.capture(c) for t, c in zip(inputs, captured)]
        ys = [outputs[i] for i in float_out]
        gys = [_placeholder_like(y) for y in ys]
        wrt = [t for t in ins if t.dtype.is_floating]
        grads = gradients_of_body(ys, wrt, gys) if ys and wrt else [None] * len(wrt)
        grads = [g if g is not None else _zeros_like(x) for g, x in zip(grads, wrt)]
    return graph, ins + gys, grads


def _placeholder_like(t):
    return placeholder(t.dtype, t.shape, name="grad_y")


If = Primitive("If", _if_infer, _if_kernel, _if_grad, stateful=True, make_state=_Branches)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, deciding at run time.

    Both functions are traced once into function graphs; only the branch
    taken runs. They must return the same structure of tensors with the same
    dtypes (an op returned stands for ``pred``'s value once it ran, as in TF1).
    Variables a branch assigns (the updates its results need) are written
    back after it: the ``If`` op also returns each one's new value (the old
    value from the branch that leaves it), assigned to it before the results
    are read. Differentiable through the branch taken.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [])
    >>> y = tf.cond(x > 0, lambda: x * 2.0, lambda: -x)
    >>> tf.Session().run(y, {x: -3.0})
    np.float32(3.0)
    """
    true_fn, false_fn = true_fn or fn1, false_fn or fn2
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    pred = convert_to_tensor(pred)
    outer = get_default_graph()
    with name_scope(name or "cond") as scope:
        then_g, then_out, structure = _trace_branch(outer, scope + "true", true_fn, pred)
        else_g, else_out, _ = _trace_branch(outer, scope + "false", false_fn, pred)
        specs = _merged_specs(then_out, else_out, scope or "cond")
        variables = _with_updates(((then_g, then_out), (else_g, else_out)))
        specs += tuple((v._dims, v.dtype) for v in variables)
        captured = list(dict.fromkeys([*then_g.captures, *else_g.captures]))
        branches = tuple(
            (g, _branch_inputs(g, captured), out) for g, out in ((then_g, then_out), (else_g, else_out))
        )
        outs = apply(If, pred, *captured, branches=branches, specs=specs, updates=len(variables), name="If")
        flat = list(outs) if isinstance(outs, tuple) else [outs]
        if variables:
            flat = _written_back(variables, flat)
    if not flat:
        return None
    return _pack(structure, iter(flat))


def _with_updates(branches):
    """The variables the branches update (in their results' needs), each branch's outputs
    extended in place with its new value of each (its last update; the captured old value
    where it has none)."""
    updates = []
    for _, outputs in branches:
        found = {}
        for op in sorted(needed_ops(outputs, set()), key=lambda o: o._id):
            if op.primitive.updates_variable:
                var = state_ops.variable_of(op.inputs[0]).outputs[0]
                if var in found:  # each would read the value from before the branch (TF1 chains them)
                    raise NotImplementedError(
                        f"{op.name} updates the variable {var.op.name}, which {found[var].op.name} updates "
                        "in the same tf.cond branch: daskflow runs one update of a variable per branch; "
                        "combine them (assign their sum) or update it after the cond"
                    )
                found[var] = op.outputs[0]
        updates.append(found)
    variables = list(dict.fromkeys(v for found in updates for v in found))
    for (graph, outputs), found in zip(branches, updates):
        outputs.extend(found.get(v) if v in found else graph.capture(v) for v in variables)
    return variables


def _written_back(variables, flat):
    """``flat``'s results, read after each variable is assigned its new value (the ``If``
    op's last outputs)."""
    results, new_values = flat[: len(flat) - len(variables)], flat[len(flat) - len(variables) :]
    writes = []
    for var, value in zip(variables, new_values):
        with get_default_graph().colocate_with(var.op):
            writes.append(apply(state_ops.Assign, var, value, dims=var._dims, name="write_back").op)
    with get_default_graph().control_dependencies(writes):
        return [array_ops.identity(t) for t in results]


def _merged_specs(a, b, what):
    if len(a) != len(b):
        raise ValueError(f"{what}: the branches return {len(a)} and {len(b)} tensors")
    specs = []
    for x, y in zip(a, b):
        if x.dtype is not y.dtype:
            raise ValueError(
                f"{what}: the branches return {x.dtype.name} ({x.name}) and {y.dtype.name} ({y.name})"
            )
        if x._dims is None or y._dims is None or len(x._dims) != len(y._dims):
            dims = None if x._dims != y._dims else x._dims
        else:
            dims = tuple(p if p == q else None for p, q in zip(x._dims, y._dims))
        specs.append((dims, x.dtype))
    return tuple(specs)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first true predicate (``default`` if none): nested ``cond``s."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if default is None:
        if not pairs:
            raise ValueError("case needs at least one predicate or a default")
        *pairs, (_, default) = pairs
    with name_scope(name):
        return _case(pairs, default)


def _case(pairs, default):
    if not pairs:
        return default()
    (pred, fn), rest = pairs[0], pairs[1:]
    return cond(pred, fn, lambda: _case(rest, default))


# -- while_loop ------------------------------------------------------------------------


# TF's DT_VARIANT: the type of a loop's history, an opaque value only its gradient reads.
variant = dtypes.opaque("variant", 21)


class _History:
    """What one run of a loop's forward pass kept for its gradient (TF1 pushes it onto
    stacks): per iteration, the loop values and the body's values the gradient reads."""

    __slots__ = ("steps",)

    def __init__(self, steps):
        self.steps = steps

    @property
    def nbytes(self):
        return sum(getattr(v, "nbytes", 0) for loop, saved in self.steps for v in (*loop, *saved))


class _Loop:
    """A ``While`` (or ``WhileGrad``) op's state in a session: its programs.

    The programs that keep a history (``saving``) and run the gradient (``grad``) are
    made at their first use: a ``While`` gets them when its gradient is built, which
    may be after a session made this state.
    """

    def __init__(self, op):
        self.op, self.what = op, f"tf.while_loop {op.name}"
        self.cond = SubProgram(*op.attrs["cond"], what=self.what)
        self.body = SubProgram(*op.attrs["body"], what=self.what)
        self._made: dict = {}

    def _program(self, name):
        found = self._made.get(name)
        if found is None:
            found = self._made[name] = SubProgram(*self.op.attrs[name], what=self.what)
        return found

    @property
    def saving(self):
        return self._program("saving")

    @property
    def grad(self):
        return self._program("grad")


def _while_infer(inputs, *, cond, body, n, specs, limit, **_):
    return list(specs)


def _invariant(loop, captured):
    """The positions of a body's captured inputs: the same in every iteration."""
    return frozenset(range(len(loop), len(loop) + len(captured)))


def _hoisted(xp, program, loop, captured):
    return program.hoisted(xp, _invariant(loop, captured), *[None] * len(loop), *captured)


def _iterate(xp, state, loop, captured, limit):
    i, owned = 0, ()  # the first iteration's values come from outside: others may hold them
    handed = state.body.compiled(xp).owned_outputs - state.cond.kept_inputs(xp)
    body = _hoisted(xp, state.body, loop, captured)
    while (limit is None or i < limit) and bool(state.cond.run(xp, *loop, *captured)[0]):
        deadline.check()
        loop = list(body.run(xp, *loop, *captured, owned=owned))
        owned = handed  # made by the last iteration, held by no one else
        i += 1
    return loop


def _record(xp, state, loop, captured, limit):
    """Run the loop keeping, per iteration, its loop values and the forward values the
    gradient program reads; returns (that history, the final loop values)."""
    n, history = len(loop), []
    owned, handed = (), _handed_over(xp, state, n)
    saving = _hoisted(xp, state.saving, loop, captured)
    while (limit is None or len(history) < limit) and bool(state.cond.run(xp, *loop, *captured)[0]):
        deadline.check()
        outs = saving.run(xp, *loop, *captured, owned=owned)
        history.append((loop, outs[n:]))
        loop, owned = list(outs[:n]), handed
    return history, loop


def _while_kernel(xp, state, *values, n, limit, saving=None, unread=(), **_):
    loop, captured = list(values[:n]), values[n:]
    if saving is None:
        return _results(_iterate(xp, state, loop, captured, limit))
    if n in unread:  # the gradient does not run in this step: nothing to keep
        return (*_iterate(xp, state, loop, captured, limit), None)
    history, loop = _record(xp, state, loop, captured, limit)
    return (*loop, _History(history))


def _while_grad(op, *grads):
    if not op.attrs["back_prop"]:
        return [None] * len(op.inputs)
    n = op.attrs["n"]
    graph, inputs, outputs = op.attrs["body"]
    float_out = [i for i in range(n) if op.outputs[i].dtype.is_floating]
    graph, grad_in, grad_out = _gradient_program(graph, inputs, outputs, float_out, list(op.inputs))
    ins, gys = grad_in[: len(op.inputs)], grad_in[len(op.inputs) :]
    grad_out, rows = _rows_of(op, grad_out, n)
    saved = _saved_tensors(inputs, outputs, grad_in, grad_out, n)
    grad_specs = tuple((t._dims, t.dtype) for t in op.inputs if t.dtype.is_floating)
    filled = [grads[i] if grads[i] is not None else _zeros_like(op.outputs[i]) for i in float_out]
    saving = (graph, inputs, list(outputs) + saved)
    grad = (graph, ins + saved + gys, grad_out)
    history = _history_of(op, saving, grad, saved)
    attrs = dict(op.attrs, saving=saving, grad=grad, specs=grad_specs, float_out=tuple(float_out))
    attrs.update(rows=rows, from_history=history is not None)
    forward = [*op.inputs, history] if history is not None else list(op.inputs)
    outs = apply(WhileGrad, *forward, *filled, **attrs)
    outs = iter(list(outs) if isinstance(outs, tuple) else [outs])
    return [next(outs) if t.dtype.is_floating else None for t in op.inputs]


def _rows_of(op, grad_out, n):
    """``grad_out`` with the gradients of captured values that one iteration adds into some
    rows (a ``TensorArray`` read's, ``ScatterAddTo`` of zeros) given as those rows' values, and
    their indices appended; with ``{position in the float inputs: position of its indices}``.
    The loop then adds each iteration's rows into one array, where a dense gradient per
    iteration would fill and add the whole array each time (T^2 rows over T iterations)."""
    float_in = [i for i, t in enumerate(op.inputs) if t.dtype.is_floating]
    out, indices, rows = list(grad_out), [], {}
    for k, i in enumerate(float_in):
        made = grad_out[k].op
        if i >= n and made.primitive is array_ops.ScatterAddTo and made.attrs["axis"] == 0:
            values, where, _ = made.inputs
            out[k] = values
            rows[k] = len(grad_out) + len(indices)
            indices.append(where)
    return out + indices, tuple(sorted(rows.items()))


def _history_of(op, saving, grad, saved):
    """The forward ``While``'s history output, which its gradient reads instead of running the
    loop again (TF1's forward loop pushes onto stacks its gradient pops): added to the op when
    its first gradient is built; a later gradient reads it where it keeps the same values, and
    runs the loop again otherwise (None)."""
    n = op.attrs["n"]
    if "saving" in op.attrs:
        kept = op.attrs["saving"][2][len(op.attrs["body"][2]) :]
        same = len(kept) == len(saved) and all(a is b for a, b in zip(kept, saved))
        return op.outputs[n] if same else None
    op.attrs["saving"], op.attrs["grad"] = saving, grad
    op.outputs = (*op.outputs, Tensor._output(op, n, (), variant))
    op.graph._mutations += 1  # cached plans of the loop are stale
    return op.outputs[n]


def _saved_tensors(body_in, body_out, grad_in, grad_out, n):
    """The body's forward values its gradient graph reads: the forward pass keeps them per
    iteration, so the backward pass feeds them instead of computing the body again. Not those
    made from captured values alone (a transposed weight): the same in every iteration, the
    gradient program computes them once itself (:meth:`SubProgram.hoisted`)."""
    forward = needed_ops(body_out, {t for t in body_in if t is not None})
    invariant = _invariant_ops(forward, {t for t in body_in[n:] if t is not None})
    backward = needed_ops(grad_out, set(grad_in)) - forward
    read = {t for op in backward for t in op.inputs if t.op in forward - invariant and t not in grad_in}
    return sorted(read, key=lambda t: (t.op._id, t.value_index))


def _invariant_ops(ops, captured):
    """The ops of ``ops`` computing from ``captured`` and constants alone, with no state."""
    found: set = set()
    for op in sorted(ops, key=lambda o: o._id):  # creation order: inputs first
        if op.primitive.stateful or op.primitive.is_placeholder:
            continue
        if all(t in captured or t.op in found for t in op.inputs):
            found.add(op)
    return found


def _while_grad_kernel(xp, state, *values, n, limit, float_out, from_history, rows, **_):
    count = len(values) - len(float_out)
    forward, gys = list(values[:count]), list(values[count:])
    if from_history:
        *forward, kept = forward
        history = kept.steps
    else:
        history, _ = _record(xp, state, forward[:n], forward[n:], limit)
    captured = forward[n:]
    float_in = [i for i, v in enumerate(forward) if _is_float(v)]
    float_loop = [i for i in float_in if i < n]
    total = {i: None for i in float_in if i >= n}
    owned, handed = (), ()
    if history:  # the gradients each step hands the next, where it made them fresh
        start = len(forward) + len(history[0][1])
        made = state.grad.compiled(xp).owned_outputs
        handed = frozenset(start + float_loop.index(i) for o, i in enumerate(float_in) if o in made and i < n)
    rows = {float_in[k]: at for k, at in rows}
    grad = _hoisted(xp, state.grad, forward[:n], captured)
    for values_k, saved_k in reversed(history):
        outs = grad.run(xp, *values_k, *captured, *saved_k, *gys, owned=owned)
        by_input = dict(zip(float_in, outs))
        gys, owned = [by_input[i] for i in float_loop], handed
        for i in total:
            if i in rows:
                total[i] = _add_rows(xp, total[i], forward[i], outs[rows[i]], by_input[i])
            else:
                total[i] = by_input[i] if total[i] is None else total[i] + by_input[i]
    result = dict(zip(float_loop, gys))
    result.update({i: (v if v is not None else xp.zeros_like(forward[i])) for i, v in total.items()})
    return _results([result[i] for i in float_in])


def _add_rows(xp, total, like, where, values):
    """``total`` (zeros like ``like`` at first) with ``values`` added at rows ``where``."""
    if total is None:
        total = xp.zeros(like.shape, dtype=values.dtype)
    if getattr(where, "ndim", 0) == 0:
        total[int(where)] += values
    else:
        xp.add.at(total, where, values)  # repeated rows accumulate
    return total


def _handed_over(xp, state, n):
    """The loop values a forward pass keeping a history may change in place though the
    history keeps them: made fresh by the iteration before, kept by no step of the
    condition, and read by the gradient program only for their shapes (a TensorArray's
    buffer, written row by row)."""
    saving, grad = state.saving.compiled(xp), state.grad.compiled(xp)
    made = saving.owned_outputs - state.cond.kept_inputs(xp)
    return frozenset(k for k in made & grad.shape_only_inputs(xp) if k < n)


def _is_float(v):
    return getattr(v, "dtype", None) is not None and v.dtype.kind == "f"


While = Primitive(
    "While", _while_infer, _while_kernel, _while_grad, stateful=True, make_state=_Loop, lazy_outputs=True
)


def _no_second_order(op, *grads):
    raise TypeError("Second-order gradient for while loops not supported.")  # TF1's words


WhileGrad = Primitive(
    "WhileGrad", _while_infer, _while_grad_kernel, _no_second_order, stateful=True, make_state=_Loop
)


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
    maximum_iterations=None,
    return_same_structure=False,
):
    """Repeat ``body`` while ``cond`` is true (TF1's ``tf.while_loop``).

    ``cond`` and ``body`` take the loop variables (a structure of tensors)
    and are traced once. The loop runs inside one task, on the worker of its
    op: an iteration costs a few kernel calls, not a graph submission. A loop
    variable keeps its static shape unless ``shape_invariants`` relaxes it.
    A loop variable may be a ``TensorArray`` (it travels as its buffer tensor).

    Examples
    --------
    >>> import daskflow as tf
    >>> i, total = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0])
    >>> tf.Session().run(total)
    np.int32(10)
    """
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body must be callable")
    flat_vars = [convert_to_tensor(v) for v in _flatten(loop_vars)]
    if not flat_vars:
        raise ValueError("No loop variables provided")
    invariants = _invariants(flat_vars, shape_invariants)
    outer = get_default_graph()
    with name_scope(name or "while") as scope:
        structure = loop_vars
        args = lambda g: _pack(structure, iter(_loop_placeholders(g, flat_vars, invariants)))  # noqa: E731
        cond_g = FuncGraph(outer, scope + "cond")
        with cond_g.as_default():
            cond_args = args(cond_g)
            test = _own(cond_g, convert_to_tensor(cond(*_call_args(structure, cond_args))))
            if test.dtype is not dtypes.bool:  # TF1's words
                raise TypeError(
                    f"Input 'input' of 'LoopCond' Op has type {test.dtype.name} that does not match "
                    "expected type of bool."
                )
        body_g = FuncGraph(outer, scope + "body")
        with body_g.as_default():
            body_args = args(body_g)
            result = body(*_call_args(structure, body_args))
            new = [_own(body_g, convert_to_tensor(x)) for x in _flatten(result)]
        _check_body_outputs(flat_vars, new, invariants, scope or "while")
        captured = list(dict.fromkeys([*cond_g.captures, *body_g.captures]))
        n = len(flat_vars)
        cond_in = _flatten(cond_args) + _branch_inputs(cond_g, captured)
        body_in = _flatten(body_args) + _branch_inputs(body_g, captured)
        specs = tuple((dims, t.dtype) for dims, t in zip(invariants, flat_vars))
        limit = None if maximum_iterations is None else int(maximum_iterations)
        outs = apply(
            While,
            *flat_vars,
            *captured,
            cond=(cond_g, cond_in, [test]),
            body=(body_g, body_in, new),
            n=n,
            specs=specs,
            limit=limit,
            back_prop=bool(back_prop),
            name="While",
        )
    flat = list(outs) if isinstance(outs, tuple) else [outs]
    packed = _pack(structure, iter(flat))
    if not return_same_structure and isinstance(packed, (list, tuple)) and len(packed) == 1:
        return packed[0]
    return packed


def _call_args(structure, packed):
    """TF1 passes a list/tuple of loop variables as separate arguments."""
    return (
        list(packed)
        if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields")
        else [packed]
    )


def _invariants(flat_vars, shape_invariants):
    if shape_invariants is None:
        return [t._dims for t in flat_vars]
    given = _flatten(shape_invariants) if not _is_shape(shape_invariants) else [shape_invariants]
    if len(given) != len(flat_vars):
        raise ValueError(f"shape_invariants has {len(given)} shapes for {len(flat_vars)} loop variables")
    out = []
    for t, s in zip(flat_vars, given):
        dims = as_dims(s)
        if not compatible(dims, t._dims):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with its shape {t.shape}"
            )
        out.append(dims)
    return out


def _is_shape(s):
    return isinstance(s, TensorShape) or (
        isinstance(s, (list, tuple)) and all(isinstance(d, (int, type(None))) for d in s)
    )


def _loop_placeholders(graph, flat_vars, invariants):
    with name_scope(None):
        return [placeholder(t.dtype, dims, name="loop_var") for t, dims in zip(flat_vars, invariants)]


def _fits(dims, invariant):
    """Whether a body output of shape ``dims`` keeps to the loop variable's ``invariant``."""
    if invariant is None:
        return True
    if dims is None or len(dims) != len(invariant):
        return False
    return all(i is None or d == i for d, i in zip(dims, invariant))


def _check_body_outputs(flat_vars, new, invariants, what):
    if len(new) != len(flat_vars):
        raise ValueError(f"{what}: the body returns {len(new)} tensors for {len(flat_vars)} loop variables")
    for t, out, dims in zip(flat_vars, new, invariants):
        if out.dtype is not t.dtype:
            raise TypeError(
                f"{what}: loop variable {t.name} is {t.dtype.name} but the body returns {out.dtype.name}"
            )
        if not _fits(out._dims, dims):
            raise ValueError(
                f"{what}: the loop variable {t.name} has shape {fmt(dims)} before the loop, but shape "
                f"{out.shape} after one iteration; pass shape_invariants to allow it"
            ) from None
