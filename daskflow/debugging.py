"""``tf.debugging``: numeric checks."""

from ._namespaces import module_getattr as _module_getattr
from .ops.numerics_ops import add_check_numerics_ops, check_numerics

__all__ = ["add_check_numerics_ops", "check_numerics"]

__getattr__ = _module_getattr("tf.debugging")  # TF1's other paths for a name, else a clear error
