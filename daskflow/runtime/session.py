"""``Session``: run a graph, keep its variables.

A session is TF1's façade over one runtime (:mod:`.interface`): an
:class:`~.embedded.EmbeddedRuntime` with no target (every partition in the
calling process, variables in a dict), else a
:class:`~.cluster.runtime.ClusterRuntime` on the target's Dask cluster. The
session keeps what is the same in both: the plans by (fetches, feeds)
signature, the feed and fetch checks, TF1's defaults and errors. The per-step
path is short on purpose: look up the cached :class:`Executable` for the
signature, check the feeds, hand them to the runtime, and shape the results
like the fetches.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

from ..client.run_metadata import message_class
from ..errors import InvalidArgumentError, UnavailableError
from ..framework.graph import Graph, Operation, Tensor, get_default_graph, session_stack
from ..kernels.devices import free_memory
from .config_proto import ConfigProto, log_ignored_fields
from .embedded import EmbeddedRuntime
from .interface import Runtime
from .plan.executable import Executable
from .plan.feeds import FeedSpec, check_feed, flatten_feed_dict
from .plan.fetches import FetchMapper, invalid_fetch
from .plan.partition import unfed_placeholders
from .steps_per_run import loops
from .targets import resolve


class Session:
    """Runs graphs: ``run(fetches, feed_dict)``.

    Parameters
    ----------
    target : str, distributed.Client or cluster, optional
        Empty (TF1's default) runs embedded, in this process, unless Dask's
        configuration names a target (``daskflow.session-target``, e.g. the
        environment's ``DASK_DASKFLOW__SESSION_TARGET``); None always runs
        embedded (daskflow's own sessions, such as a dataset function's,
        which may run on a worker). A scheduler address
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
        if config is not None and not isinstance(config, ConfigProto):  # TF1's check and words
            raise TypeError(f'Argument `config` must be a tf.ConfigProto, but got "{type(config).__name__}"')
        self.config = config if config is not None else ConfigProto()
        # The options a step reads, read once (TF1 reads the config once, at the session's start).
        self._operation_timeout_ms = self.config.operation_timeout_in_ms
        self._steps_per_run = self.config.steps.steps_per_run
        log_ignored_fields(self.config)
        opened = _open_runtime(target, self.graph, self.config, security)
        self._runtime, self._client, self._owns_client = opened
        self._cache: dict = self._runtime.signatures
        self._states: dict = {}
        # Runs may come from several threads (queue runners enqueue while the loop dequeues):
        # planning a signature and making an op's state happen once, under this lock; the
        # steps themselves take no lock (a blocked dequeue must not stop an enqueue).
        self._planning = threading.RLock()
        self._closed = False
        self._default_ctx = None
        self._steps_left = None  # limit_steps(): a MonitoredTrainingSession's last steps

    @property
    def runtime(self) -> Runtime:
        """The runtime behind this session (daskflow's; TF1's session shows none).

        An :class:`~.embedded.EmbeddedRuntime` without a target, else a
        :class:`~.cluster.runtime.ClusterRuntime` on the target's cluster. Every
        runtime answers :class:`~.interface.Runtime`: its ``client`` (None
        embedded), its ``variables`` and its ``signatures``; a cluster's also
        tells where its steps run (``workers_now()``, ``addresses()``) and how
        each signature was lowered there (``lowered``).

        Examples
        --------
        >>> import daskflow as tf
        >>> with tf.Session(graph=tf.Graph()) as sess:
        ...     print(type(sess.runtime).__name__, sess.runtime.client)
        EmbeddedRuntime None
        """
        return self._runtime

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
        limit = (options is not None and getattr(options, "timeout_in_ms", 0)) or self._operation_timeout_ms
        return mapper.build(self._runtime.run(executable, feed_values, self._steps(executable), limit))

    def _steps(self, executable) -> int:
        """How many steps ``run`` takes (``ConfigProto(steps_per_run=...)``), no more than
        :meth:`limit_steps` allows."""
        steps = self._steps_per_run
        if steps == 1 or not loops(executable, self.graph):
            return 1
        left = self._steps_left
        return steps if left is None else max(1, min(steps, left))

    @contextlib.contextmanager
    def limit_steps(self, steps):
        """Within the block, a run takes at most ``steps`` steps.

        With ``ConfigProto(steps_per_run=K)`` a training run takes K steps;
        a ``MonitoredTrainingSession`` whose ``StopAtStepHook`` has fewer
        left limits its runs so that training stops at its last step.

        Parameters
        ----------
        steps : int or None
            The most steps a run takes (at least one is always taken); None
            sets no limit.
        """
        before, self._steps_left = self._steps_left, steps
        try:
            yield self
        finally:
            self._steps_left = before

    def _run_reporting(self, executable, feed_values, options, run_metadata):
        """One step whose ``run_metadata`` is replaced, as TF1's is, by what the step reports."""
        metadata = message_class("RunMetadata")()
        steps = self._steps(executable)
        if getattr(options, "trace_level", 0):  # several steps: the last one traced
            results = self._runtime.traced_run(executable, feed_values, metadata.step_stats, steps)
        else:
            results = self._runtime.run(executable, feed_values, steps)
        run_metadata.ParseFromString(metadata.SerializeToString())  # any RunMetadata class: TF's too
        return results

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
        executable = self._runtime.plan(mapper, feeds, feed_dict, self._state_for)
        return mapper, executable, [FeedSpec(t) for t in feeds]

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
    def executable(self, fetches, feed_dict=None) -> Executable:
        """The :class:`~.plan.executable.Executable` that ``run(fetches, feed_dict)`` runs.

        Planned once per signature (the fetches, the fed tensors, the graph as
        it is), as ``run`` plans it: the same object, so what the runtime keeps
        for it (a cluster's ``runtime.lowered[executable]``, once a step ran)
        is the run's.

        Parameters
        ----------
        fetches : tensor, op, name, or nested list/tuple/dict of them
        feed_dict : dict, optional
            Its keys name the fed tensors; its values are not checked.

        Returns
        -------
        Executable
        """
        feed_dict = flatten_feed_dict(feed_dict) if feed_dict else {}
        return self._entry(fetches, feed_dict)[1]

    def lower(self, fetches, feed_dict=None) -> dict:
        """The Dask graph one ``run(fetches, feed_dict)`` executes.

        One ``Task`` per device partition, plus a ``DataNode`` per feed and
        variable value. ``dask.get(graph, keys)`` executes it.
        """
        feed_dict = feed_dict or {}
        mapper, executable, feed_specs = self._entry(fetches, feed_dict)
        feed_values = [spec.check(v) for spec, v in zip(feed_specs, feed_dict.values())]
        return self._runtime.lower(executable, feed_values)

    def placement(self, fetches, feed_dict=None) -> dict:
        """Where a run of ``fetches`` executes each op.

        Placing needs no values: the placeholders the fetches need are
        planned as fed, fed or not, so they are not listed.

        Returns
        -------
        dict
            ``{op name: Placement}``, each with ``device``, ``worker`` (the
            Dask worker's name, several comma-separated for a replicated op;
            None when embedded: every op runs in this process) and
            ``reason`` (why it is there).

        Examples
        --------
        >>> import daskflow as tf
        >>> x = tf.placeholder(tf.float32, [None], name="x")
        >>> with tf.device("/job:worker/task:0"):
        ...     y = tf.identity(x, name="y")
        >>> tf.Session().placement(y)["y"]
        Placement(device='/job:worker/task:0', worker=None, reason='its device scope')
        """
        feeds = dict.fromkeys(feed_dict or ())
        feeds.update(dict.fromkeys(self._unfed_placeholders(fetches, feeds)))
        _, executable, _ = self._entry(fetches, feeds)
        return self._runtime.placement(executable)

    def _unfed_placeholders(self, fetches, feeds) -> list:
        mapper = FetchMapper(self.graph, fetches)
        fed = [self._feed_tensor(k) for k in feeds]
        return unfed_placeholders(mapper.tensors, mapper.ops, fed)

    def variable_futures(self) -> dict:
        """``{variable name: distributed.Future}`` of a cluster session's variables.

        Raises
        ------
        ValueError
            In an embedded session, whose variables are arrays.
        """
        return self._runtime.variable_futures()

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
        return self._runtime.step_metrics()

    @property
    def recoveries(self) -> list[dict]:
        """Each recovery from a lost worker: ``lost`` (worker names), ``stand_ins``,
        ``steps_lost`` and ``seconds`` (see ``ConfigProto(backup_variables_secs=)``)."""
        return list(self._runtime.recoveries)

    @property
    def num_replicas(self) -> int:
        """How many replicas a graph placed on ``/job:worker`` runs as: 1 embedded, else
        the cluster's worker tasks."""
        return self._runtime.num_replicas()

    def sync(self):
        """Wait for steps dispatched asynchronously; raise the first error among them."""
        self._runtime.sync()

    @property
    def shares_variables(self) -> bool:
        """Whether the session's variables are its between-graph job's, shared with the
        job's other clients (a ``tf.train.Server`` target), rather than its own."""
        return self._runtime.between_graph

    @property
    def dashboard_link(self):
        """The Dask dashboard of the session's cluster (None when embedded)."""
        return self._runtime.dashboard_link

    # -- variables ---------------------------------------------------------------------------
    def load_variable(self, variable, value):
        """Set a variable's value from numpy, checking shape and dtype, as TF1's
        ``Variable.load`` does: by running its initializer fed with ``value``."""
        array = check_feed(variable._ref, value)
        # A copy: the session keeps the array it is fed, and the caller may write theirs.
        self.run(variable.initializer, {variable.initial_value: array.copy()})

    def uninitialized_variables(self) -> list[str]:
        """The names of the graph's global variables that hold no value in this session."""
        return self._runtime.uninitialized([v.op.name for v in self.graph.get_collection("variables")])

    # -- checkpoints (train.Saver) ---------------------------------------------------------
    def write_checkpoint(self, names, shard_url):
        """Write variables' values into data shards, each where the values live.

        Steps in flight finish first. Embedded, one shard; on a cluster, one
        per worker holding some of the variables, written there at once.

        Parameters
        ----------
        names : list of str
            The variables (their op names) to write.
        shard_url : callable
            ``shard_url(i, n)``: where shard ``i`` of ``n`` goes.

        Returns
        -------
        tuple
            ``({name: record}, n)``: each variable's record (shard, offset,
            size, shape, dtype, checksum) for the index, and how many shards.

        Raises
        ------
        FailedPreconditionError
            A variable of ``names`` holds no value (TF1's message names them).
        """
        return self._runtime.write_checkpoint(names, lambda i, n: _here(shard_url(i, n)))

    def read_checkpoint(self, files):
        """Set variables from checkpoint files, all or none.

        Every file is read (on a cluster, on the worker the variable's device
        names) and checked before any variable changes.

        Parameters
        ----------
        files : dict
            ``{variable name: (url, record, device)}``.
        """
        self._runtime.read_checkpoint({name: (_here(url), *rest) for name, (url, *rest) in files.items()})

    # -- lifetime ------------------------------------------------------------------------------
    @staticmethod
    def reset(target, containers=None, config=None):
        """Forget the variables that a between-graph job holds on its cluster (TF1's
        ``Session.reset``): ``target`` is a ``tf.train.Server``'s. Its clients' next
        steps find them uninitialized. ``containers`` is accepted and ignored: a job's
        variables are one container.
        """
        from .cluster.between_graph import reset  # local import: the cluster side loads distributed

        job = resolve(target)
        client, _ = _connect(job.scheduler_address, job.security, config or ConfigProto())
        try:
            reset(client, job.job)
        finally:
            client.close()

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
            self._cache.clear()
            try:
                self._runtime.close()
            finally:  # a client this session made never outlives it (it would block exit)
                free_memory()  # the GPU pool's blocks its arrays held go back to the device
                if self._owns_client:
                    self._client.close()

    def __del__(self):
        # TF1 closes a session dropped without close(): a cluster session's programs, plugins
        # and variables are undone then, not kept until its client goes. On a thread of its own:
        # the collection may run on an event loop's thread (close waits on that loop) or inside
        # a lock that close takes; not while the interpreter shuts down.
        if getattr(self, "_closed", True) or sys.is_finalizing():
            return
        threading.Thread(target=self._close_quietly, name="daskflow-session-close", daemon=True).start()

    def _close_quietly(self):
        with contextlib.suppress(Exception):
            self.close()

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

    @property
    def graph_def(self):
        """The session's graph as a ``GraphDef`` (TF1's ``Session.graph_def``): each node's
        output shapes as well where ``ConfigProto(graph_options=GraphOptions(infer_shapes=True))``."""
        return self.graph.as_graph_def(add_shapes=bool(self.config.graph_options.infer_shapes))


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


def _open_runtime(target, graph, config, security):
    """``(runtime, client, whether the session owns the client)`` for ``target``: embedded
    with none, else a ``ClusterRuntime`` on its cluster (a ``tf.train.Server``'s target:
    its job's, sharing its variables)."""
    job = None
    if target == "":  # TF1's default: the configured target (None: in this process, whatever is)
        # local import: the configuration is Dask's, which `import daskflow` must not load
        from .defaults import setting

        target = setting("daskflow.session-target") or None
    if isinstance(target, str) and target.startswith("grpc://"):  # a tf.train.Server's cluster
        job = resolve(target)
        target, security = job.scheduler_address, security or job.security
    client, owned = _connect(target, security, config)
    if client is None:
        return EmbeddedRuntime(config, graph), None, False
    from .cluster.runtime import ClusterRuntime  # local import: loads distributed; embedded needs none

    try:
        shared_job, own_task = (None, None) if job is None else (job.job, job.task)
        return ClusterRuntime(client, config, graph, shared_job, own_task), client, owned
    except BaseException:
        if owned:  # a half-made session leaves no client behind
            client.close()
        raise


# Connecting waits at most this long by default (or Dask's connect timeout, if shorter):
# a scheduler that does not answer is reported, not waited on for Dask's 30 s.
_CONNECT_TIMEOUT_S = 10.0


def _here(url: str) -> str:
    """A relative local path made absolute in this process: a cluster's workers, which
    write and read the files, may run elsewhere (``dask worker`` started in another folder)."""
    return url if "://" in url else os.path.abspath(url)


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

    from .dask_compat import comm_backend  # local import: dask_compat loads distributed

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

    limit_ms = config.operation_timeout_in_ms
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
