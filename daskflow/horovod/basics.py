"""Who this process is among the job's ranks: ``init``, ``rank``, ``size`` and the rest.

A rank learns its place from the environment ``daskflow launch --np N``
(or ``horovodrun``) gives it: ``HOROVOD_RANK``, ``HOROVOD_SIZE``,
``HOROVOD_LOCAL_RANK``, ``HOROVOD_LOCAL_SIZE``, ``HOROVOD_CROSS_RANK``,
``HOROVOD_CROSS_SIZE`` (Open MPI's ``OMPI_COMM_WORLD_*`` too); without them it
is the only rank. With more than one, it joins the others through the Dask
scheduler at ``DASK_SCHEDULER_ADDRESS`` (:mod:`daskflow.runtime.collectives`),
and, where the launcher gave it ``TF_CONFIG``, hosts the Dask worker
``worker-<rank>`` there.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import secrets
import socket
import threading
from dataclasses import dataclass, field

from ..ops import collective_ops

logger = logging.getLogger(__name__)

_ENV = {  # what a rank reads, by launcher: Horovod's (gloo), then Open MPI's
    "rank": ("HOROVOD_RANK", "OMPI_COMM_WORLD_RANK"),
    "size": ("HOROVOD_SIZE", "OMPI_COMM_WORLD_SIZE"),
    "local_rank": ("HOROVOD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"),
    "local_size": ("HOROVOD_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    "cross_rank": ("HOROVOD_CROSS_RANK",),
    "cross_size": ("HOROVOD_CROSS_SIZE",),
}
DEFAULTS = {"rank": 0, "size": 1, "local_rank": 0, "local_size": 1, "cross_rank": 0, "cross_size": 1}


@dataclass
class _Job:
    place: dict  # rank, size, local_rank, local_size, cross_rank, cross_size
    communicator: object
    client: object = None  # the rendezvous's connection to the scheduler
    server: object = None  # the Dask worker hosted here, where the launcher asked for one
    name: str = ""
    # an elastic job's: this process's member ident, the generation its ring is of, the newest
    # generation the driver announced, and how to form the next ring
    ident: str = ""
    generation: object = None
    latest: object = None
    host: str = ""
    secret: bytes = b""
    lock: threading.Lock = field(default_factory=threading.Lock)


_job: list[_Job | None] = [None]


def init(comm=None, process_sets=None):
    """Join the job's other ranks (once; later calls do nothing).

    Parameters
    ----------
    comm : list of int, optional
        Horovod's subset of ranks; only all ranks (None) are supported here.
    process_sets : optional
        Accepted for Horovod's sake; only the global process set exists here.

    Raises
    ------
    ValueError
        More than one rank and no Dask scheduler to meet through, or ``comm``
        names a subset of the ranks.
    """
    if _job[0] is not None:
        return
    place = _place()
    if comm is not None and list(comm) != list(range(place["size"])):
        raise ValueError(f"hvd.init(comm={comm!r}): only all {place['size']} ranks can form the job here")
    job = _Job(place, None)
    if elastic():
        _join_elastic(job)
    elif place["size"] > 1:
        _join(job)
    else:
        from ..runtime import collectives  # local import: they load Dask; a one-rank job needs none

        job.communicator = collectives.Communicator(0, 1, None)
    _job[0] = job
    collective_ops.install(job.communicator)
    atexit.register(shutdown)


def _place() -> dict:
    place = {}
    for key, names in _ENV.items():
        raw = next((os.environ[n] for n in names if os.environ.get(n)), None)
        try:
            place[key] = DEFAULTS[key] if raw is None else int(raw)
        except ValueError:
            raise ValueError(
                f"Horovod initialization failed: {names[0]}={raw!r} is not a whole number"
            ) from None
    if not 0 <= place["rank"] < place["size"]:
        raise ValueError(f"Horovod initialization failed: rank {place['rank']} of {place['size']}")
    return place


def elastic() -> bool:
    """Whether this process is a member of an elastic job (``daskflow launch --min-np``)."""
    return os.environ.get("HOROVOD_ELASTIC") == "1"


def _connect(job: _Job) -> None:
    """Meet the scheduler: the job's name and secret, the hosted worker, a client, our host."""
    from distributed import Client
    from distributed.comm import get_address_host

    address = os.environ.get("DASK_SCHEDULER_ADDRESS")
    if not address:
        raise ValueError(
            f"Horovod initialization failed: rank {job.place['rank']} of {job.place['size']} has no Dask "
            "scheduler to meet the others through: start the ranks with `daskflow launch --np N script.py`, "
            "or set DASK_SCHEDULER_ADDRESS"
        )
    job.name = os.environ.get("DASKFLOW_HOROVOD_JOB", "horovod")
    secret = os.environ.get("DASKFLOW_HOROVOD_SECRET")
    job.secret = bytes.fromhex(secret) if secret else b""
    job.server = _host_worker(job.place["rank"])
    job.client = Client(address, set_as_default=False)
    job.host = _host_toward(get_address_host(address))


def _join(job: _Job) -> None:
    from ..runtime import collectives  # local import: they load Dask; a one-rank job needs none

    _connect(job)
    job.communicator = collectives.join_ring(
        job.client, job.place["rank"], job.place["size"], job.name, job.host, job.secret or None
    )


def _join_elastic(job: _Job) -> None:
    """Register with the job's driver, listen for its generations, join the first with us."""
    from ..runtime.collectives import membership  # local import: it loads Dask

    _connect(job)
    if not job.secret:
        raise ValueError(
            "Horovod initialization failed: an elastic rank needs its job's driver: start the ranks with "
            "`daskflow launch --np N --min-np M script.py`"
        )
    slot = job.place["rank"]  # the launcher's slot; the rank comes from each generation
    job.ident = membership.ident(slot, secrets.token_hex(4))
    job.client.subscribe_topic(membership.topic(job.name), lambda event: _announced(job, event[1]))
    membership.register(job.client, job.name, job.ident, slot, job.host)
    _enter(job, after=0)


def _enter(job: _Job, after: int) -> None:
    """Form the ring of the first generation after ``after`` that has this member in it."""
    from ..runtime.collectives import membership  # local import: it loads Dask

    generation, communicator = membership.join_generation(
        job.client, job.name, job.ident, job.host, job.secret, after
    )
    with job.lock:
        job.generation, job.communicator = generation, communicator
        job.place = generation.place(job.ident)
        latest = job.latest
    collective_ops.install(communicator)
    if latest is not None:  # announced while the ring formed
        _announced(job, latest.record())


def _announced(job: _Job, record) -> None:
    """The driver announced a generation: one without a member of our ring ends the ring now
    (every collective fails, and the ranks left form the next); one that only adds members
    waits for the next ``state.commit()`` (:func:`hosts_updated`)."""
    from ..runtime.collectives import membership  # local import: it loads Dask

    announced = membership.Generation.of(record)
    with job.lock:
        if job.latest is None or announced.number > job.latest.number:
            job.latest = announced
        ring, communicator = job.generation, job.communicator
    if ring is not None and announced.number > ring.number and announced.drops_any_of(ring.members):
        lost = sorted(str(membership.slot_of(m)) for m in ring.members if m not in announced.members)
        communicator.transport.abandon(
            f"the job's ranks changed: slot(s) {', '.join(lost)} lost (generation {announced.number})"
        )


def reset() -> None:
    """Leave this ring and join the job's next generation (Horovod's ``shutdown(); init()``
    between an elastic job's attempts; the hosted worker and the scheduler connection stay)."""
    job = _job[0]
    if job is None or job.generation is None:
        shutdown()
        init()
        return
    job.communicator.close()
    collective_ops.forget_started()  # reductions the failed step started: their ring is gone
    _enter(job, after=job.generation.number)


def hosts_updated() -> tuple[int, int]:
    """(This ring's generation, the newest announced): an elastic rank's view of the job."""
    job = _job[0]
    if job is None or job.generation is None:
        return 0, 0
    with job.lock:
        return job.generation.number, max(job.generation.number, job.latest.number if job.latest else 0)


def _host_toward(scheduler_host: str) -> str:
    """This machine's address as the scheduler (and so the other ranks) reach it."""
    if scheduler_host in ("127.0.0.1", "localhost", "::1"):
        return scheduler_host if scheduler_host != "localhost" else "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # no packet leaves: it only routes
        probe.connect((scheduler_host, 9))
        return probe.getsockname()[0]


def _host_worker(rank: int):
    """The Dask worker ``worker-<rank>`` in this process, where ``TF_CONFIG`` (the launcher's)
    names this task; None elsewhere."""
    config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    task = config.get("task", {})
    if task.get("type") != "worker" or task.get("index") != rank or "cluster" not in config:
        return None
    from ..train.server import Server  # local import: it loads the cluster runtime

    return Server(config["cluster"], job_name="worker", task_index=rank)


def shutdown():
    """Leave the job: this rank's address off the scheduler, its connections closed."""
    job, _job[0] = _job[0], None
    if job is None:
        return
    collective_ops.install(None)
    job.communicator.close()
    if job.client is not None:
        from ..runtime import collectives  # local import: they load Dask; a one-rank job needs none

        if not job.ident:  # an elastic job's records are its driver's to take off
            collectives.leave_ring(job.client, job.place["rank"], job.name)
        job.client.close()
    if job.server is not None:
        job.server.stop()


def is_initialized() -> bool:
    return _job[0] is not None


def _get(key: str) -> int:
    if _job[0] is None:
        raise ValueError(collective_ops.NOT_INITIALIZED)
    return _job[0].place[key]


def size() -> int:
    """How many ranks the job has."""
    return _get("size")


def rank() -> int:
    """This process's rank, 0 to ``size() - 1``."""
    return _get("rank")


def local_rank() -> int:
    """This process's rank among the ranks on its machine (which GPU to take)."""
    return _get("local_rank")


def local_size() -> int:
    """How many ranks run on this machine."""
    return _get("local_size")


def cross_rank() -> int:
    """This machine's index among the machines running a rank of this ``local_rank``."""
    return _get("cross_rank")


def cross_size() -> int:
    """How many machines run a rank of this ``local_rank``."""
    return _get("cross_size")


def is_homogeneous() -> bool:
    """Whether every machine runs as many ranks (here: the job's size divides evenly)."""
    return size() % local_size() == 0


def mpi_threads_supported() -> bool:
    raise ValueError("Horovod MPI is not enabled: daskflow's ranks meet through Dask, not MPI")


def _absent(name: str):
    """A Horovod build query whose answer here is always no (no MPI, Gloo, NCCL...)."""

    def query():
        return 0 if name == "nccl_built" else False

    query.__name__ = query.__qualname__ = name
    query.__doc__ = f"Horovod's ``{name}()``: daskflow's ranks use none of these libraries."
    return query


mpi_enabled, mpi_built, gloo_enabled, gloo_built, nccl_built = map(
    _absent, ["mpi_enabled", "mpi_built", "gloo_enabled", "gloo_built", "nccl_built"]
)
ddl_built, ccl_built, cuda_built, rocm_built = map(
    _absent, ["ddl_built", "ccl_built", "cuda_built", "rocm_built"]
)


def start_timeline(file_path, mark_cycles=False):
    """Horovod's timeline is not kept here: the Dask dashboard shows the ranks' workers."""
    _get("rank")
    raise NotImplementedError("hvd.start_timeline: daskflow keeps no Horovod timeline")


def stop_timeline():
    _get("rank")
