"""Per-step metrics of a cluster session.

The client times each step itself; what happened on the workers — which
replicas' results were used or dropped, each update's staleness, the bytes
partitions sent each other — is logged on the workers as it happens and
collected only when asked (one ``client.run``), so measuring costs the
steps nothing.

Each plan made and each step finished is also emitted as a record
(:mod:`..events`) to whoever listens: the dashboard's publisher
(:mod:`daskflow.dashboard.publish`) sends them to the scheduler's page.
"""

from __future__ import annotations

import collections
import logging
import time

from .. import events
from ..worker.arrivals import step_log
from ..worker.state import LOG_LIMIT

logger = logging.getLogger(__name__)


class StepMetrics:
    """The client's half of the metrics: step wall times, and collection."""

    def __init__(self, client, first_step=0, session="", graph=None):
        self.client = client
        self.first_step = first_step  # the session's step keys count from here
        self.plans: list = []
        self._walls: collections.deque = collections.deque(maxlen=LOG_LIMIT)
        self.session = session
        events.load_subscribers()
        events.emit(events.SessionOpened(session, client, first_step, graph))

    def planned(self, lowered, workers, soft):
        """A new plan: remember it, and tell the listeners where it placed what."""
        self.plans.append(lowered.plan_id)
        events.emit(events.PlanPlaced(self.session, lowered, workers, soft))

    def finished(self, pending):
        """A finished run: one entry per step (a run of several shares its time among them)."""
        plan, steps = pending.lowered.plan_id, pending.steps
        wall = (time.perf_counter() - pending.start) / steps
        for n in range(pending.n - steps + 1, pending.n + 1):
            self._walls.append((plan, n, wall))
            if events.listened(events.StepFinished):
                events.emit(events.StepFinished(self.session, plan, n, wall, time.time()))

    def close(self):
        """Tell the listeners the session closed."""
        events.emit(events.SessionClosed(self.session))

    def collect(self):
        """One dict per finished step, oldest first.

        Keys: ``step`` (the session's step number), ``wall_time`` (seconds,
        submission to completion), ``replicas_used`` and ``gradients_dropped``
        (replicas whose results were used or dropped, for replicated steps),
        ``staleness`` (per applied update, asynchronous replication),
        ``bytes_between_workers`` (sent by partitions to other workers) and
        ``bytes_by_pair`` (the same bytes, ``{(from worker, to worker): bytes}``, by
        worker name; the address of a worker that has left) and ``phases``
        (``{partition instance: {"updates", "waiting", "computing", "sending"}}``:
        seconds its task waited for inputs, ran its program and sent results after,
        and whether it updates variables) and ``device_memory_bytes`` (``{worker:
        bytes}`` its GPU memory pool held when the metrics were collected; 0 without a GPU).
        """
        per_worker = self.client.run(step_log, list(self.plans)) if self._walls else {}
        names = {address: found.get("name") or address for address, found in per_worker.items()}
        logs, sent, pairs, phases = {}, collections.Counter(), {}, {}
        device_memory = {names[a]: int(found.get("device_memory", 0)) for a, found in per_worker.items()}
        for address, found in per_worker.items():
            for entry in found["log"]:
                logs[(entry["plan"], entry["step"])] = entry
            for plan, n, instance, updates, waiting, computing, sending in found.get("phases", ()):
                times = {"updates": updates, "waiting": waiting, "computing": computing, "sending": sending}
                phases.setdefault((plan, n), {})[instance] = times
            sent.update(found["sent"])
            for step, to in found.get("sent_to", {}).items():
                step_pairs = pairs.setdefault(step, {})
                for where, nbytes in to.items():
                    pair = (names[address], names.get(where, where))
                    step_pairs[pair] = step_pairs.get(pair, 0) + int(nbytes)
        out = []
        for plan, n, wall in self._walls:
            entry = logs.get((plan, n), {})
            out.append(
                {
                    "step": n - self.first_step,
                    "wall_time": wall,
                    "replicas_used": len(entry.get("used", [])) or None,
                    "gradients_dropped": len(entry.get("dropped", [])),
                    "staleness": list(entry.get("staleness", [])),
                    "bytes_between_workers": int(sent.get((plan, n), 0)),
                    "bytes_by_pair": pairs.get((plan, n), {}),
                    "phases": phases.get((plan, n), {}),
                    "device_memory_bytes": device_memory,
                }
            )
        return out
