"""What a ``grpc://host:port`` session target means here.

In TF1, ``tf.Session(server.target)`` connects to a task of a cluster that
``tf.train.Server`` started, and every session of that cluster shares the
variables on its ps tasks. Here each :class:`daskflow.train.Server` records
its cluster's tasks in this process: a ``grpc://`` target naming any of them
resolves to the Dask scheduler the cluster runs on and to the job whose
variables its sessions share (:mod:`.worker.between_graph`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..errors import InvalidArgumentError


@dataclass(frozen=True)
class JobTarget:
    """A cluster started by ``tf.train.Server``: where its scheduler is, and its job id."""

    scheduler_address: str
    job: str
    security: object = None
    task: str = ""  # the task a target names (``/job:worker/task:1``): where unplaced ops run


_known: dict = {}  # "host:port" of a task -> JobTarget
_lock = threading.Lock()


def register(task_addresses, target: JobTarget):
    """Make ``grpc://<address>`` of each of ``task_addresses`` resolve to ``target``."""
    with _lock:
        for address in task_addresses:
            _known[address] = target


def resolve(target: str) -> JobTarget:
    """The :class:`JobTarget` a ``grpc://host:port`` target names.

    Raises
    ------
    InvalidArgumentError
        If no ``tf.train.Server`` of this process has that task in its cluster.
    """
    address = target.split("://", 1)[1].rstrip("/")
    with _lock:
        found = _known.get(address)
        known = sorted(_known)
    if found is None:
        hint = f"the tasks known are {known}" if known else "no tf.train.Server was started in this process"
        raise InvalidArgumentError(
            None,
            None,
            f"Session target {target!r} names no task of a cluster this process knows ({hint}); "
            "start tf.train.Server(cluster, job_name, task_index) first and use server.target, "
            "or pass a Dask scheduler address like 'tcp://host:8786'",
        )
    return found
