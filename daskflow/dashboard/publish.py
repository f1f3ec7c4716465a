"""The client's half of the dashboard: what a cluster session tells the scheduler.

A session sends its records on the client's batched stream to the scheduler,
the channel its task graphs already travel on: sending never waits for an
answer, so a step costs one append to a list. Records are gathered for
``FLUSH_SECS`` and sent as one message, so a thousand steps a second make
five messages, not a thousand. Once per session the client asks the
scheduler whether it has a collector (:mod:`.collector`); where it has none
(a scheduler started without ``--preload daskflow.dashboard``), nothing is
sent — an unknown message would close the client's stream.

Records, each a small dict of plain values (the stream is msgpack):

* ``{"kind": "open", "first_step": int}`` — the session opened;
* ``{"kind": "plan", "plan": id, "placement": {...}}`` — once per plan
  (:func:`placement_record`);
* ``{"kind": "step", "plan": id, "n": int, "wall": float, "time": float}`` —
  each finished step: its step number as in the task keys, the client's wall
  time from submission to completion, and when it finished (``time.time()``);
* ``{"kind": "scalars", "step": int, "values": {tag: float}}`` — scalars a
  ``FileWriter`` wrote (:func:`scalars`);
* ``{"kind": "closed"}``.

The runtime knows nothing of this module: it emits typed records
(:mod:`daskflow.runtime.events`), and this module subscribes to them when
imported (the runtime imports the modules ``daskflow.subscribers`` names, this
one by default). It reaches Dask only through :mod:`daskflow.runtime.dask_compat`.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref

from ..runtime import dask_compat, events
from ..runtime.cluster.devices import place
from ..runtime.plan.arguments import VariableValue

logger = logging.getLogger(__name__)

OP = "daskflow-dashboard"  # the scheduler's stream handler (collector.Collector.receive)
COLLECTOR = "daskflow.dashboard"  # its plugin's name: no "daskflow-" prefix, which marks a session's
FLUSH_SECS = 0.2  # records wait at most this long on the client; the page redraws each second
BUFFER_LIMIT = 10_000  # records held while the client's loop cannot send them
OPS_PER_GROUP = 200  # op names sent per (device, worker) group; the count is always exact

_OPEN: weakref.WeakSet = weakref.WeakSet()  # publishers of this process's open cluster sessions
_OPEN_LOCK = threading.Lock()


def _has_collector(dask_scheduler=None) -> bool:
    return COLLECTOR in dask_compat.scheduler_plugins(dask_scheduler)


class Publisher:
    """One cluster session's records, on their way to the scheduler's collector.

    Parameters
    ----------
    client : distributed.Client
        The session's client.
    session : str
        The session's token (as in its plugins' names).
    first_step : int
        The session's first step number: step ``n`` is shown as ``n - first_step``.
    graph : Graph, optional
        The session's graph: scalars a ``FileWriter`` of this graph writes are
        this session's (:func:`scalars`).
    """

    def __init__(self, client, session: str, first_step: int, graph=None):
        # The client weakly: a session dropped without close() must not have its client kept
        # alive here (a live client keeps the session's scheduler state; a freed one closes).
        self._client = weakref.ref(client)
        self.session, self.first_step = session, first_step
        self.graph = None if graph is None else weakref.ref(graph)
        self.active: bool | None = None  # None: not asked yet (asked with the first plan)
        self._buffer: list = []
        self._lock = threading.Lock()
        self._flush_due = False

    @property
    def client(self):
        """The session's client, or None once it was freed."""
        return self._client()

    @property
    def running(self) -> bool:
        """Whether the session's client is still there and running."""
        client = self._client()
        return client is not None and client.status == "running"

    def connect(self) -> bool:
        """Ask the scheduler, once, whether it collects; start publishing if it does."""
        if self.active is None:
            try:
                self.active = bool(self.client.run_on_scheduler(_has_collector))
            except Exception:  # noqa: BLE001 - a scheduler that cannot answer has no collector
                self.active = False
            if self.active:
                with _OPEN_LOCK:
                    _OPEN.add(self)
                self.put({"kind": "open", "first_step": self.first_step})
        return self.active

    def put(self, record: dict) -> None:
        """Queue ``record``; the first of a batch schedules the batch's send."""
        if not self.active:
            return
        if not self.running:  # its session was never closed: stop here
            self._retire()
            return
        with self._lock:
            if len(self._buffer) >= BUFFER_LIMIT:  # the client's loop is not sending: drop
                return
            self._buffer.append(record)
            if self._flush_due:
                return
            self._flush_due = True

        try:
            dask_compat.call_later(self.client, FLUSH_SECS, self._flush)
        except Exception:  # noqa: BLE001 - a client closing under us: the page misses the last steps
            self._retire()

    def _flush(self) -> None:
        with self._lock:
            records, self._buffer, self._flush_due = self._buffer, [], False
        client = self.client
        if records and client is not None:
            try:
                dask_compat.send_to_scheduler(client, {"op": OP, "session": self.session, "records": records})
            except Exception:  # noqa: BLE001 - the dashboard must never fail a step
                logger.debug("daskflow could not send dashboard records", exc_info=True)

    def close(self) -> None:
        """Send what is left, and that the session closed; publish nothing more."""
        if self.active:
            with self._lock:
                self._buffer.append({"kind": "closed"})
            self._flush()
        self._retire()

    def _retire(self) -> None:
        self.active = False
        with _OPEN_LOCK:
            _OPEN.discard(self)


def scalars(summary, global_step, graph=None) -> None:
    """Publish the scalar values of ``summary`` (a ``Summary`` proto) at ``global_step``.

    They go to the dashboard of the cluster sessions open in this process that
    run ``graph`` (the writer's; ``FileWriter(logdir, sess.graph)``). Where the
    writer has no graph, or no open session runs it, they go to every open
    cluster session; with none open (or only embedded ones) they go nowhere.
    """
    if not _OPEN:
        return
    values = {v.tag: float(v.simple_value) for v in summary.value if v.WhichOneof("value") == "simple_value"}
    if not values:
        return
    record = {"kind": "scalars", "step": int(global_step or 0), "values": values}
    with _OPEN_LOCK:
        publishers = list(_OPEN)
    running = [p for p in publishers if graph is not None and p.graph is not None and p.graph() is graph]
    for publisher in running or publishers:
        publisher.put(record)


def open_publishers() -> list:
    """The publishers of the cluster sessions open in this process."""
    with _OPEN_LOCK:
        return list(_OPEN)


# -- the runtime's records ---------------------------------------------------------------------

_BY_SESSION: dict = {}  # session token -> its Publisher, while the session is open


def publisher_of(session: str) -> Publisher | None:
    """The publisher of the open cluster session ``session`` (its token), if any."""
    return _BY_SESSION.get(session)


def _opened(record: events.SessionOpened) -> None:
    for token, publisher in list(_BY_SESSION.items()):  # sessions dropped without close()
        if not publisher.running:
            _BY_SESSION.pop(token, None)
            publisher._retire()
    _BY_SESSION[record.session] = Publisher(record.client, record.session, record.first_step, record.graph)


def _placed(record: events.PlanPlaced) -> None:
    """A new plan: its placement on the page (the session's first plan asks whether it is served)."""
    publisher = _BY_SESSION.get(record.session)
    if publisher is None or not publisher.connect():
        return
    lowered = record.lowered
    try:
        placement = placement_record(lowered, record.workers, record.soft)
    except Exception:  # noqa: BLE001 - the page lacks this placement; the plan runs regardless
        logger.warning(
            "daskflow could not describe plan %s for the dashboard", lowered.plan_id, exc_info=True
        )
        return
    publisher.put({"kind": "plan", "plan": lowered.plan_id, "placement": placement})


def _finished(record: events.StepFinished) -> None:
    publisher = _BY_SESSION.get(record.session)
    if publisher is not None and publisher.active:
        publisher.put(
            {"kind": "step", "plan": record.plan, "n": record.n, "wall": record.wall} | {"time": record.time}
        )


def _closed(record: events.SessionClosed) -> None:
    publisher = _BY_SESSION.pop(record.session, None)
    if publisher is not None:
        publisher.close()


def _scalars(record: events.ScalarsWritten) -> None:
    scalars(record.summary, record.global_step, record.graph)


events.subscribe(events.SessionOpened, _opened)
events.subscribe(events.PlanPlaced, _placed)
events.subscribe(events.StepFinished, _finished)
events.subscribe(events.SessionClosed, _closed)
events.subscribe(events.ScalarsWritten, _scalars)


# -- placement ---------------------------------------------------------------------------------


def placement_record(lowered, workers, soft: bool) -> dict:
    """What the dashboard shows of a plan's placement, in plain values.

    ``instances``: each partition instance (a partition, or a replica of it)
    with its worker, device, stage and op count; ``edges``: ``[producer,
    consumer]`` instance names, what partitions send each other; ``pushes``:
    ``[from worker, to worker]`` of new variable values; ``groups``: the ops
    by ``(device, worker)``, at most ``OPS_PER_GROUP`` names each.
    """
    executable = lowered.executable
    plan = executable.plan
    parts = {p.key: p for p in plan.partitions}
    instances, worker_of = [], {}
    for key, part in parts.items():
        for inst in lowered.instances(key):
            worker = lowered.placement[inst.name][0].name
            worker_of[inst.name] = worker
            instances.append(
                {"name": inst.name, "partition": key, "worker": worker, "device": part.device or ""}
                | {"stage": part.stage, "ops": len(part.ops)}
            )
    edges, pushes, readers = [], set(), {}
    for program in executable.programs:
        for consumer in lowered.instances(program.key):
            for producer in program.reads:
                for source in _producers(lowered, producer, consumer):
                    edges.append([source, consumer.name])
            for arg in program.args:
                if type(arg) is VariableValue:
                    readers.setdefault(arg.name, set()).add(worker_of[consumer.name])
    for name, home in lowered.var_home.items():
        pushes.update((home, reader) for reader in readers.get(name, ()) if reader != home)
    groups: dict = {}
    for op in plan.ops:
        part = plan.partition_of.get(op)
        if part is None:  # a variable: its value lives where its device puts it
            where = [place(op.device, workers, soft)[0].name]
        else:
            where = sorted({worker_of[i.name] for i in lowered.instances(part.key)})
        group = groups.setdefault((op.device or "", ", ".join(where)), [0, []])
        group[0] += 1
        if len(group[1]) < OPS_PER_GROUP:
            group[1].append(op.name)
    return {
        "plan": lowered.plan_id,
        "instances": instances,
        "edges": edges,
        "pushes": sorted([a, b] for a, b in pushes),
        "groups": [
            {"device": d, "worker": w, "count": n, "ops": names} for (d, w), (n, names) in groups.items()
        ],
        "time": time.time(),
    }


def _producers(lowered, producer: str, consumer) -> list:
    """The instances of partition ``producer`` whose results ``consumer`` reads: the one
    instance, its own replica's, or every replica's (a gathering partition)."""
    if producer not in lowered.replicated:
        return [producer]
    instances = lowered.instances(producer)
    if consumer.replica is not None:
        return [inst.name for inst in instances if inst.replica == consumer.replica]
    return [inst.name for inst in instances]
