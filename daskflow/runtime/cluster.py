"""Running steps on a Dask cluster.

The same :class:`Executable` that runs embedded is lowered onto the cluster:
each partition becomes one task per step, restricted to the worker its
device names (and to a GPU, for a GPU device). A step's tasks all start at
once; partitions pass their results to each other worker to worker, as TF's
Send/Recv do (:mod:`.transport`), instead of through Dask dependencies, each
of which would cost a round trip through the scheduler. Variables live as
futures on their workers: a step's tasks take the current futures as inputs
and its new values become the new futures — they never pass through the
client unless fetched. A step is one graph submission; the client then
gathers only the fetched values.
"""

from __future__ import annotations

import collections
import itertools
import time
import uuid
from dataclasses import dataclass

from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import Task
from distributed.client import _wait

from ..errors import FailedPreconditionError, OpError
from . import lineage
from .devices import cluster_workers, place
from .programs import ProgramRegistry, run_program
from .transport import Recv, Send, UpstreamFailedError, post, posts_directly, take

REFRESH = 2.0  # seconds between looks at the cluster's membership


class ClusterRuntime:
    """A session's link to a cluster: placement, variables, step submission."""

    def __init__(self, client, config):
        self.client = client
        self.config = config
        self.variables: dict = {}  # variable name -> Future of its current value
        self._plans: dict = {}  # Executable -> _Lowered
        self._steps = itertools.count()
        self._registries: list[str] = []
        self._known = ({}, float("-inf"))
        self._pending: collections.deque = collections.deque()
        lineage.install(client)
        if getattr(config, "low_latency", True):
            _unbatch(client)

    # -- cluster membership ---------------------------------------------------------------
    def workers(self):
        info = self.client.scheduler_info()
        workers = cluster_workers(info)
        if not workers:
            raise RuntimeError(f"the cluster at {self.client.scheduler.address} has no workers")
        self._known = ({w.name: w.address for w in workers}, time.monotonic())
        return workers

    def _addresses(self):
        """Worker name -> address, asked of the scheduler at most every REFRESH seconds."""
        known, when = self._known
        if time.monotonic() - when > REFRESH:
            self.workers()
        return self._known[0]

    # -- a step -------------------------------------------------------------------------------
    def step(self, executable, feed_values):
        """Run one step: submit its graph, wait, commit new variable futures, return fetches.

        With ``ConfigProto(async_dispatch=N)``, a step that fetches only ops
        returns once submitted, so up to N steps are in flight; its variable
        futures are committed at once (the next step depends on them) and
        any error surfaces at the next synchronisation point, naming the op,
        with the variables as they were before the failing step.
        """
        lowered = self._plans.get(executable)
        if lowered is None:
            lowered = self._plans[executable] = self._lower(executable)
        depth = getattr(self.config, "async_dispatch", 0)
        if depth and not executable.fetch_sources:
            self._pending.append(self._submit(lowered, feed_values))
            self._commit(self._pending[-1])
            while len(self._pending) > depth:
                self._finish(self._pending.popleft())
            return []
        self.sync()
        pending = self._submit(lowered, feed_values)
        fetched = self._finish(pending)
        self._commit(pending)
        return lowered.results(fetched, feed_values)

    def sync(self):
        """Wait for every dispatched step; raise the first failure."""
        try:
            while self._pending:
                self._finish(self._pending[0])
                self._pending.popleft()
        except Exception:
            self.variables.update(self._pending[0].before)  # back to before the failing step
            self._pending.clear()
            raise

    def _submit(self, lowered, feed_values):
        n = next(self._steps)
        graph, wanted, fetch_keys, posts = lowered.graph(n, feed_values, self.variables, self._addresses())
        for address, key, value in posts:
            post(self.client, address, key, value)
        read = lowered.fetched_variables(self.variables)  # values as the step starts
        futures = dict(zip(wanted, self.client.get(graph, wanted, sync=False)))
        updated = [name for name, _ in lowered.variable_keys(n) if name in self.variables]
        before = {name: self.variables[name] for name in updated}
        return _Pending(lowered, n, futures, [futures[k] for k in fetch_keys] + read, before)

    def _finish(self, pending):
        """Wait for a step; return its fetched values, or raise naming the failing op."""
        # Waiting costs no request: completions arrive on the client's stream.
        self.client.sync(_wait, list(pending.futures.values()))
        try:
            _raise_first_failure(pending.futures.values())
            return self.client.gather(pending.fetch)
        except OpError:
            raise
        except Exception as e:  # noqa: BLE001 - re-raised naming the op
            raise pending.lowered.executable.op_error("?", e) from e

    def _commit(self, pending):
        for name, key in pending.lowered.variable_keys(pending.n):
            self.variables[name] = pending.futures[key]

    def _lower(self, executable):
        workers = self.workers()
        soft = self.config.allow_soft_placement
        placement = {p.key: place(p.device, workers, soft) for p in executable.plan.partitions}
        plan_id = uuid.uuid4().hex[:12]
        programs = {f"{plan_id}-{p.key}": (p.key, p.fn) for p in executable.programs}
        registry = ProgramRegistry(plan_id, programs)
        self.client.register_plugin(registry)
        self._registries.append(registry.name)
        timeout_ms = getattr(self.config, "operation_timeout_in_ms", 0)
        lowered = _Lowered(executable, plan_id, placement, timeout_ms / 1000 if timeout_ms > 0 else None)
        if self.config.log_device_placement:
            self._plans[executable] = lowered
            for name, (device, worker) in self.placement(executable).items():
                print(f"{name}: {device or '(default)'} -> {worker}")
        return lowered

    def placement(self, executable):
        lowered = self._plans.get(executable) or self._lower(executable)
        self._plans[executable] = lowered
        workers = self.workers()
        soft = self.config.allow_soft_placement
        out = {}
        for op in executable.plan.ops:
            part = executable.plan.partition_of.get(op)
            # A variable's value lives where its device (and its initializer) put it.
            worker = lowered.placement[part.key][0] if part else place(op.device, workers, soft)[0]
            out[op.name] = (op.device, worker.name)
        return out

    def close(self):
        """Release the variables and take this session's programs off the workers."""
        self._pending.clear()
        self.variables.clear()
        self._plans.clear()
        if self.client.status == "running":
            for name in self._registries:
                self.client.unregister_worker_plugin(name)
        self._registries.clear()


def _raise_first_failure(futures):
    """Raise the error of the partition that failed first, not of those it starved."""
    failed = [f for f in futures if f.status == "error"]
    failed.sort(key=lambda f: isinstance(f.exception(), UpstreamFailedError))
    if failed:
        failed[0].result()  # raises the task's exception, traceback included


def _fetch_name(part_key, j):
    # Named after the partition, so the dashboard groups it with its role.
    return f"{part_key}-fetch-{j}"


@dataclass
class _Pending:
    """A submitted step."""

    lowered: object
    n: int
    futures: dict  # key -> Future, everything the step computes
    fetch: list  # futures whose values the run returns
    before: dict  # variable name -> Future before this step, to roll back to


def _unbatch(client):
    """Send the cluster's control messages at once instead of every 2-10 ms.

    Dask batches messages on its streams (client->scheduler every 10 ms,
    scheduler->worker 5 ms, worker->scheduler and scheduler->client 2 ms):
    good for throughput of many small tasks, but each step here is a short
    chain of dependent tasks, and every link of it waits out a batch window.
    Message order is unchanged; only the flush timing is.
    """
    client.scheduler_comm.interval = 0
    client.run_on_scheduler(_unbatch_scheduler)
    client.run(_unbatch_worker)


def _unbatch_scheduler(dask_scheduler):
    for stream in [*dask_scheduler.client_comms.values(), *dask_scheduler.stream_comms.values()]:
        stream.interval = 0


def _unbatch_worker(dask_worker):
    dask_worker.batched_stream.interval = 0


def _sends(templates, reads):
    """Per producer partition: (consumer partition, result indices it reads)."""
    sends: dict = {key: [] for key, *_ in templates}
    for consumer, _, specs, _ in templates:
        for kind, producer in specs:
            if kind == "part":
                sends[producer].append((consumer, tuple(sorted(reads[consumer].get(producer, ())))))
    return sends


class _Lowered:
    """An Executable's tasks for the cluster: templates built once, keyed per step."""

    def __init__(self, executable, plan_id, placement, timeout=None):
        self.executable = executable
        self.plan_id = plan_id
        self.placement = placement  # partition key -> (WorkerDevice, needs GPU)
        self.timeout = timeout  # seconds a partition waits for another's results
        self.required: dict = {}  # variable name -> must it have a value (some partition reads it)
        for v in executable.var_inputs:
            self.required[v.name] = self.required.get(v.name, False) or v.required
        self._templates = [
            self._template(p, t, plan_id) for p, t in zip(executable.programs, executable.tasks)
        ]
        self._stage = {p.key: p.stage for p in executable.plan.partitions}
        self._sends = _sends(self._templates, {p.key: p.reads for p in executable.programs})
        self._fetch_names = [
            _fetch_name(what[0], j)
            for j, (kind, what) in enumerate(executable.fetch_sources)
            if kind == "part"
        ]

    def _template(self, program, task, plan_id):
        """(partition key, program id, argument specs, named outputs) of one partition."""
        ex = self.executable
        specs = [(kind, what.name if kind == "var" else what) for kind, what in program.args]
        specs += [("part", ref.key) for ref in task.args[len(program.args) :]]  # control edges
        outputs = [(lineage.VAR_PREFIX + name, i) for name, part, i in ex.updates if part == program.key]
        outputs += [
            (_fetch_name(program.key, j), what[1])
            for j, (kind, what) in enumerate(ex.fetch_sources)
            if kind == "part" and what[0] == program.key
        ]
        return program.key, f"{plan_id}-{program.key}", specs, outputs

    def graph(self, n, feed_values, variables, addresses):
        """Step ``n``'s graph: one layer per partition, pinned to its worker.

        Partitions do not depend on each other in Dask's eyes: they all start
        at once and pass results worker to worker (:mod:`.transport`).
        """
        layers, posts = {}, []
        for part_key, program_id, specs, outputs in self._templates:
            key = (part_key, n)
            args = [self._arg(kind, what, n, part_key, feed_values, variables) for kind, what in specs]
            for a, (kind, what) in zip(args, specs):
                if kind == "feed" and type(a) is Recv:
                    posts.append((self._address(part_key, addresses), a.key, feed_values[what]))
            sends = [
                Send(self._address(consumer, addresses), (self.plan_id, n, part_key, consumer), indices)
                for consumer, indices in self._sends[part_key]
            ]
            here = self._address(part_key, addresses)
            takers = {}
            for name, i in outputs:
                box = (self.plan_id, n, part_key, name)
                sends.append(Send(here, box, (i,)))
                takers[(name, n)] = Task((name, n), take, (name, n), box, i, self.timeout)
            task = Task(key, run_program, key, program_id, sends, self.timeout, *args)
            annotations = self._annotations(part_key, addresses)
            layers[part_key] = MaterializedLayer({key: task}, annotations=annotations)
            if takers:  # on the same worker, but holding no GPU while they wait
                pinned = {"workers": [here], "allow_other_workers": False}
                layers[f"{part_key}-out"] = MaterializedLayer(takers, annotations=pinned)
        wanted = [k for layer in layers.values() for k in layer]
        deps = {name: set() for name in layers}
        fetch_keys = [(name, n) for name in self._fetch_names]
        return HighLevelGraph(layers, deps), wanted, fetch_keys, posts

    def _arg(self, kind, what, n, part_key, feed_values, variables):
        if kind == "feed":
            value = feed_values[what]
            return Recv((self.plan_id, n, f"feed-{what}", part_key)) if posts_directly(value) else value
        if kind == "part":
            return Recv((self.plan_id, n, what, part_key))
        if what in variables:
            return variables[what]
        if self.required[what]:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {what}")
        return None

    def _address(self, part_key, addresses):
        worker = self.placement[part_key][0]
        address = addresses.get(worker.name)
        if address is None:
            raise RuntimeError(f"worker {worker.name} has left the cluster; its work has nowhere to run")
        return address

    def _annotations(self, part_key, addresses):
        annotations = {
            "workers": [self._address(part_key, addresses)],
            "allow_other_workers": False,
            # A partition waiting for its inputs keeps its resources (a GPU): run
            # earlier stages first, so it never waits on one queued behind itself.
            "priority": -self._stage[part_key],
        }
        if self.placement[part_key][1]:
            annotations["resources"] = {"GPU": 1}
        return annotations

    def fetched_variables(self, variables):
        names = [what[4:] for kind, what in self.executable.fetch_sources if kind == "var"]
        missing = [name for name in names if name not in variables]
        if missing:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {missing[0]}")
        return [variables[name] for name in names]

    def variable_keys(self, n):
        return [(name, (lineage.VAR_PREFIX + name, n)) for name, _, _ in self.executable.updates]

    def results(self, fetched, feed_values):
        """Fetched values in fetch order (``fetched``: partition outputs, then variables)."""
        n_parts = sum(kind == "part" for kind, _ in self.executable.fetch_sources)
        parts, variables = iter(fetched[:n_parts]), iter(fetched[n_parts:])
        out = []
        for kind, what in self.executable.fetch_sources:
            if kind == "part":
                out.append(next(parts))
            elif kind == "var":
                out.append(next(variables))
            elif kind == "feed":
                out.append(feed_values[int(what[5:])])
            else:
                out.append(what)
        return out
