"""What a traced cluster step measured, as cost placement takes it
(:meth:`.cost_placement.CostPlacer.observe`): each op's time on its worker, the link
between workers, and the ops a plan's rewrites took into others."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Protocol

from .cost_placement import LINK_LATENCY

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ...framework.graph import Operation, Tensor
    from .partition import Plan


class TimedPartition(Protocol):
    """A traced partition instance's record as :func:`op_seconds` and :func:`link_rates`
    read it (the client's ``PartitionTimes``): ``ops`` holds one entry per op run (its
    ``index``, ``start``, ``end``, ``outputs``), ``computes`` ``(start, end, thread)`` per
    call of its program."""

    partition: str
    replica: int | None
    address: str
    computes: list
    ops: list


LINK_SAMPLE_BYTES = 1 << 18  # hops carrying at least this much time the link's speed; the rest, its latency


def absorbed(plan: Plan) -> set[Operation]:
    """Ops the fetches need that ``plan``'s rewrites took into others (a fused chain's
    inner ops, a common subexpression's duplicates): they run in no partition of it, so
    their measured cost is nothing (their readers' measurements include them)."""
    ran, fed = set(plan.ops), set(plan.feeds)
    found: set = set()
    stack = [t for op in plan.ops for t in op.inputs]
    while stack:
        t = stack.pop()
        op = t.op
        if op in ran or op in found or t in fed or op.primitive.is_variable or op.primitive.is_placeholder:
            continue
        found.add(op)
        stack.extend(op.inputs)
    return found


def op_seconds(records: Iterable[TimedPartition], ops: Sequence[Operation]) -> dict[Operation, float]:
    """``{op: seconds}`` from a traced cluster step's partition ``records``
    (:class:`...client.step_stats.PartitionTimes`; ``ops``: the ops their entries index):
    the median of each op's runs (replicas, rounds)."""
    runs: dict = {}
    for record in records:
        for entry in record.ops:
            runs.setdefault(ops[entry.index], []).append((entry.end - entry.start) / 1e9)
    return {op: statistics.median(times) for op, times in runs.items()}


def link_rates(
    records: Iterable[TimedPartition], plan: Plan, ops: Sequence[Operation]
) -> tuple[float | None, float | None]:
    """``(latency, bytes per second)`` of the hops a traced step's ``records`` show, each
    None where no hop tells it.

    A hop: a partition instance (no replica, one round) whose latest-ending producer ran
    on another worker; it took from that producer's end to the consumer's start (none
    where that is not positive: hosts' clocks differ), carrying the
    bytes the worker described of the producer's tensors the consumer reads. Hops of
    fewer than :data:`LINK_SAMPLE_BYTES` time the latency (their median); the others, the
    speed: their bytes over their time less the latency (measured, else the default).
    """
    made: dict[str, TimedPartition] = {}  # partition key -> its record
    sizes: dict[Tensor, int] = {}  # tensor -> bytes
    for record in records:
        if record.replica is None and len(record.computes) == 1:  # one round: not steps_per_run
            made[record.partition] = record
            for entry in record.ops:
                op = ops[entry.index]
                for out, described in zip(op.outputs, entry.outputs):
                    sizes[out] = described.nbytes or 0
    key_of = {op: part.key for op, part in plan.partition_of.items()}
    hops = [hop for record in made.values() if (hop := _hop(record, made, sizes, plan, key_of)) is not None]
    small = [seconds for n, seconds in hops if n < LINK_SAMPLE_BYTES]
    latency = statistics.median(small) if small else None
    big = [(n, seconds - (latency or LINK_LATENCY)) for n, seconds in hops if n >= LINK_SAMPLE_BYTES]
    big = [(n, moving) for n, moving in big if moving > 0]
    speed = sum(n for n, _ in big) / sum(moving for _, moving in big) if big else None
    return latency, speed


def _hop(
    record: TimedPartition,
    made: dict[str, TimedPartition],
    sizes: dict[Tensor, int],
    plan: Plan,
    key_of: dict[Operation, str],
) -> tuple[int, float] | None:
    """``(bytes, seconds)`` of ``record``'s wait for its latest producer on another worker."""
    mine = [op for op, key in key_of.items() if key == record.partition]
    reads = [
        t for op in mine for t in plan.inputs_of(op) if key_of.get(t.op, record.partition) != record.partition
    ]
    producers = {key_of[t.op] for t in reads} & set(made)
    if not producers:
        return None
    last = max(producers, key=lambda key: made[key].computes[-1][1])
    if made[last].address == record.address:
        return None
    waited = record.computes[0][0] - made[last].computes[-1][1]
    if waited <= 0:  # two hosts' clocks disagreeing: no measurement
        return None
    nbytes = sum(sizes.get(t, 0) for t in set(reads) if key_of[t.op] == last)
    return nbytes, waited / 1e9
