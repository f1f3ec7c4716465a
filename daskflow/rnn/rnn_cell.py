"""``tf.nn.rnn_cell``: TF1's RNN cells and wrappers under their TF1 names."""

from .._namespaces import module_getattr
from .cell import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell, LSTMStateTuple, MultiRNNCell, RNNCell
from .wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

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
]

__getattr__ = module_getattr("tf.nn.rnn_cell")
