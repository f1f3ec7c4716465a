"""Which Dask worker runs which TF device.

A worker named ``<job>-<task>`` (``dask worker ADDR --name ps-0``) is
``/job:<job>/task:<task>``; one named by an integer ``n`` (Dask's default
names, as ``LocalCluster`` gives them) is ``/job:worker/task:n``, so a plain
Dask cluster runs a graph placed on ``/job:worker``. One started with
``--resources GPU=n`` also offers ``/device:GPU:0`` .. ``GPU:n-1``. :func:`place` resolves a partition's
device string to a worker, by name: the address is looked up for every step,
so a worker that comes back under its name (a Nanny restart, a replacement)
is used again.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
import weakref
from dataclasses import dataclass

from ...errors import InvalidArgumentError
from ...framework.device_spec import DeviceSpec
from ...kernels.devices import gpu_count
from .. import dask_compat
from .plugins import retried

_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)-(\d+)$")
_DEFAULT_JOB = "worker"  # the job of a worker Dask named by a number
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_warned_embedded = weakref.WeakSet()  # sessions told that their device strings are ignored


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
    and its return. A session would then see its workers gone, rarely on an
    idle cluster and often while the poll runs.
    """
    # asked again when a comm closes under it (a task leaving)
    return retried(dask_compat.scheduler_identity, client)


def filtered(workers: list[WorkerDevice], filters) -> list[WorkerDevice]:
    """The workers ``ConfigProto(device_filters=...)`` lets a session see (all without filters).

    A filter is a device string; a worker passes when its job and task agree
    with a filter's (a part the filter leaves out agrees with any): ``/job:ps``
    keeps every ps task, ``/job:worker/task:1`` one worker. The device part of
    a filter (``/device:GPU:0``) does not narrow the workers.
    """
    if not filters:
        return workers
    specs = [DeviceSpec.from_string(f) for f in filters]
    return [w for w in workers if any(_agrees(s, w) for s in specs)]


def _agrees(spec, worker) -> bool:
    return spec.job in (None, worker.job) and spec.task in (None, worker.task)


def cluster_workers(scheduler_info: dict) -> list[WorkerDevice]:
    """The workers of a running cluster as TF tasks, sorted by job and task.

    Raises
    ------
    ValueError
        If a worker's name is neither ``<job>-<task>`` nor an integer, or two
        workers are the same task (``worker-0`` and ``0``).
    """
    found, seen = [], {}
    for address, info in scheduler_info.get("workers", {}).items():
        name = str(info.get("name", ""))
        job, task = _job_task(name)
        if job is None:
            raise ValueError(
                f"worker {address} is named {name!r}; daskflow needs workers named <job>-<task>, "
                "e.g. `dask worker SCHEDULER --name worker-0` or `--name ps-0`, or by integers "
                "(Dask's default), which are /job:worker/task:<n>"
            )
        if (job, task) in seen:
            raise ValueError(
                f"workers {seen[job, task]!r} and {name!r} are both /job:{job}/task:{task}; rename one"
            )
        seen[job, task] = name
        gpus = int(info.get("resources", {}).get("GPU", 0))
        found.append(WorkerDevice(name, job, task, gpus, address))
    return sorted(found, key=lambda w: (w.job, w.task))


def job_of(name: str) -> str | None:
    """The job of a worker named ``<job>-<task>`` or by an integer; None for a name off both."""
    return _job_task(name)[0]


def _job_task(name: str) -> tuple[str | None, int | None]:
    match = _NAME.match(name)
    if match:
        return match.group(1), int(match.group(2))
    if name.isdecimal():  # Dask's default names: 0, 1, ...
        return _DEFAULT_JOB, int(name)
    return None, None


def device_list(workers) -> list[str]:
    return [d for w in workers for d in w.devices()]


class DeviceNotInClusterError(InvalidArgumentError):
    """A device no worker of the cluster offers (TF1's ``InvalidArgumentError``)."""


def place(device: str, workers, allow_soft_placement=False) -> tuple[WorkerDevice, bool]:
    """The worker for ``device`` and whether it needs a GPU.

    An op with no job/task goes to ``/job:worker/task:0`` (or the lowest
    worker task, else the first worker). With ``allow_soft_placement`` a
    device the cluster lacks falls back, with a warning pointing at the
    caller's line, to a device the cluster has.

    Raises
    ------
    InvalidArgumentError
        A device the cluster lacks, without ``allow_soft_placement``; the
        message lists the cluster's devices.
    """
    spec = DeviceSpec.from_string(device)
    wants_gpu = (spec.device_type or "").upper() == "GPU"
    chosen = _match(spec, workers)
    if chosen is not None:
        return chosen, wants_gpu
    if not allow_soft_placement:
        have = "\n  ".join(device_list(workers))
        message = f"device {device!r} is not in the cluster; its devices are:\n  {have}"
        raise DeviceNotInClusterError(None, None, message)
    fallback = _match(DeviceSpec(job=spec.job, task=spec.task), workers) or _default(workers)
    message = f"device {device!r} is not in the cluster: placed on {fallback.name} (CPU)"
    warnings.warn(message, stacklevel=_callers_level())
    return fallback, False


def on_task(device: str, home: str | None) -> str:
    """``device`` on task ``home`` (``/job:worker/task:1``) where it names neither job nor task.

    In TF1 a session on a task's target (``tf.Session(server.target)``) runs the ops its
    graph leaves unplaced on that task, not on ``/job:worker/task:0``: one worker's
    unplaced ops must not run on (and wait for) another's.

    Examples
    --------
    >>> on_task("", "/job:worker/task:1")
    '/job:worker/task:1'
    >>> on_task("/job:ps/task:0", "/job:worker/task:1")
    '/job:ps/task:0'
    """
    spec = DeviceSpec.from_string(device)
    if not home or spec.job is not None or spec.task is not None:
        return device
    return DeviceSpec.from_string(home).make_merged_spec(spec).to_string()


def warn_ignored_devices(plan, session) -> bool:
    """Warn, once per ``session``, that an embedded run ignores devices it cannot have.

    An embedded session runs every op in this process, on its CPU and the
    GPUs cupy sees here, as TF1 does with ``allow_soft_placement``;
    ``/job:ps/task:0`` or, on a machine without a GPU, ``/gpu:0`` is not an
    error but is not honoured either. Returns whether it warned now.
    """
    if session in _warned_embedded:
        return False
    ignored = sorted({op.device for op in plan.ops if op.device and not _is_local(op.device)})
    if not ignored:
        return False
    _warned_embedded.add(session)
    shown = ", ".join(repr(d) for d in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
    message = (
        f"devices {shown} are ignored: an embedded Session runs every op in this process; "
        "pass a cluster (tf.Session(client)) to place ops on workers"
    )
    warnings.warn(message, stacklevel=_callers_level())
    return True


def _is_local(device: str) -> bool:
    """Whether an embedded session has ``device``: this process's job and task, its CPU."""
    spec = DeviceSpec.from_string(device)
    return (
        spec.job in (None, "localhost")
        and spec.replica in (None, 0)
        and spec.task in (None, 0)
        and ((spec.device_type or "CPU").upper() == "CPU" or _have_gpu(spec))
    )


def _have_gpu(spec) -> bool:
    return spec.device_type.upper() == "GPU" and (spec.device_index or 0) < gpu_count()


def _callers_level() -> int:
    """The ``stacklevel`` that makes a warning raised by our caller name the first frame
    outside daskflow: the user's line (``sess.run``), however deep the call came from."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    return level


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
    """Where an op with no job or task runs: ``/job:worker/task:0``, else the lowest worker
    task (``device_filters`` may leave out task 0), else the first worker."""
    tasks = sorted((w for w in workers if w.job == "worker"), key=lambda w: w.task)
    return tasks[0] if tasks else workers[0]
