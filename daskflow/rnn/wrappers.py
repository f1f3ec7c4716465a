"""Cell wrappers: dropout, residual connections and device placement around a cell.

A wrapper is a cell (same ``state_size``, ``output_size``, ``zero_state``)
that calls the wrapped cell directly, so the wrapped cell's variables keep
their names (``rnn/basic_lstm_cell/kernel``, no wrapper scope in between).
"""

from __future__ import annotations

import hashlib
import numbers

from ..framework import nest
from ..framework.constant import convert_to_tensor
from ..framework.graph import device, name_scope
from ..ops import array_ops, math_ops, nn_ops, random_ops
from .cell import LSTMStateTuple, RNNCell, assert_like_rnncell


class _Wrapper(RNNCell):
    """A cell around ``cell``: it adds what ``_call_wrapped_cell`` does to each step."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    # The wrapped cell's variables are the ones a user means by the wrapper's.
    trainable_weights = trainable_variables = property(lambda self: self.cell.trainable_weights)
    non_trainable_weights = non_trainable_variables = property(lambda self: self.cell.non_trainable_weights)


def _static_probability(value, what):
    """A keep probability as a float when it is known while building, else as a tensor."""
    if isinstance(value, numbers.Real):
        known = float(value)
    else:
        value = convert_to_tensor(value)
        known = array_ops.static_scalar(value) if value.shape.ndims == 0 else None
        if known is None:
            return value
    if not 0 <= known <= 1:
        raise ValueError(f"Parameter {what} must be between 0 and 1. Received {known}")
    return float(known)


def _default_dropout_state_filter_visitor(substate):
    # Dropout on an LSTM's memory c would erase what it remembers (Gal & Ghahramani): h only.
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and (new) state.

    Parameters
    ----------
    cell : RNNCell
    input_keep_prob, output_keep_prob, state_keep_prob : float or scalar tensor
        Keep probabilities; a constant 1.0 builds no dropout. State dropout
        skips the ``c`` of an ``LSTMStateTuple`` unless
        ``dropout_state_filter_visitor`` says otherwise.
    variational_recurrent : bool
        Use the same dropout mask at every step (Gal & Ghahramani, 2016);
        needs ``dtype``, and ``input_size`` when inputs are dropped.
    input_size : int or structure, optional
    dtype : DType, optional
    seed : int, optional
    dropout_state_filter_visitor : callable, optional
        ``substate -> bool or structure of bools``: which parts of the state to drop.

    Examples
    --------
    >>> import daskflow as tf
    >>> keep = tf.placeholder_with_default(1.0, [])
    >>> cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(8), output_keep_prob=keep)
    """

    def __init__(
        self,
        cell,
        input_keep_prob=1.0,
        output_keep_prob=1.0,
        state_keep_prob=1.0,
        variational_recurrent=False,
        input_size=None,
        dtype=None,
        seed=None,
        dropout_state_filter_visitor=None,
        **kwargs,
    ):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(
                f"dropout_state_filter_visitor must be callable. Received: {dropout_state_filter_visitor}"
            )
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        with name_scope("DropoutWrapperInit"):
            self._input_keep_prob = _static_probability(input_keep_prob, "input_keep_prob")
            self._state_keep_prob = _static_probability(state_keep_prob, "state_keep_prob")
            self._output_keep_prob = _static_probability(output_keep_prob, "output_keep_prob")
        self._variational_recurrent = variational_recurrent
        self._seed = seed
        self._noise = {"input": None, "state": None, "output": None}
        if variational_recurrent:
            self._make_recurrent_noise(cell, input_size, dtype)

    def _make_recurrent_noise(self, cell, input_size, dtype):
        if dtype is None:
            raise ValueError("When variational_recurrent=True, dtype must be provided")

        def noise_for(kind, sizes):
            # One mask row per run, broadcast over the batch and reused at every step.
            flat = [
                random_ops.random_uniform([1, *_dims(s)], dtype=dtype, seed=self._gen_seed(kind, i))
                for i, s in enumerate(nest.flatten(sizes))
            ]
            return nest.pack_sequence_as(sizes, flat)

        if _should_dropout(self._input_keep_prob):
            if input_size is None:
                raise ValueError(
                    "When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                    "input_size must be provided"
                )
            self._noise["input"] = noise_for("input", input_size)
        self._noise["state"] = noise_for("state", cell.state_size)
        self._noise["output"] = noise_for("output", cell.output_size)

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        salted = f"{self._seed}{salt_prefix}_{index}".encode()
        return int(hashlib.md5(salted).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self):
        return self.cell

    def _dropout(self, values, kind, keep_prob, filtered=None):
        filtered = values if filtered is None else filtered
        noise = self._noise[kind]

        def drop(i, do_dropout, value, noise_value=None):
            if isinstance(do_dropout, bool) and not do_dropout:
                return value
            if noise_value is None:
                return nn_ops.dropout(value, keep_prob=keep_prob, seed=self._gen_seed(kind, i))
            kept = math_ops.floor(keep_prob + noise_value)
            out = math_ops.divide(value, keep_prob) * kept
            out.set_shape(value.shape)
            return out

        if self._variational_recurrent:
            return _enumerated_map_up_to(filtered, drop, values, noise)
        return _enumerated_map_up_to(filtered, drop, values)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        if _should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if _should_dropout(self._state_keep_prob):
            filtered = _traverse_shallow_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, filtered)
        if _should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _should_dropout(keep_prob):
    return not isinstance(keep_prob, float) or keep_prob < 1


def _dims(size):
    return [size] if isinstance(size, int) else list(size)


def _traverse_shallow_structure(visit, structure):
    """TF's ``get_traverse_shallow_structure``: bools saying which parts ``visit`` selects.

    Where ``visit`` answers False the whole substructure is one False leaf;
    where True, its parts are visited in turn; a structure of bools selects
    parts one by one.
    """
    answer = visit(structure)
    if not nest.is_nested(structure):
        if not isinstance(answer, bool):
            raise TypeError(f"The state filter must return a bool for a leaf, got {answer!r}")
        return answer
    parts = _parts(structure)
    if isinstance(answer, bool):
        if not answer:
            return False
        takes = [True] * len(parts)
    else:
        takes = _parts(answer)
        if len(takes) != len(parts) or not all(isinstance(t, bool) for t in takes):
            raise TypeError(f"The state filter must return a bool or one bool per part, got {answer!r}")
    return _like(
        structure, [_traverse_shallow_structure(visit, p) if t else False for t, p in zip(takes, parts)]
    )


def _parts(structure):
    return [structure[k] for k in sorted(structure)] if isinstance(structure, dict) else list(structure)


def _enumerated_map_up_to(shallow, fn, *structures):
    """``fn(i, leaf, *subtrees)`` for the i-th leaf of ``shallow`` and the subtrees under it."""
    counter = iter(range(1 << 30))

    def walk(shape, *subs):
        if not nest.is_nested(shape):
            return fn(next(counter), shape, *subs)
        return _like(subs[0], [walk(*level) for level in zip(*(_parts(s) for s in (shape, *subs)))])

    return walk(shallow, *structures)


def _like(structure, items):
    if isinstance(structure, dict):
        return type(structure)(zip(sorted(structure), items))
    if hasattr(structure, "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


class ResidualWrapper(_Wrapper):
    """Adds the cell's inputs to its outputs: ``output = inputs + cell(inputs)``.

    Parameters
    ----------
    cell : RNNCell
        Its output must have the inputs' shape.
    residual_fn : callable, optional
        ``(inputs, outputs) -> outputs``; default: their sum.
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)
        residual = self._residual_fn or self._add_inputs
        return residual(inputs, outputs), new_state

    def _add_inputs(self, inputs, outputs):
        nest.assert_same_structure(inputs, outputs, f"{self.name}: the inputs and outputs")

        def add(x, y):
            if not x.shape.is_compatible_with(y.shape):
                raise ValueError(
                    f"Shapes {x.shape} and {y.shape} are incompatible: {self.name} adds the inputs of "
                    f"{getattr(self.cell, 'name', self.cell)} to its outputs, which need the same shape"
                )
            return x + y

        return nest.map_structure(add, inputs, outputs)


class DeviceWrapper(_Wrapper):
    """Runs the cell (and builds its zero state) on ``device``.

    Parameters
    ----------
    cell : RNNCell
    device : str or callable
        As for ``tf.device``.
    """

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
