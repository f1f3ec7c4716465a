"""Data parallelism: which partitions of a plan run once per worker task.

TF1's between-graph replication has every worker run the same model on its
own data; here one driver does it. A plan replicates when some of its
partitions are placed on ``/job:worker`` with no task (what
``replica_device_setter`` gives compute ops): those partitions, and the ones
with no device at all (an input pipeline built outside the device scope, as
in TF1 where it would run on each worker), become one *instance* per worker
task ``/job:worker/task:i`` that can host them. Everything else — the variables and their
updates on the ps — stays single. This module knows neither ops nor Dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...framework.device_spec import DeviceSpec

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .partition import Partition


class ReplicaHost(Protocol):
    """A worker task as :func:`replica_workers` reads it (the cluster's ``WorkerDevice``)."""

    name: str
    job: str
    task: int
    gpus: int


@dataclass(frozen=True)
class Instance:
    """One task per step: a partition, or one replica of it."""

    part: str
    replica: int | None = None

    @property
    def name(self) -> str:
        return self.part if self.replica is None else f"{self.part}/{self.replica}"


def is_replica_device(device: str) -> bool:
    spec = DeviceSpec.from_string(device)
    return spec.job == "worker" and spec.task is None


def replicated_partitions(partitions: Iterable[Partition]) -> set[str]:
    """Keys of the partitions that run once per worker task (none if nothing asks)."""
    if not any(is_replica_device(p.device) for p in partitions):
        return set()
    return {p.key for p in partitions if not p.device or is_replica_device(p.device)}


def replica_device(device: str, index: int) -> str:
    """``device`` pinned to worker task ``index``."""
    spec = DeviceSpec.from_string(device).make_merged_spec(DeviceSpec(job="worker", task=index))
    return spec.to_string()


def replica_workers(workers: Sequence[ReplicaHost], devices: Iterable[str]) -> list[ReplicaHost]:
    """The worker tasks that run replicas: ``/job:worker`` tasks able to host every
    replicated device (for ``/job:worker/device:GPU:0``, those offering a GPU)."""
    gpus = 0
    for device in devices:
        spec = DeviceSpec.from_string(device)
        if (spec.device_type or "").upper() == "GPU":
            gpus = max(gpus, (spec.device_index or 0) + 1)
    chosen = [w for w in workers if w.job == "worker" and w.gpus >= gpus]
    if not chosen:
        need = f" with {gpus} GPU(s)" if gpus else ""
        have = ", ".join(w.name for w in workers)
        raise ValueError(f"the graph asks for replicas on /job:worker{need}; the cluster has: {have}")
    return sorted(chosen, key=lambda w: w.task)


def aggregation(partition: Partition, num_replicas: int) -> int | None:
    """How many replicas' results ``partition`` waits for, if it aggregates them; else None."""
    wanted = {
        (op.attrs["replicas_to_aggregate"], op.attrs["total_num_replicas"])
        for op in partition.ops
        if op.primitive.aggregates_replicas
    }
    if not wanted:
        return None
    if len(wanted) > 1:
        raise ValueError(f"partition {partition.key} aggregates replicas in different ways: {sorted(wanted)}")
    ((needed, total),) = wanted
    if total != num_replicas:
        raise ValueError(
            f"SyncReplicasOptimizer(total_num_replicas={total}) but the cluster runs {num_replicas} "
            "replicas (one per worker task)"
        )
    return needed
