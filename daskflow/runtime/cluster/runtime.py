"""Running steps on a Dask cluster.

The same :class:`Executable` that runs embedded is lowered onto the cluster:
each partition becomes one task per step, restricted to the worker its
device names (and to a GPU, for a GPU device). A step's tasks all start at
once; partitions pass their results to each other worker to worker, as TF's
Send/Recv do (:mod:`..wire.rendezvous`), instead of through Dask dependencies, each
of which would cost a round trip through the scheduler. Variables live as
futures on their workers (:mod:`.held`): a step's tasks take the current
values as inputs and its new values become the new futures — they never pass
through the client unless fetched. A step is one graph submission; the client then
gathers only the fetched values.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import itertools
import logging
import os
import secrets
import threading
import time
import uuid
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import dask
import numpy as np

from ...client.run_metadata import message_class
from ...errors import DeadlineExceededError, FailedPreconditionError, OpError
from ...framework.device_spec import DeviceSpec
from ...kernels.deadline import TIMED_OUT
from .. import dask_compat, steps_per_run
from ..checkpoint import read_variable, shard_groups, shard_records, write_shard
from ..interface import make_executable, placement_of
from ..wire import bulk
from ..wire.rendezvous import Failed, UpstreamFailedError, post, post_now
from ..worker.programs import ProgramRegistry, TracedPrograms
from . import between_graph, lineage, memory, plugins, recovery, scope, sources, traced
from .devices import DeviceNotInClusterError, cluster_workers, filtered, on_task, place, scheduler_identity
from .held import holders, item_tasks, singles, with_tasks
from .metrics import StepMetrics
from .step_tasks import BACKUP_PREFIX, Lowered
from .updating import Updating
from .variables import Change, VariableTable

logger = logging.getLogger(__name__)

REFRESH = 2.0  # seconds between looks at the cluster's membership
START = np.True_  # the word that starts a staged step's task (numeric: it goes by bulk)
DROPPED = Failed("session", discarded=True)  # the word that ends one, unstarted
WORD_WAIT = 0.01  # seconds a run waits for its staged step's words to be sent
WORD_TIMEOUT = 2.0  # seconds a dropped step's words may take (a worker that left takes none)
# Seconds past a run's deadline before the session itself ends the step: a partition's loops
# stop at the deadline on their worker, with a more precise error than ours.
DEADLINE_GRACE = 1.0
JOIN_WAIT = 60.0  # seconds a between-graph session waits for a task its graph names to join
LEAVING_SECS = 5.0  # how long a lost connection is given to show as a worker leaving
# Each session numbers its steps from its own offset: one of SESSION_SLOTS slots of
# STEPS_PER_SESSION steps (99 days at a thousand steps a second). Their product is
# 2**53, so every step number is an integer JavaScript holds exactly: the dashboard
# (Bokeh) shows keys and warns on any integer past 2**53 at each update.
STEPS_PER_SESSION = 2**33
SESSION_SLOTS = 2**53 // STEPS_PER_SESSION  # 2**20: as many as five hex digits of the token


class ClusterRuntime:
    """A session's link to a cluster: placement, variables, step submission.

    A cluster ``Session``'s :attr:`~daskflow.runtime.session.Session.runtime`
    (see :class:`~..interface.Runtime`). Besides what a session asks of it, it
    tells an operator where the session's steps run: :meth:`workers_now`,
    :meth:`addresses` and :attr:`lowered`.

    Parameters
    ----------
    client : distributed.Client
    config : ConfigProto
    graph : Graph, optional
    shared_job : str, optional
        A between-graph job's id: its variables are the job's, shared.
    own_task : str, optional
        A between-graph session's task (``/job:worker/task:1``).

    Attributes
    ----------
    client : distributed.Client
        The client the session's steps go through.
    token : str
        The session's id on the cluster (eight hex digits): the scheduler and
        worker plugins, the dashboard's pages and the worker caches of the
        session are named by it.
    table : VariableTable
        Where each variable's value, copy, version and pushes are
        (:class:`.variables.VariableTable`); :attr:`variables` is its values.
    metrics : StepMetrics
        The steps' metrics; ``metrics.plans`` the ids of the plans lowered.
    backup_schedule : BackupSchedule
        Which steps copy the variables (``ConfigProto(backup_variables_secs=)``).
    shared_job : str or None
        The job whose variables the session shares (between-graph, or its own
        with ``independent_replicas``), else None.
    """

    def __init__(self, client, config, graph=None, shared_job=None, own_task=None):
        self.client = client
        self.config = config
        self.graph = graph
        self.table = VariableTable()  # where each variable's value, copy and version are
        self._plans: dict = {}  # Executable -> _Lowered
        self.secret = secrets.token_bytes(32)  # proves this session's bulk messages (runtime/wire/bulk/)
        self.token, first_step = _open_session(
            client, config.cluster.low_latency, config.intra_op_parallelism_threads
        )
        # A between-graph job's id (a tf.train.Server target): its variables live on their
        # workers, shared with the job's other clients (runtime/worker/between_graph.py). With
        # independent replicas, a job of this session's own, undone at close. Else None.
        self.between_graph = shared_job is not None
        self.independent = config.replication.independent_replicas
        self.async_depth = config.steps.async_dispatch  # read once: step() is the per-step path
        if shared_job is None and self.independent:
            shared_job = scope.private_job(self.token)
        self.shared_job = shared_job
        self.own_task = own_task  # a between-graph session's task (/job:worker/task:1): unplaced ops go there
        self._steps = itertools.count(first_step)
        self._registries: list[str] = []
        self._known = ({}, float("-inf"))
        self._room: dict = {}  # worker address -> (memory limit, bytes in use), as _known
        self._left = False  # a worker left since the copies were last looked for
        self._losses = 0  # workers lost since a step last finished (_recover)
        self._pending: collections.deque = collections.deque()
        self._staged = None  # the next step, waiting on the workers for its run (_stages)
        self._previous = None  # the plan of the run before (a loop runs one plan again and again)
        # Runs may come from several threads (session.py): the staged step is one thread's at a time.
        self._staging = threading.RLock()
        self._running = 0  # blocking runs in flight: a staged step only while one runs
        self._updates = Updating()  # the variables runs in flight update (_updating)
        self._held_names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # plan -> names
        self._draining = threading.RLock()  # a thread finishing dispatched steps holds it (_drain)
        # async_dispatch is the runs' of the thread that opened the session (its training loop):
        # other threads' runs block, and do not finish its steps in flight first, as one of those
        # may wait for them (a training step dequeuing what a queue runner's run enqueues).
        self._dispatcher = threading.get_ident()
        self._set_aside = None  # a dispatched step's error, rolled back by another thread's run
        self._retired_plans: list = []  # replaced plans that dispatched steps still use
        self._recovering = threading.RLock()  # one recovery at a time (_recover, _replay)
        self._said_one_task: set = set()  # queues/iterators whose plans' single task was logged
        self._counted = 0  # steps run, as the backup schedule counts them (not step numbers)
        self.metrics = StepMetrics(client, first_step, self.token, graph)
        self.backup_schedule = recovery.BackupSchedule(config)  # which steps copy the variables
        self._aliases: dict = {}  # a lost worker's name -> the live worker standing in for it
        # The last step's futures, released only after the next submission: the
        # release message would otherwise reach the scheduler ahead of it.
        self._retired: list = []
        self._sources: list = []  # futures of dask-array datasets' blocks (cluster/sources.py)
        self.recoveries: list = []  # what each recovery found and did
        self._ids_seen: dict = {}  # name -> Dask id of the workers holding a job's variables
        self.signatures: dict = {}  # the session's plans by signature (runtime/interface.py)
        self.cost = traced.CostPlacement(self) if config.cluster.placement == "cost" else None

    @property
    def variables(self) -> dict:
        """Variable name -> :class:`.held.Held`, where its current value is (read only)."""
        return self.table.values

    @property
    def staged_step(self) -> int | None:
        """The number of the step waiting on the workers for the next run of its kind
        (``ConfigProto(stage_next_step=True)``), or None."""
        return None if self._staged is None else self._staged.n

    @property
    def lowered(self) -> Mapping:
        """``{Executable: Lowered}``: each executable whose tasks are on the cluster now
        (lowered by its first step or ``placement()``), with its :class:`.step_tasks.Lowered`
        (read only). ``Session.executable(fetches, feed_dict)`` gives a signature's key."""
        return MappingProxyType(self._plans)

    # -- what a Session asks of it (runtime/interface.py) --------------------------------------
    def plan(self, mapper, feeds, feed_dict, state_for):
        """The executable of a signature: its transfers compressed as the config asks, its
        unplaced ops placed by cost with ``ConfigProto(placement="cost")``, its partitions cut
        where a bucket of values for other devices is ready (``send_bucket_bytes``)."""
        placer = None if self.cost is None else self.cost.for_plan(feed_dict)
        compression = self.config.compression.gradient_compression
        return make_executable(
            self.config,
            mapper,
            feeds,
            state_for,
            compression=compression,
            placer=placer,
            bucket_bytes=self.config.cluster.send_bucket_bytes,
        )

    def run(self, executable, feed_values, steps=1, limit_ms=None):
        """:meth:`step`; traced where cost placement is due to time its ops (``Executable.next_profile``)."""
        if executable.next_profile is not None and executable.profile_due():
            return self.traced_run(executable, feed_values, message_class("StepStats")(), steps)
        return self.step(executable, feed_values, steps, limit_ms or None)

    def traced_run(self, executable, feed_values, stats, steps=1):
        """:meth:`step`, its tasks' op times gathered into ``stats`` (a ``StepStats``)."""
        return traced.traced_step(self, executable, feed_values, stats, steps)

    def lower(self, executable, feed_values):
        """The Dask graph of one step to run in this process (``dask.get``), the values of
        the variables it reads gathered from their workers."""
        names = {var.name for var in executable.var_inputs}
        futures = {n: f for n, f in self.variable_futures().items() if n in names} if names else {}
        return executable.graph(feed_values, self.client.gather(futures))

    def uninitialized(self, names):
        """Those of ``names`` with no value (a between-graph job's: on its workers)."""
        job = self.shared_job
        held = self.variables if job is None else between_graph.initialized(self.client, job)
        return [name for name in names if name not in held]

    def step_metrics(self):
        """Each finished step's metrics, the steps in flight finished first."""
        self.sync()
        return self.metrics.collect()

    @property
    def dashboard_link(self):
        return self.client.dashboard_link

    # -- cluster membership ---------------------------------------------------------------
    def workers(self):
        workers = self._look()
        if not workers:
            filters = list(self.config.device_filters)
            which = f" that ConfigProto(device_filters={filters!r}) lets this session see" if filters else ""
            raise RuntimeError(f"the cluster at {self.client.scheduler.address} has no workers{which}")
        return workers

    def workers_now(self):
        """Worker name -> address, asked of the scheduler now."""
        self._look()
        return self._known[0]

    def _look(self):
        """The workers there are, asked of the scheduler; remembered as ``_known``."""
        identity = scheduler_identity(self.client)
        workers = filtered(cluster_workers(identity), self.config.device_filters)
        before = self._known[0]
        self._known = ({w.name: w.address for w in workers}, time.monotonic())
        if not self._left and set(before.values()) - {w.address for w in workers}:
            self._left = True  # copies may have left with it, though no step needed recovering
        self._room.update(memory.rooms(identity))  # a worker gone keeps its last (lost_too_often)
        return workers

    def addresses(self) -> dict:
        """Worker name -> address, as a step sends its tasks to them.

        Asked of the scheduler at most every ``REFRESH`` seconds (:meth:`workers_now`
        asks now); a lost worker's name gives its stand-in's address until it is back.
        """
        known, when = self._known
        if time.monotonic() - when > REFRESH:
            known = self.workers_now()
        if not self._aliases:
            return known
        stand_ins = {
            lost: known[live] for lost, live in self._aliases.items() if lost not in known and live in known
        }
        return {**known, **stand_ins}

    # -- a step -------------------------------------------------------------------------------
    def step(self, executable, feed_values, steps=1, limit_ms=None):
        """Run one step (``steps`` steps: ``ConfigProto(steps_per_run=...)``): submit its
        graph, wait, commit new variable futures, return fetches.

        ``limit_ms``: the run's deadline (TF1's ``RunOptions(timeout_in_ms)``), recoveries
        included: past it the step's tasks are cancelled, its partitions' loops stop, and
        ``DeadlineExceededError`` is raised with the variables as before the step.

        With ``ConfigProto(async_dispatch=N)``, a step that fetches only ops
        returns once submitted, so up to N steps are in flight; its variable
        futures are committed at once (the next step depends on them) and
        any error surfaces at the next synchronisation point, naming the op,
        with the variables as they were before the failing step.
        """
        lowered = self._plan(executable)
        at = time.monotonic() + limit_ms / 1000 if limit_ms else None
        if steps > 1 and self.shared_job is not None:  # variables shared in place: step by step
            return self._steps_one_by_one(executable, feed_values, steps)
        if lowered.independent and lowered.replicated:
            return self._replica_step(lowered, executable, feed_values, at)
        depth = self.async_depth
        dispatcher = threading.get_ident() == self._dispatcher
        if depth and dispatcher and not executable.fetch_sources:  # never staged (_stages)
            if self._set_aside is not None:  # due before this run's step goes: it would stand
                self.sync()
            feed_values = _copies(feed_values)  # the caller may refill them before they are read
            with self._updating(lowered), self._draining:  # one thread's recovery replays the queue
                self._pending.append(self._submit_recovering(lowered, feed_values, steps, at))
                self._commit(self._pending[-1])
            self._drain(keep=depth)
            return []
        if dispatcher:
            self.sync()  # else its steps in flight are the session's thread's to finish
        start = time.perf_counter()
        with self._staging:
            self._running += 1
        try:
            with self._updating(lowered):
                pending, fetched = self._run(lowered, feed_values, steps, at, start)
                self._commit(pending)
        finally:
            with self._staging:
                self._running -= 1
        self._retired.append(pending)
        return lowered.results(fetched, feed_values)

    def _run(self, lowered, feed_values, steps, at, start):
        """A run's step submitted (or started, staged), recovered from, finished: ``(pending,
        fetched values)``."""
        pending, starved_runs = None, 0
        while True:
            try:
                pending = self._submitted(lowered, feed_values, steps, at)
                pending.start = start  # a recovered step's wall time includes the pause
                return pending, self._finish(pending, may_starve=True)
            except recovery.WorkerLost as lost:
                self._drop_staged()
                self._recover_beside_dispatched(lost)  # then run the step again
            except _StarvedError as starved:
                self._drop_staged()
                starved_runs += 1
                # Rolled back here, or already by the session's thread: once more, on the values before.
                if not self._set_aside_failed_dispatch() and starved_runs > 1:
                    raise starved.error from starved.__cause__
            except OpError as e:
                self._drop_staged()
                if steps == 1 or pending is None:  # pending: a run that was never submitted
                    raise
                raise self._run_failed(pending, e) from e
            except BaseException:
                self._drop_staged()
                raise

    def _updating(self, lowered):
        """Held by a run updating global variables from its submission to its commit (runs
        from other threads updating one of them wait: :mod:`.updating`); a between-graph job's
        updates are the ps's, under its own lock."""
        if self.shared_job is not None:
            return contextlib.nullcontext()
        names = self._held_names.get(lowered)
        if names is None:
            names = self._held_names[lowered] = self._global(lowered.updated())
        return self._updates.holding(names) if names else contextlib.nullcontext()

    def _global(self, names) -> tuple:
        """Those of ``names`` not local variables. A local one is one thread's (an input
        producer's epoch count, a metric's total), updated by a run that may wait on a queue
        for a while: held meanwhile, another thread resetting it would wait for ever."""
        local = self.graph.get_collection("local_variables") if self.graph is not None else ()
        local_names = {v.op.name for v in local}
        return tuple(name for name in names if name not in local_names)

    def _steps_one_by_one(self, executable, feed_values, steps):
        """Several steps of a between-graph session, one submission each."""
        return steps_per_run.one_by_one(lambda: self.step(executable, feed_values), steps)

    # -- the next step staged on the workers (ConfigProto(stage_next_step=True)) ---------------
    def _submitted(self, lowered, feed_values, steps, at):
        """This run's step, submitted or (staged by the run before) started; the next one
        staged where this run stages (:meth:`_stages`)."""
        with self._staging:  # one thread's staged step at a time
            stages = self._stages(lowered, steps, at)
            self._previous = lowered
            pending = self._started(lowered, feed_values) if stages else None  # else dropped
            if pending is None:
                pending = self._submit(lowered, feed_values, steps=steps, at=at)
            if stages:
                try:
                    self._staged = self._submit(lowered, None, after=pending)
                except Exception:  # noqa: BLE001 - this run's step is submitted: it goes on unstaged
                    logger.debug("daskflow could not stage the next step", exc_info=True)
        return pending

    def _stages(self, lowered, steps, at) -> bool:
        """Whether this run also sends the next step of its kind to wait on the workers: a
        plain one-step run of the plan the run before ran too (a loop), the only run in flight.

        Not with steps in flight (``async_dispatch``: a run fetching only ops would change
        the variables it reads unseen), nor an operation timeout (its tasks' waits would
        count from when they were staged)."""
        staging = (
            self.config.steps.stage_next_step
            and not self.async_depth
            and not self.config.operation_timeout_in_ms
            and self._running == 1
            and lowered is self._previous
            and steps == 1
            and at is None
            and lowered.executable.trace is None
            and self.shared_job is None
            and not self._left
        )
        if not staging:
            self._drop_staged()
        return bool(staging)

    def _started(self, lowered, feed_values):
        """The staged step, started with ``feed_values``; None where there is none to start
        (or it is of another plan, or due to copy the variables: dropped)."""
        staged, self._staged = self._staged, None
        if staged is None:
            return None
        schedule, updated = self.backup_schedule, lowered.updated()
        late = schedule.would_be_due(self._counted + 1, updated, self.table.copies) and not staged.copies
        if staged.lowered is not lowered or late:  # late: due since it was staged
            self._drop(staged)
            return None
        try:
            posts = lowered.feed_posts(staged.staged.posts, feed_values)
            if posts:  # before anything is sent: a value too big would push its worker over
                memory.check_posts(posts, self._room, self.addresses(), lowered.executable.feeds)
        except BaseException:
            self._drop(staged)
            raise
        schedule.due(self._count(1), updated, self.table.copies)  # counted; it has copies where due
        words = [post(self.client, sent.address, sent.box, sent.value) for sent in posts]
        words += [post(self.client, address, gate, START) for address, gate in staged.staged.gates]
        # Out before this thread stages the next step: its sender threads would wait for the GIL.
        concurrent.futures.wait([w for w in words if w is not None], timeout=WORD_WAIT)
        self.table.pushed.update(staged.staged.pushes)
        staged.change = self.table.change(updated)  # as before this step, now
        return staged

    def _count(self, steps):
        """The number, as the backup schedule counts steps, of the last of ``steps`` run now."""
        self._counted += steps
        return self._counted

    def _drop_staged(self):
        with self._staging:
            staged, self._staged = self._staged, None
            if staged is not None:
                self._drop(staged)

    def _drop(self, staged):
        """Tell a staged step's waiting tasks it will not run: they end, doing nothing."""
        self._retired.append(staged)  # its futures go after the next submission
        if self.client.status != "running":  # the cluster takes the session's tasks with it
            return
        here = set(self._known[0].values())  # a worker that left has no tasks to end
        waiting = [(f.address, f.box) for f in staged.staged.posts] + staged.staged.gates
        # There before what comes next: a close revokes the session's credentials.
        post_now(self.client, [(a, box) for a, box in waiting if a in here], DROPPED, WORD_TIMEOUT)

    def _run_failed(self, pending, error):
        """A run of several steps failed in step k: keep the k steps before it where every
        partition updating variables finished them (else keep none); ``error`` naming it."""
        k = steps_per_run.failed_step(error)
        lowered, kept = pending.lowered, 0
        finished = self._finished_steps(pending) if k else {}
        if finished and set(finished.values()) == {k}:
            new_values = lowered.new_values(pending.n, pending.futures)
            for name in new_values:  # the last step's pushes never went
                self.table.pushed.pop(name, None)
            replaced, superseded = self.table.commit(new_values, lowered.var_home)
            self._retired.extend(replaced)
            if superseded:
                self.table.unshare(self.client, superseded)
            self.table.finished(lowered.updated(), pending.n - pending.steps + k, {})  # no copies made
            kept = k
        self._retired.append(pending)
        return steps_per_run.naming_step(error, k, pending.steps, kept)

    def _finished_steps(self, pending) -> dict:
        """Steps each partition updating variables finished in a failed run, by its values' key
        (empty if one of them is unknown)."""
        lowered, out = pending.lowered, {}
        tasks = dict(lowered.committing(pending.n))
        values = [pending.futures[key] for key in tasks.values()]
        with contextlib.suppress(TimeoutError):  # each sends the values of its last step, then fails
            dask_compat.wait_quietly(self.client, values, REFRESH)
        for task, key in tasks.items():
            if pending.futures[key].status != "finished":
                return {}
            run = pending.futures[task]
            if run.status == "finished":
                out[key] = pending.steps
                continue
            try:
                error = run.exception(timeout=REFRESH) if run.status == "error" else None
            except Exception:  # noqa: BLE001 - cancelled, or gone: its steps are unknown
                error = None
            if error is None:
                return {}
            out[key] = steps_per_run.failed_step(error)
        return out

    def _replica_step(self, lowered, executable, feed_values, at=None):
        """One step of the next free replica (``ConfigProto(independent_replicas=True)``).

        A step fetching only ops returns once submitted: the others go on
        meanwhile; with every replica busy, the first to finish takes the
        step. A step fetching tensors waits for itself alone.
        """
        replica = self._free_replica(lowered)
        feed_values = _copies(feed_values)
        pending = self._submit(lowered, feed_values, only=replica, at=at)
        pending.replica = replica
        if not executable.fetch_sources:
            self._pending.append(pending)
            return []
        fetched = self._finish(pending)
        self._retired.append(pending)
        return lowered.results(fetched, feed_values)

    def _free_replica(self, lowered):
        """The lowest replica with no step in flight, waiting for the first to finish if none."""
        while True:
            finished = [p for p in self._pending if all(f.done() for f in p.awaited)]
            for pending in finished:
                self._pending.remove(pending)
                self._finish(pending)
                self._retired.append(pending)
            busy = {p.replica for p in self._pending if p.lowered is lowered}
            free = [r for r in range(lowered.num_replicas) if r not in busy]
            if free:
                return free[0]
            waiting = [f for p in self._pending for f in p.awaited]
            dask_compat.wait_first(self.client, waiting, REFRESH)

    def _plan(self, executable):
        """The executable's plan; made again when a new worker can take a lost replica's place."""
        lowered = self._plans.get(executable)
        if lowered is None:
            lowered = self._plans[executable] = self._lower(executable)
            return lowered
        if not lowered.replica_names:
            return lowered
        self.addresses()  # membership, as of REFRESH seconds ago at most
        if self._known is lowered.membership:  # not looked at again since: nothing to compare
            return lowered
        lowered.membership = self._known
        here = self._known[0]
        gone = lowered.replica_names - set(here)
        if gone and any(recovery.is_newcomer(name, lowered) for name in here):
            workers = recovery.with_replacements(self.workers(), lowered.replica_names, len(gone))
            self._retire_plan(lowered)
            lowered = self._plans[executable] = self._lower(executable, workers)
        return lowered

    def _retire_plan(self, lowered):
        """Take ``lowered`` (no longer in ``_plans``) off the workers once no step in flight
        uses it: on the session's thread, after finishing its steps; on another, which must
        not wait for them (one may wait for this thread's next run), now if none uses it,
        else when the queue is next released (``_release_queue``)."""
        if threading.get_ident() == self._dispatcher:
            try:
                self.sync()  # steps in flight finish on the plan they were made with
            finally:
                self._drop_plan(lowered)
            return
        self._retired_plans.append(lowered)
        if self._draining.acquire(blocking=False):  # else whoever holds the queue drops it
            self._release_queue()

    def _release_queue(self):
        """Release ``_draining``, first dropping the retired plans no step in flight uses now."""
        try:
            if self._retired_plans:
                used = {id(step.lowered) for step in self._pending}
                for lowered in [p for p in self._retired_plans if id(p) not in used]:
                    self._retired_plans.remove(lowered)
                    self._drop_plan(lowered)
        finally:
            self._draining.release()

    def _keep_for_dispatcher(self, error):
        """``error`` to raise at the session's thread's next synchronisation (the first kept)."""
        if self._set_aside is None:
            self._set_aside = error

    def _drop_plan(self, lowered):
        """Take a plan no step will use again off the workers, its credentials with it."""
        self._drop_staged()
        bulk.CLIENT_SESSIONS.dismiss(lowered.plan_id)
        name = scope.programs_prefix(self.token) + lowered.plan_id
        names = [plugin for plugin in (f"{name}-traced", name) if plugin in self._registries]
        plugins.remove(self.client, names)  # from the workers still there: one that left is no error
        for plugin in names:
            self._registries.remove(plugin)

    def forget(self, executable):
        """Drop ``executable``'s plan from the workers (the session planned it again)."""
        lowered = self._plans.pop(executable, None)
        if lowered is not None:
            self._retire_plan(lowered)

    def trace_ops(self, executable):
        """Send the traced variants of ``executable``'s programs to the workers, once per
        plan, so that its traced steps time each op (:class:`..worker.programs.TracedPrograms`)."""
        lowered = self._plan(executable)
        name = f"{scope.programs_prefix(self.token)}{lowered.plan_id}-traced"
        if name in self._registries:
            return
        sources, _ = executable.traced_sources()
        ids = {f"{lowered.plan_id}-{key}": source for key, source in sources.items()}
        _register(self.client, TracedPrograms(lowered.plan_id, ids, self.token))
        self._registries.append(name)

    def sync(self):
        """Wait for every dispatched step; raise the first failure."""
        self._drain(keep=0)

    def sync_dispatched(self):
        """:meth:`sync`, on the thread whose runs are dispatched (another thread's ran blocking)."""
        if threading.get_ident() == self._dispatcher:
            self.sync()

    def _drain(self, keep):
        """Finish dispatched steps, oldest first, until ``keep`` are in flight.

        A failure rolls the variables back to before the failing step and
        drops the steps after it; a lost worker is recovered from and the
        unfinished steps are submitted again. One thread at a time: two would finish the
        same step and drop the next one unfinished (its tasks released: its values never made).
        """
        self._draining.acquire()
        try:
            self._drain_to(keep)
        finally:
            self._release_queue()

    def _drain_to(self, keep):
        if self._set_aside is not None:
            keep = 0  # the dispatched steps' error is due at this synchronisation
        try:
            while len(self._pending) > keep:
                try:
                    self._finish(self._pending[0])
                except recovery.WorkerLost as lost:
                    self._replay(lost)
                    continue
                self._pending.popleft()
        except OpError as e:
            failed = self._pending[0] if self._pending else None  # none: a replay's recovery failed
            self._roll_back(list(self._pending))
            if failed is None or failed.steps == 1:
                raise
            raise steps_per_run.naming_step(e, steps_per_run.failed_step(e), failed.steps, 0) from e
        except Exception:
            self._roll_back(list(self._pending))
            raise
        if self._set_aside is not None and threading.get_ident() == self._dispatcher:
            error, self._set_aside = self._set_aside, None
            raise error

    def _roll_back(self, steps):
        """Variables as they were before the oldest of ``steps``; the steps are dropped."""
        self.table.roll_back([step.change for step in steps])
        self._pending.clear()

    def _submit_recovering(self, lowered, feed_values, steps=1, at=None):
        while True:
            try:
                return self._submit(lowered, feed_values, steps=steps, at=at)
            except recovery.WorkerLost as lost:
                self._replay(lost) if self._pending else self._recover(lost)

    def _submit(self, lowered, feed_values, only=None, steps=1, at=None, after=None):
        """Submit a step; ``after``: stage it instead, to read the values step ``after`` (a
        submitted one) makes, its tasks waiting for :meth:`_started`."""
        limit_ms = None
        if at is not None:  # what is left of the run's deadline (a recovery took some)
            limit_ms = int((at - time.monotonic()) * 1000)
            if limit_ms <= 0:
                raise DeadlineExceededError(None, None, TIMED_OUT)
        first = n = next(self._steps)
        if steps > 1:  # a run of several steps takes their numbers; n is its last step's
            n = next(itertools.islice(self._steps, steps - 2, None))
        start = time.perf_counter()
        addresses = self.addresses()
        updated = lowered.updated()
        table = self.table
        if self._left and self.shared_job is None:  # a replica's worker, say, holding copies
            self._left = False
            table.pushed.clear()  # one of the same name would come back with an empty cache
            names_of = {a: name for name, a in self._known[0].items()}
            recovery.forget_lost_copies(self.client, table, self.backup_schedule, names_of)
        values = table.values
        due = False
        if after is not None:  # counted as it starts (_started), but made with copies if due now
            due = self.backup_schedule.would_be_due(self._counted + 1, updated, table.copies)
            backups = recovery.backup_workers(self._known[0]) if due else None
            values = {**values, **lowered.new_values(after.n, after.futures)}
        elif self.shared_job is not None:  # the ps sends its copies where these name, when due
            backups = recovery.backup_workers(self._known[0]) if self.backup_schedule.on else None
        elif self.backup_schedule.due(self._count(steps), updated, table.copies):
            backups = recovery.backup_workers(self._known[0])
        else:
            backups = None
        read = lowered.fetched_variables(values)  # values as the step starts (a staged one's: after's)
        held_by = {table.homes.get(name) for name, _ in read} - {None}  # a fetch's holder may leave too
        if gone := held_by - addresses.keys():  # a run that only reads runs no partition there to notice
            raise recovery.WorkerLost(gone)
        staged = after is not None
        step = lowered.graph(
            first, feed_values, values, addresses, backups, table.pushed, only, steps, limit_ms, staged
        )
        if step.posts and not staged:  # before anything is sent: a value too big would push its worker over
            memory.check_posts(step.posts, self._room, addresses, lowered.executable.feeds)
        if not staged:  # a staged step's pushes count once it starts
            table.pushed.update(step.pushes)
        items = item_tasks({name: held for name, held in read if name not in step.prior})
        keys = step.wanted + [t.key for t in items.values()]  # submitted with the step: one a run
        keys += step.variable_keys
        futures = dict(zip(keys, self.client.get(with_tasks(step.graph, items.values()), keys, sync=False)))
        read = [
            futures[step.prior[name]]
            if name in step.prior
            else (futures[items[name].key] if name in items else held.future)
            for name, held in read
        ]
        read += [futures[key] for key in step.variable_keys]
        for sent in () if staged else step.posts:  # after the graph: the scheduler's part comes first
            post(self.client, sent.address, sent.box, sent.value)
        self._retired.clear()
        awaited = [f for k, f in futures.items() if k not in step.optional]
        awaited += [f for f in read if f.key not in futures]  # held before: watched all the same
        fetch = [futures[k] for k in step.fetch_keys] + read
        names = set(lowered.worker_names)
        if self.shared_job is None:  # a step waits for its copies' tasks; a ps sends its own
            names |= set((backups or {}).values())
        # Also the workers holding the variables it reads: a lost input leaves a task waiting.
        names |= {table.homes[v] for v in lowered.required if table.homes.get(v)} | held_by
        names |= {lowered.shared_homes[v].name for v in lowered.required if v in lowered.shared_homes}
        used = {addresses[name]: name for name in names if name in addresses}
        change = table.change(updated)
        return _Pending(
            lowered,
            n,
            futures,
            awaited,
            fetch,
            change,
            start,
            feed_values,
            used,
            steps=steps,
            at=at,
            staged=step if staged else None,
            copies=due,
        )

    def _finish(self, pending, may_starve=False):
        """Wait for a step; return its fetched values, or raise naming the failing op
        (``_StarvedError`` where ``may_starve``: :meth:`_raise_failure`)."""
        # Past its deadline, the workers' own checks end the step first, naming what stopped.
        at = None if pending.at is None else pending.at + DEADLINE_GRACE
        try:
            self._wait_watching(pending.awaited, pending.used, at)
        except DeadlineExceededError:  # its loops stop on their own; its waits end here
            self.client.cancel(list(pending.futures.values()))
            raise
        if any(f.status == "error" for f in pending.awaited):
            with contextlib.suppress(TimeoutError):  # the cause may be a replica: give it a moment
                dask_compat.wait_quietly(self.client, list(pending.futures.values()), REFRESH)
            gone = set(pending.used) - set(self.workers_now().values())
            if not gone and _lost_connection(pending.awaited):
                gone = self._departed(pending.used, LEAVING_SECS)
            if gone:  # a send to a worker that left failed: recover, as if it had been seen first
                raise recovery.WorkerLost({pending.used[a] for a in gone})
        try:
            if any(f.status == "error" for f in pending.awaited):
                self._raise_failure(pending, may_starve)
            fetched = self._gather(pending)
            self._losses = 0  # a step finished: the workers lost before it were recovered from
            self.metrics.finished(pending)
            if self.shared_job is None:  # a job's variables are its ps's, copied by no session
                self.backup_schedule.ran(pending.start, time.perf_counter())
                self._keep_copies(pending)
            return fetched
        except FailedPreconditionError:
            replaced = self._replaced(set(pending.used.values()))
            if replaced:  # uninitialized on a ps that came back empty before this session saw it go
                raise recovery.WorkerLost(replaced) from None
            raise
        except (OpError, recovery.WorkerLost, _StarvedError):
            raise
        except Exception as e:  # noqa: BLE001 - re-raised naming the op
            raise pending.lowered.executable.op_error("?", e) from e

    def _raise_failure(self, pending, may_starve):
        """Raise the step's first failure; ``_StarvedError`` (where ``may_starve``: a blocking
        run of another thread than the session's, with ``async_dispatch``) where it has none of
        its own but read what a dispatched step failed to make."""
        try:
            _raise_first_failure(pending.futures.values())
        except UpstreamFailedError as e:
            if not (may_starve and self.async_depth) or threading.get_ident() == self._dispatcher:
                raise
            raise _StarvedError(pending.lowered.executable.op_error("?", e)) from e

    def _set_aside_failed_dispatch(self) -> bool:
        """Roll back the first failed dispatched step and those after it, keeping its error
        for the dispatching thread's next synchronisation: another thread's run read what it
        failed to make and runs again, as in TF1, where the failed step changed nothing.
        False where there is none, or the dispatching thread holds the queue (waiting on a
        step that may wait for this thread: the run fails instead)."""
        if not self._draining.acquire(timeout=REFRESH):
            return False
        try:
            steps = list(self._pending)
            failed = [i for i, step in enumerate(steps) if any(f.status == "error" for f in step.awaited)]
            if not failed:
                return False
            first = steps[failed[0]]
            try:
                self._finish(first)
                return False  # it finished after all
            except OpError as e:  # as its own drain would raise it
                error = e
            except Exception:  # noqa: BLE001 - a worker lost: the session's thread recovers
                return False
            if first.steps > 1:
                error = steps_per_run.naming_step(error, steps_per_run.failed_step(error), first.steps, 0)
            self.table.roll_back([step.change for step in steps[failed[0] :]])
            for _ in steps[failed[0] :]:
                self._pending.pop()
            self._keep_for_dispatcher(error)
            return True
        finally:
            self._release_queue()

    def _departed(self, used, seconds):
        """Addresses of ``used`` that leave the cluster within ``seconds`` (a connection to one
        failed: the scheduler may not have seen it go yet), or whose worker is another one
        now (a ps script started again listens at its old address)."""
        deadline = time.monotonic() + seconds
        while True:
            gone = set(used) - set(self.workers_now().values())
            replaced = self._replaced(set(used.values()))
            if gone or replaced or time.monotonic() >= deadline:
                return gone | {a for a, name in used.items() if name in replaced}
            time.sleep(recovery.POLL / 5)

    def _replaced(self, names) -> set:
        """Those of ``names`` holding a job's variables whose worker is not the one this
        session last saw (it died, and one of its name took its place: empty)."""
        if self.shared_job is None or not self._ids_seen:
            return set()
        now = between_graph.worker_ids(self.client)
        return {n for n in names if n in self._ids_seen and now.get(n) not in (None, self._ids_seen[n])}

    def _gather(self, pending):
        """The step's fetched values; WorkerLost if a worker holding one left meanwhile."""
        if not pending.fetch:  # a run of training ops: no call through the client's event loop
            return []
        try:
            return self.client.gather(pending.fetch)
        except Exception:
            gone = set(pending.used) - set(self.workers_now().values())
            if gone:
                raise recovery.WorkerLost({pending.used[a] for a in gone}) from None
            raise

    def _wait_watching(self, futures, used, at=None):
        """Wait for ``futures``; raise WorkerLost if a worker of ``used`` (address -> name) leaves,
        DeadlineExceededError at ``time.monotonic() == at`` (None: no deadline).

        Waiting costs no request: completions arrive on the client's stream. A
        worker that dies leaves its tasks waiting forever, so look now and then.
        """
        while True:
            wait = REFRESH if at is None else max(0.0, min(REFRESH, at - time.monotonic()))
            try:
                return dask_compat.wait_quietly(self.client, futures, wait)
            except TimeoutError:
                if any(f.status == "error" for f in futures):
                    return  # an error ends the wait: its consumers may wait for a sender that failed
                gone = set(used) - set(self.workers_now().values())
                if gone:
                    raise recovery.WorkerLost({used[a] for a in gone}) from None
                if at is not None and time.monotonic() >= at:
                    raise DeadlineExceededError(None, None, TIMED_OUT) from None

    def _commit(self, pending):
        lowered = pending.lowered
        new_values = lowered.new_values(pending.n, pending.futures)
        replaced, superseded = self.table.commit(new_values, lowered.var_home)
        self._retired.extend(replaced)
        if superseded:
            self.table.unshare(self.client, superseded)

    def _keep_copies(self, pending):
        """A finished step's copies become what recovery falls back on."""
        n, updated = pending.n, pending.lowered.updated()
        copies = {name: pending.futures.get((BACKUP_PREFIX + name, n)) for name in updated}
        self.table.finished(updated, n, copies)
        schedule = self.backup_schedule
        if schedule.flushing:
            schedule.promote(self.table)
        if schedule.flush_owed and all(p is pending for p in self._pending):  # none changed a value since
            targets = recovery.backup_workers(self._known[0])
            # Not those the step updated: not committed yet, and copied by the step.
            schedule.flush(self.client, self.table, targets, self.addresses(), n, exclude=set(updated))

    def _recover_beside_dispatched(self, lost):
        """Recover from a loss a blocking run met. Steps dispatched by the session's thread
        hold values being restored: they are rolled back and submitted again with the
        recovery, as its own drain does (``_replay``). Where that thread holds the queue
        for ``REFRESH`` seconds while not recovering (waiting on a step that may wait for
        this thread's run), the recovery goes on without them, and they meet the loss
        themselves."""
        while not self._draining.acquire(timeout=REFRESH):
            if not self._recovering.locked():
                self._recover(lost)
                return
        try:
            if not self._pending:
                self._recover(lost)
                return
            try:
                self._replay(lost)
            except Exception as e:  # its dispatched steps are rolled back: the session's thread must hear
                self._keep_for_dispatcher(e)
                raise
        finally:
            self._release_queue()

    def _recover(self, lost):
        """After a worker loss: wait for it or a stand-in, restore lost variables.

        Past Dask's ``distributed.scheduler.allowed-failures`` losses with no step finished
        between them, end the run instead: a step that loses its workers each time it runs
        (one filling a worker's memory) would be recovered from for ever.

        One thread at a time (the session's replaying its dispatched steps, another's
        blocking run): the second finds the variables restored by the first. Not under
        ``_draining``, which a thread may hold while its step waits for the other's run."""
        with self._recovering:
            self._recover_now(lost)

    def _recover_now(self, lost):
        self._losses += 1
        if self._losses > dask.config.get("distributed.scheduler.allowed-failures", 3):
            losses, self._losses = self._losses, 0
            here = set(self.workers_now().values())
            raise memory.lost_too_often(lost.names, losses, self._room, here) from None
        if self.shared_job is not None:
            self.recoveries.append(between_graph.recover(self, lost.names))
            self._ids_seen.update(between_graph.worker_ids(self.client, set(self._ids_seen)))
            return
        start = time.monotonic()
        wait = self.config.recovery.recovery_wait_secs
        give_up = self.config.recovery.recovery_timeout_secs
        names = lost.names
        self.table.pushed.clear()  # a lost worker's cache is gone: read values as Dask dependencies
        here = set(self.workers_now())
        awaited = recovery.must_return(names, self._plans.values(), set(self.table.homes.values()), here)
        self._aliases.update(recovery.wait_for(self, awaited, wait, give_up))
        names_of = {a: n for n, a in self.workers_now().items()}
        steps_lost, _ = recovery.restore_lost(self.client, self.table, self.backup_schedule, names_of)
        self._left = False  # the copies lost were looked for just now
        self.recoveries.append(
            {
                "lost": sorted(names),
                "stand_ins": dict(self._aliases),
                "steps_lost": steps_lost,
                "seconds": time.monotonic() - start,
            }
        )

    def _placed(self, lower, workers, plan):
        """``(lower(workers), workers)``; in a between-graph job, whose tasks start on their
        own, the tasks ``plan`` names that have not joined yet are waited for, as TF1's
        sessions wait for their cluster's tasks (logging those missing every 10 s), up to
        ``ConfigProto(operation_timeout_in_ms)`` or else ``JOIN_WAIT`` seconds (TF1 waits
        for ever); then the error names every task still missing."""
        timeout_ms = self.config.operation_timeout_in_ms
        wait = timeout_ms / 1000 if timeout_ms > 0 else JOIN_WAIT
        start = said = time.monotonic()
        while True:
            try:
                return lower(workers), workers
            except DeviceNotInClusterError as e:
                if not self.between_graph:
                    raise
                missing = _missing_tasks(plan, workers, self.own_task) or [str(e).splitlines()[0]]
                if time.monotonic() - start > wait:
                    raise DeviceNotInClusterError(
                        None,
                        None,
                        f"the tasks {missing} that the graph names did not join the cluster in {wait:g} s "
                        "(ConfigProto(operation_timeout_in_ms=) sets how long a session waits for them)\n"
                        f"{e.message}",
                    ) from None
                if time.monotonic() - said >= 10.0:
                    logger.warning("session still waiting for the tasks %s to join the cluster", missing)
                    said = time.monotonic()
                time.sleep(0.25)
                workers = self._look()

    def _replay(self, lost):
        """Recover, then submit again every dispatched step from the first unfinished one."""
        steps = list(self._pending)
        with self._recovering:  # no other thread's fallback recovery between the two
            self._roll_back(steps)
            self._recover(lost)
        for old in steps:
            self._pending.append(self._submit(old.lowered, old.feed_values, steps=old.steps, at=old.at))
            self._commit(self._pending[-1])

    def _lower(self, executable, workers=None):
        workers = workers or (self._look() if self.between_graph else self.workers())  # tasks may join yet
        plan_id = uuid.uuid4().hex[:12]
        timeout_ms = self.config.operation_timeout_in_ms
        timeout = timeout_ms / 1000 if timeout_ms > 0 else None
        lowered, workers = self._placed(
            lambda workers: Lowered(
                executable,
                plan_id,
                workers,
                self.config,
                timeout,
                self.token,
                self.shared_job,
                self.independent,
                self.own_task,
            ),
            workers,
            executable.plan,
        )
        self._say_one_task(executable.plan.one_task_for, workers)
        if self.shared_job is not None:
            between_graph.define(self.client, self.shared_job, lowered)
            homes = {home.name for home in lowered.shared_homes.values()}
            self._ids_seen = {**between_graph.worker_ids(self.client, homes), **self._ids_seen}
        programs = {f"{plan_id}-{p.key}": (p.key, p.fn) for p in executable.programs}
        bindings, blocks = sources.place(self.client, lowered)
        self._sources.extend(blocks)  # held: the dataset's blocks stay on the cluster
        registry = ProgramRegistry(plan_id, programs, self.token, bindings, self.secret, os.getcwd())
        _register(self.client, registry)
        self._registries.append(registry.name)
        self.metrics.planned(lowered, workers, self.config.allow_soft_placement)
        if self.config.log_device_placement:
            self._plans[executable] = lowered
            for name, where in self.placement(executable).items():
                print(f"{name}: {where.device or '(default)'} -> {where.worker}")
        return lowered

    def _say_one_task(self, shared, workers):
        """Log, once per session, that a plan reading the queues or iterators ``shared`` runs
        on one worker task (``Plan.one_task_for``), where the cluster has several."""
        if not shared or tuple(shared) in self._said_one_task:
            return
        if sum(w.job == "worker" for w in workers) > 1:
            self._said_one_task.add(tuple(shared))
            logger.warning(
                "daskflow: the step reads %s, which other runs fill or initialize: its ops on "
                "/job:worker run on /job:worker/task:0, not as one replica per worker task (a "
                "one-shot tf.data iterator is read by every replica, each its own shard)",
                shared,
            )

    def placement(self, executable):
        """``{op name: Placement}``: its device, the worker that runs it (those of its
        replicas, comma-separated) and why it is there."""
        lowered = self._plans.get(executable) or self._lower(executable)
        self._plans[executable] = lowered
        workers = self.workers()
        soft = self.config.allow_soft_placement
        plan, out = executable.plan, {}
        for op in plan.ops:
            part = plan.partition_of.get(op)
            if part is None:  # a variable's value lives where its device put it
                names = place(plan.device_of(op), workers, soft)[0].name
            else:  # one worker, or one per replica
                names = ", ".join(
                    worker.name
                    for name, (worker, _) in lowered.placement.items()
                    if name.split("/")[0] == part.key
                )
            out[op.name] = placement_of(plan, op, names)
        return out

    def variable_devices(self) -> dict:
        """Variable name -> the device (``/job:J/task:T``) of the worker holding its value."""
        tasks = {w.name: f"/job:{w.job}/task:{w.task}" for w in self.workers()}
        return {name: tasks[home] for name, home in self.table.homes.items() if home in tasks}

    def compute_devices(self) -> list:
        """The devices cost placement chooses among: each worker task's (``/job:worker``'s,
        or every job's where there is no worker job)."""
        workers = self.workers()
        chosen = [w for w in workers if w.job == "worker"] or workers
        return [f"/job:{job}/task:{task}" for job, task in sorted({(w.job, w.task) for w in chosen})]

    def num_replicas(self, executable=None):
        """How many replicas a replicated graph runs on this cluster (worker tasks)."""
        if executable is not None and executable in self._plans:
            return self._plans[executable].num_replicas
        return sum(w.job == "worker" for w in self.workers())

    def variable_futures(self):
        """``{name: Future}`` of each variable's value alone (after the steps in flight)."""
        self.sync()
        if self.shared_job is not None:
            return between_graph.variable_futures(self)
        where = holders(self.client, self.table.values)
        lost = sorted(name for name, addresses in where.items() if not addresses)
        if not lost:
            futures = singles(self.client, self.table.values)
            used = {a: a for addresses in where.values() for a in addresses}
            try:  # items are taken out of their tuples first: a lost holder would leave them waiting
                self._wait_watching(list(futures.values()), used)
            except recovery.WorkerLost:
                lost = sorted(self.table.values)
        if lost:
            raise RuntimeError(
                f"the values of {lost} were lost with their worker; the next step recovers them "
                "from their copies (kept by default, see ConfigProto(backup_variables_secs=)), "
                "or restore a checkpoint"
            )
        return futures

    # -- checkpoints ---------------------------------------------------------------------------
    def write_checkpoint(self, names, shard_url):
        """Write the variables' data shards at once, one from each worker holding some."""
        self.sync()
        if self.shared_job is not None:
            return between_graph.write_checkpoint(self, names, shard_url)
        missing = sorted(name for name in names if name not in self.table.values)
        if missing:
            raise FailedPreconditionError(None, None, f"Attempting to save uninitialized variables {missing}")
        held = {name: self.table.values[name] for name in names}
        where = holders(self.client, held)
        shards = shard_groups({name: self._writer_of(name, where[name]) for name in names})
        tag = uuid.uuid4().hex[:8]
        writes = [
            self.client.submit(
                write_shard,
                shard_url(i, len(shards)),
                group,
                *[held[name].arg() for name in group],
                workers=[address] if address else None,
                key=f"checkpoint-write-{tag}-{i}",
                pure=False,
            )
            for i, (address, group) in enumerate(shards)
        ]
        names_of = {a: n for n, a in self._known[0].items()}
        writers = [address for address, _ in shards if address] + [a for held in where.values() for a in held]
        used = {a: names_of.get(a, a) for a in writers}  # a writer that leaves ends the wait
        try:
            self._wait_watching(writes, used)
        except recovery.WorkerLost as lost:
            raise RuntimeError(
                f"checkpoint not written: worker(s) {sorted(lost.names)} left while saving; "
                "the previous checkpoint stays the latest"
            ) from None
        return shard_records(self.client.gather(writes)), len(shards)

    def _writer_of(self, name, holders):
        """The worker that writes ``name`` into its shard (a list of at most one address):
        its home where the home holds it or no worker is known to (a value that lives in
        daskflow's own store there), else a worker that holds it."""
        home = self._known[0].get(self.table.homes.get(name))
        if home is not None and (home in holders or not holders):
            return [home]
        return sorted(holders)[:1]

    def read_checkpoint(self, files):
        """Read every variable's file on the worker its device names; swap them in only if all read."""
        self._drop_staged()  # it would read the values these replace
        self.sync()
        if self.shared_job is not None:
            return between_graph.read_checkpoint(self, files)
        workers, soft, tag = self.workers(), self.config.allow_soft_placement, uuid.uuid4().hex[:8]
        homes = {name: place(device, workers, soft)[0] for name, (_, _, device) in files.items()}
        reads = {
            name: self.client.submit(
                read_variable,
                url,
                record,
                workers=[homes[name].address],
                allow_other_workers=False,
                key=(lineage.VAR_PREFIX + name, f"restore-{tag}"),
                pure=False,
            )
            for name, (url, record, _) in files.items()
        }
        try:
            self._wait_watching(list(reads.values()), {w.address: w.name for w in homes.values()})
        except recovery.WorkerLost as lost:
            raise RuntimeError(
                f"restore interrupted: worker(s) {sorted(lost.names)} left; nothing changed"
            ) from None
        failed = [f for f in reads.values() if f.status == "error"]
        if failed:
            failed[0].result()  # raises the reading error; no variable has changed
        with self._updates.holding(self._global(reads)):  # not under a run updating them
            self.table.restored(reads, {name: worker.name for name, worker in homes.items()})

    def close(self):
        """Release the variables and take this session's programs off the workers."""
        self._drop_staged()
        self._pending.clear()
        self._retired.clear()
        self._sources.clear()
        self.table.clear()
        self.backup_schedule.flushing.clear()
        self._plans.clear()
        self.metrics.close()
        for plan_id in self.metrics.plans:  # the client's copy of the session's secret
            bulk.CLIENT_SESSIONS.dismiss(plan_id)
        bulk.close_links(self.token)  # its fed values' connections
        try:  # from the workers still there: one that left (a between-graph task ending) is no error
            plugins.remove(self.client, self._registries)
        finally:
            self._registries.clear()
            scope.close_session(self.client, self.token)


def _missing_tasks(plan, workers, own_task=None) -> list:
    """The devices ``plan`` names (its partitions', its variables') that no worker of
    ``workers`` offers, each as its task (``/job:ps/task:0``) where no worker is that task."""
    devices = {on_task(p.device, own_task) for p in plan.partitions}
    devices |= {plan.device_of(op) for op in plan.ops if op.primitive.is_variable}
    missing = set()
    for device in devices:
        spec = DeviceSpec.from_string(device)
        task = f"/job:{spec.job or 'worker'}" + ("" if spec.task is None else f"/task:{spec.task}")
        if not workers:
            missing.add(task)
            continue
        try:
            place(device, workers)
        except DeviceNotInClusterError:
            there = any(w.job == (spec.job or "worker") and spec.task in (None, w.task) for w in workers)
            missing.add(device if there else task)
    return sorted(missing)


def _open_session(client, low_latency, blas_threads, tries=8):
    """Open a session on ``client``'s cluster; return its token and first step number.

    Step numbers are in the tasks' keys: sessions sharing a cluster must not share
    keys (Dask would hand one session's values to the other). The scheduler refuses
    a range an open session holds; another is drawn.
    """
    for _ in range(tries):
        token = uuid.uuid4().hex[:8]
        first_step = int(token, 16) % SESSION_SLOTS * STEPS_PER_SESSION
        try:
            steps = (first_step, first_step + STEPS_PER_SESSION)
            scope.open_session(client, token, steps, low_latency, blas_threads)
        except scope.StepsTakenError:
            continue
        return token, first_step
    raise RuntimeError(f"no free range of step numbers after {tries} draws: too many open sessions")


def _lost_connection(futures) -> bool:
    """Whether a failed task lost a connection (a worker it talked to may be dying); not TF1's
    errors, though some are OSErrors too (``DeadlineExceededError`` is a ``TimeoutError``)."""
    return any(
        f.status == "error" and isinstance(f.exception(), OSError) and not isinstance(f.exception(), OpError)
        for f in futures
    )


def _raise_first_failure(futures):
    """Raise the error of the partition that failed first, not of those it starved (in a run
    of several steps, the earliest step's)."""
    failed = [f for f in futures if f.status == "error"]
    failed.sort(
        key=lambda f: (
            isinstance(f.exception(), UpstreamFailedError),
            getattr(f.exception(), "daskflow_step", 0),
        )
    )
    if failed:
        failed[0].result()  # raises the task's exception, traceback included


def _copies(feed_values):
    """The fed arrays copied, as TF1's ``run`` copies feeds: a step that returns before it
    has read them (``async_dispatch``) must not see the caller's later writes."""
    return [v.copy() if hasattr(v, "dtype") and hasattr(v, "copy") else v for v in feed_values]


class _StarvedError(Exception):
    """A run of another thread read what a dispatched step failed to make: ``error`` is
    what it raises unless that step can be rolled back (``_set_aside_failed_dispatch``)."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


@dataclass
class _Pending:
    """A submitted step."""

    lowered: object
    n: int
    futures: dict  # key -> Future, everything the step computes
    awaited: list  # futures the step waits for (all but backup replicas)
    fetch: list  # futures whose values the run returns
    change: Change  # the variables as before this step, to roll back to
    start: float  # perf_counter when submitted
    feed_values: list  # to submit the step again after a recovery
    used: dict  # address -> name of each worker the step runs on
    replica: int | None = None  # the replica it runs alone (ConfigProto(independent_replicas=True))
    steps: int = 1  # steps in the run (ConfigProto(steps_per_run)); ``n`` is the last one's number
    at: float | None = None  # the run's deadline (time.monotonic()), or None
    staged: object = None  # a staged step's StepGraph (its feeds to post and gates to open)
    copies: bool = False  # a staged step: whether it was made as a backup step (BackupSchedule)


def _register(client, plugin):
    """Register a worker plugin on the workers running (and those to come): a worker leaving
    meanwhile (a between-graph task ending) is no error, and fails no broadcast (plugins.py)."""
    plugins.add(client, plugin)
