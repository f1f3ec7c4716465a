"""``tf.strings``: string tensors (TF 1.13+ names)."""

from .ops.string_ops import as_string, string_join, string_to_number

join = string_join
to_number = string_to_number

__all__ = ["as_string", "join", "to_number"]
