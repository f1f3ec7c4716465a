"""Every use of Dask's private internals, in one place.

daskflow reaches past distributed's public API where a step's latency or a
long run's memory depends on it. Each function here names what it relies
on, so a Dask release that changes it breaks here, in one file, and the
tests of the supported range (``pyproject.toml`` pins it; ``.ci/lowest-dask``
runs the lowest, ``.ci/newest-dask`` the newest release) show where.
``tests/test_dask_surface.py`` fails naming ``file:line`` for any private
Dask name used elsewhere (its docstring states the rule).
"""

from __future__ import annotations

import asyncio
import logging
import time

from dask.utils import key_split
from distributed import threadpoolexecutor
from distributed.client import _wait
from distributed.protocol import pickle
from distributed.utils import log_errors as _log_errors
from distributed.utils import open_port as _open_port
from distributed.utils import sync
from distributed.worker import get_data_from_worker
from distributed.worker_state_machine import SecedeEvent
from tornado.ioloop import PeriodicCallback

__all__ = [
    "add_dashboard_page",
    "call_soon",
    "comm_backend",
    "comms",
    "fetch_block",
    "forget_worker_plugin",
    "has_plugin",
    "heartbeat_callback",
    "is_running",
    "keep_worker_plugin",
    "leave_thread_pool",
    "local_value",
    "log_errors",
    "open_port",
    "pickle_roundtrip",
    "pickled",
    "run_message",
    "run_on_loop",
    "scheduler_identity",
    "set_stream_interval",
    "stream_interval",
    "thread_pool",
    "worker_extension",
    "worker_name",
    "is_worker",
    "add_http_route",
    "bound_key_split_cache",
    "call_later",
    "client_stream",
    "dashboard_look",
    "every",
    "fetch_from_worker",
    "leave_cluster",
    "forget_released",
    "release_thread_slot",
    "replace_group_layout",
    "rewrite_task_failure_logs",
    "run_on_workers",
    "scheduler_plugins",
    "scheduler_client_stream",
    "scheduler_worker_streams",
    "send_to_scheduler",
    "serve_handler",
    "serve_stream",
    "task_group_dependencies",
    "unlink_from_dependencies",
    "unlink_on_worker",
    "unregister_worker_plugins",
    "wait_first",
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


def wait_first(client, futures, timeout):
    """Wait until one of ``futures`` is finished or failed, at most ``timeout`` s (no error).

    Relies on ``distributed.client._wait`` with ``return_when``.
    """
    try:
        client.sync(_wait, futures, timeout=timeout, return_when="FIRST_COMPLETED")
    except TimeoutError:
        pass


def release_thread_slot(worker, key):
    """Stop counting task ``key`` against the worker's threads while it waits.

    What ``distributed.secede`` does for a task on a thread, for a coroutine
    task; a task already released stays as it is. Relies on ``SecedeEvent``,
    ``Worker.handle_stimulus`` and the task states of the worker state machine.
    """
    task = worker.state.tasks.get(key)
    if task is None or task.state != "executing":
        return
    stimulus = f"daskflow-wait-{time.time()}"
    worker.handle_stimulus(SecedeEvent(key=key, compute_duration=0.0, stimulus_id=stimulus))


def leave_thread_pool() -> None:
    """Take the calling thread out of its worker's thread pool, which starts another for the
    tasks waiting; this one ends when its call returns. Nothing on a thread of no such pool.
    Relies on ``distributed.threadpoolexecutor``'s ``thread_state`` and ``secede``."""
    if getattr(threadpoolexecutor.thread_state, "proceed", False):
        threadpoolexecutor.secede(adjust=True)


def tasks_queued(worker) -> bool:
    """Whether a task on ``worker`` waits for a thread or for resources now (the worker
    state machine's ``ready`` and ``constrained`` sets)."""
    return bool(worker.state.ready) or bool(worker.state.constrained)


async def fetch_from_worker(worker, key, address):
    """``get_data`` of ``key`` from the worker at ``address``, with Dask's handshake.

    Relies on ``distributed.worker.get_data_from_worker``: a bare
    ``get_data`` call leaves the holder waiting for the reader's "OK",
    counted as an outgoing transfer for ever.
    """
    return await get_data_from_worker(worker.rpc, [key], address, who=worker.address)


def local_value(worker, key, default=None):
    """The value of task ``key`` in ``worker``'s memory, or ``default`` (``Worker.data``)."""
    data = worker.data
    return data[key] if key in data else default


async def fetch_block(worker, key, holders):
    """Task ``key``'s value from one of ``holders`` (addresses), else from wherever the
    scheduler now says it is; None where no worker has it.

    Each fetch is :func:`fetch_from_worker` (the holder gets its "OK"); a holder that
    answers "busy" or lacks the key is passed over. Relies on the scheduler's
    ``who_has`` handler, reached by ``Worker.scheduler``.
    """
    for _ in range(2):
        for address in holders:
            response = await fetch_from_worker(worker, key, address)
            data = response.get("data", {}) if isinstance(response, dict) else {}
            if key in data:
                return data
        holders = (await worker.scheduler.who_has(keys=[key])).get(key, ())
    return None


# The states (distributed.core.Status names) of a worker that has begun to leave.
LEAVING = frozenset({"stopping", "stopped", "closing", "closing_gracefully", "closed", "failed"})


def is_leaving(status) -> bool:
    """Whether a worker in ``status`` (a ``distributed.core.Status``) has begun to leave."""
    return status.name in LEAVING


async def leave_cluster(worker, reason):
    """Close ``worker`` after the scheduler has let it go, as ``Worker.close_gracefully``
    does, without its race: the scheduler's "closing gracefully" can reach a worker that
    is closing already, which Dask logs as an error.

    Relies on the scheduler's ``retire_workers`` handler, reached by ``Worker.scheduler``,
    and on the status the scheduler sends back (``Status.closing_gracefully``).
    """
    from distributed.core import Status

    try:
        await worker.scheduler.retire_workers(
            workers=[worker.address],
            close_workers=False,
            remove=True,
            stimulus_id=f"daskflow-leave-{time.time()}",
        )
    except (OSError, RuntimeError):  # "ConnectionPool is closed": it began closing meanwhile
        if not is_leaving(worker.status):
            raise
    for _ in range(100):  # its word comes on the worker's stream, after the answer
        if worker.status == Status.closing_gracefully:
            break
        await asyncio.sleep(0.01)
    await worker.close(reason=reason)


def is_running(worker) -> bool:
    """Whether ``worker`` runs tasks now: ``Status.running`` or ``Status.paused``."""
    from distributed.core import Status

    return worker.status in (Status.running, Status.paused)


def has_plugin(worker, name) -> bool:
    """Whether ``worker`` has the worker plugin ``name`` (``Worker.plugins``)."""
    return name in worker.plugins


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


# -- event loops, comm pools, workers' parts ------------------------------------------------

log_errors = _log_errors  # ``distributed.utils.log_errors``: log, then re-raise (a decorator)


def call_soon(server, callback, *args) -> None:
    """Call ``callback(*args)`` on the event loop of ``server`` (a worker, scheduler or
    client), from any thread; a coroutine function's coroutine is run there.

    Relies on ``Server.loop`` / ``Client.loop`` being a Tornado ``IOLoop``.
    """
    server.loop.add_callback(callback, *args)


def run_on_loop(server, function, *args, **kwargs):
    """``await function(*args, **kwargs)`` on ``server``'s event loop, from another thread,
    blocking this one until it ends (``distributed.utils.sync`` on ``Server.loop``)."""
    return sync(server.loop, function, *args, **kwargs)


def comms(server):
    """``server``'s pool of comms to other servers (``Server.rpc`` / ``Client.rpc``, a
    ``ConnectionPool``): ``comms(server)(address).handler(**fields)`` calls a comm handler."""
    return server.rpc


def thread_pool(worker):
    """The executor ``worker`` runs tasks on (``Worker.executors["default"]``)."""
    return worker.executors["default"]


def worker_extension(worker, name, make=None):
    """``worker``'s extension ``name`` (``Worker.extensions``, closed with the worker); made
    with ``make()`` and kept where it has none and ``make`` is given, else None."""
    found = worker.extensions.get(name)
    if found is None and make is not None:
        found = worker.extensions[name] = make()
    return found


def heartbeat_callback(worker):
    """``worker``'s heartbeat ``PeriodicCallback`` (``Worker.periodic_callbacks["heartbeat"]``),
    or None."""
    return worker.periodic_callbacks.get("heartbeat")


def worker_name(scheduler, address, default=None):
    """The name of the worker at ``address`` as ``scheduler`` knows it (``Scheduler.workers``,
    ``WorkerState.name``), or ``default`` where it has no such worker."""
    ws = scheduler.workers.get(address)
    return default if ws is None else ws.name


def worker_names(scheduler) -> dict:
    """``{address: name}`` of every worker ``scheduler`` counts (``Scheduler.workers``)."""
    return {address: ws.name for address, ws in scheduler.workers.items()}


def is_worker(scheduler, address) -> bool:
    """Whether ``scheduler`` counts a worker at ``address`` (``Scheduler.workers``)."""
    return address in scheduler.workers


def scheduler_identity(client) -> dict:
    """The scheduler's ``identity``: its address, type and each worker's record, asked with
    ``n_workers=-1`` (every worker) where the scheduler takes it.

    Relies on the scheduler's ``identity`` comm handler, reached by ``Client.scheduler``.
    """
    try:
        return client.sync(client.scheduler.identity, n_workers=-1)
    except TypeError:  # a scheduler older than ``n_workers``, which lists every worker
        return client.sync(client.scheduler.identity)


def comm_backend(scheme: str):
    """Dask's comm backend for address scheme ``scheme`` (``ValueError`` for one it lacks).

    Relies on ``distributed.comm.registry.get_backend``.
    """
    from distributed.comm.registry import get_backend

    return get_backend(scheme)


def open_port(host: str = "") -> int:
    """A free TCP port on ``host`` (``distributed.utils.open_port``)."""
    return _open_port(host)


def pickled(value) -> bytes:
    """``value`` pickled as Dask pickles a plugin or function it sends
    (``distributed.protocol.pickle``: cloudpickle for what plain pickle cannot carry)."""
    return pickle.dumps(value)


def pickle_roundtrip(value):
    """``value`` pickled and unpickled as Dask sends it (``distributed.protocol.pickle``,
    cloudpickle for what plain pickle cannot carry): a deep copy as a worker would get it."""
    return pickle.loads(pickle.dumps(value))


def run_message(function, *args) -> dict:
    """The message ``Client.run`` has the scheduler send to each worker: ``function(*args,
    dask_worker=...)`` there (its fields pickled with ``distributed.protocol.pickle``)."""
    return {
        "op": "run",
        "function": pickle.dumps(function),
        "args": pickle.dumps(args),
        "kwargs": pickle.dumps({}),
        "wait": True,
    }


def keep_worker_plugin(scheduler, name, data) -> None:
    """Have ``scheduler`` hand plugin ``name`` (pickled: ``data``) to workers that join
    (``Scheduler.worker_plugins``)."""
    scheduler.worker_plugins[name] = data


def forget_worker_plugin(scheduler, name) -> None:
    """Stop handing plugin ``name`` to workers that join (``Scheduler.worker_plugins``)."""
    scheduler.worker_plugins.pop(name, None)


# -- batched streams (their ``interval`` attribute is what is changed) ----------------------


def stream_interval(stream):
    """How long ``stream`` (a ``distributed.batched.BatchedSend``) batches messages, in s."""
    return stream.interval


def set_stream_interval(stream, seconds) -> None:
    """Have ``stream`` batch for ``seconds`` (0: send each message at once).

    Relies on ``BatchedSend.interval``, read before each flush.
    """
    stream.interval = seconds


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


async def to_running_workers(scheduler, msg: dict, tries=4, pause=0.25, timeout=10.0) -> dict:
    """Send ``msg`` to every running worker, from the scheduler, quietly: address -> answer.

    What ``Scheduler.broadcast`` does, less its error log: a worker that cannot
    be reached is sent ``msg`` again (up to ``tries`` times) while the scheduler
    still counts it as running; one that left meanwhile is left out, and is no
    error (its plugins and state went with it). Those still there that never
    answered map to None. Relies on ``Scheduler.workers`` (``WorkerState.status``),
    ``Scheduler.rpc.connect``/``reuse`` and ``distributed.core.send_recv``.
    """
    from distributed.core import send_recv

    # Every worker not leaving: one that has just joined may not say "running" yet, and it
    # must not miss a plugin (it got the scheduler's plugins as it registered).
    def running():
        return {a for a, ws in scheduler.workers.items() if not is_leaving(ws.status)}

    async def send(address):
        try:
            comm = await asyncio.wait_for(scheduler.rpc.connect(address), timeout)
            try:
                return await asyncio.wait_for(send_recv(comm, close=True, **msg), timeout)
            finally:
                scheduler.rpc.reuse(address, comm)
        except (OSError, asyncio.TimeoutError):  # leaving, or gone: asked again below
            return None

    answers: dict = {}
    pending = sorted(running())
    for attempt in range(tries):
        for address, answer in zip(pending, await asyncio.gather(*map(send, pending))):
            if answer is not None:
                answers[address] = answer
        pending = sorted(running() & {a for a in pending if a not in answers})
        if not pending:
            break
        await asyncio.sleep(pause * (attempt + 1))
    return {**answers, **dict.fromkeys(pending)}


def worker_plugin_names(scheduler) -> list:
    """The names of the worker plugins the scheduler hands to workers that join."""
    return list(scheduler.worker_plugins)


# -- the daskflow dashboard page (daskflow/dashboard) ------------------------------------------


def send_to_scheduler(client, msg: dict) -> None:
    """Put ``msg`` on the client's batched stream to the scheduler; no answer is awaited.

    Relies on ``Client._send_to_scheduler`` (thread-safe: it hands the message
    to the client's event loop) and on the scheduler having a stream handler
    for ``msg["op"]`` (:func:`serve_stream`): an unknown op closes the stream.
    """
    client._send_to_scheduler(msg)


def call_later(client, seconds: float, callback) -> None:
    """Call ``callback()`` on the client's event loop in ``seconds`` (from any thread).

    Relies on ``Client.loop`` being a Tornado ``IOLoop``.
    """
    client.loop.add_callback(client.loop.call_later, seconds, callback)


def serve_stream(scheduler, op: str, handler) -> None:
    """Handle messages ``{"op": op, ...}`` on the scheduler's batched streams.

    Relies on ``Server.stream_handlers``: the handler is called with the
    message's fields, and ``client=<id>`` for a client's stream. An exception
    in it would close that stream, so it must not raise.
    """
    scheduler.stream_handlers[op] = handler


async def ask_workers(scheduler, op: str, workers, **kwargs) -> dict:
    """Ask ``workers`` ' comm handler ``op`` from the scheduler: address -> its answer
    (one sent ``to_serialize`` d, unpickled); workers without the handler, or that fail, are left out.
    """
    from distributed.protocol.serialize import Serialized, deserialize

    if not workers:
        return {}
    responses = await scheduler.broadcast(msg={"op": op, **kwargs}, workers=list(workers), on_error="ignore")
    out = {}
    for address, response in responses.items():
        if isinstance(response, Serialized):
            response = deserialize(response.header, response.frames)
        if isinstance(response, dict):
            out[address] = response
    return out


async def run_on_workers(scheduler, function, *args) -> dict:
    """``function(*args, dask_worker=...)`` on every worker, from the scheduler: address -> result.

    What ``Client.run`` asks the scheduler to do (its ``broadcast`` of a
    ``run`` message); workers that fail or do not answer are left out.
    Relies on the scheduler's comms not deserializing (``Serialized`` results).
    """
    from distributed.protocol.serialize import Serialized, deserialize

    msg = run_message(function, *args)
    responses = await scheduler.broadcast(msg=msg, on_error="ignore")
    out = {}
    for address, response in responses.items():
        if not isinstance(response, dict) or response.get("status") != "OK":
            continue
        result = response["result"]
        if isinstance(result, Serialized):
            result = deserialize(result.header, result.frames)
        out[address] = result
    return out


def add_dashboard_page(scheduler, route: str, make_doc, title: str) -> bool:
    """Serve a Bokeh page at ``route`` (e.g. ``"/daskflow"``) on the scheduler's dashboard.

    ``make_doc(scheduler, extra, doc)`` fills each new document, as the
    functions of ``distributed.dashboard.scheduler.applications`` do; ``extra``
    holds the template variables of the dashboard's navigation bar. The page
    is listed in the "More..." menu as ``title``. Returns False where the
    scheduler has no dashboard (no bokeh, or ``dashboard=False``).

    Relies on ``Scheduler.http_application`` (a ``RoutingApplication`` that
    asks each added application in turn), ``BokehApplication`` of
    ``distributed.dashboard.core``, and the memoized
    ``distributed.dashboard.scheduler.template_variables(scheduler)`` whose
    ``plots`` list every dashboard page's navigation bar shares.
    """
    try:
        from distributed.dashboard.core import BokehApplication
        from distributed.dashboard.scheduler import template_variables
        from tornado.ioloop import IOLoop
    except ImportError:  # no (suitable) bokeh: Dask serves no dashboard
        return False
    http = getattr(scheduler, "http_application", None)
    bokeh_apps = [app for app in getattr(http, "applications", ()) if hasattr(app, "app_paths")]
    if not bokeh_apps:  # Dask's own pages are not served: neither is this one
        return False
    if any(route in app.app_paths for app in bokeh_apps):
        return True
    variables = template_variables(scheduler)
    prefix = bokeh_apps[0].prefix
    page = BokehApplication({route: make_doc}, scheduler, prefix=prefix, template_variables=variables)
    http.add_application(page)
    page.initialize(IOLoop.current())  # the scheduler's loop: this runs on it, as Dask's connect does
    page.start()
    entry = {"url": route.strip("/"), "name": title}
    if entry not in variables["plots"]:
        variables["plots"].append(entry)
    return True


def add_http_route(scheduler, pattern: str, handler, kwargs: dict) -> None:
    """Serve ``pattern`` (a path below the dashboard's prefix) with a Tornado ``handler``.

    Relies on ``Scheduler.http_application`` being a Tornado ``Application``
    whose own routes are asked first.
    """
    http = scheduler.http_application
    prefix = next((app.prefix for app in http.applications if hasattr(app, "app_paths")), "")
    http.add_handlers(r".*", [(prefix.rstrip("/") + "/" + pattern.lstrip("/"), handler, kwargs)])


def dashboard_look():
    """``(template, theme)`` of Dask's dashboard pages, for a page that looks like them.

    Relies on ``env`` and ``BOKEH_THEME`` of ``distributed.dashboard.components.scheduler``.
    """
    from distributed.dashboard.components.scheduler import BOKEH_THEME, env

    return env.get_template("simple.html"), BOKEH_THEME


# -- the worker's log ------------------------------------------------------------------------


def rewrite_task_failure_logs(rewrite) -> None:
    """Pass each task failure a worker of this process logs to ``rewrite(key, exception
    text)``, which returns a one-line message to log at WARNING instead, or None to keep
    Dask's record (an ERROR with the traceback). A rewritten record's traceback goes to
    the ``daskflow.worker.failures`` logger at DEBUG. Installed once per process.

    Relies on distributed's worker logging a failed task on the ``distributed.worker``
    logger as ``"Compute Failed..."`` with the key first and the exception's repr fourth
    among its arguments (``Worker.execute``)."""
    logger = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _TaskFailureRewrite) for f in logger.filters):
        logger.addFilter(_TaskFailureRewrite(rewrite))


_FAILURES = logging.getLogger("daskflow.worker.failures")


class _TaskFailureRewrite(logging.Filter):
    def __init__(self, rewrite):
        super().__init__()
        self.rewrite = rewrite

    def filter(self, record):
        args = record.args if isinstance(record.args, tuple) else ()
        if isinstance(record.msg, str) and record.msg.startswith("Compute Failed") and len(args) >= 4:
            message = self.rewrite(args[0], args[3])
            if message is not None:
                _FAILURES.debug("%s", record.getMessage())  # Dask's record, traceback included
                record.msg, record.args = message, ()
                record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
