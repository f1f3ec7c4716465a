"""``tf.data.experimental``: transformations for ``Dataset.apply``, and constants.

Each function returns a function from a dataset to a dataset, as TF1's do;
they compose the dataset methods, so they keep their semantics exactly (a
fused ``map_and_batch`` is a map then a batch).

Examples
--------
>>> import daskflow as tf
>>> ds = tf.data.Dataset.range(10).apply(tf.data.experimental.shuffle_and_repeat(10, seed=0))
>>> ds = ds.apply(tf.data.experimental.map_and_batch(lambda x: x * 2, 4, drop_remainder=True))
>>> ds.output_shapes.as_list()
[4]
"""

from __future__ import annotations

import enum

from .. import dtypes
from .dataset import Dataset
from .options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    ServiceOptions,
    ThreadingOptions,
)
from .readers import CsvDataset

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
SHARD_HINT = -1


class ExternalStatePolicy(enum.IntEnum):
    """What TF does with a pipeline's external state when it is saved (kept, no effect here)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "ExternalStatePolicy",
    "SHARD_HINT",
    "ServiceOptions",
    "choose_from_datasets",
    "sample_from_datasets",
    "take_while",
    "unique",
    "DistributeOptions",
    "OptimizationOptions",
    "ThreadingOptions",
    "copy_to_device",
    "enumerate_dataset",
    "map_and_batch",
    "parallel_interleave",
    "prefetch_to_device",
    "shuffle_and_repeat",
    "unbatch",
]


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``shuffle(buffer_size, seed).repeat(count)``, reshuffled each epoch.

    Examples
    --------
    >>> import daskflow as tf
    >>> ds = tf.data.Dataset.range(3).apply(tf.data.experimental.shuffle_and_repeat(3, count=2))
    """
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def map_and_batch(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None
):
    """``map(map_func).batch(batch_size, drop_remainder)``.

    Raises
    ------
    ValueError
        If both ``num_parallel_batches`` and ``num_parallel_calls`` are given (as TF).

    Examples
    --------
    >>> import daskflow as tf
    >>> ds = tf.data.Dataset.range(5).apply(tf.data.experimental.map_and_batch(lambda x: x, 2))
    >>> ds.output_shapes.as_list()
    [None]
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and `num_parallel_calls` to be set."
        )
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


def unbatch():
    """``Dataset.unbatch``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.Dataset.range(4).batch(2).apply(tf.data.experimental.unbatch()).output_shapes
    TensorShape([])
    """
    return lambda dataset: dataset.unbatch()


def parallel_interleave(
    map_func,
    cycle_length,
    block_length=1,
    sloppy=False,
    buffer_output_elements=None,
    prefetch_input_elements=None,
):
    """``Dataset.interleave`` in its deterministic order (``sloppy`` orders are one of TF's allowed orders).

    Examples
    --------
    >>> import daskflow as tf
    >>> files = tf.data.Dataset.from_tensor_slices(["a.txt", "b.txt"])
    >>> lines = files.apply(tf.data.experimental.parallel_interleave(tf.data.TextLineDataset, cycle_length=2))
    """
    return lambda dataset: dataset.interleave(map_func, cycle_length=cycle_length, block_length=block_length)


def enumerate_dataset(start=0):
    """``Dataset.enumerate(start)``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.data.Dataset.range(2).apply(tf.data.experimental.enumerate_dataset()).output_types
    (tf.int64, tf.int64)
    """
    return lambda dataset: dataset.enumerate(start)


def prefetch_to_device(device, buffer_size=None):
    """The same dataset: elements reach a device as the step's inputs do (its partition's boundary)."""
    return lambda dataset: dataset


def copy_to_device(target_device, source_device="/cpu:0"):
    """The same dataset: see :func:`prefetch_to_device`."""
    return lambda dataset: dataset


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TF1's name
    """``Dataset.counter``: ``start``, ``start + step``, ... without end."""
    return Dataset.counter(start, step, dtype)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """``Dataset.choose_from_datasets`` (TF1's default: an exhausted dataset is skipped)."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets``."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def take_while(predicate):
    """``Dataset.take_while``, for ``apply``."""
    return lambda dataset: dataset.take_while(predicate)


def unique():
    """``Dataset.unique``, for ``apply``."""
    return lambda dataset: dataset.unique()
