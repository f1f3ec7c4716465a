"""TF1-on-TF2 switches that scripts call after ``import tensorflow.compat.v1 as tf``.

Such a script runs unchanged with ``import daskflow as tf``: daskflow *is*
TF1's graph mode, so every ``disable_*`` switch is already in the state it
asks for and does nothing, and eager execution is refused with a clear error.
:class:`RunOptions` (made on first use, in :mod:`daskflow.runtime.config_proto`)
and :class:`RunMetadata` are ``Session.run``'s
``options`` and ``run_metadata``: a run with ``RunOptions(trace_level=FULL_TRACE)``
fills ``run_metadata.step_stats`` with each op's (embedded) or each
partition's (cluster) times, for ``FileWriter.add_run_metadata`` and
:class:`daskflow.client.timeline.Timeline`.
"""

from __future__ import annotations

__all__ = [
    "RunMetadata",
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


class _MessageType(type):
    """A class standing for a protobuf message class built on first use.

    Calling it makes an instance of the message; ``isinstance`` and class
    attributes (``FromString``, ``DESCRIPTOR``) are the message class's.
    """

    def __call__(cls, *args, **kwargs):
        return cls._message()(*args, **kwargs)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls._message())

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls._message(), name)


class RunMetadata(metaclass=_MessageType):
    """TF1's ``RunMetadata`` proto: what ``Session.run(run_metadata=...)`` reports.

    A real protobuf message (``SerializeToString``, ``ParseFromString``,
    ``CopyFrom``...) with TF's fields and field numbers, so TensorBoard reads
    it. A run traced with ``RunOptions(trace_level=FULL_TRACE)`` fills
    ``step_stats``: one ``DeviceStepStats`` per device with one
    ``NodeExecStats`` per op (embedded) or per partition (cluster); every
    run given it first clears it, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> meta = tf.RunMetadata()
    >>> list(meta.step_stats.dev_stats), list(meta.partition_graphs)
    ([], [])
    >>> x = tf.placeholder(tf.float32, [], name="x")
    >>> y = tf.square(x, name="y")
    >>> options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    >>> with tf.Session() as sess:
    ...     _ = sess.run(y, {x: 2.0}, options=options, run_metadata=meta)
    >>> [node.node_name for node in meta.step_stats.dev_stats[0].node_stats] == [y.op.name]
    True
    """

    @staticmethod
    def _message():
        from .client.run_metadata import message_class  # local import: its schema loads on first use

        return message_class("RunMetadata")


def __getattr__(name):  # noqa: N807 - RunOptions is made on first use, as ConfigProto
    if name == "RunOptions":
        from .runtime.config_proto import RunOptions  # local import: made from its schema on first use

        return RunOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
