"""``static_rnn`` and ``static_bidirectional_rnn``: a cell unrolled over a Python list of steps.

The graph holds one copy of the cell's ops per time step, all reading the
same variables (``rnn/<cell>/...``: the first step makes them, the scope is
set to reuse for the others). With ``sequence_length``, a row past its
length gets zeros as output and keeps its last state; TF1 skips computing
such steps with ``tf.cond``, here the step is computed and the copy is an
elementwise select, which gives the same values and gradients.
"""

from __future__ import annotations

from .. import dtypes
from ..framework import nest
from ..framework.constant import convert_to_tensor
from ..ops import array_ops, math_ops
from ..variable_scope import variable_scope
from .cell import assert_like_rnncell


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Unroll ``cell`` over ``inputs``, a list of ``[batch, depth]`` tensors (one per step).

    Parameters
    ----------
    cell : RNNCell
    inputs : list of Tensor (or of nested tuples of them)
        Every step's depth must be known while building.
    initial_state : Tensor or structure, optional
        Default: ``cell.zero_state(batch, dtype)``.
    dtype : DType, optional
        Needed when ``initial_state`` is not given.
    sequence_length : int vector, optional
        Each row's length; past it a row's output is zeros and its state stays.
    scope : str or VariableScope, optional
        Default ``"rnn"``.

    Returns
    -------
    (outputs, state)
        The list of outputs, one per step, and the final state.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 4, 3])
    ...     cell = tf.nn.rnn_cell.GRUCell(5)
    ...     outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
    ...     len(outputs), outputs[-1].shape.as_list()
    (4, [None, 5])
    """
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with variable_scope(scope or "rnn") as varscope:
        batch_size, static_batch = _batch_size(inputs)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
            state = _initial_state(cell, batch_size, dtype)
        step = (
            _plain_step
            if sequence_length is None
            else _length_step(cell, sequence_length, batch_size, static_batch, dtype, state)
        )
        outputs = []
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, state = step(time, lambda x=input_, s=state: cell(x, s), state)
            outputs.append(output)
        return outputs, state


def _initial_state(cell, batch_size, dtype):
    # TF1 asks get_initial_state first: a cell may define it instead of zero_state.
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _batch_size(inputs):
    """The batch size as an int when every step's shape says it, else a scalar tensor; and the static one."""
    first = nest.flatten(inputs)[0]
    static = None
    for x in nest.flatten(inputs):
        dims = convert_to_tensor(x).shape.dims
        if dims is None:
            continue
        if len(dims) < 2:
            raise ValueError(
                f"Input {x.name} must have rank at least 2 ([batch, depth]), but has shape {x.shape}"
            )
        for i, size in enumerate(dims[1:]):
            if size is None:
                raise ValueError(
                    f"Input size (dimension {i} of input {x.name}) must be accessible via shape inference, "
                    "but saw value None."
                )
        if static is not None and dims[0] is not None and dims[0] != static:
            raise ValueError(f"Input {x.name} has batch size {dims[0]}, but an earlier step has {static}")
        static = static if static is not None else dims[0]
    return (static if static is not None else array_ops.shape(first)[0]), static


def _plain_step(time, call_cell, state):
    return call_cell()


def _length_step(cell, sequence_length, batch_size, static_batch, dtype, state):
    """A step that copies the old state, and outputs zeros, for rows already past their length."""
    lengths = convert_to_tensor(sequence_length, name="sequence_length")
    if lengths.shape.ndims not in (None, 1):
        raise ValueError(
            f"Argument `sequence_length` must be a vector of length {batch_size}. "
            f"Received sequence_length={lengths}."
        )
    lengths = math_ops.cast(lengths, dtypes.int32)
    out_dtype = dtype or _state_dtype(state)
    zero_output = nest.map_structure(
        lambda size: _zeros([batch_size, *_dims(size)], [static_batch, *_dims(size)], out_dtype),
        cell.output_size,
    )

    def step(time, call_cell, state):
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output, "the cell's output and output_size")
        nest.assert_same_structure(state, new_state, "the cell's state before and after a step")
        finished = math_ops.greater_equal(time, lengths)  # [batch]: rows past their length
        output = nest.map_structure(
            lambda old, new: _select_rows(finished, old, new), zero_output, new_output
        )
        return output, nest.map_structure(lambda old, new: _select_rows(finished, old, new), state, new_state)

    return step


def _select_rows(finished, old, new):
    """``old`` in the rows where ``finished``, else ``new`` (a row mask broadcast over the features)."""
    if new.shape.ndims == 0:
        return new
    mask = array_ops.reshape(finished, [-1] + [1] * (new.shape.ndims - 1))
    out = math_ops.where(mask, old, new)
    out.set_shape(old.shape)
    return out


def _zeros(shape, static_shape, dtype):
    if all(isinstance(d, int) for d in shape):
        return array_ops.zeros(shape, dtype=dtype)
    out = array_ops.zeros(array_ops.stack([math_ops.cast(d, dtypes.int32) for d in shape]), dtype=dtype)
    out.set_shape(static_shape)
    return out


def _dims(size):
    return [size] if isinstance(size, int) else list(size)


def _state_dtype(state):
    kinds = {t.dtype for t in nest.flatten(state)}
    if len(kinds) != 1:
        raise ValueError(
            f"Argument state={state} has tensors of different inferred dtypes. Unable to infer a single "
            f"representative dtype. Dtypes received: {sorted(k.name for k in kinds)}"
        )
    return kinds.pop()


def static_bidirectional_rnn(
    cell_fw,
    cell_bw,
    inputs,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    sequence_length=None,
    scope=None,
):
    """A forward and a backward ``static_rnn`` over ``inputs``, their outputs concatenated per step.

    The backward cell reads each row reversed up to its length (the whole
    list without ``sequence_length``); its outputs are reversed back, so
    step ``t`` of the result is ``[fw_t, bw_t]``. Variables live under
    ``bidirectional_rnn/fw/`` and ``bidirectional_rnn/bw/``.

    Returns
    -------
    (outputs, output_state_fw, output_state_bw)

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     steps = tf.unstack(tf.placeholder(tf.float32, [None, 4, 3]), axis=1)
    ...     cells = tf.nn.rnn_cell.GRUCell(5), tf.nn.rnn_cell.GRUCell(2)
    ...     outputs, fw, bw = tf.nn.static_bidirectional_rnn(*cells, steps, dtype=tf.float32)
    ...     outputs[0].shape.as_list()
    [None, 7]
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    if sequence_length is not None:
        sequence_length = math_ops.cast(convert_to_tensor(sequence_length), dtypes.int32)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, fw_scope
            )
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, state_bw = static_rnn(
                cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length, bw_scope
            )
    output_bw = _reverse_seq(tmp, sequence_length)
    outputs = [
        nest.pack_sequence_as(
            fw, [array_ops.concat([f, b], 1) for f, b in zip(nest.flatten(fw), nest.flatten(bw))]
        )
        for fw, bw in zip(output_fw, output_bw)
    ]
    return outputs, state_fw, state_bw


def _reverse_seq(steps, lengths):
    """The steps reversed in time: each row up to its own length when ``lengths`` is given."""
    if lengths is None:
        return list(reversed(steps))
    flat_steps = [nest.flatten(step) for step in steps]
    columns = [_reverse_column([flat[k] for flat in flat_steps], lengths) for k in range(len(flat_steps[0]))]
    return [nest.pack_sequence_as(step, [col[t] for col in columns]) for t, step in enumerate(steps)]


def _reverse_column(tensors, lengths):
    """TF's ``reverse_sequence`` on a list of ``[batch, ...]`` tensors: row b reads step ``len_b - 1 - t``.

    Built from a gather over the stacked steps (time-major, flattened with
    the batch), so its gradient is the gather's.
    """
    n = len(tensors)
    stacked = array_ops.stack(tensors)  # [T, batch, ...]
    time = array_ops.reshape(array_ops.range_(n), [n, 1])
    source = math_ops.where(time < lengths, lengths - 1 - time, time)  # [T, batch]: the step to read
    batch = array_ops.shape(stacked)[1]
    rows = source * batch + array_ops.reshape(array_ops.range_(batch), [1, -1])
    flat = array_ops.reshape(stacked, array_ops.concat([[-1], array_ops.shape(stacked)[2:]], 0))
    reversed_ = array_ops.unstack(array_ops.gather(flat, rows), num=n)
    for out, original in zip(reversed_, tensors):
        out.set_shape(original.shape)
    return reversed_
