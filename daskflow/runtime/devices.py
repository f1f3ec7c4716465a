"""Which Dask worker runs which TF device.

A worker named ``<job>-<task>`` (``dask worker ADDR --name ps-0``) is
``/job:<job>/task:<task>``; one started with ``--resources GPU=n`` also
offers ``/device:GPU:0`` .. ``GPU:n-1``. :func:`place` resolves a partition's
device string to a worker, by name: the address is looked up for every step,
so a worker that comes back under its name (a Nanny restart, a replacement)
is used again.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

from ..framework.device_spec import DeviceSpec

_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)-(\d+)$")


@dataclass(frozen=True)
class WorkerDevice:
    """One Dask worker seen as a TF task."""

    name: str
    job: str
    task: int
    gpus: int
    address: str

    def devices(self) -> list[str]:
        base = f"/job:{self.job}/replica:0/task:{self.task}"
        return [f"{base}/device:CPU:0"] + [f"{base}/device:GPU:{i}" for i in range(self.gpus)]


def scheduler_identity(client) -> dict:
    """The scheduler's identity (``"workers"``: every worker's info), asked now.

    Not ``client.scheduler_info()``: that returns the client's cache, which the
    client's periodic poll refreshes with five workers (distributed 2025.x) or
    none (2026.8), and the poll's answer can land between a call's own refresh
    and its return. A session would then see its workers gone (measured: 4 of
    56,870 calls on an idle cluster, 183 of 500 with the poll running
    continuously).
    """
    try:
        return client.sync(client.scheduler.identity, n_workers=-1)
    except TypeError:  # a scheduler older than ``n_workers``, which lists every worker
        return client.sync(client.scheduler.identity)


def cluster_workers(scheduler_info: dict) -> list[WorkerDevice]:
    """The workers of a running cluster as TF tasks, sorted by job and task.

    Raises
    ------
    ValueError
        If a worker's name does not follow ``<job>-<task>``.
    """
    found = []
    for address, info in scheduler_info.get("workers", {}).items():
        name = str(info.get("name", ""))
        match = _NAME.match(name)
        if not match:
            raise ValueError(
                f"worker {address} is named {name!r}; daskflow needs workers named <job>-<task>, "
                "e.g. `dask worker SCHEDULER --name worker-0` or `--name ps-0`"
            )
        gpus = int(info.get("resources", {}).get("GPU", 0))
        found.append(WorkerDevice(name, match.group(1), int(match.group(2)), gpus, address))
    return sorted(found, key=lambda w: (w.job, w.task))


def job_of(name: str) -> str | None:
    """The job of a worker named ``<job>-<task>``; None for a name off the convention."""
    match = _NAME.match(name)
    return match.group(1) if match else None


def device_list(workers) -> list[str]:
    return [d for w in workers for d in w.devices()]


def place(device: str, workers, allow_soft_placement=False) -> tuple[WorkerDevice, bool]:
    """The worker for ``device`` and whether it needs a GPU.

    An op with no job/task goes to ``/job:worker/task:0`` (or the first
    worker). A device the cluster lacks raises an error listing the
    cluster's devices; with ``allow_soft_placement`` it falls back, with a
    warning, to a device the cluster has.
    """
    spec = DeviceSpec.from_string(device)
    wants_gpu = (spec.device_type or "").upper() == "GPU"
    chosen = _match(spec, workers)
    if chosen is not None:
        return chosen, wants_gpu
    if not allow_soft_placement:
        have = "\n  ".join(device_list(workers))
        raise ValueError(f"device {device!r} is not in the cluster; its devices are:\n  {have}")
    fallback = _match(DeviceSpec(job=spec.job, task=spec.task), workers) or _default(workers)
    warnings.warn(f"device {device!r} is not in the cluster: placed on {fallback.name} (CPU)", stacklevel=3)
    return fallback, False


def _match(spec, workers):
    if spec.job is None and spec.task is None:
        default = _default(workers)
        candidates = [default] + [w for w in workers if w is not default]
    else:
        candidates = [
            w
            for w in workers
            if (spec.job is None or w.job == spec.job) and (spec.task is None or w.task == spec.task)
        ]
    if (spec.device_type or "").upper() == "GPU":
        need = (spec.device_index or 0) + 1
        candidates = [w for w in candidates if w.gpus >= need]
    return candidates[0] if candidates else None


def _default(workers):
    for w in workers:
        if w.job == "worker" and w.task == 0:
            return w
    return workers[0]
