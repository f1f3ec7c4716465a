"""TF1-on-TF2 switches that scripts call after ``import tensorflow.compat.v1 as tf``.

Such a script runs unchanged with ``import daskflow as tf``: daskflow *is*
TF1's graph mode, so every ``disable_*`` switch is already in the state it
asks for and does nothing, and eager execution is refused with a clear error.
:class:`RunOptions` and :class:`RunMetadata` exist so that
``Session.run(options=..., run_metadata=...)`` calls keep working; no trace
is recorded, so ``run_metadata.step_stats`` stays empty.
"""

from __future__ import annotations

__all__ = [
    "RunMetadata",
    "RunOptions",
    "disable_control_flow_v2",
    "disable_eager_execution",
    "disable_resource_variables",
    "disable_v2_behavior",
    "disable_v2_tensorshape",
    "enable_eager_execution",
    "enable_resource_variables",
    "executing_eagerly",
]


def disable_v2_behavior():
    """No-op: daskflow always behaves as TF1."""


def disable_eager_execution():
    """No-op: daskflow always builds graphs."""


def disable_control_flow_v2():
    """No-op: daskflow has one control flow."""


def disable_resource_variables():
    """No-op: daskflow has one kind of variable."""


def enable_resource_variables():
    """No-op: daskflow has one kind of variable."""


def disable_v2_tensorshape():
    """No-op: ``TensorShape`` dims are already plain ints (or None)."""


def executing_eagerly():
    """Always False: ops build a graph that a ``Session`` runs.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.executing_eagerly()
    False
    """
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Refused: daskflow runs graphs in a ``Session``; there is no eager mode."""
    raise ValueError(
        "enable_eager_execution: daskflow runs TF1 graphs in a tf.Session and has no eager mode; "
        "remove the call (or call tf.disable_eager_execution(), which is a no-op)"
    )


class RunOptions:
    """TF1's ``RunOptions``: accepted by ``Session.run(options=...)``; tracing is not recorded.

    Examples
    --------
    >>> import daskflow as tf
    >>> opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    >>> opts.trace_level
    3
    """

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    _TRACE_LEVELS = {0: "NO_TRACE", 1: "SOFTWARE_TRACE", 2: "HARDWARE_TRACE", 3: "FULL_TRACE"}

    def __init__(
        self,
        trace_level=NO_TRACE,
        timeout_in_ms=0,
        inter_op_thread_pool=0,
        output_partition_graphs=False,
        debug_options=None,
        report_tensor_allocations_upon_oom=False,
    ):
        if isinstance(trace_level, str):
            names = {v: k for k, v in self._TRACE_LEVELS.items()}
            if trace_level not in names:
                raise ValueError(f"RunOptions: unknown trace_level {trace_level!r}")
            trace_level = names[trace_level]
        if trace_level not in self._TRACE_LEVELS:
            raise ValueError(f"RunOptions: unknown trace_level {trace_level!r}")
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms
        self.inter_op_thread_pool = inter_op_thread_pool
        self.output_partition_graphs = output_partition_graphs
        self.debug_options = debug_options
        self.report_tensor_allocations_upon_oom = report_tensor_allocations_upon_oom

    def __repr__(self):
        return f"RunOptions(trace_level={self._TRACE_LEVELS[self.trace_level]})"


class _StepStats:
    """An empty ``StepStats``: no per-device timings are recorded."""

    def __init__(self):
        self.dev_stats = []

    def SerializeToString(self):  # noqa: N802 - protobuf's name
        return b""


class RunMetadata:
    """TF1's ``RunMetadata``; ``Session.run`` leaves it empty (no tracing).

    Serialises to empty bytes, which TensorBoard reads as an empty
    ``RunMetadata`` (so ``FileWriter.add_run_metadata`` accepts it).

    Examples
    --------
    >>> import daskflow as tf
    >>> meta = tf.RunMetadata()
    >>> list(meta.step_stats.dev_stats), list(meta.partition_graphs)
    ([], [])
    """

    def __init__(self):
        self.step_stats = _StepStats()
        self.cost_graph = None
        self.partition_graphs = []
        self.function_graphs = []

    def SerializeToString(self):  # noqa: N802 - protobuf's name
        return b""

    def ParseFromString(self, data):  # noqa: N802 - protobuf's name
        return 0
