"""TF1's ``tf.losses``: weighted, reduced losses collected in ``GraphKeys.LOSSES``.

Examples
--------
>>> import daskflow as tf
>>> import daskflow.losses
>>> logits = tf.constant([[2.0, 0.5], [0.1, 1.0]])
>>> loss = tf.losses.sparse_softmax_cross_entropy([0, 1], logits)
>>> total = tf.losses.get_total_loss()
>>> [t.name for t in tf.losses.get_losses()]
['sparse_softmax_cross_entropy_loss/value:0']
"""

from .._namespaces import module_getattr as _module_getattr
from .losses_impl import (
    Reduction,
    absolute_difference,
    compute_weighted_loss,
    cosine_distance,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from .util import (
    add_loss,
    get_losses,
    get_regularization_loss,
    get_regularization_losses,
    get_total_loss,
)

__all__ = [
    "Reduction",
    "absolute_difference",
    "add_loss",
    "compute_weighted_loss",
    "cosine_distance",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]

__getattr__ = _module_getattr("tf.losses")  # TF1's other paths for a name, else a clear error
