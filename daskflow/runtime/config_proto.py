"""TF1's session configuration: ``ConfigProto``, ``GPUOptions``, ``RunOptions``.

Every field TF1's messages have is accepted, as a keyword and as an
attribute, with TF's type and default (see :mod:`daskflow.runtime.messages`).
A session acts on the fields listed in :data:`HONOURED`; a session made with
any other field set logs, at debug level on the ``daskflow`` logger, which
fields have no meaning here (GPU memory growth, thread pools, gRPC and XLA
settings: Dask's workers own those). daskflow's own session options
(``steps_per_run``, ``placement``, ``gradient_compression``...) are grouped
records beside TF's fields (:mod:`daskflow.runtime.config_groups`), each also
a flat keyword and attribute of :class:`ConfigProto`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging

from ..framework.device_spec import DeviceSpec
from .config_groups import (
    ALIASES,
    GROUPS,
    ClusterOptions,
    CompressionOptions,
    RecoveryOptions,
    ReplicationOptions,
    StepOptions,
    group_value,
)
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

    daskflow's own options are grouped by what they do, each group a frozen
    record (:mod:`daskflow.runtime.config_groups`, where each option is
    described): ``cluster`` (``placement``, ``low_latency``), ``steps``
    (``steps_per_run``, ``async_dispatch``), ``replication``
    (``independent_replicas``, ``max_staleness``), ``compression``
    (``gradient_compression``, ``variable_compression``) and ``recovery``
    (``backup_variables``, ``backup_variables_secs``,
    ``backup_variables_every``, ``recovery_wait_secs``,
    ``recovery_timeout_secs``). A group is a keyword (a record or a dict);
    each option is also a flat keyword and attribute, an alias of its
    group's field (``ConfigProto(steps_per_run=4).steps.steps_per_run``).
    They are not part of TF's message: its text and bytes leave them out.

    Examples
    --------
    >>> import daskflow as tf
    >>> config = tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0})
    >>> config.gpu_options.allow_growth = True
    >>> config.allow_soft_placement, config.gpu_options.allow_growth, dict(config.device_count)
    (True, True, {'GPU': 0})
    >>> config = tf.ConfigProto(backup_variables_secs=10, steps_per_run=4)
    >>> config.recovery.backup_variables_secs, config.steps_per_run
    (10.0, 4)
    >>> tf.ConfigProto(allow_soft_placment=True)
    Traceback (most recent call last):
    ...
    ValueError: Protocol message ConfigProto has no "allow_soft_placment" field.
    """

    # The groups' records live in Message's ``_extras`` (read through Message.__getattr__);
    # declared here for readers and type checkers.
    cluster: ClusterOptions
    steps: StepOptions
    replication: ReplicationOptions
    compression: CompressionOptions
    recovery: RecoveryOptions

    _EXTRA = {group: (cls(), functools.partial(group_value, group)) for group, cls in GROUPS.items()}

    def __init__(self, **kwargs):
        flat = {name: kwargs.pop(name) for name in list(kwargs) if name in ALIASES}
        if isinstance(kwargs.get("device_filters"), str):  # one filter (TF would split the string)
            kwargs["device_filters"] = [kwargs["device_filters"]]
        super().__init__(**kwargs)
        for group in GROUPS:  # a group's flat keywords together: its record is checked whole
            given = {name: value for name, value in flat.items() if ALIASES[name] == group}
            if given:
                self._extras[group] = dataclasses.replace(getattr(self, group), **given)
        for f in self.device_filters:
            try:
                DeviceSpec.from_string(f)
            except ValueError as e:
                message = f"ConfigProto(device_filters=...): {f!r} is not a device string ({e})"
                raise ValueError(message) from None

    def __getattr__(self, name):
        group = ALIASES.get(name)
        if group is not None:
            return getattr(getattr(self, group), name)
        return super().__getattr__(name)

    def __setattr__(self, name, value):
        group = ALIASES.get(name)
        if group is not None:
            self._extras[group] = dataclasses.replace(getattr(self, group), **{name: value})
            return
        if name == "intra_op_parallelism_threads" and isinstance(value, int) and value < 0:
            raise ValueError(f"ConfigProto({name}={value}): must be 0 (off) or more (numpy's BLAS threads)")
        super().__setattr__(name, value)

    def MergeFrom(self, other):  # noqa: N802 - protobuf's name
        """protobuf's merge: ``other``'s fields that are set, its options not at their default."""
        mine = {group: getattr(self, group) for group in GROUPS}
        super().MergeFrom(other)
        for group, record in mine.items():
            theirs, default = getattr(other, group), self._EXTRA[group][0]
            changed = {
                f.name: getattr(theirs, f.name)
                for f in dataclasses.fields(theirs)
                if getattr(theirs, f.name) != getattr(default, f.name)
            }
            self._extras[group] = dataclasses.replace(record, **changed)


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
