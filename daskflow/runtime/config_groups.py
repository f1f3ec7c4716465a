"""daskflow's own session options, grouped by what they do.

TF1's ``ConfigProto`` has no field for what daskflow adds (copies of the
variables, compressed transfers, cost placement...). They live beside TF1's
fields as five small frozen records, each option's default and check declared
once, here:

========================  ============================================================
``config.cluster``        where a cluster session puts unplaced ops, how its messages
                          travel (:class:`ClusterOptions`)
``config.steps``          how many steps a ``run`` takes and how many may be in flight
                          (:class:`StepOptions`)
``config.replication``    how the replicas of asynchronous training meet
                          (:class:`ReplicationOptions`)
``config.compression``    how tensors travel between workers (:class:`CompressionOptions`)
``config.recovery``       copies of the variables and what a lost worker costs
                          (:class:`RecoveryOptions`)
========================  ============================================================

An option keeps one name everywhere: ``ConfigProto(steps_per_run=4)`` and
``config.steps_per_run`` are aliases of ``config.steps.steps_per_run``
(:data:`ALIASES`). A record is frozen, so every record a session reads was
checked whole (``backup_variables=False`` with ``backup_variables_every=5`` is
refused, whatever the order they were given in); a program changes one with a
flat assignment (``config.steps_per_run = 4``) or a new record
(``config.recovery = RecoveryOptions(backup_variables=False)``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..kernels.codecs import CODECS

__all__ = [
    "ALIASES",
    "GROUPS",
    "ClusterOptions",
    "CompressionOptions",
    "RecoveryOptions",
    "ReplicationOptions",
    "StepOptions",
]


def _fix(record, field, value):
    """Store a checked value on a frozen record (its ``__post_init__``'s only write)."""
    object.__setattr__(record, field, value)


def _refuse(record, field, value, why):
    return ValueError(f"ConfigProto({field}={value!r}) ({type(record).__name__}): {why}")


def _choice(record, field, allowed):
    value = getattr(record, field)
    if value is not None and value not in allowed:
        raise _refuse(record, field, value, "must be None or one of " + ", ".join(map(repr, allowed)))


def _whole_number(record, field, least):
    value = getattr(record, field)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise _refuse(record, field, value, f"must be a whole number, {least} or more")
    _fix(record, field, int(value))


def _at_least_zero(record, field, kind):
    value = getattr(record, field)
    try:
        number = kind(value or 0)
    except (TypeError, ValueError):
        raise _refuse(record, field, value, f"must be a number ({kind.__name__}), 0 (off) or more") from None
    if number < 0:
        raise _refuse(record, field, value, "must be 0 (off) or more")
    _fix(record, field, number)


@dataclass(frozen=True)
class ClusterOptions:
    """How a cluster session places ops and sends its messages.

    Attributes
    ----------
    placement : {None, "cost"}, default None
        ``"cost"`` places the ops no device scope placed where a simulation
        of the step says they finish first, from estimated compute times and
        transfers (TF1's cost model; see
        :mod:`daskflow.runtime.plan.cost_placement`); ``Session.placement``
        then says why. None puts them on ``/job:worker/task:0``.
    low_latency : bool, default True
        Flush Dask's message batches at once.
    send_bucket_bytes : int, default 8 MiB
        A partition sends the values other devices read (a replica's
        gradients) in buckets of at least this many bytes, each as soon as
        the ops making it have run, while the rest of the partition runs; the
        partitions reading a bucket (the updates of those variables) start on
        it (:mod:`daskflow.runtime.plan.buckets`). 0 sends them all when the
        partition ends.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ConfigProto(placement="cost").cluster
    ClusterOptions(placement='cost', low_latency=True, send_bucket_bytes=8388608)
    """

    placement: str | None = None
    low_latency: bool = True
    send_bucket_bytes: int = 8 << 20

    def __post_init__(self):
        _choice(self, "placement", ("cost",))
        _fix(self, "low_latency", bool(self.low_latency))
        _whole_number(self, "send_bucket_bytes", 0)


@dataclass(frozen=True)
class StepOptions:
    """How many steps a ``run`` takes, and how many may be in flight.

    Attributes
    ----------
    steps_per_run : int, default 1
        A ``run`` of a training step whose inputs come from a ``tf.data``
        iterator (it reads one and updates global variables) runs that many
        steps: on a cluster in one submission, each partition looping on its
        worker (TPUEstimator's ``iterations_per_loop``). Fetches are the last
        step's; the global step counts every step; an error names the step
        that failed, and the variables keep the steps before it (see
        :mod:`daskflow.runtime.steps_per_run`). Other runs take one step.
    async_dispatch : int, default 0
        Cluster sessions: steps that fetch only ops may run this many ahead.
    stage_next_step : bool, default True
        Cluster sessions: while a run's step runs, when the run before was of
        the same fetches and feeds (a training loop), the next step of the same
        kind waits on the workers (its tasks sent, reading this step's new
        values); the next such run starts it with a word to each worker instead
        of a submission through the scheduler. A run of anything else first
        drops it, unstarted. Not with ``async_dispatch``, ``steps_per_run``,
        an operation timeout, deadlines, traces, runs from several threads at
        once or a between-graph job.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ConfigProto(steps_per_run=4).steps.steps_per_run
    4
    """

    steps_per_run: int = 1
    async_dispatch: int = 0
    stage_next_step: bool = True

    def __post_init__(self):
        _whole_number(self, "steps_per_run", 1)
        _at_least_zero(self, "async_dispatch", int)
        _fix(self, "stage_next_step", bool(self.stage_next_step))


@dataclass(frozen=True)
class ReplicationOptions:
    """How the replicas of asynchronous training meet.

    Attributes
    ----------
    independent_replicas : bool, default False
        Asynchronous in-graph training whose replicas never meet: each
        ``run`` is one step of the next free replica (the global step counts
        one update per ``run``), a ``run`` fetching only ops returns once
        submitted, and up to one step per replica is in flight. The
        variables then live on their workers, updated in place as each
        replica's gradients arrive, as in between-graph training; no copies
        are kept (``backup_variables`` does not apply). Without it, the
        replicas of an asynchronous step all start each ``run`` together.
    max_staleness : int or None, default None
        An update more than this many updates stale is dropped; None keeps
        every update.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ConfigProto(max_staleness=2).replication.max_staleness
    2
    """

    independent_replicas: bool = False
    max_staleness: int | None = None

    def __post_init__(self):
        _fix(self, "independent_replicas", bool(self.independent_replicas))
        if self.max_staleness is not None:
            _at_least_zero(self, "max_staleness", int)


@dataclass(frozen=True)
class CompressionOptions:
    """How tensors travel between a cluster session's workers.

    Attributes
    ----------
    gradient_compression : {None, "fp16", "bf16", "int8"}, default None
        How tensors a replica sends to the ps (its gradients, in
        data-parallel training) travel: IEEE half precision, float32
        truncated to 16 bits (the TF whitepaper's §5.5), or int8 steps per
        bucket with the error kept on the sender for its next gradient (see
        :mod:`daskflow.kernels.codecs`). Float tensors of 64 values or
        more; a tensor an encoding cannot hold (NaN, Inf, beyond fp16's
        range) goes as it is.
    variable_compression : {None, "fp16", "bf16"}, default None
        How new variable values pushed to the workers that read them travel;
        the ps keeps the exact values.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ConfigProto(gradient_compression="int8").compression
    CompressionOptions(gradient_compression='int8', variable_compression=None)
    """

    gradient_compression: str | None = None
    variable_compression: str | None = None

    def __post_init__(self):
        _choice(self, "gradient_compression", CODECS)
        _choice(self, "variable_compression", ("fp16", "bf16"))


@dataclass(frozen=True)
class RecoveryOptions:
    """Copies of a cluster session's variables, and what losing a worker costs.

    Attributes
    ----------
    backup_variables : bool, default True
        Keep an in-memory copy of each variable on a second worker, so that
        losing a worker (kill -9 of the ps) loses at most the steps since the
        copy, with no checkpoint. False keeps no copies: a lost variable
        makes ``run`` raise ``AbortedError``.
    backup_variables_secs : float, default 30.0
        A step refreshes the copies of the variables it updates when the
        steps since the last one that did ran for this many seconds (time
        between steps does not count: it loses no work); so does the first
        step giving a variable its value (the initializer). Copies of
        variables that other steps updated since are refreshed then too.
        0: no time-based copies.
    backup_variables_every : int, default 0
        Also refresh the copies every this many steps (1: every step, nothing
        lost). Either condition makes a step copy.
    recovery_wait_secs : float, default 20.0
        After a loss, wait this long for the worker to come back under its
        name before a live worker stands in.
    recovery_timeout_secs : float, default 60.0
        Fail when no worker can stand in for this long.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ConfigProto(backup_variables_secs=10).recovery.backup_variables_secs
    10.0
    """

    backup_variables: bool = True
    backup_variables_secs: float = 30.0  # a window of step time, as TF1's checkpoint intervals
    backup_variables_every: int = 0
    recovery_wait_secs: float = 20.0
    recovery_timeout_secs: float = 60.0

    def __post_init__(self):
        _fix(self, "backup_variables", bool(self.backup_variables))
        _at_least_zero(self, "backup_variables_secs", float)
        _at_least_zero(self, "backup_variables_every", int)
        _at_least_zero(self, "recovery_wait_secs", float)
        _at_least_zero(self, "recovery_timeout_secs", float)
        if not self.backup_variables and self.backup_variables_every:
            raise _refuse(
                self,
                "backup_variables_every",
                self.backup_variables_every,
                "backup_variables=False keeps no copies, but this asks for them; set one or the other",
            )


# ConfigProto's attribute for each group, in the order the module's docstring lists them.
GROUPS: dict[str, type] = {
    "cluster": ClusterOptions,
    "steps": StepOptions,
    "replication": ReplicationOptions,
    "compression": CompressionOptions,
    "recovery": RecoveryOptions,
}

# Each option's flat name (a ConfigProto keyword and attribute) -> its group's attribute.
ALIASES: dict[str, str] = {f.name: group for group, cls in GROUPS.items() for f in dataclasses.fields(cls)}


def group_value(group: str, value):
    """``value`` given for ``ConfigProto(<group>=...)``: a record of the group's class, or
    a dict of its fields (as protobuf takes a dict for a message field)."""
    cls = GROUPS[group]
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        names = {f.name for f in dataclasses.fields(cls)}
        for name in value:
            if name not in names:
                raise ValueError(f'ConfigProto({group}=...): {cls.__name__} has no "{name}" field')
        return cls(**value)
    raise TypeError(
        f"ConfigProto({group}=...): expected a {cls.__name__} or a dict, got {type(value).__name__}"
    )
