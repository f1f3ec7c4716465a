"""``tf.train``: optimizers and the global step.

Not built yet (later issues): ``Saver``, ``SyncReplicasOptimizer``,
``MonitoredTrainingSession`` and hooks.
"""

from .cluster_spec import ClusterSpec
from .device_setter import (
    GreedyLoadBalancingStrategy,
    RoundRobinStrategy,
    byte_size_load_fn,
    replica_device_setter,
)
from .optimizer import (
    AdagradOptimizer,
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    Optimizer,
    RMSPropOptimizer,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
)

__all__ = [
    "ClusterSpec",
    "GreedyLoadBalancingStrategy",
    "RoundRobinStrategy",
    "byte_size_load_fn",
    "replica_device_setter",
    "AdagradOptimizer",
    "AdamOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "RMSPropOptimizer",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
]
