"""``tf.nn.dynamic_rnn`` and ``tf.nn.bidirectional_dynamic_rnn``.

Built as TF1 builds them: the inputs are made time-major and unstacked into
TensorArrays, and one ``while_loop`` calls the cell once per time step,
writing each step's output to a TensorArray. With ``sequence_length``, a
batch entry whose sequence has ended gets zero outputs and keeps its last
state (TF1's ``_rnn_step`` with ``skip_conditionals``), and the loop stops at
the longest sequence.

A cell is anything that follows TF1's ``RNNCell`` protocol: ``cell(inputs,
state)`` returns ``(output, new_state)``; ``state_size`` and ``output_size``
(ints, TensorShapes or nested tuples of them); ``zero_state(batch_size,
dtype)`` (or ``get_initial_state``). The cell makes its variables with
``get_variable`` when first called, inside the loop body, under the
variable scope ``rnn`` (or ``scope``) — so they are named as in TF1:
``rnn/<cell scope>/kernel``.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, math_ops
from ..ops.functional_ops import _flatten, _pack, while_loop
from ..ops.higher_order_ops import _assert_same_structure
from ..ops.tensor_array_ops import TensorArray
from ..variable_scope import variable_scope


def _assert_like_rnncell(name, cell):
    problems = [
        msg
        for ok, msg in (
            (hasattr(cell, "output_size"), "'output_size' property is missing"),
            (hasattr(cell, "state_size"), "'state_size' property is missing"),
            (
                hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
                "either 'zero_state' or 'get_initial_state' method is required",
            ),
            (callable(cell), "is not callable"),
        )
        if not ok
    ]
    if problems:
        raise TypeError(f"The argument {name!r} ({cell!r}) is not an RNNCell: {', '.join(problems)}.")


def _transpose_batch_time(x):
    """``[batch, time, ...]`` <-> ``[time, batch, ...]``."""
    x = convert_to_tensor(x)
    if x._dims is None:
        raise ValueError(f"dynamic_rnn needs inputs of known rank; {x.name} has unknown rank")
    if len(x._dims) < 2:
        return x
    return array_ops.transpose(x, [1, 0, *range(2, len(x._dims))])


def _best_effort_batch_size(flat_input):
    """The static batch size of time-major inputs if any input knows it, else a tensor."""
    for x in flat_input:
        if x._dims is None:
            continue
        if len(x._dims) < 2:
            raise ValueError(f"Input tensor {x.name} should have rank >= 2, got shape {x.shape}")
        if x._dims[1] is not None:
            return x._dims[1]
    return array_ops.shape(flat_input[0])[1]


def _size_dims(size):
    """A cell size (int or TensorShape-like) as dims."""
    if isinstance(size, Tensor):
        raise TypeError(f"cell sizes must be static; got the tensor {size.name}")
    return (int(size),) if isinstance(size, int) else TensorShape(size).dims


def _zeros(batch_size, size, dtype):
    dims = _size_dims(size)
    zeros = array_ops.zeros([batch_size, *dims], dtype=dtype)
    zeros.set_shape([batch_size if isinstance(batch_size, int) else None, *dims])
    return zeros


def _infer_state_dtype(explicit, state):
    if explicit:
        return dtypes.as_dtype(explicit)
    flat = _flatten(state)
    kinds = {convert_to_tensor(s).dtype for s in flat}
    if len(kinds) != 1:
        raise ValueError(
            f"State has tensors of different dtypes: {sorted(k.name for k in kinds)}; pass dtype="
        )
    return kinds.pop()


def _select_rows(done, old, new):
    """Per batch row (``done`` is a [batch] bool vector): ``old`` where done, else ``new``
    (TF1's rank-1 ``where``)."""
    if old._dims is not None and not old._dims:
        return new
    rank = new._dims and len(new._dims)
    if rank is None:
        raise ValueError(f"dynamic_rnn with sequence_length needs states of known rank; {new.name} has none")
    mask = array_ops.reshape(done, [-1] + [1] * (rank - 1))
    return math_ops.where(mask, old, new)


def _check_inputs(flat_input):
    shapes = []
    for x in flat_input:
        if x._dims is None or len(x._dims) < 3:
            raise ValueError(f"Shape must be at least rank 3 but {x.name} has shape {x.shape}")
        if None in x._dims[2:]:
            raise ValueError(
                f"Input size (depth of inputs) must be accessible via shape inference, but saw value None "
                f"in {x.name} of shape {x.shape}"
            )
        shapes.append(x._dims)
    time, batch = shapes[0][:2]
    for x, dims in zip(flat_input, shapes):
        if dims[0] != time:
            raise ValueError(
                f"Time steps is not the same for all the elements in the input in a batch ({x.name})"
            )
        if dims[1] != batch:
            raise ValueError(f"Batch_size is not the same for all the elements in the input ({x.name})")
    return shapes


def dynamic_rnn(
    cell,
    inputs,
    sequence_length=None,
    initial_state=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """Run ``cell`` over the time steps of ``inputs`` in one ``while_loop``.

    Parameters
    ----------
    cell : RNNCell
        Follows TF1's protocol (``cell(inputs, state) -> (output, new_state)``).
    inputs : Tensor or nested structure of Tensors
        ``[batch, time, depth]`` (``[time, batch, depth]`` with ``time_major``).
    sequence_length : int32 vector, optional
        Each batch entry's length: later outputs are zero and its state is
        carried through unchanged.
    initial_state : optional
        The cell's initial state; else ``cell.zero_state(batch, dtype)``.
    dtype : DType, optional
        Required without ``initial_state``.

    Returns
    -------
    (outputs, state)
        Outputs shaped as the inputs' major order; the final state.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [2, 5, 3])  # batch, time, depth
    >>> outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(4), x, dtype=tf.float32)
    >>> outputs.shape.as_list(), state.shape.as_list()
    ([2, 5, 4], [2, 4])
    """
    _assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat_input = [convert_to_tensor(x) for x in _flatten(inputs)]
        _check_inputs(flat_input)  # before transposing, so that errors name the given inputs
        if not time_major:
            flat_input = [_transpose_batch_time(x) for x in flat_input]
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length._dims is not None and len(sequence_length._dims) != 1:
                raise ValueError(
                    "sequence_length must be a vector of length batch_size, but saw shape: "
                    f"{sequence_length.shape}"
                )
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_batch_size(flat_input)
        if initial_state is not None:
            state = initial_state
        elif not dtype:
            raise ValueError("If there is no initial_state, you must give a dtype.")
        elif getattr(cell, "get_initial_state", None) is not None:
            state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
        else:
            state = cell.zero_state(batch_size, dtype)
        time_major_inputs = _pack(inputs, iter(flat_input))
        outputs, final_state = _dynamic_rnn_loop(cell, time_major_inputs, state, sequence_length, dtype)
        if not time_major:
            outputs = _pack(outputs, iter([_transpose_batch_time(o) for o in _flatten(outputs)]))
        return outputs, final_state


def _dynamic_rnn_loop(cell, inputs, state, sequence_length, dtype):
    flat_input = _flatten(inputs)
    flat_output_size = _flatten(cell.output_size)
    got_shapes = _check_inputs(flat_input)
    const_time, const_batch = got_shapes[0][:2]
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_batch_size(flat_input)
    out_dtype = _infer_state_dtype(dtype, state)
    zero_output = _pack(cell.output_size, iter([_zeros(batch_size, s, out_dtype) for s in flat_output_size]))
    if sequence_length is not None:
        max_length = math_ops.reduce_max(sequence_length)
    else:
        max_length = time_steps
    time = constant(0, dtype=dtypes.int32, name="time")
    output_ta = tuple(
        TensorArray(out_dtype, size=time_steps, element_shape=[const_batch, *_size_dims(s)], name="output_ta")
        for s in flat_output_size
    )
    input_ta = tuple(
        TensorArray(x.dtype, size=time_steps, element_shape=x.shape[1:], name="input_ta").unstack(x)
        for x in flat_input
    )

    def time_step(time, output_ta_t, state):
        input_t = [ta.read(time) for ta in input_ta]
        for x, dims in zip(input_t, got_shapes):
            x.set_shape(dims[1:])
        input_t = _pack(inputs, iter(input_t))
        call_cell = lambda: cell(input_t, state)  # noqa: E731
        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, zero_output, state, call_cell)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, _flatten(output)))
        return time + 1, output_ta_t, new_state

    # At least one step, so the output arrays learn their shape (TF1's rule).
    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_length))
    _, output_final_ta, final_state = while_loop(
        lambda time, *_: time < loop_bound, time_step, (time, output_ta, state), name="while"
    )
    final_outputs = []
    for ta, size in zip(output_final_ta, flat_output_size):
        out = ta.stack()
        out.set_shape([const_time, const_batch, *_size_dims(size)])
        final_outputs.append(out)
    return _pack(cell.output_size, iter(final_outputs)), final_state


def _rnn_step(time, sequence_length, zero_output, state, call_cell):
    """One step where finished batch entries output zeros and keep their state."""
    done = time >= sequence_length
    new_output, new_state = call_cell()
    _assert_same_structure(zero_output, new_output, "dynamic_rnn: the cell's output")
    _assert_same_structure(state, new_state, "dynamic_rnn: the cell's state")
    flat_zero, flat_state = _flatten(zero_output), _flatten(state)
    outputs = [_select_rows(done, z, convert_to_tensor(o)) for z, o in zip(flat_zero, _flatten(new_output))]
    states = [
        _select_rows(done, convert_to_tensor(s), convert_to_tensor(n))
        for s, n in zip(flat_state, _flatten(new_state))
    ]
    for out, zero in zip(outputs, flat_zero):
        out.set_shape(zero.shape)
    for new, old in zip(states, flat_state):
        new.set_shape(convert_to_tensor(old).shape)
    return _pack(zero_output, iter(outputs)), _pack(state, iter(states))


def _reverse_sequence(x, lengths, time_axis):
    """``x`` with each batch entry's first ``lengths[b]`` steps reversed (TF1's
    ``reverse_sequence``), composed from differentiable gathers."""
    x = convert_to_tensor(x)
    tm = _transpose_batch_time(x) if time_axis == 1 else x
    shape = array_ops.shape(tm)
    steps, batch = shape[0], shape[1]
    t = array_ops.expand_dims(array_ops.range_(0, steps), 1)  # [time, 1]
    length = array_ops.expand_dims(math_ops.cast(lengths, dtypes.int32), 0)  # [1, batch]
    source = math_ops.where(t < length, length - 1 - t, t * array_ops.ones_like(length))
    rows = source * batch + array_ops.expand_dims(array_ops.range_(0, batch), 0)
    flat = array_ops.reshape(tm, array_ops.concat([[-1], shape[2:]], 0))
    out = array_ops.reshape(array_ops.gather(flat, array_ops.reshape(rows, [-1])), shape)
    out.set_shape(tm.shape)
    return _transpose_batch_time(out) if time_axis == 1 else out


def bidirectional_dynamic_rnn(
    cell_fw,
    cell_bw,
    inputs,
    sequence_length=None,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """A forward and a backward ``dynamic_rnn`` over the same inputs.

    The backward cell reads each sequence reversed (within its length), and
    its outputs are reversed back. Variables live under
    ``bidirectional_rnn/fw/...`` and ``bidirectional_rnn/bw/...``.

    Returns
    -------
    ((output_fw, output_bw), (state_fw, state_bw))

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [2, 5, 3])
    >>> cells = tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(2)
    >>> (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(*cells, x, sequence_length=[5, 3], dtype=tf.float32)
    >>> fw.shape.as_list(), bw.shape.as_list()
    ([2, 5, 4], [2, 5, 2])
    """
    _assert_like_rnncell("cell_fw", cell_fw)
    _assert_like_rnncell("cell_bw", cell_bw)
    time_axis = 0 if time_major else 1

    def reverse(x):
        if sequence_length is None:
            return array_ops.reverse(x, [time_axis])
        return _reverse_sequence(x, sequence_length, time_axis)

    common = dict(
        sequence_length=sequence_length,
        dtype=dtype,
        parallel_iterations=parallel_iterations,
        swap_memory=swap_memory,
        time_major=time_major,
    )
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, initial_state=initial_state_fw, scope=fw_scope, **common
            )
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _pack(inputs, iter([reverse(x) for x in _flatten(inputs)]))
            tmp, state_bw = dynamic_rnn(
                cell_bw, reversed_inputs, initial_state=initial_state_bw, scope=bw_scope, **common
            )
    output_bw = _pack(tmp, iter([reverse(o) for o in _flatten(tmp)]))
    return (output_fw, output_bw), (state_fw, state_bw)


__all__ = ["bidirectional_dynamic_rnn", "dynamic_rnn"]
