"""``tf.debugging``: numeric checks."""

from .ops.numerics_ops import add_check_numerics_ops, check_numerics

__all__ = ["add_check_numerics_ops", "check_numerics"]


def __getattr__(name):  # noqa: N807 - TF1's other paths for a name, else a clear error
    from ._missing import module_getattr

    return module_getattr("tf.debugging")(name)
