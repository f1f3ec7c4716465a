"""Every use of Dask's private internals, in one place.

daskflow reaches past distributed's public API where a step's latency or a
long run's memory depends on it. Each function here names what it relies
on, so a Dask release that changes it breaks here, in one file, and the
tests of the supported range (``pyproject.toml`` pins it; ``.ci/lowest-dask``
runs the lowest) show where.
"""

from __future__ import annotations

import time

from dask.utils import key_split
from distributed.client import _wait
from distributed.worker import get_data_from_worker
from distributed.worker_state_machine import SecedeEvent
from tornado.ioloop import PeriodicCallback

__all__ = [
    "bound_key_split_cache",
    "client_stream",
    "every",
    "fetch_from_worker",
    "forget_released",
    "release_thread_slot",
    "replace_group_layout",
    "scheduler_plugins",
    "scheduler_client_stream",
    "scheduler_worker_streams",
    "serve_handler",
    "task_group_dependencies",
    "unlink_from_dependencies",
    "unlink_on_worker",
    "unregister_worker_plugins",
    "wait_quietly",
    "worker_plugin_names",
    "worker_stream",
]


# -- waiting and threads ---------------------------------------------------------------------


def wait_quietly(client, futures, timeout):
    """Wait until every future is finished or failed, at most ``timeout`` s (TimeoutError).

    Relies on ``distributed.client._wait``: unlike ``distributed.wait`` it is
    the coroutine itself, run on the client's loop with ``client.sync``.
    """
    return client.sync(_wait, futures, timeout=timeout)


def release_thread_slot(worker, key):
    """Stop counting task ``key`` against the worker's threads while it waits.

    What ``distributed.secede`` does for a task on a thread, for a coroutine
    task. Relies on ``SecedeEvent`` and ``Worker.handle_stimulus`` of the
    worker state machine.
    """
    stimulus = f"daskflow-wait-{time.time()}"
    worker.handle_stimulus(SecedeEvent(key=key, compute_duration=0.0, stimulus_id=stimulus))


async def fetch_from_worker(worker, key, address):
    """``get_data`` of ``key`` from the worker at ``address``, with Dask's handshake.

    Relies on ``distributed.worker.get_data_from_worker``: a bare
    ``get_data`` call leaves the holder waiting for the reader's "OK",
    counted as an outgoing transfer for ever.
    """
    return await get_data_from_worker(worker.rpc, [key], address, who=worker.address)


def serve_handler(worker, name, handler):
    """Answer comm requests ``name`` on ``worker`` (``Server.handlers``)."""
    worker.handlers[name] = handler


def every(server, name, callback, seconds):
    """Call ``callback`` every ``seconds`` on ``server``'s event loop (idempotent by ``name``).

    Relies on ``Server.periodic_callbacks``: the server starts them with itself and
    stops them when it closes, so nothing outlives the worker.
    """
    if name in server.periodic_callbacks:
        return
    callback = PeriodicCallback(callback, 1000 * seconds)
    server.periodic_callbacks[name] = callback
    callback.start()


# -- batched streams (their ``interval`` attribute is what is changed) ----------------------


def client_stream(client):
    """The client's batched stream to the scheduler (``Client.scheduler_comm``)."""
    return getattr(client, "scheduler_comm", None)


def scheduler_client_stream(scheduler, client_id):
    """The scheduler's batched stream to one client (``Scheduler.client_comms``)."""
    return scheduler.client_comms.get(client_id)


def scheduler_worker_streams(scheduler, address=None):
    """The scheduler's batched streams to its workers, or to one (``Scheduler.stream_comms``)."""
    if address is not None:
        stream = scheduler.stream_comms.get(address)
        return [] if stream is None else [stream]
    return list(scheduler.stream_comms.values())


def worker_stream(worker):
    """A worker's batched stream to the scheduler (``Worker.batched_stream``)."""
    return worker.batched_stream


# -- task state ------------------------------------------------------------------------------


def unlink_from_dependencies(scheduler, key) -> list:
    """Drop the scheduler's links from task ``key`` to the tasks it was computed from.

    The state the scheduler reaches when a dependency is forgotten:
    ``TaskState.dependencies``/``dependents``/``waiters`` emptied on both sides
    and ``has_lost_dependencies`` set. Returns the keys of dependencies that
    nothing depends on any more.
    """
    ts = scheduler.tasks.get(key)
    if ts is None or not ts.dependencies:
        return []
    orphans = []
    for dep in list(ts.dependencies):
        dep.dependents.discard(ts)
        if dep.waiters:
            dep.waiters.discard(ts)
        if not dep.dependents:
            orphans.append(dep.key)
    ts.dependencies.clear()
    ts.has_lost_dependencies = True
    return orphans


def forget_released(scheduler, keys, stimulus_id):
    """Forget the tasks of ``keys`` that are released and wanted by nobody."""
    tasks = scheduler.tasks
    forget = {k: "forgotten" for k in keys if _forgettable(tasks.get(k))}
    if forget:
        scheduler.transitions(forget, stimulus_id)


def _forgettable(ts):
    return ts is not None and ts.state == "released" and not ts.dependents and not ts.who_wants


def unlink_on_worker(worker, key):
    """The same unlinking in a worker's task state (``WorkerState.tasks``)."""
    ts = worker.state.tasks.get(key)
    if ts is None:
        return
    for dep in list(ts.dependencies):
        dep.dependents.discard(ts)
    ts.dependencies.clear()


# -- the dashboard ---------------------------------------------------------------------------

_DASK_LAYOUT: list = []  # distributed's own TaskGroupGraph.update_layout, while replaced


def replace_group_layout(layout) -> None:
    """Lay the Groups page out with ``layout(graph) -> (nodes, arrows)``; None: Dask's own.

    Relies on ``TaskGroupGraph.update_layout`` of the scheduler's dashboard
    (in this process; nothing happens without bokeh).
    """
    try:
        from distributed.dashboard.components.scheduler import TaskGroupGraph
    except ImportError:  # no bokeh: no dashboard
        return
    if layout is None:
        if _DASK_LAYOUT:
            TaskGroupGraph.update_layout = _DASK_LAYOUT.pop()
        return
    if not _DASK_LAYOUT:
        _DASK_LAYOUT.append(TaskGroupGraph.update_layout)
    TaskGroupGraph.update_layout = layout


def task_group_dependencies(scheduler) -> dict:
    """``{task group name: names of the groups it depends on}`` (``Scheduler.task_groups``)."""
    groups = scheduler.task_groups
    return {
        name: {dep.name for dep in tg.dependencies if dep.name != name and dep.name in groups}
        for name, tg in groups.items()
    }


def bound_key_split_cache(limit: int) -> None:
    """Empty ``dask.utils.key_split``'s LRU cache once it holds more than ``limit`` keys.

    Relies on ``key_split`` being a ``functools.lru_cache``: every step's keys
    are new, so the default 100,000 entries would be a long run's steady growth.
    """
    info = getattr(key_split, "cache_info", None)
    if info is not None and info().currsize > limit:
        key_split.cache_clear()


# -- plugins ----------------------------------------------------------------------------------


def scheduler_plugins(scheduler) -> dict:
    """Name -> plugin of the scheduler's plugins (``Scheduler.plugins``)."""
    return scheduler.plugins


def unregister_worker_plugins(scheduler, names) -> None:
    """Take the worker plugins ``names`` off the scheduler and its workers, from the scheduler.

    Relies on the ``unregister_worker_plugin`` comm handler (its first argument
    is the comm, unused) and ``Scheduler.worker_plugins``.
    """
    for name in names:
        if name in scheduler.worker_plugins:
            scheduler.loop.add_callback(scheduler.unregister_worker_plugin, None, name)


def worker_plugin_names(scheduler) -> list:
    """The names of the worker plugins the scheduler hands to workers that join."""
    return list(scheduler.worker_plugins)
