"""``tf.nn``: activations, losses, convolution and pooling."""

from ._missing import module_getattr
from .ops.conv_ops import avg_pool, conv2d, conv2d_transpose, max_pool
from .ops.embedding_ops import embedding_lookup
from .ops.math_ops import relu, sigmoid, softplus, tanh
from .ops.nn_ops import (
    bias_add,
    dropout,
    elu,
    in_top_k,
    l2_loss,
    leaky_relu,
    log_softmax,
    moments,
    relu6,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
    xw_plus_b,
)
from .rnn import rnn_cell  # tf.nn.rnn_cell
from .rnn.dynamic import bidirectional_dynamic_rnn, dynamic_rnn
from .rnn.static import static_bidirectional_rnn, static_rnn

__all__ = [
    "avg_pool",
    "bias_add",
    "bidirectional_dynamic_rnn",
    "conv2d",
    "conv2d_transpose",
    "dropout",
    "dynamic_rnn",
    "elu",
    "embedding_lookup",
    "in_top_k",
    "l2_loss",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "moments",
    "relu",
    "relu6",
    "rnn_cell",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "static_bidirectional_rnn",
    "static_rnn",
    "tanh",
    "xw_plus_b",
]

__getattr__ = module_getattr("tf.nn")
