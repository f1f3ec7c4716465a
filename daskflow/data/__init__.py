"""TF1's ``tf.data``: input pipelines read by a session through iterator ops.

Examples
--------
>>> import numpy as np
>>> import daskflow as tf
>>> ds = tf.data.Dataset.from_tensor_slices((np.zeros((10, 3)), np.arange(10)))
>>> x, y = ds.shuffle(10, seed=0).repeat().batch(4).make_one_shot_iterator().get_next()
>>> x.shape.as_list(), y.shape.as_list()
([None, 3], [None])
"""

from .._namespaces import module_getattr as _module_getattr
from . import (
    cluster_source,  # noqa: F401 - registers the dask-array source of from_tensor_slices
    experimental,
)
from .dataset import Dataset
from .iterator import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from .options import Options, ThreadingOptions
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

AUTOTUNE = experimental.AUTOTUNE
INFINITE_CARDINALITY = experimental.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = experimental.UNKNOWN_CARDINALITY

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "FixedLengthRecordDataset",
    "Iterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]

__getattr__ = _module_getattr("tf.data")  # TF1's other paths for a name, else a clear error
