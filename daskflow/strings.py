"""``tf.strings``: string tensors (TF 1.13+ names)."""

from ._namespaces import module_getattr as _module_getattr
from .ops.string_ops import as_string, string_join, string_to_number

join = string_join
to_number = string_to_number

__all__ = ["as_string", "join", "to_number"]

__getattr__ = _module_getattr("tf.strings")  # TF1's other paths for a name, else a clear error
