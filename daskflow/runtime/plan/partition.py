"""Planning a run: prune to what the fetches need, order, and partition.

Given the ops and tensors a ``Session.run`` fetches and the tensors it feeds,
:func:`make_plan` returns the needed ops in an execution order and groups
them into partitions: one per (device, stage). A stage grows by one each time
a path crosses devices, which keeps the partition graph acyclic even when a
parameter-server device both sends values to a worker and later applies that
worker's gradients. This module knows neither ops nor Dask.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...errors import InvalidArgumentError
from ...framework.device_spec import DeviceSpec
from . import buckets
from .replication import is_replica_device, replica_device

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence

    from ...framework.graph import Operation, Tensor
    from ...framework.primitive import Primitive
    from .cost_placement import CostPlacer

    # What an op reads in a plan (Plan.inputs_of); whether ops are worth a task (CostPlacer.heavy).
    InputsOf = Callable[[Operation], Sequence[Tensor]]
    Heavy = Callable[[list[Operation], InputsOf], bool]


@dataclass(eq=False)  # a partition is itself: hashable by identity
class Partition:
    """Ops of one device and stage, in execution order."""

    device: str
    stage: int
    ops: list = field(default_factory=list)
    continues: str | None = None  # a piece of a cut partition: the key of the piece before it

    @property
    def key(self) -> str:
        return f"{device_label(self.device)}-s{self.stage}"


@dataclass
class Plan:
    """What one (fetches, feeds) signature runs."""

    fetches: list  # distinct fetched tensors
    targets: list  # distinct fetched operations
    feeds: list  # fed tensors
    ops: list  # needed ops, in execution order
    partitions: list  # Partition objects, in a valid execution order
    partition_of: dict  # op -> Partition
    inputs: dict = field(default_factory=dict)  # op -> what it reads after rewrites (rewrite.py)
    primitives: dict = field(default_factory=dict)  # op -> the fused primitive it runs as
    attrs: dict = field(default_factory=dict)  # op -> the attributes its fused primitive takes
    placed: dict = field(default_factory=dict)  # variable op -> the device cost placement chose
    reasons: dict = field(default_factory=dict)  # op -> why cost placement put it where it is
    # The queues and iterators other runs fill or set that kept /job:worker on one task
    # (_one_task_with_shared_input): not replicated for them.
    one_task_for: list = field(default_factory=list)

    def inputs_of(self, op: Operation) -> Sequence[Tensor]:
        """The tensors ``op`` reads in this plan: its own, unless a rewrite changed them."""
        return self.inputs.get(op, op.inputs)

    def primitive_of(self, op: Operation) -> Primitive:
        return self.primitives.get(op, op.primitive)

    def attrs_of(self, op: Operation) -> dict:
        return self.attrs.get(op, op.attrs)

    def device_of(self, op: Operation) -> str:
        """The device ``op`` runs on: its partition's (a host-only op on a GPU runs on its
        task's CPU); a variable, in no partition, lives on its own."""
        part = self.partition_of.get(op)
        return self.placed.get(op, op.device) if part is None else part.device


def device_label(device: str) -> str:
    """A key-friendly name: ``/job:ps/task:0`` -> ``ps-0``; no device -> ``local``;
    ``/device:CPU:0`` -> ``local-cpu0``. Device strings of one label are one place."""
    if not device:
        return "local"
    parts = dict(p.split(":", 1) for p in device.strip("/").split("/"))
    label = "-".join(v for k, v in parts.items() if k in ("job", "task")) or "local"
    kind = parts.get("device", "")
    for name in ("GPU", "CPU"):  # an explicit CPU is not "no device": that one is replicated
        if kind.upper().startswith(name):
            label += f"-{name.lower()}" + kind.partition(":")[2].replace("*", "")
    return label


def make_plan(
    fetch_tensors: Sequence[Tensor],
    fetch_ops: Sequence[Operation],
    feeds: Sequence[Tensor],
    soft_placement: bool = True,
    rewriter: Callable[[list[Operation]], tuple[dict, dict, dict]] | None = None,
    placer: CostPlacer | None = None,
    folded: Container[Tensor] = (),
    bucket_bytes: int | None = None,
) -> Plan:
    """Plan the step; ``rewriter(order)``, where given, returns ``(inputs, primitives,
    attrs)`` per op changed by rewrites (see :mod:`.rewrite`), and the plan is pruned again.
    ``placer`` (a :class:`.cost_placement.CostPlacer`), where given, places the ops no
    device scope placed, unless the plan replicates (those ops then run in every replica).
    ``folded``: the tensors constant folding made values of (filled by ``rewriter``),
    which their readers hold wherever they run. ``bucket_bytes``: cut a partition after
    each bucket of values it sends to other devices (:mod:`.buckets`), or not at all."""
    fed = set(feeds)
    needed = _prune(fetch_tensors, fetch_ops, fed)
    _check_fed(needed)
    order = _schedule(needed, fed)
    inputs, primitives, attrs = rewriter(order) if rewriter else ({}, {}, {})
    inputs_of = lambda op: inputs.get(op, op.inputs)  # as Plan.inputs_of
    if inputs:
        order = _schedule(_prune(fetch_tensors, fetch_ops, fed, inputs_of), fed, inputs_of)
    device_of = {op: _runs_on(op, soft_placement) for op in order}
    one_task_for = _shared_inputs(order, device_of)
    if one_task_for:
        device_of = {op: replica_device(d, 0) if is_replica_device(d) else d for op, d in device_of.items()}
    placed: dict[Operation, str] = {}  # the variables cost placement placed
    reasons: dict[Operation, str] = {}
    if placer is not None and not any(is_replica_device(d) for d in device_of.values()):
        placed, reasons = placer(order, device_of)
    heavy = None if placer is None else placer.heavy
    partitions, partition_of = _partition(order, fed, device_of, inputs_of, heavy, folded, bucket_bytes)
    plan = Plan(list(fetch_tensors), list(fetch_ops), list(feeds), order, partitions, partition_of)
    plan.inputs, plan.primitives = inputs, {op: p for op, p in primitives.items() if op in partition_of}
    plan.attrs = {op: a for op, a in attrs.items() if op in partition_of}
    plan.placed, plan.reasons = placed, reasons
    plan.one_task_for = one_task_for
    return plan


def _own_inputs(op: Operation) -> Sequence[Tensor]:
    return op.inputs


def _prune(
    fetch_tensors: Iterable[Tensor],
    fetch_ops: Iterable[Operation],
    fed: Container[Tensor],
    inputs_of: InputsOf = _own_inputs,
) -> set[Operation]:
    """Ops the fetches need; a fed tensor cuts the graph above it."""
    needed, stack = set(), [t.op for t in fetch_tensors if t not in fed] + list(fetch_ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(t.op for t in inputs_of(op) if t not in fed)
        # An op whose every output is fed is not run: a control edge on it is met by the feed.
        stack.extend(c for c in op.control_inputs if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed


def unfed_placeholders(
    fetch_tensors: Sequence[Tensor], fetch_ops: Sequence[Operation], feeds: Iterable[Tensor]
) -> list[Tensor]:
    """The placeholders the fetches need that ``feeds`` leaves unfed, oldest first."""
    needed = _prune(fetch_tensors, fetch_ops, set(feeds))
    return [op.outputs[0] for op in _placeholders(needed)]


def _placeholders(needed: Iterable[Operation]) -> list[Operation]:
    return sorted((op for op in needed if op.primitive.is_placeholder), key=lambda o: o._id)


def _check_fed(needed: Iterable[Operation]) -> None:
    missing = _placeholders(needed)
    if missing:
        op = missing[0]
        t = op.outputs[0]
        raise InvalidArgumentError(
            op.node_def,
            op,
            f"You must feed a value for placeholder tensor '{t.name}' "
            f"with dtype {t.dtype.name} and shape {t.shape}",
        )


def _schedule(
    needed: set[Operation],
    fed: Container[Tensor],
    inputs_of: InputsOf = _own_inputs,
    after: dict[Operation, Operation] | None = None,
    rank: Callable[[Operation], tuple] | None = None,
) -> list[Operation]:
    """Topological order; among ready ops, reads before variable updates (and kernels
    that can update variables in place). ``after``: op -> one more op it follows;
    ``rank(op)``: another order among ready ops (a tuple ending in ``op``), :func:`_rank`'s
    by default.

    Preferring non-updating ops means a value read in the same step as an
    update sees the old value unless a control dependency says otherwise.
    """
    preds = {op: _predecessors(op, needed, fed, inputs_of) for op in needed}
    for op, previous in (after or {}).items():
        preds[op].add(previous)
    succs: dict = {op: [] for op in needed}
    for op, ps in preds.items():
        for p in ps:
            succs[p].append(op)
    rank = rank or _rank
    waiting = {op: len(ps) for op, ps in preds.items()}
    ready = [rank(op) for op, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order: list[Operation] = []
    while ready:
        op = heapq.heappop(ready)[2]
        order.append(op)
        for s in succs[op]:
            waiting[s] -= 1
            if waiting[s] == 0:
                heapq.heappush(ready, rank(s))
    if len(order) != len(needed):
        stuck = sorted((op.name for op, n in waiting.items() if n > 0))
        raise InvalidArgumentError(None, None, f"the graph has a cycle through: {', '.join(stuck)}")
    return order


def _rank(op: Operation) -> tuple[bool, tuple[bool, int], Operation]:
    # An update in place (Adam's kernel) waits like an assignment: every op that does
    # not depend on an update runs before it, so those ops fail, if they do, first.
    # An op starting work beside the step (a collective) runs as soon as it can.
    prim = op.primitive
    return (prim.updates_variable or bool(prim.in_place), (not prim.starts_early, op._id), op)


def _predecessors(
    op: Operation, needed: Container[Operation], fed: Container[Tensor], inputs_of: InputsOf = _own_inputs
) -> set[Operation]:
    ps = {t.op for t in inputs_of(op) if t not in fed} | set(op.control_inputs)
    return {p for p in ps if p in needed}


def _shared_inputs(order: Sequence[Operation], device_of: dict[Operation, str]) -> list[str]:
    """The queues and initializable iterators a step with ops on ``/job:worker`` (no task)
    reads; where there are any, those ops run on ``/job:worker/task:0``, as TF1 places a
    device that names no task, not as one replica per worker task.

    Such a resource is one that other runs fill or set (a feeding thread's enqueues, a
    ``QueueRunner``'s, an iterator's initializer, planned without replicas): one replica
    per worker task would each read one of their own, which nothing fills (the run waited
    for ever) or initializes (``FailedPreconditionError``)."""
    if not any(is_replica_device(d) for d in device_of.values()):
        return []
    return [op.name for op in order if op.primitive.shared_resource]


def _runs_on(op: Operation, soft_placement: bool) -> str:
    """The device ``op`` runs on: its own, but a GPU's task's CPU for an op with no device
    kernel (strings, Python functions, input pipelines), as TF1's soft placement does."""
    device = op.device
    if not op.primitive.host_only or "device:GPU" not in device:
        return device
    if not soft_placement:
        raise InvalidArgumentError(
            op.node_def,
            op,
            f"Cannot assign a device for operation {op.name}: Could not satisfy explicit device "
            f"specification '{device}' because no supported kernel for GPU devices is available "
            f"({op.type} runs on the host; set allow_soft_placement=True to place it on the CPU)",
        )
    spec = DeviceSpec.from_string(device)
    return DeviceSpec(spec.job, spec.replica, spec.task, "CPU", 0).to_string()


def _partition(
    order: list[Operation],
    fed: Container[Tensor],
    device_of: dict[Operation, str],
    inputs_of: InputsOf,
    heavy: Heavy | None = None,
    folded: Container[Tensor] = (),
    bucket_bytes: int | None = None,
) -> tuple[list[Partition], dict[Operation, Partition]]:
    """Group ops by (device, stage): a stage after every input made on another device,
    except a folded constant (in ``folded``), which the reader's program holds.

    Variable nodes join no partition: every partition that reads a variable
    takes its value from the session's store directly (on a cluster, the
    variable's future), so reading a parameter costs no extra stage.
    ``heavy(ops, inputs_of)``, where given, says which stages are worth
    running as soon as they can (see :func:`_merge_feeders`). ``bucket_bytes``,
    where given, cuts a stage after each bucket of values it sends to other
    devices (:mod:`.buckets`): a cut piece is one more stage.
    """
    # Device strings naming one place (``/job:w/task:0`` and ``/job:w/replica:0/task:0``)
    # share a label, hence a partition key: one partition.
    place = {op: device_label(device_of[op]) for op in order}
    stage_of = _stages(order, fed, inputs_of, place, folded)
    after: dict[Operation, Operation] = {}  # an op of a cut piece -> the last op of the piece before
    if bucket_bytes:
        after = _cuts(order, fed, inputs_of, place, folded, stage_of, bucket_bytes)
    if after:
        order = _schedule(set(order), fed, inputs_of, after)
        stage_of = _stages(order, fed, inputs_of, place, folded, after)
    partitions: dict[tuple[str, int], Partition] = {}
    partition_of: dict[Operation, Partition] = {}
    readers: dict[Partition, set[Partition]] = {}  # partition -> the other partitions reading its values
    for op in order:
        if op.primitive.is_variable:
            continue
        key = (place[op], stage_of[op])
        part = partitions.get(key)
        if part is None:
            part = partitions[key] = Partition(device_of[op], stage_of[op])
        part.ops.append(op)
        partition_of[op] = part
        for p in _predecessors(op, stage_of, fed, inputs_of):
            if p in partition_of and partition_of[p] is not part:
                readers.setdefault(partition_of[p], set()).add(part)
    # A partition reading a piece cut early runs as soon as it has it, not with a later stage.
    early = {partition_of[op] for op in after.values()}
    apart = {r for part in early for r in readers.get(part, ()) if r.device != part.device}
    kept = _merge_feeders(list(partitions.values()), readers, partition_of, order, heavy, inputs_of, apart)
    for op, previous in after.items():
        if partition_of[op] is not partition_of[previous]:
            partition_of[op].continues = partition_of[previous].key
    ordered = sorted(kept, key=lambda p: (p.stage, min(o._id for o in p.ops)))
    return ordered, partition_of


def _stages(
    order: list[Operation],
    fed: Container[Tensor],
    inputs_of: InputsOf,
    place: dict[Operation, str],
    folded: Container[Tensor],
    after: dict[Operation, Operation] | None = None,
) -> dict[Operation, int]:
    """Each op's stage: its inputs' latest, one more for an input made in another place
    (or for an op that must follow the end of a piece cut before it, ``after``)."""
    stage_of: dict[Operation, int] = {}
    for op in order:
        stage = 0
        if not op.primitive.is_variable:
            for p in _predecessors(op, stage_of, fed, inputs_of):
                stage = max(stage, stage_of[p] + _crosses(p, op, place, folded))
            if after and op in after:
                stage = max(stage, stage_of[after[op]] + 1)
        stage_of[op] = stage
    return stage_of


def _cuts(
    order: list[Operation],
    fed: Container[Tensor],
    inputs_of: InputsOf,
    place: dict[Operation, str],
    folded: Container[Tensor],
    stage_of: dict[Operation, int],
    bucket_bytes: int,
) -> dict[Operation, Operation]:
    """Where to cut each stage after a bucket of values it sends elsewhere
    (:func:`.buckets.pieces`): each op of a piece after the first -> the last op of the
    piece before it."""
    groups: dict[tuple[str, int], list[Operation]] = {}
    sizes: dict[Operation, int] = {}
    sent: set[Tensor] = set()
    for op in order:
        if op.primitive.is_variable:
            continue
        groups.setdefault((place[op], stage_of[op]), []).append(op)
        for t in inputs_of(op):
            if t in fed or t in folded or t in sent or t.op not in stage_of:
                continue
            if _crosses(t.op, op, place, folded):
                sent.add(t)
                sizes[t.op] = sizes.get(t.op, 0) + buckets.nbytes(t)
    after: dict[Operation, Operation] = {}
    for ops in groups.values():
        cut = buckets.pieces(_exports_first(ops, sizes, fed, inputs_of), sizes, bucket_bytes)
        for previous, piece in zip(cut, cut[1:]):
            after.update((op, previous[-1]) for op in piece)
    return after


def _exports_first(
    ops: list[Operation], sizes: dict[Operation, int], fed: Container[Tensor], inputs_of: InputsOf
) -> list[Operation]:
    """One stage's ops in the order that makes each export as early as its inputs allow
    (:func:`.buckets.due`), reads still before updates."""
    members = set(ops)
    due = buckets.due(ops, sizes, lambda op: _predecessors(op, members, fed, inputs_of))
    return _schedule(members, fed, inputs_of, rank=lambda op: (_rank(op)[0], (due[op], op._id), op))


def _crosses(p: Operation, op: Operation, place: dict[Operation, str], folded: Container[Tensor]) -> bool:
    """Whether ``op`` reading ``p`` waits for another place: a new stage."""
    return not p.primitive.is_variable and place[p] != place[op] and not _held(p, folded)


def _held(op: Operation, folded: Container[Tensor]) -> bool:
    """Whether every output of ``op`` is a folded constant: nothing to wait for."""
    return bool(op.outputs) and all(t in folded for t in op.outputs)


def _merge_feeders(
    partitions: list[Partition],
    readers: dict[Partition, set[Partition]],
    partition_of: dict[Operation, Partition],
    order: list[Operation],
    heavy: Heavy | None = None,
    inputs_of: InputsOf = _own_inputs,
    apart: Container[Partition] = (),
) -> list[Partition]:
    """Run a partition as part of the later one of its device that alone reads it;
    returns the partitions left.

    Stages split a device's ops wherever a path crosses devices, so the ops
    that need nothing from elsewhere (constants, shapes, a variable's
    transpose) become a stage of their own: one more task per step and one
    more hop, on every replica; so does an input pipeline built outside the
    replicas' device scope. When only a later stage of the same device (or of
    the same replica) reads that stage, nothing else waits for it, so the two
    run as one. Partitions are looked at latest first, so a chain of them
    folds into one. But the later stage waits for its inputs from elsewhere
    before it runs anything: with cost placement, a stage whose estimated
    compute time is ``heavy`` (more than a hop between workers) keeps its
    own task, so it runs while the other devices do; so does a partition in
    ``apart``.
    """
    replicating = any(is_replica_device(p.device) for p in partitions)
    into: dict[Partition, Partition] = {}  # partition -> the partition it was merged into
    for part in sorted(partitions, key=lambda p: -p.stage):
        if part in apart:
            continue
        target, targets = _only_reader(part, readers, into)
        if target is not None and all(_one_place(part.device, t.device, replicating) for t in targets):
            if heavy is None or not heavy(part.ops, inputs_of):
                into[part] = target
    if not into:
        return partitions
    kept = [p for p in partitions if p not in into]
    for part in kept:
        part.ops = []
    for op in order:
        if op in partition_of:
            partition_of[op] = _final(into, partition_of[op])
            partition_of[op].ops.append(op)
    return kept


def _only_reader(
    part: Partition, readers: dict[Partition, set[Partition]], into: dict[Partition, Partition]
) -> tuple[Partition | None, list[Partition]]:
    """(The partition that alone reads ``part``, or the earliest of its readers where each
    other one reads that one (a partition cut in pieces: :mod:`.buckets`), else None;
    its readers)."""
    targets = sorted({_final(into, r) for r in readers.get(part, ())}, key=lambda p: p.stage)
    if not targets:
        return None, targets
    first = targets[0]
    read = {_final(into, r) for src, rs in readers.items() if _final(into, src) is first for r in rs}
    return (first if all(t in read for t in targets[1:]) else None), targets


def _one_place(a: str, b: str, replicating: bool) -> bool:
    """Whether devices ``a`` and ``b`` run in one task: the same device or, in a plan that
    replicates, two replicated devices each replica pins to the same one (no device and
    ``/job:worker``; see :mod:`.replication`)."""
    if device_label(a) == device_label(b):  # one place, maybe named two ways
        return True
    replicated = all(not d or is_replica_device(d) for d in (a, b))
    return replicating and replicated and replica_device(a, 0) == replica_device(b, 0)


def _final(into: dict[Partition, Partition], part: Partition) -> Partition:
    while part in into:
        part = into[part]
    return part
