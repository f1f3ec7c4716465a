"""``tf.python_io``: TFRecord files (see :mod:`daskflow.lib.io.tf_record`)."""

from ._namespaces import module_getattr
from .lib.io.tf_record import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]

__getattr__ = module_getattr("tf.python_io")
