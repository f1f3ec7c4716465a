"""``tf.saved_model.main_op``: what a loaded SavedModel runs once its variables are restored."""

from __future__ import annotations

import daskflow as tf

__all__ = ["main_op", "main_op_with_restore"]


def main_op():
    """Initialize the local variables (TF1's main op, which also initializes lookup tables:
    daskflow has none)."""
    return tf.group(tf.local_variables_initializer())


def main_op_with_restore(restore_op_name):
    """The main op, after the op named ``restore_op_name``."""
    with tf.control_dependencies([tf.get_default_graph().get_operation_by_name(restore_op_name)]):
        return main_op()
