"""The scheduler's half of the dashboard: what each daskflow session did, kept bounded.

:class:`Collector` is a scheduler plugin. It learns of a session's steps,
plans and scalar summaries from the session's own messages on its client's
stream (:mod:`.publish`), and of each partition task's duration from the
scheduler's transitions — the ``startstops`` a worker reports with every
finished task, which Dask's task stream reads too. What only the workers
know (replicas used and dropped, staleness, bytes each worker sent each other, where
each task spent its time: waiting for inputs, computing, sending) is
asked of them while someone looks: :meth:`Collector.refresh_from_workers`
runs at most once a second, called by the page and the data endpoint, never
by a step. So a step's own record comes before its workers' detail; the page
draws a step once its detail is in (:meth:`SessionRecord.detailed`), after
waiting for the workers' answer at each redraw.

Memory is bounded: the newest ``limit`` steps and scalar values of each
tag, per session; the newest ``PLANS_KEPT`` plans' placements; the newest
``SESSIONS_KEPT`` sessions (closed ones go first).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time

from distributed.diagnostics.plugin import SchedulerPlugin

from ..runtime import dask_compat
from ..runtime.worker.arrivals import OUTCOMES_HANDLER
from .publish import COLLECTOR, OP

logger = logging.getLogger(__name__)

LIMIT = 2_000  # steps (and values of each scalar tag) kept per session
SESSIONS_KEPT = 16
PLANS_KEPT = 4
TAGS_KEPT = 100
POLL_SECS = 1.0  # workers are asked at most this often, and only while someone looks
# ...less a tenth: a page redrawing each second, whose timer drifts, asks at every redraw.
POLL_SLACK = 0.1
ASKED_AFTER_CLOSE = 60.0  # a closed session's workers are still asked this long (its last steps)
RATE_WINDOW = 10  # steps/s is measured over this many steps
# How the first item of a partition task's key ends ("ps_0 update", runtime/cluster/step_tasks.py):
# its values and fetched tensors are tasks of the same instance, not timed.
PARTITION_TASKS = (" step", " update")


class SessionRecord:
    """What the collector keeps of one session."""

    def __init__(self, session: str, client: str | None, first_step: int, limit: int):
        self.session, self.client, self.first_step = session, client, first_step
        self.open, self.opened, self.closed = True, time.time(), None
        self.steps: collections.deque = collections.deque(maxlen=limit)
        self.by_n: dict = {}  # step number -> its record in ``steps``
        self.tasks: collections.OrderedDict = collections.OrderedDict()  # n -> tasks seen before the step
        self.scalars: dict = {}  # tag -> deque of [global step, value]
        self.plans: collections.OrderedDict = collections.OrderedDict()  # plan id -> placement
        self.instances: set = set()  # the partition instances of its plans
        self.limit = limit
        self.polled_to = None  # the newest step when the workers were last asked
        self.detailed_to = None  # the newest step whose workers' detail is in

    def add_step(self, record: dict) -> None:
        n = record["n"]
        if len(self.steps) == self.steps.maxlen:
            self.by_n.pop(self.steps[0]["n"], None)
        step = {
            "n": n,
            "step": n - self.first_step,
            "plan": record.get("plan"),
            "wall_time": float(record.get("wall", 0.0)),
            "time": float(record.get("time", time.time())),
            "tasks": self.tasks.pop(n, {}),
            "outcomes": {},
            "bytes_sent": {},
            "bytes_by_pair": {},
            "phases": {},
        }
        self.steps.append(step)
        self.by_n[n] = step

    def add_task(self, n: int, instance: str, worker: str, start: float, duration: float) -> None:
        step = self.by_n.get(n)
        if step is not None:  # a backup replica finishing after its step
            step["tasks"][instance] = [worker, start, duration]
            return
        self.tasks.setdefault(n, {})[instance] = [worker, start, duration]
        while len(self.tasks) > self.limit:  # steps that failed leave their tasks here
            self.tasks.popitem(last=False)

    def add_plan(self, placement: dict) -> None:
        self.plans[placement["plan"]] = placement
        while len(self.plans) > PLANS_KEPT:
            self.plans.popitem(last=False)
        self.instances = {i["name"] for p in self.plans.values() for i in p.get("instances", ())}

    def add_scalars(self, step: int, values: dict) -> None:
        for tag, value in values.items():
            if tag not in self.scalars:
                if len(self.scalars) >= TAGS_KEPT:
                    continue
                self.scalars[tag] = collections.deque(maxlen=self.limit)
            self.scalars[tag].append([int(step), float(value)])

    @property
    def asked(self) -> bool:
        """Whether the workers are asked about this session's steps (open, or just closed)."""
        return self.open or (self.closed is not None and time.time() - self.closed < ASKED_AFTER_CLOSE)

    def detailed(self) -> list:
        """The steps whose workers' detail (phases, bytes, replicas) is in: those up to the
        newest step when the workers last answered; every step of a session no longer asked."""
        if not self.asked:
            return list(self.steps)
        if self.detailed_to is None:
            return []
        return [s for s in self.steps if s["n"] <= self.detailed_to]

    def summary(self, last: int | None = None, detailed: bool = False) -> dict:
        """The session as the page and the data endpoint show it: its newest ``last`` steps
        (those whose workers' detail is in, if ``detailed``), scalars and newest placement."""
        steps = self.detailed() if detailed else list(self.steps)
        steps = steps[-last:] if last else steps
        placement = next(reversed(self.plans.values()), None)
        return {
            "session": self.session,
            "client": self.client,
            "open": self.open,
            "opened": self.opened,
            "closed": self.closed,
            "first_step": self.first_step,
            "steps_per_second": steps_per_second(self.steps),
            "steps": [_step_view(s) for s in steps],
            "detailed_to": None if self.detailed_to is None else self.detailed_to - self.first_step,
            "scalars": {tag: list(values) for tag, values in self.scalars.items()},
            "placement": placement,
            "destinations": destinations(placement),
        }


class Collector(SchedulerPlugin):
    """A scheduler plugin keeping each daskflow session's recent steps for the dashboard.

    Parameters
    ----------
    limit : int
        Steps (and values of each scalar tag) kept per session.

    Examples
    --------
    >>> c = Collector(limit=2)
    >>> c.receive(session="s", records=[{"kind": "open", "first_step": 100}])
    >>> c.receive(session="s", records=[{"kind": "step", "n": 100 + i, "wall": 0.1} for i in range(3)])
    >>> [s["step"] for s in c.data()["sessions"][0]["steps"]]
    [1, 2]
    """

    name = COLLECTOR

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.scheduler = None
        self.sessions: collections.OrderedDict = collections.OrderedDict()
        self._instances: set = set()  # every kept session's partition instances: the tasks to time
        self._polled = 0.0
        self._running: set = set()  # the workers that ran a partition task
        self._polling = None

    # -- installing ----------------------------------------------------------------------------
    def install(self, scheduler) -> None:
        """Add to ``scheduler``: as a plugin, and as the handler of the sessions' messages."""
        self.scheduler = scheduler
        scheduler.add_plugin(self, name=self.name, idempotent=True)
        dask_compat.serve_stream(scheduler, OP, self.receive)

    # -- what the sessions send ----------------------------------------------------------------
    def receive(self, session=None, records=(), client=None, **_):
        """Take a session's records (the stream handler: it must not raise)."""
        for record in records:
            try:
                self._take(session, client, record)
            except Exception:  # noqa: BLE001 - a bad record must not close the client's stream
                logger.warning("daskflow's dashboard dropped a record of session %s", session, exc_info=True)

    def _take(self, session, client, record):
        kind = record.get("kind")
        if kind == "open":
            self._open(session, client, int(record.get("first_step", 0)))
            return
        found = self.sessions.get(session)
        if found is None:
            return
        if kind == "step":
            found.add_step(record)
        elif kind == "plan":
            found.add_plan(record["placement"])
            self._instances = {i for s in self.sessions.values() for i in s.instances}
        elif kind == "scalars":
            found.add_scalars(record.get("step", 0), record.get("values", {}))
        elif kind == "closed":
            found.open, found.closed = False, time.time()

    def _open(self, session, client, first_step):
        self.sessions[session] = SessionRecord(session, client, first_step, self.limit)
        while len(self.sessions) > SESSIONS_KEPT:
            closed = [k for k, s in self.sessions.items() if not s.open]
            del self.sessions[closed[0] if closed else next(iter(self.sessions))]

    # -- what the scheduler sees ---------------------------------------------------------------
    def transition(self, key, start, finish, *args, **kwargs):
        # Every task's every transition comes here: leave at once unless a partition finished.
        if finish != "memory" or start != "processing" or type(key) is not tuple or len(key) != 3:
            return
        if key[2] not in self._instances or type(key[1]) is not int or not _partition_task(key[0]):
            return
        try:
            self._task_finished(key, kwargs)
        except Exception:  # noqa: BLE001 - never in the way of the scheduler's transitions
            logger.debug("daskflow's dashboard could not time %s", key, exc_info=True)

    def _task_finished(self, key, kwargs):
        n, instance = key[1], key[2]
        session = self._session_of(instance, n)
        stops = [s for s in kwargs.get("startstops", ()) if s.get("action") == "compute"]
        if session is None or not stops:
            return
        start = min(s["start"] for s in stops)
        duration = sum(s["stop"] - s["start"] for s in stops)
        self._running.add(kwargs.get("worker"))  # it keeps a step log: asked while the page is open
        session.add_task(n, instance, self._name(kwargs.get("worker")), start, duration)

    def _name(self, address) -> str:
        """The name of the worker at ``address`` (its address once it has left)."""
        name = dask_compat.worker_name(self.scheduler, address) if self.scheduler else None
        return str(name) if name is not None else str(address)

    def _session_of(self, instance, n):
        """The session whose steps ``n`` is one of: the newest with the highest first step below it."""
        best = None
        for s in self.sessions.values():
            if (
                instance in s.instances
                and s.first_step <= n
                and (best is None or s.first_step >= best.first_step)
            ):
                best = s
        return best

    def remove_client(self, scheduler, client):
        for s in self.sessions.values():
            if s.client == client and s.open:  # gone without closing its session
                s.open, s.closed = False, time.time()

    # -- what only the workers know ------------------------------------------------------------
    def poll(self) -> asyncio.Future:
        """Start :meth:`refresh_from_workers` unless it runs now (call on the loop): its future."""
        if self._polling is None or self._polling.done():
            self._polling = asyncio.ensure_future(self.refresh_from_workers())
        return self._polling

    async def answered(self, timeout: float) -> None:
        """Ask the workers (unless asked in the last second) and wait for their answers, at
        most ``timeout`` seconds (a slow worker holds up no redraw: its steps wait for the next).
        A failed ask fails no redraw either: the page draws what it has."""
        try:
            await asyncio.wait_for(asyncio.shield(self.poll()), timeout)
        except asyncio.TimeoutError:
            pass
        except Exception:  # noqa: BLE001 - logged; the next redraw asks again
            logger.warning("daskflow's dashboard could not take the workers' answers", exc_info=True)

    async def refresh_from_workers(self) -> None:
        """Ask the workers, at most every ``POLL_SECS``, for the outcomes of recent steps."""
        now = time.monotonic()
        if self.scheduler is None or now - self._polled < POLL_SECS - POLL_SLACK:
            return
        self._polled = now
        since, asked = {}, []
        for s in self.sessions.values():
            if s.steps and s.asked:
                # First every step kept (the workers keep their last 1,000), then the newest:
                # again the last few, whose bytes may have grown since.
                start = (
                    s.steps[0]["n"] - 1 if s.polled_to is None else max(s.steps[0]["n"] - 1, s.polled_to - 20)
                )
                since.update(dict.fromkeys(s.plans, start))
                s.polled_to = s.steps[-1]["n"]
                asked.append((s, s.polled_to))
        if not since:
            return
        try:
            workers = self._workers_of(s for s, _ in asked)
            found = await dask_compat.ask_workers(self.scheduler, OUTCOMES_HANDLER, workers, since=since)
        except Exception:  # noqa: BLE001 - the page shows what it has
            logger.debug("daskflow's dashboard could not ask the workers", exc_info=True)
            found = {}
        for address, outcomes in found.items():
            self._merge(self._name(address), outcomes)
        # Those steps' detail is in: every worker that ran them answered (or never will).
        for s, newest in asked:
            s.detailed_to = newest

    def _workers_of(self, sessions) -> list:
        """The addresses of the workers that ran or run the ``sessions``' partitions: those
        seen finishing one, and those their plans place instances on (a step may finish
        before its plan's record arrives here, as fast steps do: then no finish is seen)."""
        named = {str(i["worker"]) for s in sessions for p in s.plans.values() for i in p.get("instances", ())}
        return [
            address
            for address, name in dask_compat.worker_names(self.scheduler).items()
            if address in self._running or str(name) in named
        ]

    def _merge(self, worker, outcomes):
        session_of = {plan: s for s in self.sessions.values() for plan in s.plans}
        for entry in outcomes["log"]:
            step = _step_of(session_of, entry["plan"], entry["step"])
            if step is not None:
                step["outcomes"][str(entry.get("partition"))] = [
                    len(entry.get("used", ())),
                    len(entry.get("dropped", ())),
                    [int(x) for x in entry.get("staleness", ())],
                ]
        for (plan, n), sent in outcomes["sent"].items():
            step = _step_of(session_of, plan, n)
            if step is not None:
                step["bytes_sent"][worker] = int(sent)
        for (plan, n), sent_to in outcomes.get("sent_to", {}).items():
            step = _step_of(session_of, plan, n)
            if step is not None:
                for address, sent in sent_to.items():
                    step["bytes_by_pair"][(worker, self._name(address))] = int(sent)
        for plan, n, instance, updates, *seconds in outcomes.get("phases", ()):
            step = _step_of(session_of, plan, n)
            if step is not None:
                step["phases"][str(instance)] = [bool(updates), *(float(s) for s in seconds)]

    # -- what the page shows -------------------------------------------------------------------
    def data(self, last: int | None = None) -> dict:
        """Every kept session's summary, as plain JSON values (newest session last)."""
        return {"time": time.time(), "sessions": [s.summary(last) for s in self.sessions.values()]}


def _step_of(session_of, plan, n):
    session = session_of.get(plan)
    return None if session is None else session.by_n.get(n)


def _partition_task(name) -> bool:
    return type(name) is str and name.endswith(PARTITION_TASKS)


def steps_per_second(steps) -> float | None:
    """Steps a second over the newest ``RATE_WINDOW`` steps (by the client's clock)."""
    window = list(steps)[-RATE_WINDOW:]
    if len(window) < 2 or window[-1]["time"] <= window[0]["time"]:
        return None
    return (len(window) - 1) / (window[-1]["time"] - window[0]["time"])


def destinations(placement) -> dict:
    """Worker -> the other workers it sends values to in a step of ``placement``."""
    if not placement:
        return {}
    worker = {i["name"]: i["worker"] for i in placement.get("instances", ())}
    out: dict = {}
    pairs = [(worker.get(a), worker.get(b)) for a, b in placement.get("edges", ())] + [
        tuple(p) for p in placement.get("pushes", ())
    ]
    for a, b in pairs:
        if a and b and a != b:
            out.setdefault(a, set()).add(b)
    return {a: sorted(bs) for a, bs in out.items()}


def _step_view(step: dict) -> dict:
    """A step as the page and the data endpoint show it."""
    tasks = step["tasks"]
    first = min((t[1] for t in tasks.values()), default=0.0)
    outcomes = list(step["outcomes"].values())
    return {
        "step": step["step"],
        "plan": step["plan"],
        "time": step["time"],
        "wall_time": step["wall_time"],
        # From the client's submission to its first task's start (the client's and the
        # workers' wall clocks: one machine, or clocks kept in step by NTP).
        "submission": max(0.0, first - (step["time"] - step["wall_time"])) if tasks else None,
        "tasks": {
            i: {"worker": w, "start": s - first, "duration": d} for i, (w, s, d) in sorted(tasks.items())
        },
        "replicas_used": max((o[0] for o in outcomes), default=None) or None,
        "gradients_dropped": max((o[1] for o in outcomes), default=0),
        "staleness": max((o[2] for o in outcomes), key=len, default=[]),
        "bytes_sent": dict(step["bytes_sent"]),
        # [from worker, to worker, bytes]: plain JSON, which has no pairs as keys.
        "bytes_by_pair": [[a, b, n] for (a, b), n in sorted(step["bytes_by_pair"].items())],
        # Where each partition instance's task spent its time, as its worker measured it.
        "phases": {
            i: {"updates": u, "waiting": w, "computing": c, "sending": s}
            for i, (u, w, c, s) in sorted(step["phases"].items())
        },
    }


def collector_of(scheduler) -> Collector | None:
    """The collector installed on ``scheduler``, if any."""
    found = dask_compat.scheduler_plugins(scheduler).get(COLLECTOR)
    return found if isinstance(found, Collector) else None


def data_handler():
    """The Tornado handler of the data endpoint: the collector's :meth:`~Collector.data` as JSON.

    ``?last=N`` keeps each session's newest ``N`` steps. Asks the workers
    first (at most once a second), as the page does.
    """
    import json

    from tornado import web

    class DataHandler(web.RequestHandler):
        def initialize(self, collector):
            self.collector = collector

        async def get(self):
            last = self.get_argument("last", None)
            if last is not None and not last.isdigit():
                raise web.HTTPError(400, f"last must be a whole number of steps, got {last!r}")
            await self.collector.refresh_from_workers()
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            self.write(json.dumps(self.collector.data(int(last) if last else None)))

    return DataHandler
