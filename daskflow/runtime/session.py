"""``Session``: run a graph, keep its variables.

With no target, the session is embedded: every partition runs in the calling
process and variables live in a dict on the session. The per-step path is
short on purpose: look up the cached :class:`Executable` for the (fetches,
feeds) signature, check and bind the feeds, execute the compiled partitions,
commit variable updates, and shape the results like the fetches.
"""

from __future__ import annotations

import contextlib
import threading
import uuid

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError, UnavailableError
from ..framework.graph import Graph, Operation, Tensor, get_default_graph, session_stack
from ..kernels import deadline
from ..kernels.devices import free_memory
from . import allocator
from .checkpoint import read_variable, shard_records, write_shard
from .cluster.devices import warn_ignored_devices
from .config_proto import ConfigProto, log_ignored_fields
from .plan.executable import Executable
from .plan.feeds import FeedSpec, check_feed, flatten_feed_dict
from .plan.fetches import FetchMapper, invalid_fetch
from .plan.partition import unfed_placeholders
from .steps_per_run import loops, one_by_one
from .threads import blas_threads


class Session:
    """Runs graphs: ``run(fetches, feed_dict)``.

    Parameters
    ----------
    target : str, distributed.Client or cluster, optional
        Empty or None runs embedded, in this process. A scheduler address
        (``"tcp://host:8786"``), a ``Client`` or a cluster object runs on
        that Dask cluster, each op on the worker its device names.
        ``server.target`` (``"grpc://host:port"``, a task of a cluster a
        ``tf.train.Server`` of this process joined) runs on that cluster too,
        sharing the variables with the job's other clients (between-graph).
    graph : Graph, optional
        Defaults to the default graph.
    config : ConfigProto, optional
    security : distributed.Security, optional
        For ``tls://`` schedulers.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [None])
    >>> with tf.Session() as sess:
    ...     sess.run(x * 2, feed_dict={x: [1.0, 2.0]})
    array([2., 4.], dtype=float32)
    """

    def __init__(self, target="", graph=None, config=None, *, security=None):
        self.graph: Graph = graph if graph is not None else get_default_graph()
        self.config = config or ConfigProto()
        # A step's default deadline (TF1 reads the config once, at the session's start).
        self._operation_timeout_ms = getattr(self.config, "operation_timeout_in_ms", 0) or 0
        log_ignored_fields(self.config)
        job = None
        if isinstance(target, str) and target.startswith("grpc://"):  # a tf.train.Server's cluster
            from .targets import resolve

            job = resolve(target)
            target, security = job.scheduler_address, security or job.security
        self._client, self._owns_client = _connect(target, security, self.config)
        self._cluster = None
        if self._client is not None:
            from .cluster.runtime import ClusterRuntime

            try:
                shared_job = None if job is None else job.job
                self._cluster = ClusterRuntime(
                    self._client,
                    self.config,
                    graph=self.graph,
                    shared_job=shared_job,
                    own_task=None if job is None else job.task,
                )
            except BaseException:
                if self._owns_client:  # a half-made session leaves no client behind
                    self._client.close()
                raise
        self._store: dict = {}
        self._states: dict = {}
        self._cache: dict = {}
        # Runs may come from several threads (queue runners enqueue while the loop dequeues):
        # planning a signature and making an op's state happen once, under this lock; the
        # steps themselves take no lock (a blocked dequeue must not stop an enqueue).
        self._planning = threading.RLock()
        self._closed = False
        self._placement_logged = 0  # ops of the graph log_device_placement has printed
        # Embedded: this process's BLAS pool; a cluster session sets its workers' (scope.py).
        self._blas = None if self._cluster else blas_threads(self.config.intra_op_parallelism_threads)
        if self._cluster is None:
            allocator.keep_step_buffers()  # as a worker does: steps reuse their buffers
        self._default_ctx = None
        self._steps_left = None  # a MonitoredTrainingSession's limit on steps_per_run (its last step)
        self._cost_placer = None  # ConfigProto(placement="cost"): places the graph once per version

    # -- the per-step path ---------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Compute ``fetches`` (a tensor, op, name, or nested list/tuple/dict of them).

        Operations fetch as None. Any tensor may be fed in ``feed_dict``.
        ``run_metadata`` (a ``RunMetadata``) is cleared, then filled with the
        step's times when ``options`` is ``RunOptions(trace_level=FULL_TRACE)``
        (or another level than ``NO_TRACE``): its ``step_stats`` has one
        ``NodeExecStats`` per op embedded, per partition on a cluster.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_dict = flatten_feed_dict(feed_dict) if feed_dict else {}
        mapper, executable, feed_specs = self._entry(fetches, feed_dict)
        feed_values = [spec.check(v) for spec, v in zip(feed_specs, feed_dict.values())]
        if run_metadata is not None:  # reported on, traced if asked: not the per-step path
            return mapper.build(self._run_reporting(executable, feed_values, options, run_metadata))
        steps = self._steps(executable)
        limit = (options is not None and getattr(options, "timeout_in_ms", 0)) or self._operation_timeout_ms
        if self._cluster is not None:
            if executable.next_profile is not None and executable.profile_due():
                return mapper.build(self._profiled_step(executable, feed_values, steps))
            return mapper.build(self._cluster.step(executable, feed_values, steps, limit or None))
        if limit:  # a deadline: TF1's DeadlineExceededError once the step runs past it
            with deadline.within(limit):
                return mapper.build(self._embedded_steps(executable, feed_values, steps))
        if steps > 1:
            return mapper.build(self._embedded_steps(executable, feed_values, steps))
        values = executable.execute(executable.bind(feed_values, self._store))
        for update in executable.updates:  # the step succeeded: commit
            self._keep(update.name, values[update.partition][update.index])
        return mapper.build(executable.results(values))

    def _steps(self, executable) -> int:
        """How many steps ``run`` takes (``ConfigProto(steps_per_run=...)``); a
        MonitoredTrainingSession near its last step sets ``_steps_left``."""
        steps = self.config.steps_per_run
        if steps == 1 or not loops(executable, self.graph):
            return 1
        left = self._steps_left
        return steps if left is None else max(1, min(steps, left))

    def _embedded_steps(self, executable, feed_values, steps, total=None):
        """``steps`` steps in this process (of a run of ``total``), each committed as it
        finishes; the last one's fetches."""

        def step():
            return self._commit(executable, executable.execute(executable.bind(feed_values, self._store)))

        return one_by_one(step, steps, total)

    def _run_reporting(self, executable, feed_values, options, run_metadata):
        """One step whose ``run_metadata`` is replaced, as TF1's is, by what the step reports."""
        from ..client.run_metadata import message_class

        metadata = message_class("RunMetadata")()
        steps = self._steps(executable)
        if not getattr(options, "trace_level", 0):
            results = self._untraced_step(executable, feed_values, steps)
        elif self._cluster is None:  # several steps: the last one traced
            if steps > 1:
                self._embedded_steps(executable, feed_values, steps - 1, steps)

            def traced():
                bound = executable.bind(feed_values, self._store)
                return self._commit(executable, executable.execute_traced(bound, metadata.step_stats))

            results = one_by_one(traced, 1, steps, first=steps - 1)
        else:
            results = self._traced_cluster_step(executable, feed_values, metadata.step_stats, steps)
        run_metadata.ParseFromString(metadata.SerializeToString())  # any RunMetadata class: TF's too
        return results

    def _untraced_step(self, executable, feed_values, steps=1):
        if self._cluster is not None:
            return self._cluster.step(executable, feed_values, steps)
        if steps > 1:
            return self._embedded_steps(executable, feed_values, steps)
        return self._commit(executable, executable.execute(executable.bind(feed_values, self._store)))

    def _commit(self, executable, values):
        """Keep an embedded step's variable updates; its fetched values."""
        for update in executable.updates:
            self._keep(update.name, values[update.partition][update.index])
        return executable.results(values)

    def _traced_cluster_step(self, executable, feed_values, stats, steps=1):
        """A cluster step whose tasks note their times on their workers, then gathered into ``stats``."""
        from ..client.step_stats import add_partition_stats, device_name
        from .worker.programs import take_trace

        self._cluster.trace_ops(executable)
        executable.trace = token = uuid.uuid4().hex  # the step's tasks carry it (cluster/steps.py)
        try:
            results = self._cluster.step(executable, feed_values, steps)
            self._cluster.sync()  # a step dispatched asynchronously: its tasks have noted their times
        finally:
            executable.trace = None
        records = [r for found in self._client.run(take_trace, token).values() for r in found]
        workers = {w.address: w for w in self._cluster.workers()}
        devices = {p.key: p.device for p in executable.plan.partitions}

        def device_of(address, partition):
            worker = workers.get(address)
            return address if worker is None else device_name(worker.job, worker.task, devices[partition])

        reads = {p.key: list(p.reads) for p in executable.programs}
        ops = {key: _op_names(lines) for key, lines in executable.line_ops.items()}
        add_partition_stats(stats, records, device_of, reads, ops, executable.traced_sources()[1])
        self._observe_costs(executable, records, feed_values)
        return results

    def _profiled_step(self, executable, feed_values, steps):
        """A step traced for cost placement alone: its op times go to the placer."""
        from ..client.run_metadata import message_class

        return self._traced_cluster_step(executable, feed_values, message_class("StepStats")(), steps)

    def _observe_costs(self, executable, records, feed_values):
        """Give a traced step's op and link times to the cost placer; when it places the
        graph anew, plan again every signature it placed (their old plans leave the workers)."""
        if self._cost_placer is None or not executable.plan.reasons:
            return
        from .plan.measured_costs import absorbed, link_rates, op_seconds

        ops = executable.traced_sources()[1]
        seconds = {**dict.fromkeys(absorbed(executable.plan), 0.0), **op_seconds(records, ops)}
        link = link_rates(records, executable.plan, ops)
        if not self._cost_placer.observe(seconds, link, _batch_rows(feed_values)):
            placed, reasons = self._cost_placer.graph_placement(self.graph)
            for _, kept, _ in self._cache.values():  # why, from what was measured, where the same
                plan = kept.plan
                plan.reasons = {
                    op: reasons[op] if placed.get(op) == plan.device_of(op) and op in reasons else why
                    for op, why in plan.reasons.items()
                }
            return
        for key, (_, stale, _) in list(self._cache.items()):
            if stale.plan.reasons:
                del self._cache[key]
                self._cluster.forget(stale)

    def _keep(self, name, value):
        if type(value) is np.ndarray:
            value.flags.writeable = False  # fetches copy it; nothing else may write
        self._store[name] = value

    # -- planning (once per signature) -------------------------------------------------
    def _entry(self, fetches, feed_dict):
        """The cached (fetch mapper, executable, feed specs) of a signature."""
        key = (_fetch_key(fetches), tuple(feed_dict), self.graph._mutations)
        entry = self._cache.get(key)
        if entry is None:
            with self._planning:
                entry = self._cache.get(key)
                if entry is None:
                    entry = self._cache[key] = self._prepare(fetches, feed_dict)
        return entry

    def _prepare(self, fetches, feed_dict):
        mapper = FetchMapper(self.graph, fetches)
        feeds = [self._feed_tensor(k) for k in feed_dict]
        soft = bool(self.config.allow_soft_placement)
        passes = self.config.graph_options.passes()
        compression = None if self._cluster is None else self.config.gradient_compression
        placer = self._placer(feed_dict)
        # Embedded, the session alone holds its variables' arrays: updates may write into them.
        in_place = self._cluster is None
        executable = Executable(
            mapper.tensors, mapper.ops, feeds, self._state_for, soft, passes, compression, placer, in_place
        )
        if self._cluster is None:
            warn_ignored_devices(executable.plan, self)
        if self.config.log_device_placement and self._cluster is None:
            # As TF1: the graph's ops when a run first places them (a cluster session logs
            # workers too, when it places).
            self._placement_logged = _log_placement(self.graph, self._placement_logged)
        return mapper, executable, [FeedSpec(t) for t in feeds]

    def _placer(self, feed_dict):
        """The session's cost placer (``ConfigProto(placement="cost")``, cluster sessions),
        told the fed batch's rows and where the variables live; else None."""
        if self._cluster is None or self.config.placement != "cost":
            return None
        from .plan.cost_placement import DEFAULT_ROWS, CostPlacer

        if self._cost_placer is None:
            self._cost_placer = CostPlacer(self._cluster.compute_devices(), batch=DEFAULT_ROWS)
        rows = _batch_rows(feed_dict.values())
        if rows:
            self._cost_placer.batch = rows
        self._cost_placer.homes = self._cluster.variable_devices()
        return self._cost_placer

    def _feed_tensor(self, key):
        try:
            t = self.graph.as_graph_element(key, allow_operation=False)
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidArgumentError(None, None, f"cannot feed {key!r}: {e}") from None
        if not isinstance(t, Tensor):
            raise TypeError(f"cannot feed {key!r}: only tensors can be fed")
        return t

    def _state_for(self, op):
        """An op's state in this session (see ``Primitive.make_state``), made once."""
        with self._planning:
            if op not in self._states:
                self._states[op] = op.primitive.make_state(op)
            return self._states[op]

    # -- inspection --------------------------------------------------------------------------
    def lower(self, fetches, feed_dict=None) -> dict:
        """The Dask graph one ``run(fetches, feed_dict)`` executes.

        One ``Task`` per device partition, plus a ``DataNode`` per feed and
        variable value. ``dask.get(graph, keys)`` executes it.
        """
        feed_dict = feed_dict or {}
        mapper, executable, feed_specs = self._entry(fetches, feed_dict)
        feed_values = [spec.check(v) for spec, v in zip(feed_specs, feed_dict.values())]
        return executable.graph(feed_values, self._store)

    def placement(self, fetches, feed_dict=None) -> dict:
        """Where a run of ``fetches`` executes each op.

        Embedded: ``{op name: device}``. On a cluster: ``{op name: (device,
        worker name)}``. Placing needs no values: the placeholders the
        fetches need are planned as fed, fed or not, so they are not listed.

        Examples
        --------
        >>> import daskflow as tf
        >>> x = tf.placeholder(tf.float32, [None], name="x")
        >>> with tf.device("/job:worker/task:0"):
        ...     y = tf.identity(x, name="y")
        >>> tf.Session().placement(y)
        {'y': '/job:worker/task:0'}
        """
        feeds = dict.fromkeys(feed_dict or ())
        feeds.update(dict.fromkeys(self._unfed_placeholders(fetches, feeds)))
        _, executable, _ = self._entry(fetches, feeds)
        if self._cluster is not None:
            return self._cluster.placement(executable)
        return {op.name: executable.plan.device_of(op) for op in executable.plan.ops}

    def _unfed_placeholders(self, fetches, feeds) -> list:
        mapper = FetchMapper(self.graph, fetches)
        fed = [self._feed_tensor(k) for k in feeds]
        return unfed_placeholders(mapper.tensors, mapper.ops, fed)

    def variable_futures(self) -> dict:
        """``{variable name: distributed.Future}`` of a cluster session's variables."""
        if self._cluster is None:
            raise ValueError("variable_futures() needs a cluster session; embedded variables are arrays")
        return self._cluster.variable_futures()

    def step_metrics(self) -> list[dict]:
        """Metrics of each finished step of a cluster session, oldest first.

        Per step: ``wall_time``; for replicated training ``replicas_used``,
        ``gradients_dropped`` (backup workers' late results, or updates over
        the staleness bound) and ``staleness`` (per update, asynchronous);
        ``bytes_between_workers`` and ``bytes_by_pair`` (``{(from worker, to
        worker): bytes}``). Collected from the workers when called,
        so keeping them costs the steps nothing; about the last 1,000 steps are kept.
        Empty when embedded.
        """
        if self._cluster is None:
            return []
        self._cluster.sync()
        return self._cluster.metrics.collect()

    @property
    def recoveries(self) -> list[dict]:
        """Each recovery from a lost worker: ``lost`` (worker names), ``stand_ins``,
        ``steps_lost`` and ``seconds`` (see ``ConfigProto(backup_variables_secs=)``)."""
        return [] if self._cluster is None else list(self._cluster.recoveries)

    @property
    def num_replicas(self) -> int:
        """How many replicas a graph placed on ``/job:worker`` runs as: 1 embedded, else
        the cluster's worker tasks."""
        return 1 if self._cluster is None else self._cluster.num_replicas()

    def sync(self):
        """Wait for steps dispatched asynchronously; raise the first error among them."""
        if self._cluster is not None:
            self._cluster.sync()

    @property
    def shares_variables(self) -> bool:
        """Whether the session's variables are its between-graph job's, shared with the
        job's other clients (a ``tf.train.Server`` target), rather than its own."""
        return self._cluster is not None and self._cluster.between_graph

    @property
    def dashboard_link(self):
        """The Dask dashboard of the session's cluster (None when embedded)."""
        return None if self._client is None else self._client.dashboard_link

    def load_variable(self, variable, value):
        """Set a variable's value from numpy, checking shape and dtype."""
        ref = variable._ref
        array = check_feed(ref, value)
        if self._cluster is not None:
            self.run(variable.initializer, {variable.initial_value: array})
            return
        self._keep(ref.op.name, np.array(array, copy=True))

    # -- checkpoints (train.Saver) ---------------------------------------------------------
    def _write_checkpoint(self, names, shard_url):
        """Write variables ``names`` where they live, one data shard per worker (one when
        embedded) at ``shard_url(i, number of shards)``; return ``({name: record}, shards)``."""
        if self._cluster is not None:
            return self._cluster.write_checkpoint(names, shard_url)
        missing = sorted(name for name in names if name not in self._store)
        if missing:
            raise FailedPreconditionError(None, None, f"Attempting to save uninitialized variables {missing}")
        return shard_records([write_shard(shard_url(0, 1), names, *[self._store[n] for n in names])]), 1

    def _read_checkpoint(self, files):
        """Read ``{name: (url, record, device)}``, check every file, then set every variable.

        Nothing changes unless every file reads back as its manifest says.
        """
        if self._cluster is not None:
            return self._cluster.read_checkpoint(files)
        values = {name: read_variable(url, record) for name, (url, record, _) in files.items()}
        for name, value in values.items():
            self._keep(name, value)

    def uninitialized_variables(self) -> list[str]:
        names = [v.op.name for v in self.graph.get_collection("variables")]
        held = self._store if self._cluster is None else self._cluster.variables
        if self._cluster is not None and self._cluster.shared_job is not None:
            from .cluster.shared import initialized

            held = initialized(self._client, self._cluster.shared_job)
        return [n for n in names if n not in held]

    # -- lifetime ------------------------------------------------------------------------------
    @staticmethod
    def reset(target, containers=None, config=None):
        """Forget the variables that a between-graph job holds on its cluster (TF1's
        ``Session.reset``): ``target`` is a ``tf.train.Server``'s. Its clients' next
        steps find them uninitialized. ``containers`` is accepted and ignored: a job's
        variables are one container.
        """
        from .cluster.shared import reset
        from .targets import resolve

        job = resolve(target)
        client, _ = _connect(job.scheduler_address, job.security, config or ConfigProto())
        try:
            reset(client, job.job)
        finally:
            client.close()

    # -- lifetime ------------------------------------------------------------------------------
    def close(self):
        """Free the session's variables and cached plans.

        Steps still in flight are waited for first; an error among them is
        raised after everything is freed.
        """
        if self._closed:
            return
        self._closed = True
        _cancel_waiting(self._states)
        try:
            self.sync()
        finally:
            self._store.clear()
            self._cache.clear()
            if self._blas is not None:
                self._blas.restore()
            free_memory()  # the GPU pool's blocks its arrays held go back to the device
            try:
                if self._cluster is not None:
                    self._cluster.close()
            finally:  # a client this session made never outlives it (it would block exit)
                if self._owns_client and self._client is not None:
                    self._client.close()

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default session for ``Tensor.eval`` / ``Operation.run``."""
        stack = session_stack()
        stack.append(self)
        try:
            with self.graph.as_default():
                yield self
        finally:
            stack.remove(self)

    def __enter__(self):
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        return self

    def __exit__(self, *exc):
        ctx, self._default_ctx = self._default_ctx, None
        ctx.__exit__(*exc)
        self.close()
        return False

    @property
    def sess_str(self):
        return ""


class InteractiveSession(Session):
    """A session that installs itself as the default on construction (for notebooks)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._interactive_ctx = self.as_default()
        self._interactive_ctx.__enter__()

    def close(self):
        ctx, self._interactive_ctx = getattr(self, "_interactive_ctx", None), None
        if ctx is not None:
            ctx.__exit__(None, None, None)
        super().close()


# Connecting waits at most this long by default (or Dask's connect timeout, if shorter):
# a scheduler that does not answer is reported, not waited on for Dask's 30 s.
_CONNECT_TIMEOUT_S = 10.0


def _connect(target, security, config):
    """A ``distributed.Client`` for ``target`` (and whether we own it), or None."""
    if target in (None, ""):
        return None, False
    from distributed import Client

    if isinstance(target, Client):
        return target, False
    if isinstance(target, str):
        _check_address(target)
    elif not hasattr(target, "scheduler_address"):
        raise TypeError(
            f"Session target must be an address, a distributed.Client or a cluster, got {target!r}"
        )
    timeout = _connect_timeout(config)
    try:
        return Client(target, security=security, set_as_default=False, timeout=timeout), True
    except OSError as e:  # Dask's "Timed out trying to connect", a refused or reset connection
        address = getattr(target, "scheduler_address", target)
        raise UnavailableError(
            None, None, f"cannot reach the Dask scheduler at {address} within {timeout:g} s: {e}"
        ) from None


def _check_address(target):
    """Refuse, before any client is made, an address Dask cannot connect to."""
    from distributed.comm import parse_address

    from .dask_compat import comm_backend

    hint = "daskflow takes a Dask scheduler address like 'tcp://host:8786'"
    if "://" not in target and ":" not in target:  # 'host:port' is Dask's tcp, as Client takes it
        raise ValueError(f"Session target {target!r} is not a scheduler address; {hint}")
    scheme, location = parse_address(target)
    try:
        comm_backend(scheme)
    except ValueError as e:
        raise ValueError(f"Session target {target!r}: {e}; {hint}") from None
    if not location:
        raise ValueError(f"Session target {target!r} names no host; {hint}")


def _connect_timeout(config) -> float:
    """Seconds to wait for the scheduler: ``operation_timeout_in_ms`` when set (at least
    1 s, a connection's handshakes take several round trips), else Dask's connect
    timeout, at most ``_CONNECT_TIMEOUT_S``."""
    import dask
    from dask.utils import parse_timedelta

    limit_ms = getattr(config, "operation_timeout_in_ms", 0)
    if limit_ms > 0:
        return max(limit_ms / 1000, 1.0)
    return min(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s"), _CONNECT_TIMEOUT_S)


def _fetch_key(fetches):
    """A hashable key for the structure of ``fetches`` (cheap for the usual cases)."""
    if isinstance(fetches, (Tensor, Operation, str)):
        return fetches
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), tuple(_fetch_key(f) for f in fetches))
    if isinstance(fetches, dict):
        return (dict, tuple((k, _fetch_key(v)) for k, v in fetches.items()))
    if fetches.__hash__ is None:  # an array, a set...: no fetch; say so as TF1 does
        raise invalid_fetch(fetches)
    return fetches


def _cancel_waiting(states):
    """Closing a session fails the ops still waiting in other threads' runs (a dequeue
    from an empty queue): each op state that can be cancelled (has ``cancel()``) is."""
    for state in list(states.values()):
        cancel = getattr(state, "cancel", None)
        if cancel is not None:
            cancel()


def _batch_rows(values):
    """The rows of the first fed array (what an unknown dimension is, to cost placement), or None."""
    rows = [len(v) for v in values if getattr(v, "ndim", 0) or isinstance(v, list)]
    return rows[0] if rows else None


def _op_names(line_ops) -> list:
    """The names of a partition's ops, in program order, each once."""
    return list(dict.fromkeys(op.name for _, op in sorted(line_ops.items())))


def _log_placement(graph, done: int) -> int:
    """Print where each op of the graph runs, in TF1's words, if it has grown past the
    ``done`` ops printed before (TF1 places, and logs, the whole graph again); return how
    many ops it has."""
    ops = graph.get_operations()
    if len(ops) > done:
        for op in ops:
            print(f"{op.name}: ({op.type}): {op.device or '/job:localhost/replica:0/task:0/device:CPU:0'}")
    return len(ops)
