"""An Executable's tasks on the cluster: templates built once, keyed per step.

Each partition instance (a partition, or one replica of it) is one task per
step, pinned to its worker. Its arguments are feeds, variable values, and
values other instances send it (:mod:`..wire.rendezvous`); its results go to the
instances that read them and to small *taker* tasks that hold them as Dask
futures: one per fetched tensor, and one holding all the new variable values
the instance made (:mod:`.held`).

Task keys read well where Dask names a task by ``dask.utils.key_split(key)``
(the task stream, the dashboard's groups). ``key_split`` keeps a key's first
item up to its first ``-``, then each next ``-``-separated word made only of
letters; so that item is the worker (and GPU) the task runs on and what it
does, with no ``-``, and the rest of the key keeps it unique in the session:

* ``("worker_0 step", n, "worker-s0/0")``: a partition instance on worker
  task 0 (``worker_1 step`` for the replica on task 1; ``worker_0_gpu0 step``
  on its GPU);
* ``("ps_0 update", n, "ps-0-s1")``: one that updates variables;
* ``("ps_0 values", n, "ps-0-s1")``: the new values it made (:mod:`.lineage`);
* ``("worker_0 fetch", n, "worker-0-s0-fetch-0")``: a fetched tensor;
* ``("variable backup--w", n)``: a copy of variable ``w``'s new value
  (``variable backup``, :mod:`.recovery`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import Task

from ...errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from ...framework.device_spec import DeviceSpec
from ...kernels.devices import to_host
from ..plan.arguments import FedValue, FromPartition, PartitionResult, VariableValue
from ..plan.compression import worth_encoding
from ..plan.replication import Instance, aggregation, replica_device, replica_workers, replicated_partitions
from ..wire.between_graph import SharedRead
from ..wire.mailbox import MailKey
from ..wire.pushes import Pushed, PushKey, cache_name
from ..wire.rendezvous import FromReplicas, Recv, Send, posts_directly
from ..worker.arrivals import EachReplica, FirstReplicas
from ..worker.between_graph import SharedWrite
from ..worker.between_graph_tasks import read_value
from ..worker.programs import AGAIN, run_loop, run_program, take
from . import lineage
from .devices import on_task, place
from .held import Held
from .recovery import BACKUP_PREFIX, WorkerLost


@dataclass(frozen=True)
class FedArg:
    """An argument fed to the step: feed ``index``; ``split``: a replica gets its share."""

    index: int
    split: bool


@dataclass(frozen=True)
class VariableArg:
    """An argument that is variable ``name``'s current value."""

    name: str


@dataclass(frozen=True)
class ReceivedArg:
    """An argument sent by instance ``producer`` during the step."""

    producer: str


@dataclass(frozen=True)
class GatheredArg:
    """An argument sent by every replica of a partition (``producers``: their instances)."""

    producers: tuple


@dataclass(frozen=True, slots=True)
class _Taker:
    """A taker task ``name`` holding result ``index`` of its instance (a fetched tensor)."""

    name: str
    index: int


@dataclass(frozen=True, slots=True)
class _Reader:
    """Instance ``instance`` reads results ``indices`` of the one sending to it."""

    instance: str
    indices: tuple


@dataclass
class _Template:
    """What one instance's task needs besides the step's data."""

    inst: Instance
    program_id: str
    args: list  # FedArg | VariableArg | ReceivedArg | GatheredArg
    takers: list  # _Taker of each tensor fetched from it
    values: list  # VariableUpdate of each variable it updates
    mode: FirstReplicas | EachReplica | None  # how a GatheredArg's values are consumed
    sends: list  # _Reader of each instance reading its results
    shared: SharedWrite | None = None  # the job's variables it updates where they live


@dataclass(frozen=True, slots=True)
class Post:
    """A fed value sent straight to the worker reading it, not through the scheduler."""

    address: str  # the reading worker's
    box: MailKey  # where the reader takes it from
    value: object


@dataclass(frozen=True, slots=True)
class FeedLater:
    """A feed of a staged step: posted once the run that starts it gives its value."""

    address: str  # the reading worker's
    box: MailKey  # where the reader takes it from
    index: int  # which feed
    replica: int | None  # the replica whose share it is (None: the whole value)


@dataclass(frozen=True, slots=True)
class Pushes:
    """Where a variable's new value was pushed: readers find it in their caches."""

    ident: tuple  # the value's Held.ident
    readers: frozenset  # addresses of the workers it was pushed to
    home: str  # address of the worker holding it
    encoded: bool = False  # sent encoded (ConfigProto.variable_compression): readers decode it


_NOT_PUSHED = Pushes(None, frozenset(), None)


@dataclass
class StepGraph:
    """Step ``n``'s Dask graph and what the session needs to run it (:meth:`Lowered.graph`)."""

    graph: HighLevelGraph
    wanted: list  # keys the session submits
    optional: set  # keys of replicas not waited for (backup workers)
    fetch_keys: list  # keys of the fetched tensors, in fetch order
    posts: list  # Post of each fed value sent straight to its worker
    pushes: dict  # variable name -> Pushes: where its new value goes (pass back as ``pushed``)
    variable_keys: list  # keys of the tasks reading the fetched shared variables, in fetch order
    # A run of several steps: variable name -> key of the task holding its value as the
    # last step starts (fetched variables the run updates).
    prior: dict = dataclasses.field(default_factory=dict)
    # A staged step: (address, mailbox key) of each instance reading no other's results, where
    # it waits for the word to start (its feeds are FeedLater in ``posts``).
    gates: list = dataclasses.field(default_factory=list)


class Lowered:
    """Per-step task graphs for one Executable on one cluster."""

    def __init__(
        self,
        executable,
        plan_id,
        workers,
        config,
        timeout=None,
        session="",
        shared_job=None,
        independent=False,
        own_task=None,
    ):
        self.executable = executable
        self.shared_job = shared_job  # a between-graph job's id: its variables live on their workers
        # ConfigProto(independent_replicas=True): each step runs one replica (shared variables).
        self.independent = independent
        self.plan_id = plan_id
        self.session = session  # names this session's pushed values in the workers' caches
        self.timeout = timeout  # seconds an instance waits for another's results
        plan = executable.plan
        self.replicated = replicated_partitions(plan.partitions)
        devices = [p.device for p in plan.partitions if p.key in self.replicated]
        tasks = [w.task for w in replica_workers(workers, devices)] if self.replicated else []
        self.num_replicas = len(tasks) or 1
        soft = config.allow_soft_placement
        self.placement = {}  # instance name -> (WorkerDevice, needs GPU)
        self._roles = {}  # instance name -> its worker as task keys name it: ps_0, worker_1_gpu0
        for p in plan.partitions:
            for inst in self.instances(p.key):
                device = on_task(p.device, own_task)  # a between-graph session's task, in TF1
                if inst.replica is not None:
                    device = replica_device(p.device, tasks[inst.replica])
                self.placement[inst.name] = place(device, workers, soft)
                self._roles[inst.name] = _role(*self.placement[inst.name], device)
        self.required: dict = {}  # variable name -> must it have a value (some partition reads it)
        for v in executable.var_inputs:
            self.required[v.name] = self.required.get(v.name, False) or v.required
        self._check_updates()
        # Where each variable's new value will live: the worker of the partition updating it.
        self.var_home = {u.name: self.placement[u.partition][0].name for u in executable.updates}
        # A between-graph job's variables: where each lives, by its device.
        self.variable_ops = {op.name: op for op in plan.ops if op.primitive.is_variable}
        # How often a ps sends a copy of the job's variables it holds (0: never).
        copies = config.recovery
        self._copy_secs = copies.backup_variables_secs if copies.backup_variables else 0.0
        self.shared_homes = {} if shared_job is None else self._shared_homes(workers, soft)
        self._updated = tuple(u.name for u in executable.updates)
        staleness = config.replication.max_staleness
        self._stage = {p.key: p.stage for p in plan.partitions}
        self._templates = [
            t
            for program, task in zip(executable.programs, executable.tasks)
            for t in self._templates_of(program, task, staleness)
        ]
        _route(self._templates, {p.key: p.reads for p in executable.programs})
        # The first item of each instance's task key (see the module's docstring), made once.
        self._task_names = {
            t.inst.name: f"{self._roles[t.inst.name]} {'update' if t.values else 'step'}"
            for t in self._templates
        }
        # Workers, besides its own, whose partitions read each variable: its new values go there.
        self._readers = {name: set() for name in self.var_home}
        for t in self._templates:
            for arg in t.args:
                if type(arg) is VariableArg and arg.name in self._readers:
                    self._readers[arg.name].add(self.placement[t.inst.name][0].name)
        # A run of several steps pushes each round's values to every reader, its home too.
        self._loop_readers = {name: frozenset(readers) for name, readers in self._readers.items()}
        at_home = {name: set() for name in self.var_home}  # instances reading it on its worker
        for t in self._templates:
            for arg in t.args:
                if type(arg) is VariableArg and arg.name in at_home:
                    if self.placement[t.inst.name][0].name == self.var_home[arg.name]:
                        at_home[arg.name].add(t.inst.name)
        # Per updating instance: the variables whose rounds' values its worker may drop after a loop.
        self._forget = {
            t.inst.name: tuple(
                cache_name(session, u.name) for u in t.values if at_home[u.name] <= {t.inst.name}
            )
            for t in self._templates
        }
        for name, readers in self._readers.items():
            readers.discard(self.var_home[name])
        self._keep = config.steps.async_dispatch + 2  # versions a reader may still need
        # ConfigProto(variable_compression=...): float32 variables' pushes travel encoded.
        codec = config.compression.variable_compression
        self._push_codec = {
            name: codec for name in self._readers if codec and _compressible(self.variable_ops.get(name))
        }
        # Replicas whose results may be dropped (backup workers) are not waited for.
        first_only = any(type(t.mode) is FirstReplicas for t in self._templates)
        self.optional = {t.inst.name for t in self._templates if first_only and t.inst.replica is not None}
        self.worker_names = {worker.name for worker, _ in self.placement.values()}
        self.replica_names = {
            self.placement[inst.name][0].name
            for p in plan.partitions
            for inst in self.instances(p.key)
            if inst.replica is not None
        }
        self.membership = None  # the session's view of the cluster this plan last checked
        sources = executable.fetch_sources
        self._fetch_names = [
            _fetch_name(s.partition, j) for j, s in enumerate(sources) if type(s) is PartitionResult
        ]
        self._fetched_variables = [s.name for s in sources if type(s) is VariableValue]
        feeds = executable.feeds
        # A fed batch (first dimension unknown) is split across the replicas; the rest is shared.
        self._splits = {i for i, t in enumerate(feeds) if t._dims and t._dims[0] is None}

    # -- building the templates ---------------------------------------------------------------
    def instances(self, part_key):
        if part_key in self.replicated:
            return [Instance(part_key, i) for i in range(self.num_replicas)]
        return [Instance(part_key)]

    def _check_updates(self):
        bad = sorted(u.name for u in self.executable.updates if u.partition in self.replicated)
        if bad:
            raise ValueError(
                f"variables {bad} would be updated by every replica; place their updates with the "
                "variables (on the ps), e.g. with replica_device_setter"
            )

    def _templates_of(self, program, task, staleness):
        ex = self.executable
        partition = next(p for p in ex.plan.partitions if p.key == program.key)
        control = [FromPartition(ref.key) for ref in task.args[len(program.args) :]]
        specs = [*program.args, *control]
        fetches = [
            _Taker(_fetch_name(program.key, j), s.index)
            for j, s in enumerate(ex.fetch_sources)
            if type(s) is PartitionResult and s.partition == program.key
        ]
        out = []
        for inst in self.instances(program.key):
            args = [self._arg_spec(inst, spec) for spec in specs]
            mode = None
            if any(type(a) is GatheredArg for a in args):
                needed = aggregation(partition, self.num_replicas)
                mode = (
                    FirstReplicas(needed) if needed is not None else EachReplica(_chain(program), staleness)
                )
            program_id = f"{self.plan_id}-{program.key}"
            shared = None
            reads = any(type(a) is VariableArg for a in args)
            if self.shared_job is not None and (program.updates or reads):
                writes = tuple((u.name, u.index) for u in program.updates)
                sync = _synchronous(partition)
                gathered = tuple(i for i, a in enumerate(args) if type(a) is ReceivedArg) if sync else ()
                shared = SharedWrite(
                    self.shared_job,
                    writes,
                    staleness,
                    backup_secs=self._copy_secs,
                    sync=sync,
                    gathered=gathered,
                )
            out.append(_Template(inst, program_id, args, fetches, program.updates, mode, [], shared))
        return out

    def _shared_homes(self, workers, soft) -> dict:
        """Variable name -> the worker holding it in the job, by its device; refuses a plan
        that would update a variable away from it, or replicate a partition."""
        if self.replicated and not self.independent:
            raise UnimplementedError(
                None,
                None,
                f"partitions {sorted(self.replicated)} would be replicated in-graph, which a "
                "between-graph session (a tf.train.Server target) does not do yet: place the "
                "graph on this task's worker (replica_device_setter(worker_device=...))",
            )
        if any(_synchronous(p) for p in self.executable.plan.partitions if self.independent):
            raise UnimplementedError(
                None,
                None,
                "ConfigProto(independent_replicas=True) runs asynchronous training (a plain optimizer); "
                "SyncReplicasOptimizer's replicas meet every step: leave independent_replicas off",
            )
        homes = {name: place(op.device, workers, soft)[0] for name, op in self.variable_ops.items()}
        for u in self.executable.updates:
            worker = self.placement[u.partition][0]
            if worker.name != homes[u.name].name:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Variable {u.name} lives on {homes[u.name].name} but an op on {worker.name} "
                    "assigns it: colocate its updates with it",
                )
        return homes

    def _arg_spec(self, inst, arg):
        """``inst``'s argument for the program's ``arg``."""
        if type(arg) is FedValue:
            return FedArg(arg.index, inst.replica is not None)
        if type(arg) is VariableValue:
            return VariableArg(arg.name)
        part = arg.partition  # a FromPartition
        if part not in self.replicated:
            return ReceivedArg(Instance(part).name)
        if inst.replica is not None:
            return ReceivedArg(Instance(part, inst.replica).name)
        return GatheredArg(tuple(i.name for i in self.instances(part)))

    # -- one step -----------------------------------------------------------------------------
    def graph(
        self,
        n,
        feed_values,
        variables,
        addresses,
        backups=None,
        pushed=None,
        only=None,
        rounds=1,
        limit_ms=None,
        staged=False,
    ):
        """Step ``n``'s :class:`StepGraph`.

        A replica whose worker has left is skipped (the step runs with the
        replicas there are). ``backups`` (variable's worker name -> another
        worker's name; given on backup steps, :class:`.recovery.BackupSchedule`)
        asks for a copy of each new variable value on that other worker, held
        by a ``variable backup--<name>`` task: what recovery falls back on if the
        variable's worker is lost.

        New variable values are pushed to the other workers that read them
        (:mod:`..wire.pushes`); ``pushes`` says where: variable name ->
        :class:`Pushes`. Pass it back as ``pushed`` while those values are current.

        ``only``: run that replica alone (``ConfigProto(independent_replicas=True)``).
        ``rounds``: steps ``n`` to ``n + rounds - 1`` in one graph
        (``ConfigProto(steps_per_run=...)``), each instance's task running its
        program once per step (:func:`..worker.programs.run_loop`); the keys are the last step's,
        and so are the fetches and new values. ``limit_ms``: the step's deadline
        (``RunOptions(timeout_in_ms)``), which each partition's loops check.

        ``staged``: a step sent before its run (``feed_values`` unused), whose tasks wait on
        their workers (``ConfigProto(stage_next_step=True)``): each feed is a :class:`FeedLater`
        in ``posts`` and each instance reading no other's results has a gate in ``gates``;
        :meth:`feed_posts` gives the feeds' posts.
        """
        limit = {"limit_ms": limit_ms} if limit_ms else {}
        absent = {
            t.inst.name
            for t in self._templates
            if t.inst.replica is not None
            and (
                self.placement[t.inst.name][0].name not in addresses
                or (only is not None and t.inst.replica != only)
            )
        }
        if len(absent) == sum(t.inst.replica is not None for t in self._templates) and absent:
            # None left to run the step: the session waits for them (or stand-ins), then fails.
            raise WorkerLost({self.placement[name][0].name for name in absent})
        # A replicated fetch is the first present replica's (replica 0's, TF1's chief, normally).
        first = {}
        for t in self._templates:
            if t.inst.replica is not None and t.inst.name not in absent:
                first.setdefault(t.inst.part, t.inst.replica)
        last = n + rounds - 1
        layers, posts, pushes, fetched, prior = {}, [], {}, {}, {}
        trace = self.executable.trace  # a traced step's token (Session.run with a trace level)
        read = _Reading(variables, pushed or {}, feed_values, posts, self.session, addresses, staged)
        gates = []
        for t in self._templates:
            if t.inst.name in absent:
                continue
            here = self._address(t.inst.name, addresses)
            kwargs = limit
            if staged and not any(type(a) in _FROM_THE_STEP for a in t.args):
                gate = MailKey(self.plan_id, n, "start", t.inst.name)
                gates.append((here, gate))
                kwargs = {**limit, "gate": gate}
            if rounds == 1:
                args = [self._arg(t.inst, a, n, read, here, absent) for a in t.args]
            else:
                args = [self._round_arg(t.inst, a, last, rounds - 1, read, here, absent) for a in t.args]
            sends = self._reader_sends(t, last, addresses, absent)
            takers = {}
            for taker in t.takers if t.inst.replica in (None, first.get(t.inst.part)) else ():
                key = fetched[taker.name] = (f"{self._roles[t.inst.name]} fetch", last, taker.name)
                box = MailKey(self.plan_id, last, t.inst.name, taker.name)
                sends.append(Send(here, box, (taker.index,)))
                takers[key] = Task(key, take, key, box, taker.index, self.timeout)
            commit = None
            if t.values and t.shared is None:  # never a replica's (_check_updates)
                key, box = self.values_key(t.inst, last), MailKey(self.plan_id, last, t.inst.name, "values")
                indices = tuple(u.index for u in t.values)
                commit = Send(here, box, indices)
                sends.append(commit)
                takers[key] = Task(key, take, key, box, indices, self.timeout)
                for position, u in enumerate(t.values):
                    self._push(u.name, u.index, (key, position), last, here, addresses, sends, pushes)
            key = self.task_key(t.inst, last)
            replica = None if t.inst.replica is None else (t.inst.replica, self.num_replicas)
            mode = _fewer(t.mode, args)
            copy = backups.get(self.placement[t.inst.name][0].name) if backups else None
            shared = t.shared
            if shared is not None and shared.writes and copy in addresses:  # where the ps sends copies
                shared = dataclasses.replace(shared, backup_to=addresses[copy])
            if rounds == 1:
                task = Task(
                    key,
                    run_program,
                    key,
                    t.program_id,
                    replica,
                    mode,
                    sends,
                    self.timeout,
                    trace,
                    shared,
                    *args,
                    **kwargs,
                )
            else:
                loop = self._loop(t, n, rounds, read, here, addresses, absent, takers, prior)
                loop.append((last, sends, args))
                s, first_sends, first_args = loop[0]
                loop[0] = (s, first_sends, None)  # its arguments go as the task's: Dask resolves those
                forget = self._forget[t.inst.name]
                call = (key, t.program_id, replica, mode, self.timeout, trace, commit, forget, tuple(loop))
                task = Task(key, run_loop, *call, *first_args, **limit)
            layers[t.inst.name] = MaterializedLayer({key: task}, annotations=self._annotations(t.inst, here))
            if takers:  # on the same worker, but holding no GPU while they wait
                pinned = {"workers": [here], "allow_other_workers": False}
                layers[f"{t.inst.name}-out"] = MaterializedLayer(takers, annotations=pinned)
            if copy and copy in addresses and t.inst.replica is None and t.shared is None:
                backup = self._backups(t, last, addresses[copy], sends)
                if backup:
                    layers[f"{t.inst.name}-backup"] = MaterializedLayer(
                        backup, annotations={"workers": [addresses[copy]], "allow_other_workers": False}
                    )
        variable_keys = self._shared_fetches(last, addresses, layers)
        wanted = [k for layer in layers.values() for k in layer]
        optional = {self.task_key(t.inst, last) for t in self._templates if t.inst.name in self.optional}
        fetch_keys = [fetched[name] for name in self._fetch_names]
        graph = HighLevelGraph(layers, {name: set() for name in layers})
        return StepGraph(graph, wanted, optional, fetch_keys, posts, pushes, variable_keys, prior, gates)

    def _reader_sends(self, t, n, addresses, absent) -> list:
        """The sends of ``t``'s results to the instances reading them, in step ``n``."""
        plan, producer = self.plan_id, t.inst.name
        return [
            Send(self._address(r.instance, addresses), MailKey(plan, n, producer, r.instance), r.indices)
            for r in t.sends
            if r.instance not in absent
        ]

    def _loop(self, t, n, rounds, read, here, addresses, absent, takers, prior) -> list:
        """``(step, sends, args)`` of each round of ``t``'s loop but the last (steps ``n``...).

        A round's new variable values go to every worker reading them, this one
        too, for the next round; the round before the last also sends those the
        run fetches to a taker (added to ``takers``; its key into ``prior``): a
        fetched variable is its value as the last step starts, as in a one-step run.
        """
        out, last = [], n + rounds - 1
        for k in range(rounds - 1):
            s = n + k
            args = [self._round_arg(t.inst, a, s, k, read, here, absent) for a in t.args]
            sends = self._reader_sends(t, s, addresses, absent)
            for u in t.values if t.shared is None else ():
                key = PushKey(self.plan_id, s, cache_name(self.session, u.name))
                for address in {addresses[r] for r in self._loop_readers[u.name] if r in addresses}:
                    codec = None if address == here else self._push_codec.get(u.name)
                    sends.append(Send(address, key, (u.index,), keep=self._keep, codec=codec))
                if k == rounds - 2 and u.name in self._fetched_variables:
                    key = prior[u.name] = (
                        f"{self._roles[t.inst.name]} fetch",
                        last,
                        f"{t.inst.name}-{u.name}",
                    )
                    box = MailKey(self.plan_id, last, t.inst.name, f"prior-{u.name}")
                    sends.append(Send(here, box, (u.index,)))
                    takers[key] = Task(key, take, key, box, u.index, self.timeout)
            out.append((s, sends, args))
        return out

    def _round_arg(self, inst, arg, s, k, read, here, absent):
        """``inst``'s argument ``arg`` in round ``k`` (step ``s``) of a run: as in a one-step
        run in the first round; then what the step before sent, or :data:`..worker.programs.AGAIN`."""
        kind = type(arg)
        if k == 0 or kind is ReceivedArg or kind is GatheredArg:
            return self._arg(inst, arg, s, read, here, absent)
        if kind is VariableArg and arg.name in self.var_home:  # the round before updated it
            name = arg.name
            return Pushed(cache_name(self.session, name), s - 1, None, None, None, name in self._push_codec)
        return AGAIN  # a feed, or a variable the run does not update

    def _shared_fetches(self, n, addresses, layers) -> list:
        """Tasks reading the fetched variables of a between-graph job where they live, added to
        ``layers``; their keys in fetch order."""
        if self.shared_job is None:
            return []
        keys = []
        for j, name in enumerate(self._fetched_variables):
            home = self.shared_homes[name]
            address = addresses.get(home.name)
            if address is None:
                raise WorkerLost({home.name})
            key = (f"{home.job}_{home.task} read", n, f"{name}-{j}")
            pinned = {"workers": [address], "allow_other_workers": False}
            task = Task(key, read_value, self.shared_job, name)
            layers[f"read-{j}"] = MaterializedLayer({key: task}, annotations=pinned)
            keys.append(key)
        return keys

    def _push(self, name, index, ident, step, here, addresses, sends, pushes):
        """Sends of variable ``name``'s new value (result ``index``; ``ident``: its
        :attr:`.held.Held.ident`), made in step ``step``, to the other workers reading it."""
        readers = {addresses[r] for r in self._readers[name] if r in addresses}
        for address in readers:
            key = PushKey(self.plan_id, step, cache_name(self.session, name))
            sends.append(Send(address, key, (index,), keep=self._keep, codec=self._push_codec.get(name)))
        if readers:
            pushes[name] = Pushes(ident, frozenset(readers), here, name in self._push_codec)

    def _backups(self, template, n, address, sends):
        """Tasks on ``address`` holding copies of the variables ``template`` updates."""
        tasks = {}
        for u in template.values:
            key = (BACKUP_PREFIX + u.name, n)
            box = MailKey(self.plan_id, n, template.inst.name, key[0])
            sends.append(Send(address, box, (u.index,)))
            tasks[key] = Task(key, take, key, box, u.index, self.timeout)
        return tasks

    def feed_posts(self, later, feed_values) -> list:
        """The :class:`Post` of each :class:`FeedLater` of a staged step, for the
        ``feed_values`` of the run starting it."""
        return [Post(f.address, f.box, self._feed(f.index, feed_values, f.replica)) for f in later]

    def _arg(self, inst, arg, n, read, here, absent=()):
        if type(arg) is FedArg and read.staged:
            box = MailKey(self.plan_id, n, f"feed-{arg.index}", inst.name)
            read.posts.append(FeedLater(here, box, arg.index, inst.replica if arg.split else None))
            return Recv(box)
        if type(arg) is FedArg:
            value = self._feed(arg.index, read.feed_values, inst.replica if arg.split else None)
            if not posts_directly(value):
                return value
            box = MailKey(self.plan_id, n, f"feed-{arg.index}", inst.name)
            read.posts.append(Post(here, box, value))
            return Recv(box)
        if type(arg) is ReceivedArg:
            return Recv(MailKey(self.plan_id, n, arg.producer, inst.name))
        if type(arg) is GatheredArg:
            keys = (MailKey(self.plan_id, n, p, inst.name) for p in arg.producers if p not in absent)
            return FromReplicas(tuple(keys))
        name = arg.name
        if self.shared_job is not None:
            home = self.shared_homes[name].name
            if home not in read.addresses:
                raise WorkerLost({home})
            return SharedRead(self.shared_job, name, read.addresses[home], self.required[name])
        if name in read.variables:
            return read.variable(name, here)
        if self.required[name]:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {name}")
        return None

    def _feed(self, index, feed_values, replica):
        """A fed value; a replica gets its share of a batch (first dimension unknown)."""
        value = feed_values[index]
        if replica is None or index not in self._splits or self.independent:  # one replica: the whole batch
            return value
        value = np.asarray(value)
        if len(value) < self.num_replicas:
            t = self.executable.feeds[index]
            raise InvalidArgumentError(
                t.op.node_def,
                t.op,
                f"the batch fed to {t.name} has {len(value)} rows, fewer than the {self.num_replicas} "
                "replicas it is split across",
            )
        return np.array_split(value, self.num_replicas)[replica]

    def _address(self, inst_name, addresses):
        worker = self.placement[inst_name][0]
        address = addresses.get(worker.name)
        if address is None:  # the session recovers: waits for it or a stand-in
            raise WorkerLost({worker.name})
        return address

    def _annotations(self, inst, address):
        # No Dask resource for a GPU: Dask takes one as the task starts and keeps it while the
        # task waits for its inputs, so a task ready first (a later step's, with steps in
        # flight; a later piece of a cut partition) would hold the device its producer waits
        # for. The worker restriction places it; the data orders the work on the device.
        # Earlier stages first: a task's inputs come from earlier stages.
        return {"workers": [address], "allow_other_workers": False, "priority": -self._stage[inst.part]}

    # -- results ---------------------------------------------------------------------------
    def fetched_variables(self, variables) -> list:
        """``[(name, Held)]`` of the variables the step fetches, as it starts, in fetch order."""
        if self.shared_job is not None:  # read where they live (StepGraph.variable_keys)
            return []
        names = self._fetched_variables
        missing = [name for name in names if name not in variables]
        if missing:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {missing[0]}")
        return [(name, variables[name]) for name in names]

    def task_key(self, inst, n):
        """The key of ``inst``'s task in step ``n``: ``("ps_0 update", n, "ps-0-s1")``."""
        return (self._task_names[inst.name], n, inst.name)

    def values_key(self, inst, n):
        """The key of the task holding the new variable values ``inst`` makes in step ``n``."""
        return lineage.values_key(self._roles[inst.name], n, inst.name)

    def committing(self, n) -> list:
        """``(task key, values key)`` in step ``n`` of each instance updating variables."""
        return [
            (self.task_key(t.inst, n), self.values_key(t.inst, n))
            for t in self._templates
            if t.values and t.shared is None
        ]

    def new_values(self, n, futures) -> dict:
        """``{variable name: Held}`` of step ``n``'s new values, given its ``futures`` by key."""
        out = {}
        for t in self._templates:
            if t.values and t.shared is None:
                future = futures[self.values_key(t.inst, n)]
                out.update((u.name, Held(future, position)) for position, u in enumerate(t.values))
        return out

    def updated(self) -> tuple:
        """The names of the variables a step updates (made once per plan)."""
        return self._updated

    def results(self, fetched, feed_values):
        """Fetched values in fetch order (``fetched``: partition outputs, then variables)."""
        n_parts = len(self._fetch_names)
        parts, variables = iter(fetched[:n_parts]), iter(fetched[n_parts:])
        out = []
        for source in self.executable.fetch_sources:
            kind = type(source)
            if kind is PartitionResult:
                out.append(next(parts))
            elif kind is VariableValue:
                out.append(to_host(next(variables)))  # a GPU variable's value (needs cupy here)
            elif kind is FedValue:
                out.append(feed_values[source.index])
            else:  # a Constant
                out.append(source.value)
        return out


@dataclass
class _Reading:
    """What a step's instances read: the current variables (pushed copies where there are), feeds."""

    variables: dict  # name -> Held, the current value
    pushed: dict  # name -> Pushes of values pushed to readers
    feed_values: list
    posts: list  # Post of each feed sent straight to its worker
    session: str
    addresses: dict  # worker name -> address
    staged: bool = False  # a step sent before its run: feeds come later (FeedLater)

    def variable(self, name, address):
        """The current value of ``name`` as a task on ``address`` reads it."""
        held = self.variables[name]
        pushes = self.pushed.get(name, _NOT_PUSHED)
        if pushes.ident == held.ident and address in pushes.readers:  # there, or on its way: no dependency
            key, index = pushes.ident
            _, step, _ = key  # the values task's key (lineage.values_key): the step that made it
            return Pushed(cache_name(self.session, name), step, key, pushes.home, index, pushes.encoded)
        return held.arg()


_FROM_THE_STEP = (FedArg, ReceivedArg, GatheredArg)  # what a staged step's instance waits for anyway


def _compressible(variable_op) -> bool:
    """A variable whose pushes may travel encoded: float32, worth encoding."""
    if variable_op is None:
        return False
    t = variable_op.outputs[0]
    return t.dtype.as_numpy_dtype is np.float32 and worth_encoding(t)


def _fewer(mode, args):
    """``mode`` for the replicas present: aggregate no more than there are."""
    if type(mode) is not FirstReplicas:
        return mode
    present = min(len(a.keys) for a in args if type(a) is FromReplicas)
    return FirstReplicas(min(mode.needed, present))


def _synchronous(partition):
    """How many clients' gradients a between-graph update averages per round (its
    SyncReplicasOptimizer's ``replicas_to_aggregate``), or None: it applies each as it comes."""
    wanted = {op.attrs["replicas_to_aggregate"] for op in partition.ops if op.primitive.aggregates_replicas}
    if len(wanted) > 1:
        raise ValueError(f"partition {partition.key} aggregates replicas in different ways: {sorted(wanted)}")
    return next(iter(wanted), None)


def _fetch_name(part_key, j):
    # Unique in a step; the key's first item names the worker (see the module's docstring).
    return f"{part_key}-fetch-{j}"


def _role(worker, gpu, device):
    """The worker (and GPU) an instance runs on, as its task keys name it: ``ps_0``,
    ``worker_1_gpu0``. One word with no ``-``: ``key_split`` cuts a key at ``-`` and a digit."""
    role = f"{worker.job}_{worker.task}"
    if gpu:
        role += f"_gpu{DeviceSpec.from_string(device).device_index or 0}"
    return role


def _chain(program):
    """(argument position, result index) of each variable the program reads and updates.

    Applying replicas' results one after another feeds each call's new
    values into the next call's variable arguments.
    """
    updated = {u.name: u.index for u in program.updates}
    return tuple(
        (pos, updated[arg.name])
        for pos, arg in enumerate(program.args)
        if type(arg) is VariableValue and arg.name in updated
    )


def _route(templates, reads):
    """Fill in each template's sends: who reads its results, and which of them."""
    by_name = {t.inst.name: t for t in templates}
    for consumer in templates:
        for arg in consumer.args:
            if type(arg) is ReceivedArg:
                producers = [arg.producer]
            elif type(arg) is GatheredArg:
                producers = arg.producers
            else:
                continue
            for name in producers:
                producer = by_name[name]
                indices = tuple(sorted(reads[consumer.inst.part].get(producer.inst.part, ())))
                producer.sends.append(_Reader(consumer.inst.name, indices))
