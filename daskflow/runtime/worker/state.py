"""What daskflow keeps on a Dask worker: one worker extension, ``worker.extensions["daskflow"]``.

A worker running daskflow steps holds the values sent to its partitions (the
mailbox), the variable values pushed to it, its installed programs, the
accounting of what it sent and what its steps did, and its bulk port's
receiver. All of it belongs to the worker, not to its process: the workers
of a ``LocalCluster(processes=False)`` share one process, and each must see
only its own mail and programs. Kept in a worker extension, it lives exactly
as long as its worker: Dask calls :meth:`WorkerState.close` when the worker
closes (after its plugins' teardowns), which closes the receiver's sockets
and drops every value held.

The modules that move values (:mod:`..wire.rendezvous`, :mod:`..wire.pushes`,
:mod:`..wire.between_graph`) stand below the worker room and never look it
up: the worker's entry points (its programs plugin, the tasks it runs) find
it with :func:`state_of` and hand it to them, which read it as the interface
they define, :class:`..wire.endpoint.WorkerEnd`.
"""

from __future__ import annotations

import collections
import uuid

from .. import dask_compat
from ..wire.mailbox import Mailbox
from ..wire.trust import Sessions, Unclaimed
from ..wire.variable_cache import VariableCache
from .between_graph import SharedVariables

EXTENSION = "daskflow"
LOG_LIMIT = 1_000  # steps of accounting kept per worker: a long run's memory stays flat
TRACE_LIMIT = 100  # traced steps whose times are kept until the client takes them


class WorkerState:
    """The state of daskflow on one Dask worker.

    Attributes
    ----------
    mailbox : Mailbox
        Values sent to this worker's partitions, until they are taken; it
        keeps an unclaimed value while its plan is installed here.
    cache : VariableCache
        The newest variable values pushed to this worker.
    shared : SharedVariables
        The variables of between-graph jobs held here (:mod:`.between_graph`).
    incarnation : str
        A token of this state: a worker restarted under the same name has another.
    programs : dict
        Program id -> ``(partition key, compiled function, dataset sources)``.
    plans : dict
        Plan id -> the ids of its programs installed here.
    sessions : dict
        Plan id -> the session it belongs to, of the plans installed here.
    sent : dict
        ``(plan id, step)`` -> bytes this worker sent other workers, for
        the newest ``LOG_LIMIT`` steps.
    sent_to : dict
        ``(plan id, step)`` -> ``{address: bytes}``: the same bytes by the
        worker they went to (of steps that sent some).
    log : collections.deque
        The newest ``LOG_LIMIT`` outcomes of replicated steps
        (:mod:`.arrivals`).
    phases : collections.deque
        The newest ``LOG_LIMIT`` partition instances' time by phase:
        ``(plan, step, instance, updates variables, waiting, computing, sending)``.
    receiver : bulk.Receiver or None
        The worker's bulk port (None: it serves none).
    trusted : trust.Sessions
        The sessions whose values this worker takes, by plan, with their
        secrets (:mod:`..wire.trust`): on its bulk port and on Dask's comms alike.
    unclaimed : trust.Unclaimed
        The bytes of each session's values delivered here and not yet claimed.
    receiving : bool
        Whether the worker serves its receiving ends yet
        (:func:`..wire.rendezvous.install`).
    traces : dict
        Trace token -> the times of the partitions a traced step ran here
        (:mod:`.programs`), until the client takes them; the newest
        ``TRACE_LIMIT`` steps' (a failed step's are never taken).

    Examples
    --------
    >>> state = WorkerState()
    >>> state.install_programs("p1", {"p1-0": ("part", abs)})
    >>> "p1" in state.plans, state.program("p1-0")[0]
    (True, 'part')
    >>> state.uninstall_programs("p1", ["p1-0"])
    >>> "p1" in state.plans
    False
    """

    def __init__(self):
        self.programs: dict = {}
        self.plans: dict = {}
        self.sessions: dict = {}
        self.mailbox = Mailbox(installed=self.plans)
        self.cache = VariableCache()
        self.shared = SharedVariables()
        self.incarnation = uuid.uuid4().hex  # tells this worker from one restarted under its name
        self.sent: dict = {}
        self.sent_to: dict = {}
        self.log: collections.deque = collections.deque(maxlen=LOG_LIMIT)
        self.phases: collections.deque = collections.deque(maxlen=LOG_LIMIT)
        self.receiver = None
        self.trusted = Sessions()
        self.unclaimed = Unclaimed()
        self.receiving = False
        self.traces: dict = {}
        self.traced_programs: dict = {}  # program id -> its traced variant (programs.TracedPrograms)

    def install_programs(self, plan_id: str, programs: dict, sources=None, session: str = "", directory=None):
        """Install ``programs`` (program id -> (key, fn)) of ``plan_id``, a plan of
        ``session``, reading ``sources``, opening relative paths in ``directory``."""
        for pid, (key, fn) in programs.items():
            self.programs[pid] = (key, fn, sources or {}, directory)
        self.plans.setdefault(plan_id, set()).update(programs)
        self.sessions[plan_id] = session

    def uninstall_programs(self, plan_id: str, program_ids):
        """Remove a plan's programs; the plan is gone from here once none is left."""
        for pid in program_ids:
            self.programs.pop(pid, None)
            self.traced_programs.pop(pid, None)
        left = self.plans.get(plan_id, set()).difference(program_ids)
        if left:
            self.plans[plan_id] = left
        else:
            self.plans.pop(plan_id, None)
            self.sessions.pop(plan_id, None)

    def has_session(self, session: str) -> bool:
        """Whether a plan of ``session`` is installed here."""
        return session in self.sessions.values()

    def note_phases(self, plan_id: str, task_key: tuple, phases: tuple):
        """Note where partition instance ``task_key`` = (name, step, instance) of ``plan_id``
        spent its task: ``phases`` = (waiting, computing, sending) seconds."""
        self.phases.append((plan_id, task_key[1], task_key[2], task_key[0].endswith(" update"), *phases))

    def program(self, program_id: str):
        """``(key, fn, sources)`` of an installed program, or None."""
        return self.programs.get(program_id)

    def count_sent(self, step: tuple, address: str, payload):
        """Count the bytes of ``payload``'s arrays as sent to the worker at ``address`` in
        ``step`` = (plan id, step).

        Examples
        --------
        >>> import numpy as np
        >>> state = WorkerState()
        >>> state.count_sent(("p", 1), "tcp://b", (np.zeros(4, np.float32), None))
        >>> state.count_sent(("p", 1), "tcp://c", [np.zeros(2)])
        >>> state.sent, state.sent_to
        ({('p', 1): 32}, {('p', 1): {'tcp://b': 16, 'tcp://c': 16}})
        """
        nbytes = sum(getattr(v, "nbytes", 0) for v in payload)
        sent, sent_to = self.sent, self.sent_to
        sent[step] = sent.get(step, 0) + nbytes
        if nbytes:  # a control edge's empty message joins no pair
            to = sent_to.get(step)
            if to is None:
                to = sent_to[step] = {}
            to[address] = to.get(address, 0) + nbytes
        if len(sent) > LOG_LIMIT:  # the oldest step: a long run's accounting stays bounded
            oldest = next(iter(sent))
            del sent[oldest]
            sent_to.pop(oldest, None)

    def trace(self, token: str) -> list:
        """The list collecting the partition times of traced step ``token`` here."""
        records = self.traces.get(token)
        if records is None:
            records = self.traces[token] = []
            if len(self.traces) > TRACE_LIMIT:
                del self.traces[next(iter(self.traces))]  # the oldest: a failed step's, never taken
        return records

    def close(self):
        """Close the bulk receiver and drop everything held (Dask calls it on ``Worker.close``)."""
        if self.receiver is not None:
            self.receiver.close()
        self.mailbox.close()
        self.cache.clear("")
        self.shared.clear()
        self.programs.clear()
        self.plans.clear()
        self.sessions.clear()
        self.sent.clear()
        self.sent_to.clear()
        self.log.clear()
        self.phases.clear()
        self.traces.clear()


def state_of(worker) -> WorkerState:
    """``worker``'s daskflow state, installed as its extension on first use (idempotent).

    Examples
    --------
    >>> from distributed import get_worker
    >>> state_of(get_worker()).mailbox  # doctest: +SKIP
    <daskflow.runtime.wire.mailbox.Mailbox object at ...>
    """
    return dask_compat.worker_extension(worker, EXTENSION, WorkerState)  # closed with the worker


def find_state(worker) -> WorkerState | None:
    """``worker``'s daskflow state, or None where it has none (nothing installed it yet)."""
    return dask_compat.worker_extension(worker, EXTENSION)
