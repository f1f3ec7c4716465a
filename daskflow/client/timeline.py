"""A traced step as a Chrome trace (TF1's ``tensorflow.python.client.timeline``).

:class:`Timeline` turns a ``StepStats`` (``run_metadata.step_stats`` of a
run with ``RunOptions(trace_level=FULL_TRACE)``) into the JSON that
``chrome://tracing`` and Perfetto load, laid out as TF1 lays it out:

- a process ``Allocators`` (pid 0), then per device a process
  ``<device> Compute`` for its ops and ``<device> Tensors`` for its tensors;
- in each Compute process, lanes (``tid``) such that no two events of a lane
  overlap, taken in the order the device's stats list them;
- one complete event (``"ph": "X"``, category ``Op``) per ``NodeExecStats``,
  named after the op's type, with ``args`` ``name`` (the node), ``op`` and
  ``input0``, ``input1``... (from its ``timeline_label``, ``name =
  Type(input, ...)``); a cluster partition's event is named after the
  partition, and its ``args`` also list its ``ops``;
- with ``show_dataflow``, a flow (``"s"`` then ``"t"``, category
  ``DataFlow``) from each output to each reader of it on another lane or device;
- with ``show_memory``, each output's lifetime as an object (``"N"``, ``"O"``
  snapshot, ``"D"``) and each allocator's bytes in use as a counter (``"C"``).

Times are the stats' microseconds since the epoch.
"""

from __future__ import annotations

import collections
import json
import re

__all__ = ["AllocationMaximum", "StepStatsAnalysis", "Timeline"]

# ``name = Type(input, input) [op, op]``: TF's label, and a partition's ops after it.
_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")
_OPS = re.compile(r"\) \[(.*)\]$")

AllocationMaximum = collections.namedtuple("AllocationMaximum", ("timestamp", "num_bytes", "tensors"))
AllocationMaximum.__doc__ = (
    """The most bytes an allocator held during the step: when, how many, which tensors."""
)

StepStatsAnalysis = collections.namedtuple("StepStatsAnalysis", ("chrome_trace", "allocator_maximums"))
StepStatsAnalysis.__doc__ = (
    """A step's trace (``chrome_trace.format_to_string()``) and its allocators' maximums."""
)


class _ChromeTrace:
    """The events of a Chrome trace, metadata first."""

    def __init__(self):
        self.metadata, self.events = [], []

    def process(self, name, pid):
        self.metadata.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})

    def event(self, ph, category, name, pid, tid, timestamp, **fields):
        self.events.append(
            {"ph": ph, "cat": category, "name": name, "pid": pid, "tid": tid, "ts": timestamp, **fields}
        )

    def format_to_string(self, pretty=False) -> str:
        """The trace as JSON: ``{"traceEvents": [...]}``."""
        trace = {"traceEvents": self.metadata + self.events}
        if pretty:
            return json.dumps(trace, indent=4, separators=(",", ": "))
        return json.dumps(trace, separators=(",", ":"))


class _Tensor:
    """An output: where and when it was made, its bytes, and when it was last read."""

    def __init__(self, object_id, pid, created, allocator, num_bytes):
        self.object_id, self.pid, self.created = object_id, pid, created
        self.allocator, self.num_bytes = allocator, num_bytes
        self.last_read = created


class Timeline:
    """A step's timings for ``chrome://tracing``.

    Parameters
    ----------
    step_stats : StepStats
        ``run_metadata.step_stats`` of a traced run (TF's ``StepStats`` works too).
    graph : Graph, optional
        Accepted for TF1's signature; not needed.

    Examples
    --------
    >>> import json
    >>> import daskflow as tf
    >>> from daskflow.client import timeline
    >>> x = tf.placeholder(tf.float32, [2], name="x")
    >>> y = tf.square(x, name="y")
    >>> meta = tf.RunMetadata()
    >>> with tf.Session() as sess:
    ...     _ = sess.run(y, {x: [1.0, 2.0]}, options=tf.RunOptions(trace_level=3), run_metadata=meta)
    >>> trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format())
    >>> [e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "X"] == [y.op.name]
    True
    """

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False, op_time="schedule") -> str:
        """The step as Chrome trace JSON (indented, as TF1 writes it).

        Parameters
        ----------
        show_dataflow : bool
            Add flow arrows from each output to its readers on other lanes.
        show_memory : bool
            Add each output's lifetime and each allocator's bytes in use.
        op_time : {"schedule", "gpu", "all"}
            TF1's choice of which GPU kernel times an op's event spans; the
            stats daskflow records have no GPU kernels, so all three draw
            the ops as the stats time them.
        """
        analysis = self.analyze_step_stats(show_dataflow, show_memory, op_time)
        return analysis.chrome_trace.format_to_string(pretty=True)

    def analyze_step_stats(
        self, show_dataflow=True, show_memory=True, op_time="schedule"
    ) -> StepStatsAnalysis:
        """The trace and, with ``show_memory``, each allocator's :class:`AllocationMaximum`."""
        trace = _ChromeTrace()
        trace.process("Allocators", 0)
        devices = []  # (device stats, compute pid, tensors pid, lane of each node)
        for stats in self._step_stats.dev_stats:
            pid = 1 + 2 * len(devices)
            trace.process(f"{stats.device} Compute", pid)
            trace.process(f"{stats.device} Tensors", pid + 1)
            devices.append((stats, pid, pid + 1, _lanes(stats.node_stats)))
        tensors, made = {}, {}  # name -> _Tensor; name -> (time, pid, tid) it was made
        for stats, pid, tensors_pid, lanes in devices:
            for node, tid in zip(stats.node_stats, lanes):
                self._outputs(trace, node, pid, tid, tensors_pid, tensors, made, show_memory)
        flows = 0
        for stats, pid, _, lanes in devices:
            for node, tid in zip(stats.node_stats, lanes):
                if node.node_name == "RecvTensor":  # TF's RPC trace: no TF label
                    op, inputs, ops = "RecvTensor", [], ""
                else:
                    _, op, inputs, ops = _parse(node.timeline_label)
                args = {"name": node.node_name, "op": op}
                args.update((f"input{i}", name) for i, name in enumerate(inputs))
                if ops:
                    args["ops"] = ops
                start, end = node.all_start_micros, node.all_start_micros + node.all_end_rel_micros
                trace.event("X", "Op", op, pid, tid, start, dur=node.all_end_rel_micros, args=args)
                for name in inputs:
                    if name not in tensors and name.rfind("/_") > 0:  # a Send/Recv's suffix, as TF1 strips it
                        name = name[: name.rfind("/_")]
                    if name not in tensors:
                        continue  # a control input, or a value fed or folded: no producer traced
                    tensors[name].last_read = max(tensors[name].last_read, end - 1)
                    made_at, made_pid, made_tid = made[name]
                    if show_dataflow and (made_pid, made_tid) != (pid, tid):
                        trace.event("s", "DataFlow", name, made_pid, made_tid, made_at, id=flows)
                        trace.event("t", "DataFlow", name, pid, tid, start, id=flows)
                        flows += 1
        maximums = _memory(trace, tensors) if show_memory else {}
        return StepStatsAnalysis(chrome_trace=trace, allocator_maximums=maximums)

    @staticmethod
    def _outputs(trace, node, pid, tid, tensors_pid, tensors, made, show_memory):
        """Note ``node``'s outputs as tensors (output 0 is named after the node, k after ``node:k``)."""
        start, end = node.all_start_micros, node.all_start_micros + node.all_end_rel_micros
        for index, output in enumerate(node.output):
            name = node.node_name if index == 0 else f"{node.node_name}:{index}"
            allocation = output.tensor_description.allocation_description
            tensor = _Tensor(
                len(tensors), tensors_pid, start, allocation.allocator_name, allocation.requested_bytes
            )
            tensor.last_read = end
            tensors[name], made[name] = tensor, (end, pid, tid)
            if show_memory:
                trace.event("N", "Tensor", name, tensors_pid, tid, start, id=tensor.object_id)
                snapshot = {"tensor_description": str(output.tensor_description).replace('"', "")}
                trace.event(
                    "O",
                    "Tensor",
                    name,
                    tensors_pid,
                    tid,
                    end - 1,
                    id=tensor.object_id,
                    args={"snapshot": snapshot},
                )


def _parse(label):
    """``(name, op, inputs, ops)`` of a ``timeline_label``; ``unknown`` where it is not TF's form."""
    match = _LABEL.match(label)
    if match is None:
        return "unknown", "unknown", [], ""
    name, op, inputs = match.groups()
    ops = _OPS.search(label)
    return name, op, inputs.split(", ") if inputs else [], ops.group(1) if ops else ""


def _lanes(nodes) -> list:
    """A lane per node, in order: the first whose last event ended before the node starts."""
    ends, lanes = [0], []
    for node in nodes:
        start = node.all_start_micros
        lane = next((i for i, end in enumerate(ends) if start > end), len(ends))
        if lane == len(ends):
            ends.append(0)
        ends[lane] = start + node.all_end_rel_micros
        lanes.append(lane)
    return lanes


def _memory(trace, tensors) -> dict:
    """Delete events and per-allocator counters (pid 0); each allocator's maximum."""
    changes = collections.defaultdict(list)  # allocator -> (time, bytes, tensor name)
    for name, tensor in tensors.items():
        trace.event("D", "Tensor", name, tensor.pid, 0, tensor.last_read, id=tensor.object_id)
        changes[tensor.allocator] += [
            (tensor.created, tensor.num_bytes, name),
            (tensor.last_read, -tensor.num_bytes, name),
        ]
    maximums = {}
    for allocator, steps in changes.items():
        total, live = 0, set()
        maximums[allocator] = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
        for when, num_bytes, name in sorted(steps):  # at one time, frees first
            total += num_bytes
            (live.discard if num_bytes < 0 else live.add)(name)
            if total > maximums[allocator].num_bytes:
                maximums[allocator] = AllocationMaximum(timestamp=when, num_bytes=total, tensors=set(live))
            trace.event("C", "Memory", allocator, 0, 0, when, args={allocator: total})
    return maximums
