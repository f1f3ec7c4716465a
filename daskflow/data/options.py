"""``tf.data.Options`` and its parts: TF's option records, accepted and kept.

They tune TF's threads and graph rewrites of a pipeline; daskflow's pipeline
runs elements one by one on the reading task, so no option changes what it
does. They are kept, merged as TF merges them, and refuse names TF does not
have, so a misspelt option fails here as it does under TF.
"""

from __future__ import annotations

import enum


class _OptionsBase:
    """A record of named options, each None (unset) by default or a nested record."""

    _fields: dict = {}  # name -> default (a class: a nested record made fresh)
    _aliases: dict = {}  # TF's experimental_ names for the same option

    def __init__(self):
        for name, default in self._fields.items():
            object.__setattr__(self, name, default() if isinstance(default, type) else default)

    def __getattr__(self, name):
        target = type(self)._aliases.get(name)
        if target is None:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}")
        return getattr(self, target)

    def __setattr__(self, name, value):
        name = self._aliases.get(name, name)
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self):
        set_ = {k: v for k, v in vars(self).items() if v is not None}
        return f"{type(self).__name__}({set_})"

    def merge(self, options):
        """A new record: this one's values, overridden by those ``options`` sets."""
        merged = type(self)()
        for source in (self, options):
            for name, value in vars(source).items():
                if isinstance(value, _OptionsBase):
                    object.__setattr__(merged, name, getattr(merged, name).merge(value))
                elif value is not None:
                    object.__setattr__(merged, name, value)
        return merged


class AutoShardPolicy(enum.IntEnum):
    """How ``tf.distribute`` shards a dataset (kept, no effect here)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ThreadingOptions(_OptionsBase):
    """``max_intra_op_parallelism``, ``private_threadpool_size``."""

    _fields = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class OptimizationOptions(_OptionsBase):
    """TF's static graph rewrites of a pipeline (``map_and_batch_fusion``...)."""

    _fields = dict.fromkeys(
        [
            "apply_default_optimizations",
            "filter_fusion",
            "filter_parallelization",
            "inject_prefetch",
            "map_and_batch_fusion",
            "map_and_filter_fusion",
            "map_fusion",
            "map_parallelization",
            "noop_elimination",
            "parallel_batch",
            "seq_interleave_prefetch",
            "shuffle_and_repeat_fusion",
        ]
    )


class DistributeOptions(_OptionsBase):
    """``auto_shard_policy``, ``num_devices``."""

    _fields = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class AutotuneOptions(_OptionsBase):
    """TF's autotuning budget (``enabled``, ``cpu_budget``, ``ram_budget``...)."""

    _fields = dict.fromkeys(
        [
            "autotune_algorithm",
            "cpu_budget",
            "enabled",
            "initial_parallelism",
            "min_parallelism",
            "ram_budget",
        ]
    )


class ServiceOptions(_OptionsBase):
    """tf.data service options (kept, no effect here)."""

    _fields = {"pinned": None}


class Options(_OptionsBase):
    """Options of a dataset, set with ``Dataset.with_options`` and read with ``Dataset.options()``.

    Examples
    --------
    >>> import daskflow as tf
    >>> options = tf.data.Options()
    >>> options.experimental_optimization.map_and_batch_fusion = True
    >>> options.experimental_threading.private_threadpool_size = 4
    >>> options.threading.private_threadpool_size
    4
    """

    _fields = {
        "autotune": AutotuneOptions,
        "dataset_name": None,
        "deterministic": None,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": None,
        "experimental_optimization": OptimizationOptions,
        "experimental_service": ServiceOptions,
        "experimental_slack": None,
        "experimental_symbolic_checkpoint": None,
        "experimental_warm_start": None,
        "framework_type": None,
        "threading": ThreadingOptions,
    }
    _aliases = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}
