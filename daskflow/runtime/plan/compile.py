"""Compile a partition into one straight-line Python callable.

The generated function has one line per op — ``t7 = k7(t3, v0)`` — with the
kernels (attributes and the array namespace already bound) and folded
constants as globals, so a step costs one call per op and nothing else: no
graph walking, no dict lookups. Only generated identifiers appear in the
source; no user-supplied string is ever part of it.

Variables are local slots (``v0``...). A read sees the slot's value at that
point of the program, and an update rebinds the slot, which gives TF1's
semantics for reads ordered after assignments by control dependencies. The
function returns its exported tensors followed by the final values of the
variables it updated; the session commits those only after the whole step
succeeded, so a failing step leaves every variable as it was.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...kernels.devices import DeviceConstant, DeviceNamespace, is_gpu, to_host
from .arguments import FedValue, FromPartition, VariableUpdate, VariableValue
from .compression import Encoded, decoder_for, encoder_for

if TYPE_CHECKING:
    from collections.abc import Callable, Container
    from types import FunctionType

    from ...framework.graph import Operation, Tensor
    from ...framework.primitive import Primitive
    from .arguments import PartitionResult
    from .partition import Partition, Plan

FILENAME_PREFIX = "<daskflow partition "


@dataclass
class Program:
    """A compiled partition and the layout of its arguments and results."""

    key: str
    fn: FunctionType  # compiled from ``source``
    args: list  # FedValue | VariableValue | FromPartition, in parameter order
    exports: dict  # tensor -> index in the result tuple
    updates: list  # VariableUpdate of each variable it assigns
    line_ops: dict = field(default_factory=dict)  # source line -> op, to name a failing op
    source: str = ""  # the generated code, for people reading what a step does
    reads: dict = field(default_factory=dict)  # producer key -> result indices read from it


@dataclass(frozen=True)
class StepContext:
    """What every partition of one step's plan is compiled against.

    ``producer(t)`` gives the :class:`.arguments.PartitionResult` of a tensor made
    elsewhere; ``state_for(op)`` the per-session state of a stateful op; ``uses[t]`` how
    many times ``t`` is read in the whole step (consumers, fetches, exports); ``leaving``
    the exports copied to the host as they leave a GPU (fetched, or read on another
    device). ``plan`` says what each op reads and runs after rewrites. ``compressed``
    (``{tensor: codec}``, :mod:`.compression`): exports wrapped in ``Encoded`` leave
    encoded.
    """

    plan: Plan
    feeds: list[Tensor]
    folded: dict[Tensor, object]
    producer: Callable[[Tensor | Encoded], PartitionResult]
    state_for: Callable[[Operation], object]
    uses: dict[Tensor, int]
    leaving: Container[Tensor]
    compressed: dict[Tensor, str] = field(default_factory=dict)


class _Builder:
    def __init__(self, part: Partition, step: StepContext, xp: object, replica: bool, in_place: bool) -> None:
        self.part, self.feeds, self.folded, self.uses = part, step.feeds, step.folded, step.uses
        self.updates_in_place = in_place
        # Tensors that cross compressed from replicas: encoded where made, decoded where
        # read by a single partition.
        self.compressed = step.compressed
        self.decodes: Container[Tensor] = {} if replica else step.compressed
        # What each op reads and runs after plan-time rewrites.
        plan = step.plan
        self.inputs_of, self.primitive_of, self.attrs_of = plan.inputs_of, plan.primitive_of, plan.attrs_of
        self.producer, self.state_for, self.xp = step.producer, step.state_for, xp
        self.ns: dict[str, Any] = {}  # the program's globals: kernels, constants, its function
        # On a GPU: the namespace's name, through which values cross the partition's boundary.
        self.device = self._global(xp, "x") if isinstance(xp, DeviceNamespace) else None
        self.lines: list[str] = []
        self.line_ops: dict[int, Operation] = {}
        self.args: list[FedValue | VariableValue | FromPartition] = []
        self.arg_names: list[str] = []
        self.names: dict[Tensor, str] = {}  # tensor -> local name
        self.slots: dict[Operation, str] = {}  # variable op -> slot name
        self.written: dict[str, str] = {}  # slot name -> variable name
        self.var_positions: dict[str, int] = {}  # slot name -> position in args (when loaded from the store)
        self.part_args: dict[str, str] = {}  # producer key -> arg name
        self.reads: dict[str, set[int]] = {}  # producer key -> result indices read
        self.own_ops = set(part.ops)
        self.readers: collections.defaultdict[Tensor, list[Operation]] = collections.defaultdict(list)
        # tensor -> the ops here that read it
        for op in part.ops:
            for t in self.inputs_of(op):
                self.readers[t].append(op)
        self.reads_here = collections.Counter({t: len(ops) for t, ops in self.readers.items()})
        self.position = {op: i for i, op in enumerate(part.ops)}
        if self.device:
            self._emit(f"{self.device}.use()", None)  # this thread's current GPU

    # -- names for inputs -----------------------------------------------------------
    def _arg(self, spec: FedValue | VariableValue | FromPartition, prefix: str = "a") -> str:
        name = f"{prefix}{len(self.args)}"
        self.args.append(spec)
        self.arg_names.append(name)
        return name

    def _global(self, value: object, prefix: str) -> str:
        name = f"{prefix}{len(self.ns)}"
        self.ns[name] = value
        return name

    def value_of(self, t: Tensor) -> str:
        """The expression for tensor ``t`` at this point of the program."""
        if t.op.primitive.is_variable and t not in self.feeds:
            return self._slot(t, reading=True)
        if t in self.names:
            return self.names[t]
        if t in self.feeds:
            name = self._uploaded(self._arg(FedValue(self.feeds.index(t))))
        elif t in self.folded and self.device:  # uploaded on the first step, kept on the device
            name = f"u{len(self.lines)}"
            self._emit(f"{name} = {self._global(DeviceConstant(self.folded[t], self.xp), 'c')}()", None)
        elif t in self.folded:
            name = self._global(self.folded[t], "c")
        else:
            name = self._edge(t)
        self.names[t] = name
        return name

    def _edge(self, t: Tensor) -> str:
        encoded = t in self.decodes
        source = self.producer(Encoded(t) if encoded else t)
        key, index = source.partition, source.index
        if key not in self.part_args:
            self.part_args[key] = self._arg(FromPartition(key), prefix="p")
        self.reads.setdefault(key, set()).add(index)
        name = f"t{len(self.lines)}_{index}"
        value = f"{self.part_args[key]}[{index}]"
        if encoded:
            value = f"{self._global(decoder_for(t), 'd')}({value})"
        self._emit(f"{name} = {self._to_device(value)}", None)
        return name

    def _to_device(self, expr: str) -> str:
        return f"{self.device}.to_device({expr})" if self.device else expr

    def _uploaded(self, expr: str) -> str:
        """A name for ``expr``'s value on this partition's device (``expr`` itself on the CPU)."""
        if not self.device:
            return expr
        name = f"u{len(self.lines)}"
        self._emit(f"{name} = {self._to_device(expr)}", None)
        return name

    def _slot(self, ref: Tensor, reading: bool) -> str:
        op = ref.op
        slot = self.slots.get(op)
        if slot is None:
            # Every partition reads its variables from the store (see plan._partition).
            slot = self.slots[op] = f"v{len(self.slots)}"
            self.var_positions[slot] = len(self.args)
            value = self._arg(VariableValue(op.name))
            if not self.device and is_gpu(op.device):  # a GPU's variable read on the CPU
                value = f"{self._global(to_host, 'f')}({value})"
            self._emit(f"{slot} = {self._to_device(value)}", op)
        if reading and slot not in self.written:
            spec = self.args[self.var_positions[slot]]
            assert type(spec) is VariableValue  # var_positions: where variables' values are
            self.args[self.var_positions[slot]] = dataclasses.replace(spec, required=True)
        return slot

    # -- ops ----------------------------------------------------------------------------
    def _emit(self, line: str, op: Operation | None) -> None:
        self.lines.append(line)
        if op is not None:
            self.line_ops[len(self.lines) + 1] = op  # +1: the def line comes first

    def _kernel(self, op: Operation, **extra: object) -> str:
        prim = self.primitive_of(op)
        if prim.kernel is None:  # (placeholders and variables are read, never run)
            raise TypeError(f"op {op.name} ({op.type}) has no kernel to run")
        bound = (self.xp, self.state_for(op)) if prim.make_state else (self.xp,)
        return self._global(functools.partial(prim.kernel, *bound, **self.attrs_of(op), **extra), "k")

    def _donatable(self, t: Tensor) -> bool:
        """A fresh array made here that nothing else reads: its buffer can be reused.
        Never a folded value: later steps read it again (on a GPU, a kept device copy)."""
        return (
            t not in self.folded
            and t in self.names
            and t.op in self.own_ops
            and self.primitive_of(t.op).fresh_output
            and self.uses.get(t, 0) == 1
        )

    def _dead_after_aggregating(self, t: Tensor) -> bool:
        """An aggregating op is the only reader of ``t`` in this partition. ``t`` comes
        from other partitions: each consumer gets its own delivery, and the kernel
        overwrites only the values that arrived as this worker's own copies
        (:attr:`~daskflow.framework.replica.PerReplica.own`), never the producers'."""
        return t.op not in self.own_ops and self.reads_here[t] == 1

    def _donation(self, op: Operation) -> dict[str, bool]:
        """``{"donate": True}`` where ``op``'s kernel may write into its input ``donates``."""
        prim, inputs = self.primitive_of(op), self.inputs_of(op)
        inputs = inputs[1:] if prim.updates_variable else inputs
        if not (prim.can_donate and inputs):
            return {}
        given = inputs[prim.donates]
        if inputs.count(given) > 1:
            return {}
        dead = self._dead_after_aggregating(given) if prim.aggregates_replicas else self._donatable(given)
        return {"donate": True} if dead else {}

    def _in_place(self, op: Operation) -> dict[str, bool]:
        """``{"in_place": True}`` where ``op``'s kernel may write its outputs into the
        variables it reads (embedded only: there the session alone holds their arrays)."""
        prim = self.primitive_of(op)
        if not (self.updates_in_place and prim.in_place) or self.device:
            return {}
        inputs = self.inputs_of(op)
        pairs = [(inputs[i], out) for i, out in zip(prim.in_place, op.outputs)]
        updatable = all(self._updatable(op, t, out) for t, out in pairs)
        return {"in_place": True} if updatable and self._nothing_can_fail_after(op) else {}

    def _nothing_can_fail_after(self, op: Operation) -> bool:
        """Whether every op after ``op`` here is one no value can make fail, so that a
        failing step still leaves every variable as it was: constants, NoOps, and
        updates and elementwise ops whose inputs' shapes the graph fixes (checked when
        it was built): Adam's assignments and its beta powers' products."""
        for later in self.part.ops[self.position[op] + 1 :]:
            prim, inputs = self.primitive_of(later), self.inputs_of(later)
            shaped = all(t._dims is not None and None not in t._dims for t in inputs)
            if inputs and not (shaped and (prim.updates_variable or prim.in_place or prim.elementwise)):
                return False
        return True

    def _updatable(self, op: Operation, t: Tensor, out: Tensor) -> bool:
        """Whether ``op`` may write ``out``, the new value of the variable whose value
        ``t`` is, into that value's array: ``out`` goes only to one ``Assign`` of the
        variable here; every read of the old value, or of a view of it, is here and
        comes before ``op`` (a read of ``t`` after that ``Assign`` reads the new value)."""
        var = t.op
        if not var.primitive.is_variable or t in self.feeds or self.slots.get(var) in self.written:
            return False
        assign = self._only_assign(out, var)
        if assign is None:
            return False
        start, end = self.position[op], self.position[assign]
        for view in self._views_of(t):
            if self.uses.get(view, 0) != self.reads_here[view]:
                return False  # fetched, or read on another partition
            for reader in self.readers[view]:
                at = self.position[reader]
                if reader not in (op, assign) and at > start and (view is not t or at < end):
                    return False
        return True

    def _only_assign(self, out: Tensor, var: Operation) -> Operation | None:
        """The ``Assign`` of ``var`` that is ``out``'s only reader, or None."""
        readers = self.readers[out]
        if self.uses.get(out, 0) != 1 or len(readers) != 1:
            return None
        assign = readers[0]
        prim, inputs = self.primitive_of(assign), self.inputs_of(assign)
        ours = prim.updates_variable and prim.ignores_old_value and inputs[0].op is var and inputs[1] is out
        return assign if ours else None

    def _views_of(self, t: Tensor) -> set[Tensor]:
        """``t`` and the tensors here that may share its memory: outputs of ops that are
        not ``fresh_output`` (a reshape, an identity, an assignment) reading one of them."""
        found, todo = {t}, [t]
        while todo:
            for reader in self.readers[todo.pop()]:
                if self.primitive_of(reader).fresh_output:
                    continue
                fresh = [o for o in reader.outputs if o not in found]
                found.update(fresh)
                todo.extend(fresh)
        return found

    def add(self, op: Operation) -> None:
        prim = self.primitive_of(op)
        if all(t in self.folded for t in op.outputs) and op.outputs:
            return
        if not op.outputs and not prim.stateful:
            return  # NoOp: only its control edges matter, and the order already has them
        if prim.updates_variable:
            return self._add_update(op)
        if prim.forwards_input:
            out = f"t{len(self.lines)}_0"
            source = self.value_of(self.inputs_of(op)[0])
            self._emit(f"{out} = {source}", op)  # a snapshot, even of a variable
            self.names[op.outputs[0]] = out
            return
        args = ", ".join(self._input(t, prim) for t in self.inputs_of(op))
        outs = [f"t{len(self.lines)}_{i}" for i in range(len(op.outputs))]
        lhs = (outs[0] if len(outs) == 1 else ", ".join(outs) + ",") if outs else "_"
        kernel = self._kernel(op, **self._donation(op), **self._in_place(op), **self._unread(op, prim))
        self._emit(f"{lhs} = {kernel}({args})", op)
        self.names.update(zip(op.outputs, outs))

    def _unread(self, op: Operation, prim: Primitive) -> dict[str, tuple[int, ...]]:
        """``{"unread": positions}`` of a ``lazy_outputs`` op's outputs whose values no one
        reads in the step (a ``shape_only`` input of an op here reads only the shape)."""
        if not prim.lazy_outputs:
            return {}
        unread = tuple(i for i, t in enumerate(op.outputs) if self._shape_reads(t) == self.uses.get(t, 0))
        return {"unread": unread} if unread else {}

    def _shape_reads(self, t: Tensor) -> int:
        """How many reads of ``t`` here are ``shape_only`` inputs."""
        return sum(
            k in self.primitive_of(reader).shape_only
            for reader in dict.fromkeys(self.readers[t])
            for k, x in enumerate(self.inputs_of(reader))
            if x is t
        )

    def _input(self, t: Tensor, prim: Primitive) -> str:
        if prim.accepts_uninitialized and t.op.primitive.is_variable and t not in self.feeds:
            return self._slot(t, reading=False)
        return self.value_of(t)

    def _add_update(self, op: Operation) -> None:
        ref, *rest = self.inputs_of(op)
        slot = self._slot(ref, reading=not op.primitive.ignores_old_value)
        args = ", ".join([slot] + [self.value_of(t) for t in rest])
        out = f"t{len(self.lines)}_0"
        self._emit(f"{out} = {slot} = {self._kernel(op, **self._donation(op))}({args})", op)
        self.written[slot] = ref.op.name
        self.names[op.outputs[0]] = out

    def _result(self, export: Tensor | Encoded, leaving: Container[Tensor]) -> str:
        """The expression a result leaves as: on the host if it leaves the device
        (copied here, once), encoded if it is an ``Encoded`` export."""
        t = export.tensor if isinstance(export, Encoded) else export
        value = self.value_of(t)
        if self.device and t in leaving:
            value = f"{self.device}.to_host({value})"
        if type(export) is Encoded:
            value = f"{self._global(encoder_for(t, self.compressed[t]), 'e')}({value})"
        return value

    def finish(self, exported: list[Tensor | Encoded], leaving: Container[Tensor]) -> Program:
        results = [self._result(e, leaving) for e in exported]
        updates = [
            VariableUpdate(name, self.part.key, len(results) + i)
            for i, name in enumerate(self.written.values())
        ]
        results += list(self.written)
        self._emit(f"return ({', '.join(results)}{',' if results else ''})", None)
        _free_when_dead(self.lines)
        # `*_`: trailing arguments carry control dependencies on other partitions.
        params = ", ".join([*self.arg_names, "*_"])
        src = f"def run({params}):\n" + "\n".join("    " + ln for ln in self.lines)
        code = compile(src, f"{FILENAME_PREFIX}{self.part.key}>", "exec")
        exec(code, self.ns)  # noqa: S102 - our own generated identifiers only
        exports = {t: i for i, t in enumerate(exported)}
        return Program(
            self.part.key, self.ns["run"], self.args, exports, updates, self.line_ops, src, self.reads
        )


_LOCAL = re.compile(r"\bt\d+_\d+\b")  # an op's output, or a value from another partition


def _free_when_dead(lines: list[str]) -> None:
    """End each intermediate's name on the line that reads it last (``; del t3_0``), so its
    buffer goes back to the allocator while the step runs: the next value of its size
    takes it instead of fresh, page-faulting memory. Names the last line (the return)
    reads stay, and a name is never ended on the line that makes it (a traced step notes
    an op's outputs after its statement)."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        for name in _LOCAL.findall(line):
            first.setdefault(name, i)
            last[name] = i
    ends: dict = {}
    for name, i in last.items():
        if i != first[name] and i < len(lines) - 1:
            ends.setdefault(i, []).append(name)
    for i, names in ends.items():
        lines[i] += f"; del {', '.join(sorted(names))}"


def compile_partition(
    part: Partition,
    exported: list[Tensor | Encoded],
    step: StepContext,
    xp: object,
    replica: bool = False,
    in_place: bool = False,
) -> Program:
    """Compile ``part`` against ``step``; ``exported`` are its tensors that others need.

    ``xp`` is numpy or, on a GPU, a :class:`~daskflow.kernels.devices.DeviceNamespace`:
    then the partition's inputs are uploaded as they enter, and its exports in
    ``step.leaving`` are copied to the host as they leave. A partition that is not a
    ``replica`` reads the tensors ``step.compressed`` names from their encoded export.
    ``in_place``: ``in_place`` kernels may update the variables they read
    (:attr:`~daskflow.framework.primitive.Primitive.in_place`), where nothing else
    holds their arrays: embedded, not on workers, whose variables others read.
    """
    builder = _Builder(part, step, xp, replica, in_place)
    for op in part.ops:
        builder.add(op)
    return builder.finish(exported, step.leaving)
