"""``tf.train``: optimizers and the global step.

Not built yet (later issues): ``Saver``, ``replica_device_setter``,
``SyncReplicasOptimizer``, ``MonitoredTrainingSession`` and hooks.
"""

from .cluster_spec import ClusterSpec
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
