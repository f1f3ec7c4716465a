"""TF1's session configuration: ``ConfigProto``, ``GPUOptions``, ``RunOptions``.

Every field TF1's messages have is accepted, as a keyword and as an
attribute, with TF's type and default (see :mod:`daskflow.runtime.messages`).
A session acts on the fields listed in :data:`HONOURED`; a session made with
any other field set logs, at debug level on the ``daskflow`` logger, which
fields have no meaning here (GPU memory growth, thread pools, gRPC and XLA
settings: Dask's workers own those). daskflow's own session options
(``steps_per_run``, ``placement``, ``gradient_compression``...) are extra
keywords of :class:`ConfigProto`, checked here.
"""

from __future__ import annotations

import logging

import numpy as np

from ..framework.device_spec import DeviceSpec
from ..kernels.compression import CODECS
from .graph_options import GraphOptions, OptimizerOptions, RewriterConfig  # noqa: F401 - registered first
from .messages import Message

__all__ = ["HONOURED", "ConfigProto", "GPUOptions", "RunOptions", "ignored_fields", "log_ignored_fields"]

logger = logging.getLogger(__name__)

# The fields of TF's ConfigProto some daskflow session acts on (the rest are kept, unused).
HONOURED = frozenset(
    {
        "allow_soft_placement",
        "log_device_placement",
        "operation_timeout_in_ms",  # cluster sessions
        "intra_op_parallelism_threads",
        "device_filters",  # cluster sessions
        "graph_options.optimizer_options.opt_level",
        "graph_options.optimizer_options.do_common_subexpression_elimination",
        "graph_options.optimizer_options.do_constant_folding",
        "graph_options.rewrite_options.arithmetic_optimization",
        "graph_options.rewrite_options.remapping",
        "graph_options.rewrite_options.constant_folding",
    }
)


def _choice(field, allowed):
    def check(value):
        if value is not None and value not in allowed:
            choices = ", ".join(repr(c) for c in allowed)
            raise ValueError(f"ConfigProto({field}={value!r}): must be None or one of {choices}")
        return value

    return check


def _whole_number(field):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"ConfigProto({field}={value!r}): must be a whole number, 1 or more")
        return int(value)

    return check


def _at_least_zero(field, kind):
    def check(value):
        value = kind(value or 0)
        if value < 0:
            raise ValueError(f"ConfigProto({field}={value}): must be 0 (off) or more")
        return value

    return check


def _optional_int(value):
    return None if value is None else int(value)


class ConfigProto(Message, schema="ConfigProto"):
    """Session options (TF1's ``ConfigProto``), every field TF1 has, and daskflow's own.

    TF1's fields are keywords and attributes with TF's types and defaults
    (``config.gpu_options.allow_growth = True``, ``device_count={"GPU": 0}``);
    an unknown name is a ``ValueError`` naming it, a value of the wrong type a
    ``TypeError``, as TF's protobuf messages. A session acts on
    ``allow_soft_placement``, ``log_device_placement`` (one line per op on
    stdout, as TF1), ``intra_op_parallelism_threads`` (numpy's BLAS
    threads), ``graph_options`` (which plan-time rewrites run, see
    :mod:`daskflow.runtime.graph_options`), and on a cluster
    ``operation_timeout_in_ms`` and ``device_filters`` (the workers it may
    use; a single string is one filter). Other fields are kept; a session
    made with them logs at debug level that they have no meaning here.

    Parameters
    ----------
    backup_variables : bool, default True
        Cluster sessions keep an in-memory copy of each variable on a second
        worker, so that losing a worker (kill -9 of the ps) loses at most the
        steps since the copy, with no checkpoint. False keeps no copies: a
        lost variable makes ``run`` raise ``AbortedError``.
    backup_variables_secs : float, default 30.0
        A step refreshes the copies of the variables it updates when the steps
        since the last one that did ran for this many seconds (time between
        steps does not count: it loses no work); so does the first
        step giving a variable its value (the initializer). Copies of
        variables that other steps updated since are refreshed then too.
        0: no time-based copies.
    backup_variables_every : int, default 0
        Also refresh the copies every this many steps (1: every step, nothing
        lost). Either condition makes a step copy.
    recovery_wait_secs, recovery_timeout_secs : float
        After a loss, wait this long for the worker to come back under its
        name before a live worker stands in; fail with no worker this long.
    independent_replicas : bool, default False
        Asynchronous in-graph training whose replicas never meet: each
        ``run`` is one step of the next free replica (the global step counts
        one update per ``run``), a ``run`` fetching only ops returns once
        submitted, and up to one step per replica is in flight. The
        variables then live on their workers, updated in place as each
        replica's gradients arrive, as in between-graph training; no copies
        are kept (``backup_variables`` does not apply). Without it, the
        replicas of an asynchronous step all start each ``run`` together.
    gradient_compression : {None, "fp16", "bf16", "int8"}, default None
        Cluster sessions: how tensors a replica sends to the ps (its
        gradients, in data-parallel training) travel: IEEE half precision,
        float32 truncated to 16 bits (the TF whitepaper's §5.5), or int8 steps
        per bucket with the error kept on the sender for its next gradient
        (see :mod:`daskflow.kernels.compression`). Float tensors of 64
        values or more; a tensor an encoding cannot hold (NaN, Inf, beyond
        fp16's range) goes as it is.
    variable_compression : {None, "fp16", "bf16"}, default None
        Cluster sessions: how new variable values pushed to the workers that
        read them travel; the ps keeps the exact values.
    placement : {None, "cost"}, default None
        Cluster sessions: ``"cost"`` places the ops no device scope placed
        where a simulation of the step says they finish first, from
        estimated compute times and transfers (TF1's cost model; see
        :mod:`daskflow.runtime.plan.cost_placement`); ``Session.placement``
        then says why. None puts them on ``/job:worker/task:0``.
    steps_per_run : int, default 1
        A ``run`` of a training step whose inputs come from a ``tf.data``
        iterator (it reads one and updates global variables) runs that many steps:
        on a cluster in one submission, each partition looping on its
        worker (TPUEstimator's ``iterations_per_loop``). Fetches are the last
        step's; the global step counts every step; an error names the step
        that failed, and the variables keep the steps before it (see
        :mod:`daskflow.runtime.steps_per_run`). Other runs take one step.
    low_latency : bool, default True
        Cluster sessions flush Dask's message batches at once.
    async_dispatch : int, default 0
        Cluster sessions: steps that fetch only ops may run this many ahead.
    max_staleness : int, optional
        Asynchronous replication: an update more than this many updates
        stale is dropped.

    Examples
    --------
    >>> import daskflow as tf
    >>> config = tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0})
    >>> config.gpu_options.allow_growth = True
    >>> config.allow_soft_placement, config.gpu_options.allow_growth, dict(config.device_count)
    (True, True, {'GPU': 0})
    >>> tf.ConfigProto(backup_variables_secs=10.0).backup_variables_secs
    10.0
    >>> tf.ConfigProto(allow_soft_placment=True)
    Traceback (most recent call last):
    ...
    ValueError: Protocol message ConfigProto has no "allow_soft_placment" field.
    """

    _EXTRA = {
        "low_latency": (True, bool),
        "async_dispatch": (0, int),
        "max_staleness": (None, _optional_int),
        "backup_variables": (True, bool),
        "backup_variables_secs": (30.0, _at_least_zero("backup_variables_secs", float)),
        "backup_variables_every": (0, _at_least_zero("backup_variables_every", int)),
        "recovery_wait_secs": (20.0, float),
        "recovery_timeout_secs": (60.0, float),
        "independent_replicas": (False, bool),
        "gradient_compression": (None, _choice("gradient_compression", CODECS)),
        "variable_compression": (None, _choice("variable_compression", ("fp16", "bf16"))),
        "steps_per_run": (1, _whole_number("steps_per_run")),
        "placement": (None, _choice("placement", ("cost",))),
    }

    def __init__(self, **kwargs):
        if isinstance(kwargs.get("device_filters"), str):  # one filter (TF would split the string)
            kwargs["device_filters"] = [kwargs["device_filters"]]
        super().__init__(**kwargs)
        if not self.backup_variables and self.backup_variables_every:
            raise ValueError(
                f"ConfigProto(backup_variables=False) keeps no copies, but backup_variables_every="
                f"{self.backup_variables_every} asks for them; set one or the other"
            )
        for f in self.device_filters:
            try:
                DeviceSpec.from_string(f)
            except ValueError as e:
                message = f"ConfigProto(device_filters=...): {f!r} is not a device string ({e})"
                raise ValueError(message) from None

    def __setattr__(self, name, value):
        if name == "intra_op_parallelism_threads" and isinstance(value, int) and value < 0:
            raise ValueError(f"ConfigProto({name}={value}): must be 0 (off) or more (numpy's BLAS threads)")
        super().__setattr__(name, value)


class GPUOptions(Message, schema="GPUOptions"):
    """TF1's ``GPUOptions`` (``allow_growth``, ``per_process_gpu_memory_fraction``,
    ``visible_device_list``, ``Experimental``...): every field TF has, kept.

    A GPU worker's memory is Dask's and cupy's to manage, so none of them
    changes what a session does; a session made with them says so at debug
    level.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.4).per_process_gpu_memory_fraction
    0.4
    """


class RunOptions(Message, schema="RunOptions"):
    """TF1's ``RunOptions``: how ``Session.run(options=...)`` runs a step.

    ``trace_level`` other than ``NO_TRACE`` records the step's timings into
    the ``run_metadata`` given with it (``SOFTWARE_TRACE``, ``HARDWARE_TRACE``
    and ``FULL_TRACE`` record the same: daskflow has no hardware tracer).
    TF1's other fields are kept, unused.

    Examples
    --------
    >>> import daskflow as tf
    >>> opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    >>> opts.trace_level
    3
    """


def ignored_fields(message, honoured=HONOURED, prefix="") -> list[str]:
    """The dotted names of the fields set in ``message`` that no session acts on."""
    names = []
    for field, value in message.ListFields():
        path = prefix + field.name
        if isinstance(value, Message):
            names += ignored_fields(value, honoured, path + ".")
        elif path not in honoured:
            names.append(path)
    return names


def log_ignored_fields(config) -> None:
    """Say, at debug level, which fields of a session's ``config`` have no meaning here."""
    if not isinstance(config, ConfigProto) or not logger.isEnabledFor(logging.DEBUG):
        return
    ignored = ignored_fields(config)
    if ignored:
        logger.debug(
            "ConfigProto fields with no meaning in daskflow, ignored: %s "
            "(Dask's workers own threads, GPU memory and RPC settings)",
            ", ".join(ignored),
        )
