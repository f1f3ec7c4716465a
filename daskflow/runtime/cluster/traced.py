"""Traced steps of a cluster session, and the cost placer that learns from them.

A traced step's tasks note each op's start and end on their workers
(:class:`..worker.programs.TracedPrograms`); the notes are gathered into a
``StepStats`` (TF1's ``RunMetadata.step_stats``). With
``ConfigProto(placement="cost")`` the same notes give the cost placer measured
op and link times: some steps are traced for it alone (``Executable.next_profile``),
and when what it measured places the graph anew, the session's plans it made
stale are dropped and planned again.
"""

from __future__ import annotations

import uuid

from ...client.step_stats import add_partition_stats, device_name
from ..plan.cost_placement import DEFAULT_ROWS, CostPlacer
from ..plan.measured_costs import absorbed, link_rates, op_seconds
from ..worker.programs import take_trace


def traced_step(runtime, executable, feed_values, stats, steps=1):
    """Run ``steps`` steps on ``runtime`` (a ``ClusterRuntime``), their tasks noting their
    times on their workers; gather the notes into ``stats``; the fetched values."""
    runtime.trace_ops(executable)
    executable.trace = token = uuid.uuid4().hex  # the step's tasks carry it (cluster/step_tasks.py)
    try:
        results = runtime.step(executable, feed_values, steps)
        runtime.sync_dispatched()  # a step dispatched asynchronously: its tasks have noted their times
    finally:
        executable.trace = None
    records = [r for found in runtime.client.run(take_trace, token).values() for r in found]
    workers = {w.address: w for w in runtime.workers()}
    devices = {p.key: p.device for p in executable.plan.partitions}

    def device_of(address, partition):
        worker = workers.get(address)
        return address if worker is None else device_name(worker.job, worker.task, devices[partition])

    reads = {p.key: list(p.reads) for p in executable.programs}
    ops = {key: _op_names(lines) for key, lines in executable.line_ops.items()}
    add_partition_stats(stats, records, device_of, reads, ops, executable.traced_sources()[1])
    if runtime.cost is not None:
        runtime.cost.observe(executable, records, feed_values)
    return results


class CostPlacement:
    """A cluster session's cost placer (``ConfigProto(placement="cost")``).

    Parameters
    ----------
    runtime : ClusterRuntime
        Asked for the devices to place on and where the variables live; its
        ``signatures`` are the session's plans, and its ``forget`` takes a
        stale plan off the workers.
    """

    def __init__(self, runtime):
        self.runtime = runtime
        self.placer = None  # made on the first plan: the cluster's devices are asked then

    def for_plan(self, feed_dict):
        """The placer, told the fed batch's rows and where the variables live."""
        if self.placer is None:
            self.placer = CostPlacer(self.runtime.compute_devices(), batch=DEFAULT_ROWS)
        rows = batch_rows(feed_dict.values())
        if rows:
            self.placer.batch = rows
        self.placer.homes = self.runtime.variable_devices()
        return self.placer

    def observe(self, executable, records, feed_values):
        """Give a traced step's op and link times to the placer; when it places the graph
        anew, plan again every signature it placed (their old plans leave the workers)."""
        if not executable.plan.reasons:
            return
        ops = executable.traced_sources()[1]
        seconds = {**dict.fromkeys(absorbed(executable.plan), 0.0), **op_seconds(records, ops)}
        link = link_rates(records, executable.plan, ops)
        signatures = self.runtime.signatures
        if not self.placer.observe(seconds, link, batch_rows(feed_values)):
            placed, reasons = self.placer.graph_placement(self.runtime.graph)
            for _, kept, _ in signatures.values():  # why, from what was measured, where the same
                plan = kept.plan
                plan.reasons = {
                    op: reasons[op] if placed.get(op) == plan.device_of(op) and op in reasons else why
                    for op, why in plan.reasons.items()
                }
            return
        for key, (_, stale, _) in list(signatures.items()):
            if stale.plan.reasons:
                del signatures[key]
                self.runtime.forget(stale)


def batch_rows(values):
    """The rows of the first fed array (what an unknown dimension is, to cost placement), or None."""
    rows = [len(v) for v in values if getattr(v, "ndim", 0) or isinstance(v, list)]
    return rows[0] if rows else None


def _op_names(line_ops) -> list:
    """The names of a partition's ops, in program order, each once."""
    return list(dict.fromkeys(op.name for _, op in sorted(line_ops.items())))
