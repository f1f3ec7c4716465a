"""Horovod's TF1 API on daskflow: ``import daskflow.horovod as hvd`` in a Horovod script.

Data parallelism with no parameter server: every rank (one process each,
``daskflow launch --np 4 train.py`` as ``horovodrun -np 4``) runs the same
graph on its own share of the data, and the gradients are averaged among the
ranks by a ring all-reduce over daskflow's bulk transport (each rank sends
``2 (N - 1) / N`` of the model per step, whatever ``N``), authenticated by the
job's secret; the ranks meet through the Dask scheduler, each hosting the
Dask worker ``worker-<rank>``. :mod:`.elastic` keeps training going as ranks
are lost and join (``daskflow launch --np 4 --min-np 2``).

Examples
--------
>>> import daskflow as tf
>>> import daskflow.horovod as hvd
>>> hvd.init()
>>> hvd.rank(), hvd.size()  # a script run on its own is the job's only rank
(0, 1)
>>> opt = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.01 * hvd.size()))
>>> hooks = [hvd.BroadcastGlobalVariablesHook(0)]
"""

from . import elastic
from .basics import (
    ccl_built,
    cross_rank,
    cross_size,
    cuda_built,
    ddl_built,
    gloo_built,
    gloo_enabled,
    init,
    is_homogeneous,
    is_initialized,
    local_rank,
    local_size,
    mpi_built,
    mpi_enabled,
    mpi_threads_supported,
    nccl_built,
    rank,
    rocm_built,
    shutdown,
    size,
    start_timeline,
    stop_timeline,
)
from .exceptions import HorovodInternalError, HostsUpdatedInterrupt
from .functions import (
    Adasum,
    Average,
    BroadcastGlobalVariablesHook,
    Compression,
    Max,
    Min,
    Product,
    Sum,
    allgather,
    allreduce,
    broadcast,
    broadcast_global_variables,
    broadcast_variables,
    grouped_allreduce,
    join,
)
from .objects import allgather_object, broadcast_object, broadcast_object_fn
from .optimizer import DistributedOptimizer
from .runner import run

__all__ = [
    "Adasum",
    "Average",
    "BroadcastGlobalVariablesHook",
    "Compression",
    "DistributedOptimizer",
    "HorovodInternalError",
    "HostsUpdatedInterrupt",
    "Max",
    "Min",
    "Product",
    "Sum",
    "allgather",
    "allgather_object",
    "allreduce",
    "broadcast",
    "broadcast_object",
    "broadcast_object_fn",
    "broadcast_global_variables",
    "broadcast_variables",
    "ccl_built",
    "cross_rank",
    "cross_size",
    "cuda_built",
    "elastic",
    "ddl_built",
    "gloo_built",
    "gloo_enabled",
    "grouped_allreduce",
    "init",
    "is_homogeneous",
    "is_initialized",
    "join",
    "local_rank",
    "local_size",
    "mpi_built",
    "mpi_enabled",
    "mpi_threads_supported",
    "nccl_built",
    "rank",
    "rocm_built",
    "run",
    "shutdown",
    "size",
    "start_timeline",
    "stop_timeline",
]
