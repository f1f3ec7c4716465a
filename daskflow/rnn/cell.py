"""TF1's RNN cells (``tf.nn.rnn_cell``): one step of a recurrent network each.

A cell maps ``(inputs, state)`` to ``(output, new_state)``; ``state_size``
and ``output_size`` say the shapes (an int, or a structure of ints such as
``LSTMStateTuple(c=4, h=4)``) and ``zero_state(batch_size, dtype)`` builds a
zero state of that structure. That protocol is all that ``static_rnn`` and
``dynamic_rnn`` use, so a user's cell written against it works with both.

Cells are :class:`~daskflow.layers.Layer` objects, as in TF1. A cell's
variables are made on its first call, in a variable scope named after the
cell (``basic_lstm_cell``) inside the scope current at that call, so that
inside ``static_rnn`` they are ``rnn/basic_lstm_cell/kernel:0`` and
``rnn/basic_lstm_cell/bias:0``, and every later call (every later time step)
uses the same variables. A cell whose ``call`` makes variables with
``get_variable`` itself (a user's ``RNNCell`` subclass) still tracks them in
``weights``.

Examples
--------
>>> import daskflow as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 5, 3])
...     cell = tf.nn.rnn_cell.BasicLSTMCell(4)
...     outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
...     [v.name for v in cell.weights], state.h.shape.as_list()
(['rnn/basic_lstm_cell/kernel:0', 'rnn/basic_lstm_cell/bias:0'], [None, 4])
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..framework import nest
from ..framework.graph import Tensor, name_scope
from ..framework.tensor_shape import dimension_value
from ..layers.base import InputSpec, Layer
from ..layers.core import get_activation
from ..ops import array_ops, init_ops, math_ops, nn_ops, rnn_ops
from ..variable_scope import get_variable_scope, variable_scope
from ..variables import GraphKeys

# -- the protocol ---------------------------------------------------------------------------


def assert_like_rnncell(cell_name, cell):
    """Raise TF1's TypeError unless ``cell`` has what an RNN needs of a cell."""
    checks = [
        (_hasattr(cell, "output_size"), "'output_size' property is missing"),
        (_hasattr(cell, "state_size"), "'state_size' property is missing"),
        (
            _hasattr(cell, "get_initial_state") or _hasattr(cell, "zero_state"),
            "either 'zero_state' or 'get_initial_state' method is required",
        ),
        (callable(cell), "is not callable"),
    ]
    missing = [error for ok, error in checks if not ok]
    if missing:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}.")


def _hasattr(obj, name):
    try:
        getattr(obj, name)
    except (AttributeError, NotImplementedError):
        return False
    return True


def _check_floating(dtype, cell_name):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(
            f"RNN cell only supports floating point inputs, but received dtype: {dtype.name} "
            f"(cell {cell_name!r})"
        )


def _check_inputs_and_state(cell, inputs, state):
    for t in nest.flatten([inputs, state]):
        _check_floating(getattr(t, "dtype", None), cell.name)


def _zero_state(state_size, batch_size, dtype):
    """Zeros of shape ``[batch_size] + s`` for each ``s`` of ``state_size``."""
    static_batch = batch_size if not isinstance(batch_size, Tensor) else array_ops.static_scalar(batch_size)

    def zeros(size):
        dims = [size] if isinstance(size, int) else list(size)
        if static_batch is not None:
            return array_ops.zeros([int(static_batch), *dims], dtype=dtype)
        shape = array_ops.stack([math_ops.cast(batch_size, dtypes.int32), *dims])
        out = array_ops.zeros(shape, dtype=dtype)
        out.set_shape([None, *dims])
        return out

    return nest.map_structure(zeros, state_size)


class RNNCell(Layer):
    """The base of RNN cells: ``(output, new_state) = cell(inputs, state)``.

    A subclass defines ``state_size``, ``output_size`` and
    ``call(inputs, state)``; it may make its variables in ``build`` (with
    ``add_weight``) or in ``call`` (with ``get_variable``).

    Examples
    --------
    >>> import daskflow as tf
    >>> class Accumulate(tf.nn.rnn_cell.RNNCell):
    ...     state_size = output_size = 2
    ...     def call(self, inputs, state):
    ...         total = state + inputs
    ...         return total, total
    >>> with tf.Graph().as_default():
    ...     steps = [tf.ones([1, 2]) for _ in range(3)]
    ...     outputs, state = tf.nn.static_rnn(Accumulate(), steps, dtype=tf.float32)
    ...     with tf.Session() as sess:
    ...         sess.run(state).tolist()
    [[3.0, 3.0]]
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._rnncell_scope = None

    def __call__(self, inputs, state, scope=None):
        """Run the cell one step on ``inputs`` from ``state``; returns ``(output, new_state)``."""
        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return Layer.__call__(self, inputs, state, scope=scope)
        if self._rnncell_scope is None:
            # TF1: the variable scope of the first call is the cell's home from then on.
            self._rnncell_scope = get_variable_scope()
        home = self._rnncell_scope
        with variable_scope(home, custom_getter=self._rnn_get_variable, auxiliary_name_scope=bool(home.name)):
            return Layer.__call__(self, inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        """Track the variables ``call`` makes with ``get_variable`` as this cell's weights."""
        variable = getter(*args, **kwargs)
        trainable = any(variable is v for v in variable.graph.get_collection(GraphKeys.TRAINABLE_VARIABLES))
        tracked = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in tracked):
            tracked.append(variable)
        return variable

    @property
    def state_size(self):
        """The size(s) of the state: an int, a TensorShape, or a structure of them."""
        raise NotImplementedError(f"{type(self).__name__} does not define state_size")

    @property
    def output_size(self):
        """The size of the output: an int or a TensorShape."""
        raise NotImplementedError(f"{type(self).__name__} does not define output_size")

    def zero_state(self, batch_size, dtype):
        """A state of zeros: ``[batch_size, s]`` for each ``s`` of ``state_size``.

        ``batch_size`` may be an int or a scalar int tensor (``tf.shape(x)[0]``).
        """
        with name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state(self.state_size, batch_size, dtypes.as_dtype(dtype))

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state for ``inputs`` (its batch size and dtype), or for ``batch_size`` and ``dtype``."""
        if inputs is not None:
            batch_size = array_ops.shape(inputs)[0] if inputs.shape[0].value is None else inputs.shape[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype} ({self.name})"
            )
        return self.zero_state(batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNN cell that makes its variables in ``build``, as a layer does."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        return Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state: the memory ``c`` and the output ``h``, in that order."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


# -- the cells -------------------------------------------------------------------------------


class _KernelCell(LayerRNNCell):
    """What the built-in cells share: 2-D float inputs, an activation, a known input depth."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_floating(self.dtype, self.name)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = get_activation(activation) or math_ops.tanh

    def _input_depth(self, input_shape):
        depth = dimension_value(input_shape[-1])
        if depth is None:
            raise ValueError(
                f"Expected inputs.shape[-1] to be known, received shape: {input_shape} ({self.name})"
            )
        _check_floating(self.dtype, self.name)
        return depth

    def _single_state(self, state):
        """A cell whose state is one tensor refuses a tuple (TF1's concat would, less clearly)."""
        if nest.is_nested(state):
            raise ValueError(
                f"{self.name}: expected the state to be one tensor of shape [batch, {self.state_size}], "
                f"but received a {type(state).__name__} of {len(nest.flatten(state))}"
            )
        return state


class BasicRNNCell(_KernelCell):
    """The most basic RNN cell: ``output = new_state = activation(W [inputs, state] + b)``.

    Parameters
    ----------
    num_units : int
        The state (and output) size.
    activation : callable or str, optional
        Default ``tanh``.
    reuse : bool, optional
        Reuse the variables of an existing scope of the same name.
    name : str, optional
        The cell's name, and its variable scope's (default ``basic_rnn_cell``).
    dtype : DType, optional
        The variables' dtype (default: the first input's).
    """

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = self._input_depth(input_shape)
        self._kernel = self.add_weight("kernel", [depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", [self._num_units], initializer=init_ops.Zeros())
        self.built = True

    def call(self, inputs, state):
        _check_inputs_and_state(self, inputs, state)
        state = self._single_state(state)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_ops.bias_add(gate_inputs, self._bias))
        return output, output


class GRUCell(_KernelCell):
    """A gated recurrent unit (Cho et al., 2014).

    Variables: ``gates/kernel``, ``gates/bias`` (initialized to 1: gates
    open), ``candidate/kernel``, ``candidate/bias``.

    Parameters
    ----------
    num_units : int
    activation : callable or str, optional
        Default ``tanh``.
    reuse : bool, optional
    kernel_initializer, bias_initializer : initializer, optional
    name : str, optional
        Default ``gru_cell``.
    dtype : DType, optional
    """

    def __init__(
        self,
        num_units,
        activation=None,
        reuse=None,
        kernel_initializer=None,
        bias_initializer=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(num_units, activation, reuse, name, dtype, **kwargs)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth, n = self._input_depth(input_shape), self._num_units
        kernel_init, bias_init = self._kernel_initializer, self._bias_initializer
        self._gate_kernel = self.add_weight("gates/kernel", [depth + n, 2 * n], initializer=kernel_init)
        self._gate_bias = self.add_weight(
            "gates/bias", [2 * n], initializer=bias_init or init_ops.Constant(1.0)
        )
        self._candidate_kernel = self.add_weight("candidate/kernel", [depth + n, n], initializer=kernel_init)
        self._candidate_bias = self.add_weight(
            "candidate/bias", [n], initializer=bias_init or init_ops.Zeros()
        )
        self.built = True

    def call(self, inputs, state):
        _check_inputs_and_state(self, inputs, state)
        state = self._single_state(state)
        if self._activation is math_ops.tanh:  # TF's GRUBlockCell computes this cell: one op
            kernels = (self._gate_kernel, self._candidate_kernel, self._gate_bias, self._candidate_bias)
            new_h = rnn_ops.gru_block_cell(inputs, state, *kernels)[3]
            return new_h, new_h
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        value = math_ops.sigmoid(nn_ops.bias_add(gate_inputs, self._gate_bias))
        r, u = array_ops.split(value, 2, axis=1)
        candidate = math_ops.matmul(array_ops.concat([inputs, r * state], 1), self._candidate_kernel)
        c = self._activation(nn_ops.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class GRUBlockCellV2(GRUCell):
    """``tf.contrib.rnn.GRUBlockCellV2``: ``GRUCell``'s variables, one ``GRUBlockCell`` op per step.

    Parameters
    ----------
    num_units : int
    cell_size : int, optional
        TF1's older name for ``num_units``: give exactly one.
    reuse : bool, optional
    name : str, optional
        Default ``gru_cell``.
    """

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        if (cell_size is None) == (num_units is None):  # TF1's words
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        super().__init__(num_units if num_units is not None else cell_size, reuse=reuse, name=name)


class _LSTMBase(_KernelCell):
    """State handling shared by the two LSTM cells: a (c, h) tuple or the two concatenated."""

    def _split_state(self, state, c_size, h_size):
        if self._state_is_tuple:
            if not nest.is_nested(state) or len(state) != 2:
                got = f"a {type(state).__name__} of {len(state)}" if nest.is_nested(state) else "one tensor"
                raise ValueError(
                    f"{self.name}: expected the state to be an LSTMStateTuple (c, h) as state_is_tuple=True, "
                    f"but received {got}"
                )
            return state
        state = self._single_state(state)
        return (
            array_ops.slice(state, [0, 0], [-1, c_size]),
            array_ops.slice(state, [0, c_size], [-1, h_size]),
        )

    def _join_state(self, c, h):
        return LSTMStateTuple(c, h) if self._state_is_tuple else array_ops.concat([c, h], 1)


class BasicLSTMCell(_LSTMBase):
    """The basic LSTM cell: no peepholes, no clipping, no projection.

    ``forget_bias`` is added to the forget gate's pre-activation (so that a
    new network forgets little at first). Variables: ``kernel`` of shape
    ``[input_depth + num_units, 4 * num_units]`` (gates i, j, f, o) and
    ``bias``.

    Parameters
    ----------
    num_units : int
    forget_bias : float
        Default 1.0.
    state_is_tuple : bool
        True: the state is ``LSTMStateTuple(c, h)``; False: ``[c, h]`` concatenated.
    activation : callable or str, optional
        Default ``tanh``.
    reuse : bool, optional
    name : str, optional
        Default ``basic_lstm_cell``.
    dtype : DType, optional
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(num_units, activation, reuse, name, dtype, **kwargs)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth, n = self._input_depth(input_shape), self._num_units
        self._kernel = self.add_weight("kernel", [depth + n, 4 * n])
        self._bias = self.add_weight("bias", [4 * n], initializer=init_ops.Zeros())
        self.built = True

    def call(self, inputs, state):
        _check_inputs_and_state(self, inputs, state)
        c, h = self._split_state(state, self._num_units, self._num_units)
        if self._activation is math_ops.tanh:  # TF's LSTMBlockCell computes this cell: one op
            _, new_c, _, _, _, _, new_h = rnn_ops.lstm_block_cell(
                inputs, c, h, self._kernel, self._bias, forget_bias=self._forget_bias
            )
            return new_h, self._join_state(new_c, new_h)
        gate_inputs = nn_ops.bias_add(
            math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel), self._bias
        )
        i, j, f, o = array_ops.split(gate_inputs, 4, axis=1)
        forget = math_ops.sigmoid(f + self._forget_bias)
        new_c = c * forget + math_ops.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, self._join_state(new_c, new_h)


class LSTMCell(_LSTMBase):
    """The LSTM cell with optional peepholes, cell clipping and an output projection.

    Peepholes (Sak et al., 2014) add ``w_f_diag``, ``w_i_diag``, ``w_o_diag``;
    ``num_proj`` adds ``projection/kernel`` and makes the output (and ``h``)
    ``num_proj`` wide.

    Parameters
    ----------
    num_units : int
    use_peepholes : bool
    cell_clip : float, optional
        Clip the memory ``c`` to ``[-cell_clip, cell_clip]``.
    initializer : initializer, optional
        For the kernels and peephole weights (default: the scope's, else Glorot uniform).
    num_proj : int, optional
    proj_clip : float, optional
        Clip the projected output to ``[-proj_clip, proj_clip]``.
    forget_bias : float
        Default 1.0.
    state_is_tuple : bool
    activation : callable or str, optional
        Default ``tanh``.
    reuse : bool, optional
    name : str, optional
        Default ``lstm_cell``.
    dtype : DType, optional
    """

    def __init__(
        self,
        num_units,
        use_peepholes=False,
        cell_clip=None,
        initializer=None,
        num_proj=None,
        proj_clip=None,
        num_unit_shards=None,
        num_proj_shards=None,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(num_units, activation, reuse, name, dtype, **kwargs)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError(
                f"{self.name}: num_unit_shards / num_proj_shards (deprecated in TF1) are not supported; "
                "use a variable scope with a partitioner"
            )
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        h = num_proj or num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, input_shape):
        depth, n = self._input_depth(input_shape), self._num_units
        init = self._initializer
        self._kernel = self.add_weight("kernel", [depth + self._output_size, 4 * n], initializer=init)
        self._bias = self.add_weight("bias", [4 * n], initializer=init_ops.Zeros())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", [n], initializer=init)
            self._w_i_diag = self.add_weight("w_i_diag", [n], initializer=init)
            self._w_o_diag = self.add_weight("w_o_diag", [n], initializer=init)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight("projection/kernel", [n, self._num_proj], initializer=init)
        self.built = True

    def call(self, inputs, state):
        _check_inputs_and_state(self, inputs, state)
        c_prev, m_prev = self._split_state(state, self._num_units, self._output_size)
        # TF's LSTMBlockCell, one op, computes this cell unless the cell clips (the op's gradient
        # passes the clip) or projects (the op's h_prev is as wide as its cell state).
        if self._activation is math_ops.tanh and self._cell_clip is None and self._num_proj is None:
            c, m = self._block(inputs, c_prev, m_prev)
        else:
            c, m = self._written_out(inputs, c_prev, m_prev)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        return m, self._join_state(c, m)

    def _block(self, inputs, c_prev, m_prev, cell_clip=None):
        peepholes = (self._w_i_diag, self._w_f_diag, self._w_o_diag) if self._use_peepholes else (None,) * 3
        _, c, _, _, _, _, m = rnn_ops.lstm_block_cell(
            inputs, c_prev, m_prev, self._kernel, self._bias, *peepholes, forget_bias=self._forget_bias,
            cell_clip=-1.0 if cell_clip is None else cell_clip,
        )  # fmt: skip
        return c, m

    def _written_out(self, inputs, c_prev, m_prev):
        sigmoid, act = math_ops.sigmoid, self._activation
        lstm_matrix = nn_ops.bias_add(
            math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel), self._bias
        )
        i, j, f, o = array_ops.split(lstm_matrix, 4, axis=1)
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * act(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * act(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        o_in = o + self._w_o_diag * c if self._use_peepholes else o
        return c, sigmoid(o_in) * act(c)


class LSTMBlockCell(LSTMCell):
    """``tf.contrib.rnn.LSTMBlockCell``: TF's fused LSTM cell, one ``LSTMBlockCell`` op per step.

    ``LSTMCell``'s variables and arithmetic (gates i, j, f, o; peepholes ``w_i_diag``,
    ``w_f_diag``, ``w_o_diag``), a tuple state, no projection. With ``cell_clip``, ``c``
    is clipped and, as in TF's op, its gradient passes the clip unchanged. The parameters
    are ``LSTMCell``'s of the same names (``use_peephole`` is its ``use_peepholes``).
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        cell_clip=None,
        use_peephole=False,
        dtype=None,
        reuse=None,
        name="lstm_cell",
    ):
        super().__init__(
            num_units, use_peepholes=use_peephole, cell_clip=cell_clip, forget_bias=forget_bias,
            reuse=reuse, name=name, dtype=dtype,
        )  # fmt: skip

    def build(self, input_shape):
        depth, n = self._input_depth(input_shape), self._num_units
        self._kernel = self.add_weight("kernel", [depth + n, 4 * n])
        self._bias = self.add_weight("bias", [4 * n], initializer=init_ops.Zeros())
        if self._use_peepholes:  # in TF's order for this cell: i, f, o
            self._w_i_diag = self.add_weight("w_i_diag", [n])
            self._w_f_diag = self.add_weight("w_f_diag", [n])
            self._w_o_diag = self.add_weight("w_o_diag", [n])
        self.built = True

    def call(self, inputs, state):
        _check_inputs_and_state(self, inputs, state)
        c_prev, h_prev = self._split_state(state, self._num_units, self._num_units)
        c, h = self._block(inputs, c_prev, h_prev, self._cell_clip)
        return h, LSTMStateTuple(c, h)


class MultiRNNCell(RNNCell):
    """Cells stacked in layers: each cell's output is the next cell's input.

    The cells' variables live under ``cell_0/``, ``cell_1/``... of the
    stack's scope (``rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel``).

    Parameters
    ----------
    cells : list of RNNCell
        Distinct objects (one object twice would share its weights).
    state_is_tuple : bool
        True: the state is a tuple with one state per cell; False: all
        concatenated (each cell's state must then be one tensor).

    Examples
    --------
    >>> import daskflow as tf
    >>> cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(n) for n in (8, 4)])
    >>> cell.state_size, cell.output_size
    ((8, 4), 4)
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                f"State sizes are: {[c.state_size for c in self._cells]}"
            )

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        if not self._state_is_tuple:
            return super().zero_state(batch_size, dtype)
        with name_scope(type(self).__name__ + "ZeroState"):
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, Layer) for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self):
        weights = [w for cell in self._cells if isinstance(cell, Layer) for w in cell.non_trainable_weights]
        if not self.trainable:
            frozen = [w for cell in self._cells if isinstance(cell, Layer) for w in cell.trainable_weights]
            return frozen + weights
        return weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def call(self, inputs, state):
        if self._state_is_tuple and (not nest.is_nested(state) or len(state) != len(self._cells)):
            raise ValueError(
                f"Expected state to be a tuple of length {len(self.state_size)}, but received: {state} "
                f"({self.name})"
            )
        position, new_states = 0, []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    cell_state = state[i]
                else:
                    cell_state = array_ops.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                inputs, new_state = cell(inputs, cell_state)
                new_states.append(new_state)
        return inputs, tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
