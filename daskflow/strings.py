"""``tf.strings``: string tensors (TF 1.13+ names)."""

from .ops.string_ops import as_string, string_join, string_to_number

join = string_join
to_number = string_to_number

__all__ = ["as_string", "join", "to_number"]


def __getattr__(name):  # noqa: N807 - TF1's other paths for a name, else a clear error
    from ._missing import module_getattr

    return module_getattr("tf.strings")(name)
