"""``tf.queue``: TF1's queues (see :mod:`daskflow.ops.data_flow_ops`)."""

from ._namespaces import module_getattr
from .ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

__getattr__ = module_getattr("tf.queue")
