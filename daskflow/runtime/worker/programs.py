"""Compiled partitions on the workers.

A plan's compiled partitions are sent to every worker once, in a worker
plugin (so workers that join later get them too), and kept in the worker's
state (:mod:`.state`); each step's tasks then name their program by id
instead of carrying the code again. The plugin also carries its session's
secret, over Dask's own comms, to the workers' bulk ports (:mod:`..wire.bulk`),
which take that session's messages while one of its plans is installed.

A traced step's tasks carry its trace token: each notes when it started on
its worker and when its computation ran, in the worker's state, and the
client takes those times (:func:`take_trace`) once the step is over. Before
a plan's first traced step the client sends the traced variant of its
programs (:class:`TracedPrograms`), which also notes each op's start, end
and output shapes; untraced steps never run it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import time
from dataclasses import dataclass

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from ...client.step_stats import Described, OpTimes, PartitionTimes
from ...framework.replica import replica_context, sources_context
from ...kernels import blocking, deadline, files
from .. import allocator, dask_compat
from ..plan.executable import traced_function
from ..wire import between_graph, bulk, pushes, rendezvous
from . import arrivals, failure_log, sources, sync_rounds
from .state import find_state, state_of

logger = logging.getLogger(__name__)
PREFIX = "daskflow-programs-"


class ProgramRegistry(WorkerPlugin):
    """Installs a plan's compiled partitions on each worker.

    ``secret``: the session's (``secrets.token_bytes(32)``), proving its
    messages (:mod:`..wire.trust`); with None, the workers take none of the plan's
    values. Made on the client, the registry also lets the client send the plan's
    fed values.
    """

    def __init__(
        self, plan_id: str, programs: dict, session: str = "", sources=None, secret=None, directory=None
    ):
        self.name = f"{PREFIX}{session}-{plan_id}"  # the session's: undone with it (cluster/scope.py)
        self.plan_id = plan_id
        self.programs = programs
        self.session = session
        self.sources = sources or {}  # dataset source id -> blocks per replica (cluster/sources.py)
        self.directory = directory  # the session's working directory: its relative paths' base
        self.credentials = None if secret is None else bulk.Credentials(session, secret)
        if self.credentials is not None:
            bulk.CLIENT_SESSIONS.admit(plan_id, self.credentials)

    def setup(self, worker):
        # A copy per worker: workers sharing a process (a test cluster) must not
        # share the per-session state of stateful ops (an iterator's position).
        programs = dask_compat.pickle_roundtrip(self.programs)
        state = state_of(worker)
        # The worker's own folder already: no directory to set around each call.
        directory = None if self.directory == os.getcwd() else self.directory
        state.install_programs(self.plan_id, programs, self.sources, self.session, directory)
        if not state.receiving:  # the worker's receiving ends and the dashboard's question, once
            arrivals.serve_outcomes(worker)
            rendezvous.install(worker, state)
            failure_log.install()
        allocator.keep_step_buffers()
        # Its values are taken here (bulk port and Dask's comms alike) while a plan of it is.
        if self.credentials is not None and not state.trusted.admit(self.plan_id, self.credentials):
            logger.warning("daskflow session %s's values are refused here: another has its id", self.session)

    def teardown(self, worker):
        state = find_state(worker)
        if state is None:  # never set up here
            return
        state.uninstall_programs(self.plan_id, self.programs)
        if self.credentials is not None:
            state.trusted.dismiss(self.plan_id)
            if state.trusted.secret(self.credentials.session) is None:  # its last plan here
                bulk.close_links(self.credentials.session)
        state.mailbox.clear(self.plan_id)
        if not state.has_session(self.session):  # its other plans' readers still use the cache
            state.cache.clear(pushes.cache_name(self.session, ""))


async def run_program(
    task_key, program_id, replica, mode, sends, timeout, trace, shared, *args, limit_ms=None, gate=None
):
    """The task a partition instance runs on its worker.

    Arguments that other instances produce arrive through the mailbox
    (:mod:`..wire.rendezvous`); those from every replica of a partition are
    consumed as ``mode`` says (:mod:`.arrivals`). The program runs on the
    worker's thread pool — as replica ``replica = (index, count)`` when it is
    one — and its results go out to the instances and tasks that read them;
    when it fails, a marker goes instead, which fails them too. ``trace``:
    the step's trace token, when it is traced (else None). ``shared``: a
    :class:`.between_graph.SharedWrite` when the instance reads or updates a job's
    shared variables (else None): it reads the newest values, and an update
    writes its results under the job's lock (:mod:`.between_graph`). ``limit_ms``: the
    step's deadline, from now (TF1's ``timeout_in_ms``): its loops check it. ``gate``: the
    mailbox key of the session's word to start, for a staged step (else None): the task
    waits for it; a step the session drops ends here, and so do its consumers.
    """
    run = await _Instance.start(task_key, program_id, replica, mode, timeout, trace, sends, limit_ms)
    try:
        if gate is not None:
            await rendezvous.opened(run.worker, run.state, task_key, gate)
        results, early, _ = await run.round(task_key[1], sends, args, shared)
    except rendezvous.StepDiscardedError:
        await rendezvous.fail_consumers(run.worker, run.state, run.key, sends, discarded=True)
        return
    except Exception as e:
        await run.failed(e, sends)
        raise
    await run.deliver(results, sends, early)
    run.note_phases()


async def take(task_key, box, index, timeout):
    """The task holding a partition's result ``index`` (a fetch), or the tuple of its
    results at ``index`` (a tuple: its new variable values).

    It starts with the step and waits for the partition's results in the
    mailbox: as a dependency of the partition it would start only after a
    round trip through the scheduler.
    """
    worker = get_worker()
    try:
        return await rendezvous.take(worker, state_of(worker).mailbox, task_key, box, index, timeout)
    except rendezvous.StepDiscardedError:  # a staged step, dropped: nothing to hold
        return None


async def run_loop(
    task_key, program_id, replica, mode, timeout, trace, commit, forget, rounds, *args, limit_ms=None
):
    """Several steps of one partition instance in one task (``ConfigProto(steps_per_run=K)``).

    Each of ``rounds``, ``(step, sends, args)``, is one step, with its own
    step number, arguments and sends, run as :func:`run_program` runs its
    one step. The first round's arguments are ``args`` (its item is None):
    there, as task arguments, Dask gives the values of the variables it
    reads. Later rounds read values the round before sent, or an
    :class:`Again`: the first round's value at that position (a feed, a
    variable no round updates). ``commit``: the last round's
    :class:`~..wire.rendezvous.Send` taking the new variable values, or None.
    ``forget``: names of variables whose rounds' values this worker's cache
    may drop when the loop ends (no other instance here reads them).

    When round ``k`` fails (or its results cannot be delivered), the
    consumers of every later round are failed too, the new variable values
    of round ``k - 1`` (the last step that finished) go to ``commit``, so
    the session can keep them, and the error carries ``daskflow_step = k``.
    """
    loop = Loop(rounds, commit)
    run = await _Instance.start(
        task_key, program_id, replica, mode, timeout, trace, loop.sends_from(0), limit_ms
    )
    first = last = None
    try:
        for k, (step, sends, round_args) in enumerate(rounds):
            try:
                results, early, values = await run.round(step, sends, round_args or args, None, first)
                first = values if first is None else first
                await run.deliver(results, sends, early, urgent=k < len(rounds) - 1)
            except Exception as e:
                e.daskflow_step = k
                kept = commit if last is not None else None  # the values of the step before go there
                await run.failed(e, loop.sends_from(k, keep=kept))
                if kept is not None:
                    await run.deliver(last, [kept])
                raise
            last = results
    finally:
        for name in forget:
            run.state.cache.forget(name)
    run.note_phases()


class Again:
    """A loop round's argument: the first round's value at that position (compared by type:
    each task's arguments arrive unpickled, as new objects)."""

    __slots__ = ()


AGAIN = Again()


@dataclass(frozen=True)
class Loop:
    """The rounds of a :func:`run_loop` task, ``(step, sends, args)`` each, and its ``commit``."""

    rounds: tuple
    commit: object = None

    def sends_from(self, k, keep=None) -> list:
        """The sends of rounds ``k`` on (without ``keep``): whom a failure in round ``k`` starves."""
        skip = None if keep is None else keep.key
        return [send for _, sends, _ in self.rounds[k:] for send in sends if send.key != skip]


class TracedPrograms(WorkerPlugin):
    """Installs the traced variants of a plan's programs, which traced steps run instead of
    the plain ones. ``sources``: program id -> its traced source, made a function here
    with the installed program's own globals (the state of its stateful kernels)."""

    def __init__(self, plan_id: str, sources: dict, session: str = ""):
        self.name = f"{PREFIX}{session}-{plan_id}-traced"  # the session's, as its programs are
        self.sources = sources

    def setup(self, worker):
        state = state_of(worker)
        for pid, source in self.sources.items():
            program = state.program(pid)
            if program is not None:
                state.traced_programs[pid] = traced_function(source, program[1])

    def teardown(self, worker):
        state = find_state(worker)
        for pid in self.sources if state is not None else ():
            state.traced_programs.pop(pid, None)


class _Instance:
    """One partition instance's task on its worker: its program, clock and step rounds."""

    def __init__(self, worker, state, task_key, program_id, program, replica, mode, timeout, trace, limit_ms):
        self.worker, self.state, self.task_key = worker, state, task_key
        self.plan_id = program_id.partition("-")[0]
        self.key, fn, bindings, directory = program
        if trace is not None:  # a traced step: note this instance's times here
            fn = _Timed(fn, self.key, replica, state.trace(trace), state.traced_programs.get(program_id))
        self.code = fn.__code__  # where a failing line is looked up: the wrappers below have none
        if limit_ms:  # on the computing thread, where the loops look for it
            fn = deadline.bounded(fn, limit_ms)
        if directory is not None:  # its ops open relative paths where the session runs
            fn = _InDirectory(fn, directory)
        self.fn, self.replica, self.mode, self.timeout = fn, replica, mode, timeout
        self.clock = _Clock()
        self.loop = asyncio.get_running_loop()
        self.executor = dask_compat.thread_pool(worker)
        self.blocks = sources.resolver(worker, bindings, 0 if replica is None else replica[0])

    @classmethod
    async def start(cls, task_key, program_id, replica, mode, timeout, trace, sends, limit_ms=None):
        worker = get_worker()
        state = state_of(worker)  # the one look-up of the worker's state for this task
        program = state.program(program_id)
        if program is None:
            await rendezvous.fail_consumers(worker, state, program_id, sends)
            raise RuntimeError(f"program {program_id} is not installed on worker {worker.address}")
        return cls(worker, state, task_key, program_id, program, replica, mode, timeout, trace, limit_ms)

    def _in_pool(self, fn, *args):
        """``fn(*args)`` on the worker's thread pool, awaitable; should a kernel block there
        (a queue waiting for another run), the task leaves Dask's count of busy threads and
        its thread the pool first: the run that would unblock it may need a thread here."""
        call = (self.worker, self.task_key, self.loop, fn, *args)
        return self.loop.run_in_executor(self.executor, _giving_thread_up_to_block, *call)

    async def round(self, n, sends, args, shared, first=None):
        """One step's computation (step number ``n``): ``(results, early sends, arguments)``.

        ``first``: the first round's arguments, for those given as :data:`AGAIN`."""
        values = await rendezvous.receive_args(self.worker, self.state, self.task_key, args, self.timeout)
        if first is not None:
            values = [f if type(a) is Again else a for a, f in zip(values, first)]
        step = (self.plan_id, n, self.key)
        if shared is not None:
            results, early = await self._shared_round(step, sends, values, shared)
        elif self.mode is None:
            call = (self.worker, self.state, sends, self.replica, self.blocks, self.fn, values, self.clock)
            results, early = await self._in_pool(_call_then_send, *call)
        else:
            results, early = await self._gathering_round(step, sends, values)
        return results, early, values

    async def _gathering_round(self, step, sends, values):
        """Consume every replica's values as the mode says (:mod:`.arrivals`): ``(results,
        early sends)``; synchronous, the results leave from the computing thread."""
        mode, mailbox, timeout = self.mode, self.state.mailbox, self.timeout
        record = arrivals.recorder(self.state.log, step[:2], self.key)
        if type(mode) is arrivals.FirstReplicas:
            merged = await arrivals.first(mailbox, values, mode.needed, timeout, record)
            call = (self.worker, self.state, sends, self.replica, self.blocks, self.fn, merged, self.clock)
            return await self._in_pool(_call_then_send, *call)
        chain, staleness = mode.chain, mode.max_staleness
        return await arrivals.each(mailbox, values, chain, staleness, timeout, self.compute, record), None

    async def _shared_round(self, step, sends, values, shared):
        """A round reading (and updating) a job's variables: ``(results, early sends)``."""
        worker, state, timeout = self.worker, self.state, self.timeout
        replica, blocks, fn, clock = self.replica, self.blocks, self.fn, self.clock
        # A job's variables held elsewhere: read now, the newest.
        values = await between_graph.resolve(worker, state, values, self.plan_id, step[1], timeout)
        if shared.sync:

            async def apply(merged, write=True):
                call = (worker, state, shared, step[0], replica, blocks, fn, merged, clock, write)
                return await self._in_pool(_apply_round, *call)

            release = functools.partial(rendezvous.release_slot, worker, self.task_key)
            merged = await sync_rounds.contribute(
                state, shared, step, values, apply, lambda v: apply(v, False), release, timeout
            )
            return merged, None
        if self.mode is None:
            call = (worker, state, sends, shared, step, replica, blocks, fn, values, clock)
            return await self._in_pool(_call_shared, *call)
        results = None  # EachReplica (independent replicas): each update by itself
        async for replica_values in arrivals.each_alone(state.mailbox, values, timeout):
            call = (worker, state, shared, step, replica, blocks, fn, replica_values, clock)
            results = await self._in_pool(_update_shared, *call)
        return results, None

    async def compute(self, values):
        call = (self.replica, self.blocks, self.fn, values, self.clock)
        return await self._in_pool(_call, *call)

    async def failed(self, e, sends):
        """Tell the consumers in ``sends``; note where the program failed (``e`` goes on)."""
        await rendezvous.fail_consumers(self.worker, self.state, self.key, sends)
        if not isinstance(e, rendezvous.UpstreamFailedError):
            # Pickling code renames its file, so record which line of which
            # partition failed; the session maps it back to the op.
            e.daskflow_line = (self.key, _line_in(self.code, e.__traceback__))

    async def deliver(self, results, sends, early=None, urgent=False):
        # A delivery that fails fails this task, not silently its consumer.
        deliveries = rendezvous.send_results(self.worker, self.state, results, sends, early, urgent)
        await rendezvous.delivered(self.worker, self.task_key, deliveries)

    def note_phases(self):
        self.state.note_phases(self.plan_id, self.task_key, self.clock.phases(time.perf_counter()))


class _Clock:
    """Where one partition instance's task spent its time: the calls of its program, and
    the rest before (waiting for inputs or replicas) and after them (sending results)."""

    __slots__ = ("started", "computing", "ended")

    def __init__(self):
        self.started = self.ended = time.perf_counter()
        self.computing = 0.0

    def computed(self, start, end):
        self.computing += end - start
        self.ended = end

    def phases(self, now) -> tuple:
        """(waiting, computing, sending) in seconds, for a task that ends ``now``."""
        sending = now - self.ended if self.computing else 0.0
        return (max(0.0, now - self.started - self.computing - sending), self.computing, sending)


class _InDirectory:
    """A program whose ops open relative paths in its session's working ``directory``
    (:mod:`...kernels.files`)."""

    def __init__(self, fn, directory):
        self.fn, self.directory = fn, directory

    def __call__(self, *values):
        with files.working_directory(self.directory):
            return self.fn(*values)


class _Timed:
    """A program that notes when its task started and when each call of it ran; with the
    program's ``traced`` variant, each op's times and output shapes too.

    It passes for the program where a failing line is looked up (``__code__``): the
    traced variant keeps each op on its line.
    """

    def __init__(self, fn, key, replica, records, traced=None):
        self.fn, self.__code__, self.traced = fn, (traced or fn).__code__, traced
        self.key, self.replica = key, None if replica is None else replica[0]
        self.start = time.time_ns()
        self.computes = []  # (start ns, end ns, native thread id) of each call
        self.ops = []  # OpTimes of each op of each call, with the traced variant
        records.append(self)

    def __call__(self, *values):
        start = time.time_ns()
        try:
            if self.traced is None:
                return self.fn(*values)
            return self.traced(*values, _df_log=self._note)
        finally:
            self.computes.append((start, time.time_ns(), threading.get_native_id()))

    def _note(self, entry):
        index, start, end, outputs = entry  # described here: the values stay on the worker
        self.ops.append(OpTimes(index, start, end, tuple(Described.of(v) for v in outputs)))

    def record(self, address) -> PartitionTimes:
        """What was noted, as plain data to send to the client."""
        instance = self.key if self.replica is None else f"{self.key}/{self.replica}"
        computes, ops = list(self.computes), tuple(self.ops)
        return PartitionTimes(instance, self.key, self.replica, address, self.start, computes, ops)


def take_trace(token, dask_worker=None) -> list:
    """The times this worker noted for traced step ``token`` (``client.run`` calls it).

    Taken: a second call gets none.
    """
    state = find_state(dask_worker)
    if state is None:
        return []
    return [timed.record(dask_worker.address) for timed in state.traces.pop(token, ())]


def _giving_thread_up_to_block(worker, key, loop, fn, *args):
    """``fn(*args)``; before a kernel of it blocks (:mod:`...kernels.blocking`), task ``key``
    leaves the worker's count of busy threads and this thread the worker's pool, which
    starts another (this one ends with the call)."""

    def give_up():
        try:  # called holding the queue's lock: nothing may raise out of it
            loop.call_soon_threadsafe(rendezvous.release_slot, worker, key)
            dask_compat.leave_thread_pool()
        except Exception:  # noqa: BLE001 - a worker closing: its loop is gone, the wait goes on
            logger.debug("daskflow could not give a waiting task's thread up", exc_info=True)

    with blocking.letting(give_up):
        return fn(*args)


def _call_then_send(worker, state, sends, *call):
    """Compute, then send by bulk from this thread what can go (:func:`..wire.rendezvous.send_early`)."""
    results = _call(*call)
    return results, rendezvous.send_early(worker, state, results, sends)


def _call_shared(worker, state, sends, shared, step, replica, blocks, fn, values, clock):
    """Compute with the shared variables held here as they are now, then send.

    An update (``shared``) holds its job's lock from reading them to writing its
    results into them, unless its gradients came from values more than
    ``max_staleness`` updates old: then nothing is written. Its outcome is logged
    as an asynchronous replica's is (:mod:`.arrivals`); ``step`` = (plan, step, partition).
    """
    if not shared.writes:  # a partition reading the job's variables, updating none
        results = _call(replica, blocks, fn, between_graph.read_local(state.shared, values), clock)
    else:
        results = _update_shared(worker, state, shared, step, replica, blocks, fn, values, clock)
    return results, rendezvous.send_early(worker, state, results, sends)


def _update_shared(worker, state, shared, step, replica, blocks, fn, values, clock):
    """One asynchronous update of a job's variables held here: under the job's lock, read
    them, compute, and write the results unless they are staler than ``max_staleness``."""
    store = state.shared
    names = [name for name, _ in shared.writes]
    with store.lock(shared.job):
        stale = store.staleness(shared.job, step[1], names)
        results = _call(replica, blocks, fn, between_graph.read_local(store, values), clock)
        applied = shared.max_staleness is None or stale <= shared.max_staleness
        if applied:
            store.write(shared.job, {name: results[index] for name, index in shared.writes})
            _copy_if_due(worker, state, shared, step[0])
    outcome = {"used": [0], "dropped": [], "staleness": [stale]} if applied else {"used": [], "dropped": [0]}
    arrivals.recorder(state.log, step[:2], step[2])(**outcome)
    return results


def _apply_round(worker, state, shared, plan, replica, blocks, fn, merged, clock, write=True):
    """Apply one synchronous round (:mod:`.sync_rounds`) of ``plan``: its clients' gradients,
    merged, to the variables as they are now, under the job's lock (``write=False``: compute
    only)."""
    store = state.shared
    with store.lock(shared.job):
        results = _call(replica, blocks, fn, between_graph.read_local(store, merged), clock)
        if write:
            store.write(shared.job, {name: results[index] for name, index in shared.writes})
            _copy_if_due(worker, state, shared, plan)
    return results


def _copy_if_due(worker, state, shared, plan):
    """After an update of ``plan``'s, under the job's lock: send a copy of the job's variables
    held here to ``shared.backup_to`` when one is due, without waiting for it, signed as the
    plan's session (the worker there keeps it only for a plan it has)."""
    if shared.backup_to is None or shared.backup_to == worker.address:
        return
    store = state.shared
    if store.copy_due(shared.job, shared.backup_secs, shared.backup_to):
        snapshot, credentials = store.snapshot(shared.job), state.trusted.credentials(plan)
        call = (worker, shared.backup_to, shared.job, snapshot, plan, credentials)
        dask_compat.call_soon(worker, between_graph.send_copy, *call)


def _call(replica, blocks, fn, values, clock):
    start = time.perf_counter()
    try:
        with replica_context(*(replica or (0, 1))), sources_context(blocks):
            return fn(*values)
    finally:
        clock.computed(start, time.perf_counter())


def _line_in(code, tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
