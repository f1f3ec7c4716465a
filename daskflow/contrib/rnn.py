"""``tf.contrib.rnn``: the cells of ``tf.nn.rnn_cell`` and the static RNNs, as TF1 scripts took them.

Of contrib's own cells, the fused ``LSTMBlockCell`` and ``GRUBlockCellV2`` (TF's
``LSTMBlockCell`` and ``GRUBlockCell`` ops, as ``BasicLSTMCell``, ``LSTMCell`` and ``GRUCell``
use them); the others (``GRUBlockCell``'s V1 variable names, ``LayerNormBasicLSTMCell``,
``AttentionCellWrapper``...) are not part of daskflow and say so when asked for.
"""

from .._namespaces import module_getattr
from ..rnn.cell import (
    BasicLSTMCell,
    BasicRNNCell,
    GRUBlockCellV2,
    GRUCell,
    LSTMBlockCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)
from ..rnn.static import static_bidirectional_rnn, static_rnn
from ..rnn.wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUBlockCellV2",
    "GRUCell",
    "LSTMBlockCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
    "static_bidirectional_rnn",
    "static_rnn",
]

__getattr__ = module_getattr("tf.contrib.rnn")
