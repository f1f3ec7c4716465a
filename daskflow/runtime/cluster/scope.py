"""A session's effects on the cluster it joins, kept to the session and undone at close.

A cluster session changes two things Dask does by default, for its own sake:

* it cuts the lineage of its variable values (:mod:`.lineage`): only keys
  of its own steps, which number from the session's own offset;
* it sends control messages at once instead of batching them
  (:mod:`.streams`): its client's stream to the scheduler and back, and the
  streams between the scheduler and its workers while any daskflow session
  is open;
* with independent replicas, it keeps its variables on their workers, under
  a job of its own (:func:`private_job`), dropped when its worker plugin goes.

Both are done by a scheduler plugin and a worker plugin named after the
session, which :func:`close` removes; a client that goes away without
closing its session takes them with it (the scheduler sees it leave), its
program plugins and secret included. Other clients keep their own streams'
batching and their keys' lineage. Shared while any session is open, by
design: the streams between the scheduler and its workers are unbatched
(message order is unchanged), Dask's process-wide ``key_split`` cache is
bounded at 1,000 keys instead of 100,000, and the dashboard's Groups page
uses daskflow's layout (:mod:`daskflow.dashboard.groups`, loaded on every scheduler as
one of ``daskflow.scheduler-subscribers``; the runtime only emits the session records).
"""

from __future__ import annotations

import contextlib
import logging

from distributed.diagnostics.plugin import SchedulerPlugin, WorkerPlugin

from ...kernels.devices import free_memory
from .. import dask_compat, events, threads
from ..defaults import setting
from ..worker.programs import PREFIX as PROGRAMS_PREFIX
from ..worker.state import find_state
from . import lineage, plugins, streams

logger = logging.getLogger(__name__)

PREFIX = "daskflow-session-"


class StepsTakenError(RuntimeError):
    """Another open session on the cluster numbers its steps in the same range: its keys
    would be this session's. The session picks another range."""


def _overlap(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


class SessionOnScheduler(SchedulerPlugin):
    """On the scheduler: cut the session's lineage, unbatch its streams; undone by :meth:`end`."""

    def __init__(self, token: str, client_id: str, steps: tuple[int, int], low_latency: bool):
        self.name = PREFIX + token
        self.token, self.client_id, self.steps, self.low_latency = token, client_id, steps, low_latency
        self.scheduler = None

    async def start(self, scheduler):
        # No await before add_plugin follows: two sessions cannot both pass this check.
        taken = [p.name for p in _sessions(scheduler).values() if _overlap(p.steps, self.steps)]
        if taken:
            raise StepsTakenError(f"steps {self.steps} are those of the open session {taken[0]}")
        self.scheduler = scheduler
        events.load_subscribers(setting("daskflow.scheduler-subscribers"))  # the Groups page's layout
        events.emit(events.SchedulerSessionOpened(self.token, scheduler))
        if self.low_latency:
            streams.unbatch(dask_compat.scheduler_client_stream(scheduler, self.client_id), self.token)
            for stream in dask_compat.scheduler_worker_streams(scheduler):
                streams.unbatch(stream, self.token)

    def owns(self, key) -> bool:
        """Whether ``key`` is one of this session's variable values."""
        lo, hi = self.steps
        return lineage.is_variable_key(key) and type(key[1]) is int and lo <= key[1] < hi

    def transition(self, key, start, finish, *args, **kwargs):
        if finish != "memory":
            return
        lineage.bound_key_split_cache()  # a C call: cheap enough for every task
        if self.owns(key):
            lineage.cut(self.scheduler, key)

    def add_worker(self, scheduler, worker):
        if self.low_latency:
            for stream in dask_compat.scheduler_worker_streams(scheduler, worker):
                streams.unbatch(stream, self.token)

    def remove_client(self, scheduler, client):
        if client == self.client_id:  # gone without closing its session: undo for it
            dask_compat.call_soon(scheduler, _end_on_scheduler, scheduler, self.token, True)

    def end(self):
        streams.release(self.token)
        if not any(name != self.name for name in _sessions(self.scheduler)):
            events.emit(events.SchedulerSessionsClosed(self.scheduler))


class SessionOnWorker(WorkerPlugin):
    """On a worker: the same, for the worker's task state and its stream to the scheduler."""

    def __init__(self, token: str, steps: tuple[int, int], low_latency: bool, blas_threads=0):
        self.name = PREFIX + token
        self.token, self.steps, self.low_latency = token, steps, low_latency
        self.blas_threads, self._blas = blas_threads, None

    def setup(self, worker):
        self.worker = worker
        self._blas = threads.blas_threads(self.blas_threads)  # ConfigProto(intra_op_parallelism_threads)
        if self.low_latency:
            streams.unbatch(dask_compat.worker_stream(worker), self.token)

    def transition(self, key, start, finish, **kwargs):
        if finish != "memory":
            return
        lineage.bound_key_split_cache()
        lo, hi = self.steps
        if lineage.is_variable_key(key) and type(key[1]) is int and lo <= key[1] < hi:
            lineage.cut_on_worker(self.worker, key)

    def teardown(self, worker):
        streams.release(self.token)
        state = find_state(worker)
        if state is not None:  # the variables of its own job (independent replicas) go with it
            state.shared.retire(private_job(self.token))
        free_memory()  # the GPU pool's blocks its arrays left go back to the device
        if self._blas is not None:
            self._blas.restore()


def open_session(client, token: str, steps: tuple[int, int], low_latency: bool, blas_threads=0) -> None:
    """Install session ``token``'s effects on ``client``'s cluster (its steps: ``steps``;
    ``blas_threads``: numpy's BLAS threads on its workers, 0 for as they are)."""
    # Made again when a comm closes under it: a worker leaving fails a broadcast (plugins.py).
    plugins.retried(client.register_plugin, SessionOnScheduler(token, client.id, steps, low_latency))
    plugins.add(client, SessionOnWorker(token, steps, low_latency, blas_threads))
    if low_latency:
        streams.unbatch(dask_compat.client_stream(client), token)


def close_session(client, token: str) -> None:
    """Undo what :func:`open_session` did (where the cluster is still there to ask)."""
    streams.release(token)
    if client.status != "running":
        return
    with contextlib.suppress(Exception):  # a scheduler that is gone took them with it
        plugins.retried(client.run_on_scheduler, _end_on_scheduler, token=token)
    plugins.remove(client, [PREFIX + token])  # from the workers still there


def _end_on_scheduler(dask_scheduler, token, workers_too=False):
    plugin = _sessions(dask_scheduler).get(PREFIX + token)
    if plugin is None:
        return
    plugin.end()
    dask_scheduler.remove_plugin(plugin.name)
    if workers_too:  # the client left without closing: its programs and secret go too
        programs = programs_prefix(token)
        names = dask_compat.worker_plugin_names(dask_scheduler)
        plugins.later(dask_scheduler, [n for n in names if n == PREFIX + token or n.startswith(programs)])


def _sessions(scheduler) -> dict:
    """Name -> :class:`SessionOnScheduler` of the daskflow sessions open on ``scheduler``."""
    plugins = dask_compat.scheduler_plugins(scheduler)
    return {name: plugin for name, plugin in plugins.items() if name.startswith(PREFIX)}


def private_job(token: str) -> str:
    """The job under which session ``token`` keeps its variables on their workers when it has
    no between-graph job (``ConfigProto(independent_replicas=True)``)."""
    return f"session-{token}"


def programs_prefix(token: str) -> str:
    """The start of the names of session ``token``'s program plugins (:mod:`..worker.programs`)."""
    return f"{PROGRAMS_PREFIX}{token}-"
