"""``tf.debugging``: numeric checks."""

from .ops.numerics_ops import add_check_numerics_ops, check_numerics

__all__ = ["add_check_numerics_ops", "check_numerics"]
