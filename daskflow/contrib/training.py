"""``tf.contrib.training``: TF1's load-balancing strategy for placing variables on ps tasks.

``tf.train.replica_device_setter`` spreads variables over the ps tasks round robin
unless given a ``ps_strategy``; TF1 kept its greedy strategy here, in contrib, not
in ``tf.train``. The rest of TF1's ``tf.contrib.training`` (``HParams``,
``bucket_by_sequence_length``...) is not part of daskflow and says so when asked for.
"""

from __future__ import annotations

import numpy as np

from .._namespaces import module_getattr

__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn"]


class GreedyLoadBalancingStrategy:
    """Each op (variable) goes to the ps task with the least load so far.

    Greedy by bytes avoids round robin's classic imbalance: with alternating
    weights and biases on two ps tasks, round robin puts every weight on one and
    every bias on the other.

    Parameters
    ----------
    num_tasks : int
        Number of ps tasks.
    load_fn : callable
        ``load_fn(op) -> number``: the load ``op`` adds to its task (TF1 requires
        it; :func:`byte_size_load_fn` is the usual one).

    Examples
    --------
    >>> import daskflow as tf
    >>> strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, tf.contrib.training.byte_size_load_fn)
    >>> with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
    ...     w = tf.Variable(tf.zeros([100, 10]))
    ...     b = tf.Variable(tf.zeros([10]))
    ...     v = tf.Variable(tf.zeros([10]))
    >>> w.device, b.device, v.device
    ('/job:ps/task:0', '/job:ps/task:1', '/job:ps/task:1')
    """

    def __init__(self, num_tasks, load_fn):
        self._loads = [0] * num_tasks
        self._load_fn = load_fn

    def __call__(self, op) -> int:
        task = int(np.argmin(self._loads))
        self._loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op) -> int:
    """The bytes of ``op``'s single output (a variable's value).

    Raises
    ------
    ValueError
        If ``op`` has not exactly one output, or its shape is not fully defined.
    """
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op.name} must have a single output")
    output = op.outputs[0]
    shape = output.get_shape()
    if not shape.is_fully_defined():  # TF1's message, and the op it came from
        raise ValueError(f"Shape {shape} is not fully defined (the output of op {op.name})")
    return shape.num_elements() * output.dtype.size


__getattr__ = module_getattr("tf.contrib.training")
