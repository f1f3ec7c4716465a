"""``tf.train.Server``: this process becomes one task of a between-graph job.

TF1 ran distributed training one script per task: each started a
``tf.train.Server(cluster, job_name, task_index)``, ps tasks called
``server.join()``, and each worker built its graph and ran its own loop
against ``server.target``. Here the same script joins a Dask cluster:

* **its worker**: the process hosts a Dask worker named ``<job>-<task>`` (so
  ``/job:ps/task:0`` is this process, as in TF1), listening at the task's
  ``host:port`` from the cluster spec; ``join()`` serves it until it closes;
* **the scheduler**: the one Dask's configuration names (``DASK_SCHEDULER_ADDRESS``,
  as ``daskflow launch`` and ``dask worker`` deployments set it); with none,
  the *first task* starts it at its own ``host:port`` and hosts its worker
  on a free port. The first task is ``chief`` 0 if the spec has a chief job,
  else ``ps`` 0, else ``worker`` 0, else task 0 of the first job. The other
  tasks wait for it (``ConfigProto.operation_timeout_in_ms``, 60 s by
  default), then raise ``UnavailableError`` naming its address;
* **the variables**: sessions on ``server.target`` share the variables on
  their workers with every other client of the same cluster spec (the job
  is a hash of the spec: two jobs on one Dask cluster never meet).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass

from ..errors import UnavailableError
from .cluster_spec import ClusterSpec

logger = logging.getLogger(__name__)

FIRST_JOBS = ("chief", "ps", "worker")  # whose task 0 starts the scheduler, in this order
DEFAULT_WAIT_S = 60.0  # how long a task waits for the scheduler without operation_timeout_in_ms
PS_THREADS = 2  # a ps's updates take turns on a job's lock; reads are served off its threads


@dataclass(frozen=True)
class ServerDef:
    """What a :class:`Server` was made from (TF1's ``ServerDef``, as plain fields).

    ``port`` is the task's port in ``cluster``; ``default_session_config`` the ``config``
    the Server was given; ``cluster_device_filters`` and ``replica`` are kept as given
    (daskflow's sessions take device filters from their own ``ConfigProto``)."""

    cluster: ClusterSpec
    job_name: str
    task_index: int
    protocol: str = "grpc"
    default_session_config: object = None
    port: int = 0
    cluster_device_filters: object = None
    replica: int = 0


class Server:
    """One task of a cluster, hosted in this process as a Dask worker.

    Parameters
    ----------
    server_or_cluster_def : ClusterSpec, dict or ServerDef
        The cluster: ``{"ps": ["host:2222"], "worker": ["host:2223", "host:2224"]}``.
    job_name : str, optional
        This task's job; may be left out when the cluster has one job.
    task_index : int, optional
        This task's index in its job; may be left out when the job has one task.
    protocol : str, optional
        Accepted for TF1's sake; Dask's comms carry everything (``tcp``, or
        ``tls`` with ``security``).
    config : ConfigProto, optional
        ``operation_timeout_in_ms``: how long to wait for the scheduler.
    start : bool
        Join the cluster now (default), or at :meth:`start`.
    security : distributed.Security, optional
        TLS for the scheduler and the worker (daskflow's; TF1 had none).

    Examples
    --------
    >>> import daskflow as tf
    >>> cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]})
    >>> # Not run in the suite: the task serves on port 2222 (Dask), and join() waits for its end.
    >>> server = tf.train.Server(cluster, job_name="ps", task_index=0)  # doctest: +SKIP
    >>> server.join()  # doctest: +SKIP
    """

    def __init__(
        self,
        server_or_cluster_def,
        job_name=None,
        task_index=None,
        protocol=None,
        config=None,
        start=True,
        *,
        security=None,
    ):
        self.server_def = _server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        spec, job_name, task_index = (
            self.server_def.cluster,
            self.server_def.job_name,
            self.server_def.task_index,
        )
        self._address = spec.task_address(job_name, task_index)
        _host_port(self._address, f"task {job_name}:{task_index}")
        self._config = config
        self._security = security
        self.job = job_id(spec)
        external = _configured_scheduler()
        first = first_task(spec)
        self._external = external is not None
        self._hosts_scheduler = external is None and first == (job_name, task_index)
        if external is not None:
            self.scheduler_address = external
        else:
            self.scheduler_address = f"{_protocol(security)}{spec.task_address(*first)}"
        from ..runtime.targets import JobTarget, register  # local import: the runtime loads with a server

        for name in spec.jobs:
            for i in spec.task_indices(name):
                # A session on a task's target runs the ops its graph leaves unplaced there, as in TF1.
                target = JobTarget(self.scheduler_address, self.job, security, f"/job:{name}/task:{i}")
                register([spec.task_address(name, i)], target)
        self._loop = None
        self._scheduler = None
        self._worker = None
        self._heartbeats = None
        self._dashboard_port = None
        if start:
            self.start()

    @property
    def target(self) -> str:
        """``grpc://host:port`` of this task: a ``tf.Session`` target sharing the job's variables."""
        return f"grpc://{self._address}"

    @property
    def worker_name(self) -> str:
        """The Dask worker this process hosts: ``<job>-<task>``."""
        return f"{self.server_def.job_name}-{self.server_def.task_index}"

    @property
    def worker_address(self):
        """The hosted worker's Dask address (None before :meth:`start`, or when a worker of the
        configured cluster serves this task already)."""
        return None if self._worker is None else self._worker.address

    @property
    def dashboard_link(self):
        """``http://host:port/status``: the Dask dashboard of this task's scheduler, with
        daskflow's page at ``/daskflow`` beside it (None before :meth:`start`, or when the
        scheduler serves none).

        The scheduler a Server starts serves it at ``daskflow.server-dashboard-address``
        of Dask's configuration (``daskflow/daskflow.yaml``): by default a free port on the
        task's host, so servers and other Dask clusters on one machine never collide.
        """
        if self._dashboard_port is None:
            return None
        from distributed.comm import get_address_host

        return f"http://{get_address_host(self.scheduler_address)}:{self._dashboard_port}/status"

    def start(self):
        """Join the cluster: start the scheduler if this task is the first, then the worker.

        With a scheduler from Dask's configuration whose cluster has a worker
        named ``<job>-<task>`` already (``dask worker --name ps-0``), this
        process hosts none: it only connects.
        """
        if self._loop is not None:
            return
        import distributed  # its logging configuration first: then quiet it

        # Dask's servers log each connection at INFO: quiet here, as tf.local_cluster's are.
        quiet = logging.getLogger(distributed.__name__)
        quiet.setLevel(max(logging.WARNING, quiet.level))
        self._loop = _LoopThread(f"daskflow-server-{self.worker_name}")
        try:
            if self._hosts_scheduler:
                self._scheduler = self._loop.run(self._start_scheduler())
            self._worker = self._loop.run(self._start_worker())
        except BaseException:
            self.stop()
            raise
        atexit.register(self.stop)
        logger.info(
            "daskflow: %s joined the cluster at %s (dashboard: %s)",
            self.worker_name,
            self.scheduler_address,
            self.dashboard_link,
        )

    async def _start_scheduler(self):
        import dask
        from distributed import Scheduler

        # local import: dask's servers and config, loaded when a task starts them, not by `import daskflow`
        from ..local_dask_cluster import LIGHT_MONITORING, _bound, _preloads
        from ..runtime.defaults import setting

        host, port = _host_port(self._address, "the scheduler's task")
        # Not Dask's default 8787: two servers, or a server and another Dask, would collide.
        dashboard = _bound(setting("daskflow.server-dashboard-address"), host)
        options = {"host": host, "port": port, "dashboard_address": dashboard, **_preloads(True)}
        if self._security is not None:
            options.update(security=self._security, protocol="tls://")
        with dask.config.set(LIGHT_MONITORING):
            try:
                return await Scheduler(**options)
            except OSError as e:
                raise UnavailableError(
                    None,
                    None,
                    f"task {self.worker_name} cannot start the Dask scheduler at {self._address}: {e}",
                ) from None

    async def _start_worker(self):
        import dask
        from distributed import Worker

        from ..local_dask_cluster import LIGHT_MONITORING  # local import: as for the scheduler's task above

        host, port = _host_port(self._address, "this task")
        if self._hosts_scheduler:
            port = 0  # the scheduler listens at the task's address
        wait = _wait_seconds(self._config)
        await _wait_for_scheduler(self.scheduler_address, wait, self._security)
        identity = await _identity(self.scheduler_address, self._security)
        self._dashboard_port = identity.get("services", {}).get("dashboard")
        if self._external and self.worker_name in _worker_names(identity):
            # `dask worker --name ps-0` serves this task already: this process only connects.
            return None
        threads = PS_THREADS if self.server_def.job_name == "ps" else 1
        options = dict(
            name=self.worker_name, nthreads=threads, host=host, port=port, memory_limit=0, death_timeout=wait
        )
        if self._security is not None:
            options.update(security=self._security, protocol="tls://")
        with dask.config.set(LIGHT_MONITORING):
            worker = Worker(self.scheduler_address, **options)
            try:
                await worker
            except Exception as e:  # noqa: BLE001 - a name taken, a port in use: say which task
                await worker.close()
                raise UnavailableError(
                    None,
                    None,
                    f"task {self.worker_name} could not join the cluster at {self.scheduler_address}: {e}",
                ) from None
        from ..runtime.worker.between_graph_tasks import host  # local import: dask's worker side, at start

        host(self.job, self.server_def.cluster.as_dict(), dask_worker=worker)
        self._heartbeats = _Heartbeats(worker)
        return worker

    def join(self):
        """Serve this task until its worker closes (a ps task's whole life); for ever (until
        interrupted) when another process serves it."""
        if self._loop is None:
            raise RuntimeError(f"Server for {self.worker_name} was not started")
        self._loop.run(
            self._worker.finished() if self._worker is not None else asyncio.Event().wait(), timeout=None
        )

    def stop(self):
        """Leave the cluster: close the worker (and the scheduler this task started).

        TF1's servers ended with their process; this happens at exit too.
        """
        if self._loop is None:
            return
        loop, self._loop = self._loop, None
        from ..runtime.dask_compat import leave_cluster  # local import: it loads dask

        # The worker leaves the scheduler first: other clients' steps and sessions then no
        # longer count on it (nor send it their plugins' removal).
        # Its heartbeats stop first, none in flight: one crossing its leaving would have the
        # scheduler warn of an unknown worker, or fail with a traceback as its comms close.
        if self._heartbeats is not None:
            with contextlib.suppress(Exception):
                loop.run(self._heartbeats.stop(), timeout=10)
        closing = [leave_cluster(self._worker, "daskflow server stop") if self._worker else None]
        closing.append(self._scheduler.close() if self._scheduler else None)
        for coroutine in closing:
            if coroutine is not None:
                try:
                    loop.run(coroutine, timeout=10)
                except Exception:  # noqa: BLE001 - closing: the rest still goes
                    logger.warning("daskflow: %s did not close cleanly", self.worker_name, exc_info=True)
        self._worker = self._scheduler = self._dashboard_port = None
        loop.stop()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A one-task cluster in this process: a scheduler and the worker ``localhost-0``."""
        from ..runtime.dask_compat import open_port  # local import: it loads dask

        spec = ClusterSpec({"localhost": [f"127.0.0.1:{open_port('127.0.0.1')}"]})
        return Server(spec, job_name="localhost", task_index=0, config=config, start=start)


def job_id(spec: ClusterSpec) -> str:
    """The id of the job a cluster spec describes: the same spec, the same job.

    Examples
    --------
    >>> job_id(ClusterSpec({"ps": ["a:1"]})) == job_id(ClusterSpec({"ps": ["a:1"]}))
    True
    >>> job_id(ClusterSpec({"ps": ["a:1"]})) == job_id(ClusterSpec({"ps": ["a:2"]}))
    False
    """
    text = json.dumps(spec.as_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def first_task(spec: ClusterSpec) -> tuple:
    """The task that starts the scheduler when none is configured: ``(job, index)``.

    Examples
    --------
    >>> first_task(ClusterSpec({"worker": ["a:1", "a:2"], "ps": ["a:3"]}))
    ('ps', 0)
    """
    jobs = [job for job in spec.jobs if spec.task_indices(job)]  # a job of no tasks starts nothing
    for job in FIRST_JOBS:
        if job in jobs:
            return job, spec.task_indices(job)[0]
    return jobs[0], spec.task_indices(jobs[0])[0]


def _server_def(definition, job_name, task_index, protocol, config=None) -> ServerDef:
    if isinstance(definition, ServerDef):
        return definition
    spec = ClusterSpec(definition)
    if job_name is None:
        if len(spec.jobs) != 1:
            raise ValueError(f"Must specify an explicit `job_name`: the cluster has jobs {spec.jobs}")
        job_name = spec.jobs[0]
    if job_name not in spec.jobs:
        raise ValueError(f"job_name {job_name!r} is not a job of the cluster; its jobs are {spec.jobs}")
    if task_index is None:
        if spec.num_tasks(job_name) != 1:
            raise ValueError(f"Must specify an explicit `task_index`: job {job_name!r} has several tasks")
        task_index = spec.task_indices(job_name)[0]
    if int(task_index) not in spec.task_indices(job_name):
        raise ValueError(
            f"task_index {task_index} is not a task of job {job_name!r}; it has {spec.task_indices(job_name)}"
        )
    address = spec.task_address(job_name, int(task_index))
    port = int(address.rsplit(":", 1)[1]) if ":" in address else 0
    return ServerDef(spec, job_name, int(task_index), protocol or "grpc", config, port)


def _host_port(address, what) -> tuple:
    """``(host, port)`` of a TF task address ``host:port``."""
    host, _, port = address.rpartition(":")
    if "://" in host:
        host = host.split("://", 1)[1]
    if not host or not port.isdigit():
        raise ValueError(f"{what}'s address {address!r} is not host:port")
    return host, int(port)


def _protocol(security) -> str:
    return "tcp://" if security is None else "tls://"


def _configured_scheduler():
    """The scheduler Dask's configuration names, or None."""
    import dask

    return dask.config.get("scheduler-address", None) or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def _wait_seconds(config) -> float:
    limit_ms = 0 if config is None else config.operation_timeout_in_ms
    return limit_ms / 1000 if limit_ms > 0 else DEFAULT_WAIT_S


async def _identity(address, security) -> dict:
    """The ``identity`` of the scheduler at ``address``: its workers, its dashboard's port."""
    from distributed.core import rpc

    args = {} if security is None else {"connection_args": security.get_connection_args("client")}
    async with rpc(address, **args) as scheduler:
        return await scheduler.identity()


def _worker_names(identity) -> set:
    """The names of the workers a scheduler's ``identity`` lists."""
    return {str(info.get("name")) for info in identity.get("workers", {}).values()}


async def _wait_for_scheduler(address, seconds, security):
    """Return once the scheduler at ``address`` answers; UnavailableError after ``seconds``."""
    from distributed.comm import connect

    args = {} if security is None else security.get_connection_args("worker")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        try:
            comm = await connect(address, timeout=min(2.0, max(0.1, deadline - loop.time())), **args)
        except OSError as e:
            if loop.time() >= deadline:
                raise UnavailableError(
                    None, None, f"no Dask scheduler answered at {address} within {seconds:g} s: {e}"
                ) from None
            await asyncio.sleep(0.2)
            continue
        await comm.close()
        return


class _Heartbeats:
    """The hosted worker's heartbeats to the scheduler, stopped with none in flight.

    Relies on ``Worker.periodic_callbacks["heartbeat"]``, a tornado ``PeriodicCallback``
    whose ``callback`` (``Worker.heartbeat``) is awaited on each period.
    """

    def __init__(self, worker):
        from ..runtime.dask_compat import heartbeat_callback  # local import: it loads dask

        self._periodic = heartbeat_callback(worker)
        self._idle = asyncio.Event()
        self._idle.set()
        if self._periodic is not None:
            beat = self._periodic.callback

            async def tracked():
                self._idle.clear()
                try:
                    await beat()
                finally:
                    self._idle.set()

            self._periodic.callback = tracked

    async def stop(self, timeout=5.0):
        """Stop the heartbeats; return once the one in flight (if any) is answered."""
        if self._periodic is not None:
            self._periodic.stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)


class _LoopThread:
    """An event loop on a thread of its own, hosting this process's Dask servers."""

    def __init__(self, name):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coroutine, timeout=120):
        """Run ``coroutine`` on the loop; wait for its result (a Ctrl-C still interrupts)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        if timeout is not None:
            return future.result(timeout)
        while True:
            try:
                return future.result(0.5)
            except concurrent.futures.TimeoutError:
                continue

    def stop(self):
        self._loop.call_soon_threadsafe(self._loop.stop)
