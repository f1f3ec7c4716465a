"""The embedded runtime: a session's steps in this process, its variables in a dict.

A ``Session`` with no target holds an :class:`EmbeddedRuntime`. Every
partition of a step runs in the calling thread, in order
(:meth:`.plan.executable.Executable.execute`); a variable's value is a numpy (or cupy) array
in :attr:`EmbeddedRuntime.store`, replaced when a step that updates it
succeeds, so a failed step leaves the variables as they were. The session
alone holds these arrays: planned steps may update them in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from ..errors import FailedPreconditionError
from ..kernels import deadline
from . import allocator
from .checkpoint import read_variable, shard_records, write_shard
from .cluster.devices import warn_ignored_devices
from .interface import make_executable, placement_of
from .steps_per_run import one_by_one
from .threads import blas_threads


class EmbeddedRuntime:
    """Runs a session's steps in this process (see :class:`~.interface.Runtime`).

    Parameters
    ----------
    config : ConfigProto
        ``intra_op_parallelism_threads`` holds this process's BLAS pool while
        the runtime is open; ``log_device_placement`` prints each op's device
        when a run first places it.
    graph : Graph
        The session's graph (its ops are what placement logs).
    """

    client = None  # no cluster: no Dask client
    between_graph = False  # the variables are this session's own
    dashboard_link = None  # no cluster, no dashboard
    recoveries: tuple = ()  # no worker to lose

    def __init__(self, config, graph):
        self.config = config
        self.graph = graph
        self.signatures: dict = {}
        self.store: dict = {}  # variable name -> its current value
        self._logged = 0  # ops of the graph log_device_placement has printed
        self._blas = blas_threads(config.intra_op_parallelism_threads)
        allocator.keep_step_buffers()  # as a worker does: steps reuse their buffers

    @property
    def variables(self) -> Mapping:
        """Variable name -> its current value (an array): :attr:`store` seen through a
        read-only view. The arrays stay the session's (a later step may update them in
        place): copy one to keep it."""
        return MappingProxyType(self.store)

    # -- planning --------------------------------------------------------------------------
    def plan(self, mapper, feeds, feed_dict, state_for):
        """The executable of a signature; its kernels may update the variables in place."""
        planned = make_executable(self.config, mapper, feeds, state_for, in_place=True)
        warn_ignored_devices(planned.plan, self)
        if self.config.log_device_placement:  # as TF1: the graph's ops when a run first places them
            self._logged = _log_placement(self.graph, self._logged)
        return planned

    def placement(self, executable):
        """``{op name: Placement}``, no worker: every op runs in this process."""
        plan = executable.plan
        return {op.name: placement_of(plan, op, None) for op in plan.ops}

    def num_replicas(self) -> int:
        return 1

    # -- steps -----------------------------------------------------------------------------
    def run(self, executable, feed_values, steps=1, limit_ms=None):
        """``steps`` steps, each committed as it finishes; the last one's fetched values.
        Past ``limit_ms``, TF1's ``DeadlineExceededError``."""
        if limit_ms:
            with deadline.within(limit_ms):
                return one_by_one(lambda: self._step(executable, feed_values), steps)
        if steps > 1:
            return one_by_one(lambda: self._step(executable, feed_values), steps)
        return self._step(executable, feed_values)

    def traced_run(self, executable, feed_values, stats, steps=1):
        """:meth:`run`, its last step's op times noted into ``stats``."""
        if steps > 1:
            one_by_one(lambda: self._step(executable, feed_values), steps - 1, steps)

        def traced():
            bound = executable.bind(feed_values, self.store)
            return self._commit(executable, executable.execute_traced(bound, stats))

        return one_by_one(traced, 1, steps, first=steps - 1)

    def lower(self, executable, feed_values):
        return executable.graph(feed_values, self.store)

    def _step(self, executable, feed_values):
        return self._commit(executable, executable.execute(executable.bind(feed_values, self.store)))

    def _commit(self, executable, values):
        """Keep a step's variable updates; its fetched values."""
        for update in executable.updates:
            self._keep(update.name, values[update.partition][update.index])
        return executable.results(values)

    def _keep(self, name, value):
        if type(value) is np.ndarray:
            value.flags.writeable = False  # fetches copy it; nothing else may write
        self.store[name] = value

    # -- variables -------------------------------------------------------------------------
    def uninitialized(self, names):
        return [name for name in names if name not in self.store]

    def variable_futures(self):
        raise ValueError("variable_futures() needs a cluster session; embedded variables are arrays")

    def write_checkpoint(self, names, shard_url):
        """One data shard, written here, at ``shard_url(0, 1)``."""
        missing = sorted(name for name in names if name not in self.store)
        if missing:
            raise FailedPreconditionError(None, None, f"Attempting to save uninitialized variables {missing}")
        return shard_records([write_shard(shard_url(0, 1), names, *[self.store[n] for n in names])]), 1

    def read_checkpoint(self, files):
        """Read every file first: a file that fails to read changes no variable."""
        values = {name: read_variable(url, record) for name, (url, record, _) in files.items()}
        for name, value in values.items():
            self._keep(name, value)

    # -- the rest ----------------------------------------------------------------------------
    def step_metrics(self):
        return []  # step metrics are a cluster's (its workers' bytes and replicas)

    def sync(self):
        """Nothing is ever in flight: each step finishes before ``run`` returns."""

    def close(self):
        self.store.clear()
        if self._blas is not None:  # ConfigProto(intra_op_parallelism_threads=0) changed nothing
            self._blas.restore()


def _log_placement(graph, done: int) -> int:
    """Print where each op of the graph runs, in TF1's words, if it has grown past the
    ``done`` ops printed before (TF1 places, and logs, the whole graph again); return how
    many ops it has."""
    ops = graph.get_operations()
    if len(ops) > done:
        for op in ops:
            print(f"{op.name}: ({op.type}): {op.device or '/job:localhost/replica:0/task:0/device:CPU:0'}")
    return len(ops)
