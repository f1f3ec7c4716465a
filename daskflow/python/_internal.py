"""The few TF1-internal helpers (no public name) that programs call through internal paths.

``tensorflow.python.layers.utils.smart_cond`` and its kin have no public
name, so ``_paths.py`` cannot map them; these are daskflow's own, with TF1's
signatures.
"""

from __future__ import annotations

from ..framework.gradient_registry import get_gradient_function
from ..layers.base import constant_value as known
from ..ops.functional_ops import cond


def constant_value(pred):
    """``pred``'s value where it is known while building (a Python bool or a constant), else None.

    Raises
    ------
    TypeError
        If `pred` is neither a bool nor a bool tensor.
    """
    return known(pred)


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` or ``false_fn()`` if `pred` is known while building, else ``tf.cond``.

    Raises
    ------
    TypeError
        If a branch is not callable, or `pred` is neither a bool nor a bool tensor.
    """
    for label, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"`{label}` must be callable, got {fn!r}")
    known = constant_value(pred)
    if known is not None:
        return true_fn() if known else false_fn()
    return cond(pred, true_fn, false_fn, name=name)


INTERNAL = {
    "layers.utils": {"smart_cond": smart_cond, "constant_value": constant_value},
    "framework.smart_cond": {"smart_cond": smart_cond, "smart_constant_value": constant_value},
    "framework.ops": {"get_gradient_function": get_gradient_function},
}
