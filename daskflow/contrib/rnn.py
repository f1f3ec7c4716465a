"""``tf.contrib.rnn``: the cells of ``tf.nn.rnn_cell`` and the static RNNs, as TF1 scripts took them.

contrib's own cells (``LSTMBlockCell``, ``LayerNormBasicLSTMCell``,
``AttentionCellWrapper``...) are not part of daskflow and say so when asked for.
"""

from .._namespaces import module_getattr
from ..rnn.cell import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell, LSTMStateTuple, MultiRNNCell, RNNCell
from ..rnn.static import static_bidirectional_rnn, static_rnn
from ..rnn.wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
    "static_bidirectional_rnn",
    "static_rnn",
]

__getattr__ = module_getattr("tf.contrib.rnn")
