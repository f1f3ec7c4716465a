"""Filling TF1's ``StepStats`` from the times a traced step noted.

Times are TF's: ``all_start_micros`` in microseconds since the epoch, the
other times relative to it, in microseconds and (the ``*_nanos`` fields) in
nanoseconds. ``timeline_label`` is ``name = Type(input, input)``, inputs
named as in a ``GraphDef`` (``op``, ``op:1``, ``^op`` for a control input),
which :class:`.timeline.Timeline` (TF's too) reads.

- Embedded, one ``NodeExecStats`` per op, on the one local CPU device; each
  output is described (slot, dtype, shape, bytes) as TF does.
- On a cluster, one per partition instance, on the worker that ran it:
  ``all_start`` when its task started there, ``op_start`` and ``op_end``
  around its computation (the first and last, for a partition that applies
  replicas' results one by one); waiting for inputs is the time between.
  Its label is ``instance = partition(producer, ...) [op, op, ...]``: TF's
  form, with the partition's ops after it. Then one per op it ran, as
  embedded, timed on the worker by the traced variant of its program
  (:class:`OpTimes`), which a worker joining later gets too (it is a
  registered worker plugin).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..framework.device_spec import DeviceSpec

LOCAL_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
ALLOCATOR = "cpu"  # the name of TF's CPU allocator


@dataclass(frozen=True)
class PartitionTimes:
    """What a worker noted of one partition instance in a traced step (times in ns)."""

    instance: str  # the partition, or ``partition/replica``
    partition: str
    replica: int | None
    address: str  # the worker's
    start: int  # when its task started there
    computes: list  # (start, end, native thread id) of each call of its program
    ops: tuple = ()  # OpTimes of each op run, where the worker ran the traced variant


@dataclass(frozen=True)
class OpTimes:
    """One op run in a traced cluster step: ``index`` into the plan's traced ops, its start
    and end (ns), and its outputs described (:class:`Described`), not their values."""

    index: int
    start: int
    end: int
    outputs: tuple


@dataclass(frozen=True)
class Described:
    """A value's shape and bytes, which is all a ``TensorDescription`` keeps of it."""

    shape: tuple | None
    nbytes: int | None

    @classmethod
    def of(cls, value) -> Described:
        shape, nbytes = getattr(value, "shape", None), getattr(value, "nbytes", None)
        return cls(
            tuple(int(d) for d in shape) if isinstance(shape, tuple) else None,
            int(nbytes) if isinstance(nbytes, (int, np.integer)) else None,
        )


def device_name(job: str, task: int, device: str = "") -> str:
    """TF's full name of ``device`` (a partition's device string) on task ``job``/``task``.

    Examples
    --------
    >>> device_name("worker", 1, "/job:worker/device:GPU:0")
    '/job:worker/replica:0/task:1/device:GPU:0'
    >>> device_name("ps", 0)
    '/job:ps/replica:0/task:0/device:CPU:0'
    """
    spec = DeviceSpec.from_string(device)
    kind = spec.device_type or "CPU"
    return f"/job:{job}/replica:0/task:{task}/device:{kind}:{spec.device_index or 0}"


def op_label(op) -> str:
    """TF's ``timeline_label`` of ``op``: ``name = Type(input, ..., ^control)``."""
    inputs = [t.op.name if t.value_index == 0 else t.name for t in op.inputs]
    inputs += [f"^{c.name}" for c in op.control_inputs]
    return f"{op.name} = {op.type}({', '.join(inputs)})"


def add_op_stats(stats, entries, thread_id: int):
    """Add ``entries`` = ``[(op, start ns, end ns, output values)]`` as the local CPU's ops.

    A step that ran no op (everything folded or fed) adds no device.
    """
    device = _device(stats, LOCAL_DEVICE) if entries else None
    for op, start, end, outputs in entries:
        node = _node(device, op.name, op_label(op), start, start, end, end, thread_id)
        for slot, value in enumerate(outputs):
            _describe(node.output.add(slot=slot).tensor_description, op.outputs[slot], value)


def add_partition_stats(stats, records, device_of, reads, ops, traced_ops=()):
    """Add a cluster step's partition ``records`` (from the workers) to ``stats``.

    ``records``: :class:`PartitionTimes` of each partition instance;
    ``device_of(address, partition)``: its device's name; ``reads[partition]``:
    the partitions whose results it reads; ``ops[partition]``: the names of
    its ops; ``traced_ops``: the ops the records' :class:`OpTimes` index.
    """
    ordered = sorted(records, key=lambda r: r.start)
    latest = {r.instance: r for r in ordered}  # a step run again after a recovery: its last run
    instances = {}  # partition -> {replica: instance}
    for r in latest.values():
        instances.setdefault(r.partition, {})[r.replica] = r.instance
    for r in latest.values():
        device = _device(stats, device_of(r.address, r.partition))
        first = r.computes[0][0] if r.computes else r.start
        last = r.computes[-1][1] if r.computes else r.start
        thread = r.computes[-1][2] if r.computes else 0
        inputs = ", ".join(_producers(instances, reads.get(r.partition, ()), r.replica))
        label = f"{r.instance} = {r.partition}({inputs}) [{', '.join(ops.get(r.partition, ()))}]"
        node = _node(device, r.instance, label, r.start, first, last, last, thread)
        node.output.add(slot=0)  # its results, which the partitions reading it take
        for t in r.ops:
            op = traced_ops[t.index]
            node = _node(device, op.name, op_label(op), t.start, t.start, t.end, t.end, thread)
            for slot, value in enumerate(t.outputs):
                _describe(node.output.add(slot=slot).tensor_description, op.outputs[slot], value)


def _producers(instances, producers, replica):
    """The instances of ``producers`` that replica ``replica`` (None: not one) read from."""
    found = []
    for producer in producers:
        made = instances.get(producer, {})
        if replica is not None and replica in made:  # replica r of one stage reads replica r of another
            found.append(made[replica])
        else:
            found.extend(made[r] for r in sorted(made, key=lambda r: -1 if r is None else r))
    return found


def _device(stats, name):
    for device in stats.dev_stats:
        if device.device == name:
            return device
    return stats.dev_stats.add(device=name)


def _node(device, name, label, start, op_start, op_end, end, thread):
    start_us = start // 1000
    return device.node_stats.add(
        node_name=name,
        timeline_label=label,
        all_start_micros=start_us,
        op_start_rel_micros=op_start // 1000 - start_us,
        op_end_rel_micros=op_end // 1000 - start_us,
        all_end_rel_micros=end // 1000 - start_us,
        all_start_nanos=start,
        op_start_rel_nanos=op_start - start,
        op_end_rel_nanos=op_end - start,
        all_end_rel_nanos=end - start,
        scheduled_micros=start_us,
        scheduled_nanos=start,
        thread_id=thread & 0xFFFFFFFF,
    )


def _describe(description, tensor, value):
    """TF's ``TensorDescription`` of ``value``, the step's value of ``tensor``."""
    description.dtype = tensor.dtype.as_datatype_enum
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        for size in shape:
            description.shape.dim.add(size=int(size))
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        allocation = description.allocation_description
        allocation.requested_bytes = allocation.allocated_bytes = nbytes
        allocation.allocator_name = ALLOCATOR
