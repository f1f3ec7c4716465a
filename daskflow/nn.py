"""``tf.nn``: activations, losses, convolution and pooling."""

from ._missing import module_getattr
from .ops.candidate_sampling_ops import log_uniform_candidate_sampler, nce_loss, sampled_softmax_loss
from .ops.conv_ops import avg_pool, conv2d, conv2d_transpose, max_pool
from .ops.embedding_ops import embedding_lookup
from .ops.math_ops import relu, sigmoid, softplus, tanh
from .ops.nn_impl import (
    avg_pool2d,
    batch_normalization,
    crelu,
    depthwise_conv2d,
    fused_batch_norm,
    l2_normalize,
    local_response_normalization,
    lrn,
    max_pool2d,
    normalize_moments,
    relu_layer,
    selu,
    separable_conv2d,
    silu,
    softsign,
    sufficient_statistics,
    swish,
    weighted_cross_entropy_with_logits,
    weighted_moments,
    zero_fraction,
)
from .ops.nn_ops import (
    bias_add,
    dropout,
    elu,
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
from .ops.sort_ops import in_top_k, top_k
from .ops.sparse_ops import embedding_lookup_sparse
from .rnn import rnn_cell  # tf.nn.rnn_cell
from .rnn.dynamic import bidirectional_dynamic_rnn, dynamic_rnn
from .rnn.static import static_bidirectional_rnn, static_rnn

__all__ = [
    "avg_pool",
    "avg_pool2d",
    "batch_normalization",
    "bias_add",
    "bidirectional_dynamic_rnn",
    "conv2d",
    "conv2d_transpose",
    "crelu",
    "depthwise_conv2d",
    "dropout",
    "dynamic_rnn",
    "elu",
    "embedding_lookup",
    "embedding_lookup_sparse",
    "fused_batch_norm",
    "in_top_k",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "local_response_normalization",
    "log_softmax",
    "log_uniform_candidate_sampler",
    "lrn",
    "max_pool",
    "max_pool2d",
    "moments",
    "nce_loss",
    "normalize_moments",
    "relu",
    "relu6",
    "relu_layer",
    "rnn_cell",
    "sampled_softmax_loss",
    "selu",
    "separable_conv2d",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "static_bidirectional_rnn",
    "static_rnn",
    "sufficient_statistics",
    "swish",
    "tanh",
    "top_k",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "xw_plus_b",
    "zero_fraction",
]

__getattr__ = module_getattr("tf.nn")
