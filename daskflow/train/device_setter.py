"""``replica_device_setter``: variables on the ps job, compute on the worker job.

TF1's device function for between-graph replication. Variables are spread
over the ps tasks by a strategy: round robin (TF's default), or another given
as ``ps_strategy``, such as TF1's greedy-by-bytes one,
``tf.contrib.training.GreedyLoadBalancingStrategy``
(:mod:`daskflow.contrib.training`).
"""

from __future__ import annotations

from ..framework.device_spec import DeviceSpec
from .cluster_spec import ClusterSpec

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp")


class RoundRobinStrategy:
    """Task 0, 1, ..., n-1, 0, ... in creation order."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next = 0

    def __call__(self, op) -> int:
        task = self._next
        self._next = (self._next + 1) % self._num_tasks
        return task


def replica_device_setter(
    ps_tasks=0,
    ps_device="/job:ps",
    worker_device="/job:worker",
    merge_devices=True,
    cluster=None,
    ps_ops=None,
    ps_strategy=None,
):
    """A device function: variables on ``ps_device`` tasks, other ops on ``worker_device``.

    Parameters
    ----------
    ps_tasks : int
        Number of ps tasks (read from ``cluster`` when given).
    cluster : ClusterSpec or dict, optional
    ps_strategy : callable, optional
        ``strategy(op) -> ps task index``; round robin by default.

    Returns
    -------
    callable or None
        For ``tf.device(...)``; None when there are no ps tasks, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> cluster = tf.train.ClusterSpec({"ps": ["ps-0", "ps-1"], "worker": ["worker-0"]})
    >>> with tf.device(tf.train.replica_device_setter(cluster=cluster)):
    ...     w = tf.Variable(tf.zeros([3]))
    >>> w.device
    '/job:ps/task:0'
    """
    if cluster is not None:
        spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        ps_job = DeviceSpec.from_string(ps_device).job or "ps"
        ps_tasks = spec.num_tasks(ps_job) if ps_job in spec.jobs else 0
    if not ps_tasks:
        return None
    ps_ops = tuple(ps_ops) if ps_ops is not None else STANDARD_PS_OPS
    strategy = ps_strategy or RoundRobinStrategy(ps_tasks)
    ps_spec = DeviceSpec.from_string(ps_device)
    worker_spec = DeviceSpec.from_string(worker_device or "")

    def device_function(op):
        current = DeviceSpec.from_string(op.device or "")
        if op.type in ps_ops:
            spec = ps_spec
            if spec.job and (current.job is None or current.job == spec.job):
                spec = DeviceSpec(spec.job, spec.replica, strategy(op), spec.device_type, spec.device_index)
            return (spec.make_merged_spec(current) if merge_devices else spec).to_string()
        return (worker_spec.make_merged_spec(current) if merge_devices else worker_spec).to_string()

    return device_function
