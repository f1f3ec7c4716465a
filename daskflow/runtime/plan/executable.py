"""The cached, ready-to-run form of one (fetches, feeds) signature.

Built once by the session: plan, fold constants, compile each partition, and
lower the partitions to Dask tasks — one ``dask.task_spec.Task`` per
partition, whose arguments are ``TaskRef`` s to the feeds, the variables'
values and the partitions it depends on. A step binds the feed and variable
values and executes those tasks; nothing is walked or compiled again.

A traced step (``RunOptions(trace_level=FULL_TRACE)``) runs a second
variant of each compiled partition, made on the first traced step, that
notes each op's start, end and outputs; the plain variant is never slowed.
"""

from __future__ import annotations

import ast
import threading
import time
from typing import TYPE_CHECKING

import numpy as np
from dask.task_spec import DataNode, Task, TaskRef

from ...client.step_stats import add_op_stats
from ...errors import FailedPreconditionError, InvalidArgumentError, OpError
from ...kernels.devices import DeviceNamespace, gpu_index, is_gpu, to_host
from ..graph_options import Passes
from .arguments import Constant, FedValue, FromPartition, PartitionResult, VariableValue, feed_key
from .compile import FILENAME_PREFIX, StepContext, compile_partition
from .compression import Encoded, compressed_tensors
from .fold import fold_constants
from .partition import make_plan
from .replication import replicated_partitions
from .rewrite import rewrite

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Mapping, Sequence
    from types import FunctionType, ModuleType

    from dask.typing import Key

    from ...framework.graph import Operation, Tensor
    from ..messages import Message
    from .compile import Program
    from .cost_placement import CostPlacer
    from .partition import Plan

PROFILE_FIRST = 2  # the first run compiles (numba) and warms caches: the second is timed
PROFILE_EVERY = 10  # then every tenfold more runs, so the profiles' cost fades


class Executable:
    """Everything one signature needs per step, computed once."""

    def __init__(
        self,
        fetch_tensors: Sequence[Tensor],
        fetch_ops: Sequence[Operation],
        feeds: Sequence[Tensor],
        state_for: Callable[[Operation], object],
        soft_placement: bool = True,
        passes: Passes = Passes(),
        compression: str | None = None,
        placer: CostPlacer | None = None,
        in_place: bool = False,
        bucket_bytes: int | None = None,
    ) -> None:
        """``compression``: the codec of tensors sent from replicas to a single partition
        (``ConfigProto.gradient_compression``; :mod:`.compression`), or None. ``placer``:
        places the ops no device scope placed (``ConfigProto(placement="cost")``), or None.
        ``in_place``: kernels may update variables in place (an embedded session's).
        ``bucket_bytes``: a partition's values for other devices leave in buckets of
        this many bytes as it makes them (:mod:`.buckets`; a cluster session's), or at its end."""
        folded: dict = {}

        def fold_and_rewrite(order: list[Operation]) -> tuple[dict, dict, dict]:
            if passes.constant_folding:
                folded.update(fold_constants(order, set(feeds), np))
            if not passes.any_rewrite():
                return {}, {}, {}
            return rewrite(order, folded, fetch_tensors, passes)

        self.plan = plan = make_plan(
            fetch_tensors, fetch_ops, feeds, soft_placement, fold_and_rewrite, placer, folded, bucket_bytes
        )
        self.feeds = list(feeds)
        replicated = replicated_partitions(plan.partitions) if compression else set()
        compressed = compressed_tensors(plan, compression, replicated)
        exported = _exports(plan, folded, compressed, replicated)
        uses = _uses(plan, exported, [t for t in fetch_tensors if t not in self.feeds])
        leaving = _leaving_devices(plan, exported)
        namespaces: dict[
            int, DeviceNamespace
        ] = {}  # GPU index -> its namespace, shared by that GPU's partitions
        where: dict[Tensor | Encoded, PartitionResult] = {}  # (an Encoded export: the encoded value)
        step = StepContext(plan, self.feeds, folded, where.__getitem__, state_for, uses, leaving, compressed)
        self.programs = []
        for part in plan.partitions:
            xp = _namespace(part.device, namespaces)
            program = compile_partition(
                part,
                exported[part.key],
                step,
                xp,
                part.key in replicated,
                in_place and len(plan.partitions) == 1,  # no later partition can fail the step
            )
            where.update({t: PartitionResult(part.key, i) for t, i in program.exports.items()})
            self.programs.append(program)
        control = _control_edges(plan)
        empty = {p.key for p in self.programs if not (p.exports or p.updates or p.line_ops)}
        # A partition with nothing to do (folded constants, a group's NoOp) is no
        # task at all; who waited on it waits on what it waited on.
        self.programs = [p for p in self.programs if p.key not in empty]
        self.tasks = [_task(p, _through(control, p.key, empty)) for p in self.programs]
        # The executor's view of the tasks: function and the keys of its arguments.
        self._steps = [(t.key, t.func, tuple(a.key for a in t.args)) for t in self.tasks]
        self.feed_keys = [feed_key(i) for i in range(len(self.feeds))]
        # FedValue | VariableValue | Constant | PartitionResult, in fetch order
        self.fetch_sources = [_source(t, self.feeds, folded, where) for t in fetch_tensors]
        fetched_vars = [s for s in self.fetch_sources if type(s) is VariableValue]
        self.var_inputs = _var_inputs(self.programs) + fetched_vars
        self.updates = [u for p in self.programs for u in p.updates]  # VariableUpdate
        # Reads a tf.data iterator: ConfigProto(steps_per_run=K) runs K such steps at once.
        self.reads_dataset = any(op.type == "IteratorGetNext" for op in plan.ops)
        self.line_ops = {p.key: p.line_ops for p in self.programs}
        # The token of the traced cluster step being submitted (Session.run with a trace
        # level), which its tasks carry to their workers (cluster/step_tasks.py); else None.
        self.trace = None
        # (traced function per task, ops they note), made on first use
        self._traced: tuple[list[FunctionType], list[Operation]] | None = None
        # ({program key: traced source}, ops they note), the same
        self._traced_sources: tuple[dict[str, str], list[Operation]] | None = None
        # ConfigProto(placement="cost"): which run of this plan is traced next to measure its
        # ops' costs (2nd, 20th, 200th...); None where the placer placed nothing of it.
        self.runs = 0
        self.next_profile: int | None = PROFILE_FIRST if placer is not None and plan.reasons else None

    # -- a step ----------------------------------------------------------------------
    def bind(self, feed_values: Sequence[object], store: Mapping[str, object]) -> dict:
        """The data a step starts from: feed values and variable values."""
        values = dict(zip(self.feed_keys, feed_values))
        for var in self.var_inputs:
            if var.required:
                try:
                    values[var.key] = store[var.name]
                except KeyError:
                    raise _uninitialized(var.name) from None
            else:
                values[var.key] = store.get(var.name)
        return values

    def execute(self, values: dict) -> dict:
        """Run the tasks in process, in their order: the embedded executor.

        Like ``dask.core.get`` for a graph already in execution order: each
        task's function is called on the values of the keys it references.
        """
        for key, fn, deps in self._steps:
            try:
                values[key] = fn(*[values[d] for d in deps])
            except OpError:
                raise
            except Exception as e:  # noqa: BLE001 - re-raised with the op named
                raise self.op_error(key, e) from e
        return values

    def execute_traced(self, values: dict, stats: Message) -> dict:
        """:meth:`execute`, noting each op's start and end into ``stats`` (a ``StepStats``).

        Every op runs in this thread, on this process's CPU: one
        ``DeviceStepStats`` for ``/job:localhost/replica:0/task:0/device:CPU:0``
        with one ``NodeExecStats`` per op run (folded constants and fed
        tensors run no op).
        """
        if self._traced is None:
            self._traced = _traced_functions(self.programs)
        functions, ops = self._traced
        log: list[
            tuple[int, int, int, tuple]
        ] = []  # (op index, start ns, end ns, outputs) of each op, in order
        for (key, _, deps), fn in zip(self._steps, functions):
            try:
                values[key] = fn(*[values[d] for d in deps], _df_log=log.append)
            except OpError:
                raise
            except Exception as e:  # noqa: BLE001 - re-raised with the op named
                raise self.op_error(key, e) from e
        thread = threading.get_native_id()
        add_op_stats(stats, [(ops[i], start, end, outs) for i, start, end, outs in log], thread)
        return values

    def profile_due(self) -> bool:
        """Count a run; whether it is one to trace for cost placement (see ``next_profile``)."""
        self.runs += 1
        if self.next_profile is None or self.runs < self.next_profile:  # None: nothing to measure
            return False
        self.next_profile *= PROFILE_EVERY
        return True

    def traced_sources(self) -> tuple[dict[str, str], list[Operation]]:
        """``({program key: traced source}, ops)``: what a cluster's traced step runs
        (:class:`..worker.programs.TracedPrograms`) and the ops its notes index."""
        if self._traced_sources is None:
            sources, ops = traced_sources(self.programs)
            self._traced_sources = ({p.key: s for p, s in zip(self.programs, sources)}, ops)
        return self._traced_sources

    def results(self, values: dict) -> list:
        return [_fetch(values, src) for src in self.fetch_sources]

    def graph(self, feed_values: Sequence[object], store: Mapping[str, object]) -> dict:
        """The Dask graph of one step, data included (``Session.lower``): its own copy of
        each variable's value, which later steps may update in place."""
        data = {k: _copied(v) for k, v in self.bind(feed_values, store).items()}
        graph: dict[Key, DataNode | Task] = {k: DataNode(k, v) for k, v in data.items()}
        graph.update({t.key: t for t in self.tasks})
        return graph

    def op_error(self, key: object, exc: BaseException) -> InvalidArgumentError:
        """``exc`` as an error naming the op whose line of generated code raised it.

        Works on tracebacks rebuilt from a worker too: the generated code's
        file name carries the partition key, and each line is one op.
        """
        op = _failing_op(exc, self.line_ops)
        if op is None:
            return InvalidArgumentError(None, None, f"step failed in partition {key}: {exc}")
        return InvalidArgumentError(op.node_def, op, f"{op.name} ({op.type}): {exc}")


def _traced_functions(programs: Sequence[Program]) -> tuple[list[FunctionType], list[Operation]]:
    """Each program again, with every op's line timed: ``(functions, ops)``."""
    sources, ops = traced_sources(programs)
    return [traced_function(source, p.fn) for source, p in zip(sources, programs)], ops


def traced_sources(programs: Sequence[Program]) -> tuple[list[str], list[Operation]]:
    """Each program's source again, with every op's line timed: ``(sources, ops)``.

    The op's statement stays on its line, between a clock read and a call
    noting ``(op index, start, end, outputs)`` (the index into ``ops``), so the
    code keeps its line numbers and a failing op is named as in the plain run.
    """
    sources: list[str] = []
    ops: list[Operation] = []
    for program in programs:
        lines = program.source.split("\n")
        lines[0] = lines[0][: -len("):")] + ", _df_log):"  # `def run(a0, *_)`: a keyword-only parameter
        for number, op in sorted(program.line_ops.items()):
            statement = lines[number - 1].strip()
            outputs = "".join(f"{name}, " for name in _assigned(statement))
            note = f"_df_log(({len(ops)}, _df_start, _df_now(), ({outputs})))"
            lines[number - 1] = f"    _df_start = _df_now(); {statement}; {note}"
            ops.append(op)
        sources.append("\n".join(lines))
    return sources, ops


def traced_function(source: str, fn: FunctionType) -> FunctionType:
    """The function ``source`` (:func:`traced_sources`) defines, run as ``fn``, its plain
    program, runs: with ``fn``'s globals (the same kernels and their state, an
    iterator's position among them) and file name."""
    namespace = {**fn.__globals__, "_df_now": time.time_ns}
    exec(compile(source, fn.__code__.co_filename, "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace["run"]


def _assigned(statement: str) -> list[str]:
    """The names an op's line assigns its outputs to (``t3_0, t3_1 = k2(...)``); none for ``_``."""
    assign = ast.parse(statement).body[0]
    assert isinstance(assign, ast.Assign)  # an op's line is one assignment (compile.py)
    target = assign.targets[0]
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    return [n.id for n in names if isinstance(n, ast.Name) and n.id != "_"]


def _exports(
    plan: Plan, folded: Container[Tensor], compressed: Container[Tensor], replicated: Container[str]
) -> dict[str, list[Tensor | Encoded]]:
    """Per partition: the tensors other partitions consume (``Encoded`` where they are
    read compressed), and the fetched ones."""
    exported: dict[str, list[Tensor | Encoded]] = {p.key: [] for p in plan.partitions}

    def export(t: Tensor, encoded: bool = False) -> None:
        if t in folded or t in plan.feeds or t.op not in plan.partition_of:
            return  # constants, feeds and variables are read where they are
        part = plan.partition_of[t.op]
        entry = Encoded(t) if encoded else t
        if entry not in exported[part.key]:
            exported[part.key].append(entry)

    for op in plan.ops:
        reader = plan.partition_of.get(op)
        for t in plan.inputs_of(op):
            if t.op in plan.partition_of and plan.partition_of[t.op] is not reader:
                export(t, t in compressed and reader is not None and reader.key not in replicated)
    for t in plan.fetches:
        export(t)
    return exported


def _namespace(device: str, namespaces: dict[int, DeviceNamespace]) -> ModuleType | DeviceNamespace:
    """numpy for the CPU; a GPU's :class:`DeviceNamespace`, one per GPU index."""
    if not is_gpu(device):
        return np
    index = gpu_index(device)
    if index not in namespaces:
        namespaces[index] = DeviceNamespace(index)
    return namespaces[index]


def _leaving_devices(plan: Plan, exported: dict[str, list[Tensor | Encoded]]) -> set[Tensor]:
    """Tensors a GPU partition exports to a fetch or to a partition on another device."""
    on_gpu = {p.key for p in plan.partitions if is_gpu(p.device)}
    fetched = set(plan.fetches)
    leaving = {t for key in on_gpu for t in exported[key] if not isinstance(t, Encoded) and t in fetched}
    for op in plan.ops:
        reader = plan.partition_of.get(op)
        for t in plan.inputs_of(op):
            maker = plan.partition_of.get(t.op)
            if maker is None or maker.key not in on_gpu:
                continue
            if reader is None or reader.device != maker.device:
                leaving.add(t)
    return leaving


def _uses(
    plan: Plan, exported: dict[str, list[Tensor | Encoded]], fetched: Iterable[Tensor]
) -> dict[Tensor, int]:
    """How many times each tensor is read in the step: by ops, as an export, and (a
    variable's value, which the step's results take from the store) as a fetch."""
    uses: dict[Tensor, int] = {t: 1 for t in fetched if t.op.primitive.is_variable}
    for op in plan.ops:
        for t in plan.inputs_of(op):
            uses[t] = uses.get(t, 0) + 1
    for tensors in exported.values():
        for export in tensors:
            t = export.tensor if isinstance(export, Encoded) else export  # its encoder reads it at the end
            uses[t] = uses.get(t, 0) + 1
    return uses


def _control_edges(plan: Plan) -> dict[str, list[str]]:
    """Per partition: other partitions it must wait for without reading their data."""
    edges: dict[str, list[str]] = {p.key: [] for p in plan.partitions}
    for op in plan.ops:
        mine = plan.partition_of.get(op)
        if mine is None:
            continue  # a variable node: no partition
        for c in op.control_inputs:
            other = plan.partition_of.get(c)
            if other is not None and other is not mine and other.key not in edges[mine.key]:
                edges[mine.key].append(other.key)
    return edges


def _through(control: dict[str, list[str]], key: str, empty: Container[str]) -> list[str]:
    """The control dependencies of ``key``, looking through empty partitions."""
    found: list[str] = []
    stack = list(control[key])
    while stack:
        k = stack.pop()
        if k in empty:
            stack.extend(control[k])
        elif k not in found:
            found.append(k)
    return found


def _task(program: Program, control: Iterable[str] = ()) -> Task:
    args = [TaskRef(arg.key) for arg in program.args]
    data_deps = {arg.partition for arg in program.args if type(arg) is FromPartition}
    args.extend(TaskRef(k) for k in control if k not in data_deps)
    return Task(program.key, program.fn, *args)


def _var_inputs(programs: Iterable[Program]) -> list[VariableValue]:
    return [arg for p in programs for arg in p.args if type(arg) is VariableValue]


def _is_var(t: Tensor, feeds: Container[Tensor]) -> bool:
    return t.op.primitive.is_variable and t not in feeds


def _source(
    t: Tensor,
    feeds: list[Tensor],
    folded: dict[Tensor, object],
    where: dict[Tensor | Encoded, PartitionResult],
) -> FedValue | VariableValue | Constant | PartitionResult:
    """Where fetched tensor ``t``'s value comes from."""
    if t in feeds:
        return FedValue(feeds.index(t))
    if _is_var(t, feeds):
        return VariableValue(t.op.name, required=True)
    if t in folded:
        return Constant(folded[t])
    return where[t]  # a PartitionResult


def _copied(value: object) -> object:
    """A read-only copy of a value the session holds; a view, which no kernel writes in place."""
    if type(value) is not np.ndarray or value.flags.writeable:
        return value
    copy = value.copy()[...]
    copy.flags.writeable = False
    return copy


def _fetch(values: dict, source: FedValue | VariableValue | Constant | PartitionResult) -> object:
    if type(source) is PartitionResult:  # (each `type() is` narrows source for type checkers)
        value = values[source.partition][source.index]
    elif type(source) is Constant:
        value = source.value
    else:  # FedValue, VariableValue: among the step's bound values
        value = values[source.key]
    if type(value) is np.ndarray:
        # A variable's or a constant's storage: hand out a copy.
        return value if value.flags.writeable else value.copy()
    return to_host(value)  # a GPU variable's value; anything else as it is


def _uninitialized(name: str) -> FailedPreconditionError:
    return FailedPreconditionError(None, None, f"Attempting to use uninitialized value {name}")


def _failing_op(exc: BaseException, line_ops: dict[str, dict[int, Operation]]) -> Operation | None:
    located = getattr(exc, "daskflow_line", None)  # set on a worker (programs.run_program)
    if located is not None:
        key, line = located
        return line_ops.get(key, {}).get(line)
    tb = exc.__traceback__
    found = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(FILENAME_PREFIX):
            key = filename[len(FILENAME_PREFIX) : -1]
            found = line_ops.get(key, {}).get(tb.tb_lineno, found)
        tb = tb.tb_next
    return found
