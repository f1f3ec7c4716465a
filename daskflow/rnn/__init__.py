"""TF1's recurrent networks built from cells: ``tf.nn.rnn_cell`` and ``static_rnn``.

:mod:`~daskflow.rnn.cell` has the cells (``BasicRNNCell``, ``BasicLSTMCell``,
``LSTMCell``, ``GRUCell``, ``MultiRNNCell``) and the protocol every cell
keeps; :mod:`~daskflow.rnn.wrappers` the wrappers (dropout, residual,
device); :mod:`~daskflow.rnn.static` the unrolled networks, :mod:`~daskflow.rnn.dynamic`
the ones on ``tf.while_loop`` (``dynamic_rnn``).
``tf.nn.rnn_cell`` is :mod:`daskflow.rnn.rnn_cell`, ``tf.contrib.rnn`` is
:mod:`daskflow.contrib.rnn`.
"""

from .cell import (
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LayerRNNCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
    assert_like_rnncell,
)
from .static import static_bidirectional_rnn, static_rnn
from .wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "LayerRNNCell",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
    "assert_like_rnncell",
    "static_bidirectional_rnn",
    "static_rnn",
]
