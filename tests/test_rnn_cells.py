"""TF1's RNN cells and static RNNs against TF1's own answers.

The scenarios live in ``tests/fixtures/scenarios_rnn_cells.py``;
``make_rnn_cells.py`` ran them under TensorFlow (``tf.compat.v1.nn.rnn_cell``,
``tf.compat.v1.nn.static_rnn``) and stored ``rnn_cells.json``; here they run
under daskflow and are compared: variable names and shapes, static shapes,
outputs, final states and gradients for fixed inputs and variable values,
state and output sizes, dropout statistics, and errors. Then what TF1 cannot
be asked: a training run whose loss falls, cells inside ``tf.while_loop``
(what ``dynamic_rnn`` does with them), and ``tf.contrib.rnn``.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
import daskflow.contrib.rnn
import daskflow.rnn
import daskflow.rnn.rnn_cell

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_rnn_cells as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "rnn_cells.json").read_text())

rnn = daskflow.rnn


def _close(mine, theirs, what):
    np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=2e-4, atol=2e-5, err_msg=what)


@pytest.mark.parametrize("model", sorted(sc.MODELS))
def test_outputs_states_and_gradients_match_tf1(model):
    mine, theirs = sc.evaluate(tf, model), TF1["models"][model]
    # TF1 names a ref variable's dtype float32_ref; the base type must agree.
    assert mine["variables"] == [[n, s, d.replace("_ref", "")] for n, s, d in theirs["variables"]]
    assert mine["trainable"] == theirs["trainable"]
    for key in ("output_shapes", "state_shapes", "state_types"):
        assert mine[key] == theirs[key], key
    for key in ("outputs", "state"):
        assert len(mine[key]) == len(theirs[key])
        for step, (m, t) in enumerate(zip(mine[key], theirs[key])):
            _close(m, t, f"{key}[{step}]")
    n_inputs = len(theirs["grads"]) - len(theirs["variables"])  # the fed float placeholders
    names = [f"input {i}" for i in range(n_inputs)] + [v[0] for v in theirs["variables"]]
    for name, m, t in zip(names, mine["grads"], theirs["grads"], strict=True):
        _close(m, t, f"gradient for {name}")


def test_names_scopes_and_reuse_match_tf1():
    mine, theirs = sc.names(tf), dict(TF1["names"])
    # TF-Keras's legacy wrapper reports no weights of its own; daskflow's reports the wrapped
    # cell's (what a user means by the wrapper's variables), which must be the GRU's four.
    assert theirs.pop("wrapped") == []
    assert mine.pop("wrapped") == [
        "wrapped/gru_cell/gates/kernel:0",
        "wrapped/gru_cell/gates/bias:0",
        "wrapped/gru_cell/candidate/kernel:0",
        "wrapped/gru_cell/candidate/bias:0",
    ]
    assert mine == theirs


def test_state_and_output_sizes_match_tf1():
    assert sc.sizes(tf) == TF1["sizes"]


def test_dropout_wrapper_matches_tf1_in_distribution():
    mine, theirs = sc.dropout_stats(tf), TF1["dropout_stats"]
    # Input keep 0.8 then output keep 0.5: 60% dropped, survivors 1 / 0.8 / 0.5 = 2.5.
    assert mine["output_kept_values"] == theirs["output_kept_values"] == [2.5]
    assert mine["output_dropped"] == pytest.approx(0.6, abs=0.02)
    assert theirs["output_dropped"] == pytest.approx(0.6, abs=0.02)
    # State keep 0.7 drops h only: c counts the steps untouched.
    assert mine["h_kept_values"] == theirs["h_kept_values"]
    assert mine["h_dropped"] == pytest.approx(0.3, abs=0.02)
    for key in (
        "c_untouched",
        "variational_same_mask",
        "variational_row_mask_shared",
        "variational_c_untouched",
    ):
        assert mine[key] is theirs[key] is True, key
    # One mask of 50 units for the whole run: keep 0.6 drops about 40% of them.
    assert mine["variational_dropped"] == pytest.approx(0.4, abs=0.2)


# Fragments TF1's message has (checked too) that daskflow's must have, and the culprit
# daskflow's message must name besides (TF1's sometimes does not name the cell).
ERROR_FRAGMENTS = {
    "lstm_rank3": (
        ["is incompatible with the layer: expected ndim=2, found ndim=3"],
        'layer "basic_lstm_cell"',
    ),
    "gru_rank1": (["is incompatible with the layer: expected ndim=2, found ndim=1"], 'layer "gru_cell"'),
    "lstm_int_inputs": (
        ["RNN cell only supports floating point inputs, but received dtype"],
        "basic_lstm_cell",
    ),
    "basic_rnn_int_state": (
        ["RNN cell only supports floating point inputs, but received dtype"],
        "basic_rnn_cell",
    ),
    "gru_unknown_depth": (["Expected inputs.shape[-1] to be known, received shape: (2, "], "gru_cell"),
    "lstm_state_triple": ([], "lstm_cell: expected the state to be an LSTMStateTuple (c, h)"),
    "gru_state_tuple": ([], "gru_cell: expected the state to be one tensor"),
    "multi_state_tensor": (["Expected state to be a tuple of length 2, but received"], "multi_rnn_cell"),
    "multi_empty": (["Must specify at least one cell for MultiRNNCell."], None),
    "multi_not_a_list": (["cells must be a list or tuple, but received"], "GRUCell"),
    "multi_tuple_states_not_tuple": (
        ["Some cells return tuples of states, but the flag state_is_tuple"],
        None,
    ),
    "static_rnn_tensor_inputs": (["Argument `inputs` must be a sequence"], "Placeholder:0"),
    "static_rnn_empty_inputs": (["Argument `inputs` must not be empty."], None),
    "static_rnn_no_dtype": (["If no initial_state is provided, argument `dtype` must be specified"], None),
    "static_rnn_not_a_cell": (
        ["The argument 'cell' (gru) is not an RNNCell: 'output_size' property is missing"],
        None,
    ),
    "static_rnn_unknown_depth": (
        ["Input size (dimension 0 of input", "must be accessible via shape"],
        "Placeholder:0",
    ),
    "static_rnn_lengths_rank2": (
        ["Argument `sequence_length` must be a vector of length 2"],
        "sequence_length",
    ),
    "static_rnn_second_cell_same_scope": (
        ["Variable rnn/basic_lstm_cell/kernel already exists, disallowed"],
        None,
    ),
    "dropout_keep_out_of_range": (["Parameter input_keep_prob must be between 0 and 1. Received 1.5"], None),
    "dropout_variational_without_dtype": (["When variational_recurrent=True, dtype must be provided"], None),
    "dropout_not_a_cell": (["The argument 'cell' (gru) is not an RNNCell"], None),
    "residual_depth_mismatch": (["Shapes (2, 3) and (2, 4) are incompatible"], "residual_wrapper"),
    "bidirectional_not_a_cell": (["The argument 'cell_bw' (None) is not an RNNCell"], None),
}


@pytest.mark.parametrize("case", sorted(ERROR_FRAGMENTS))
def test_errors_match_tf1(case):
    mine, theirs = sc.errors(tf)[case], TF1["errors"][case]
    assert mine.split(":")[0] == theirs.split(":")[0], (mine, theirs)
    fragments, culprit = ERROR_FRAGMENTS[case]
    for fragment in fragments:
        assert fragment in theirs, theirs
        assert fragment in mine, mine
    if culprit is not None:
        assert culprit in mine, mine


def test_a_tensor_for_a_tuple_state_is_a_value_error_naming_the_cell():
    # TF1 fails here by iterating a symbolic tensor (a TypeError about Python control flow);
    # daskflow says what is wrong with the state, as for the other wrong structures.
    assert TF1["errors"]["lstm_state_tensor"].startswith("TypeError")
    assert sc.errors(tf)["lstm_state_tensor"] == (
        "ValueError: basic_lstm_cell: expected the state to be an LSTMStateTuple (c, h) as "
        "state_is_tuple=True, but received one tensor"
    )


def test_all_tf1_error_cases_are_checked():
    assert set(TF1["errors"]) == set(ERROR_FRAGMENTS) | {"lstm_state_tensor"}


# -- what TF1 cannot be asked ------------------------------------------------------------------


def test_an_lstm_learns_to_remember_the_first_step():
    # The target is the sign at step 0, read out after 6 steps: only a cell that carries
    # its memory through the sequence can learn it.
    rng = np.random.default_rng(0)
    data = rng.choice([-1.0, 1.0], size=(64, 6, 1)).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6, 1])
        cell = tf.nn.rnn_cell.LSTMCell(8)
        outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
        prediction = tf.layers.dense(outputs[-1], 1)
        loss = tf.reduce_mean(tf.square(prediction - x[:, 0]))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss, {x: data})
            for _ in range(60):
                sess.run(train, {x: data})
            last = sess.run(loss, {x: data})
    assert first > 0.5  # about the variance of the target (1) at the start
    assert last < 0.1 * first, (first, last)


def test_cells_run_inside_a_while_loop_as_dynamic_rnn_runs_them():
    # First called inside the loop body: the variables are made in the outer graph, under the
    # scope around the loop, and the loop's final state equals static_rnn's over the same steps.
    x_value = sc._values([2, 4, 3], 30)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 4, 3])
        cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(5), rnn.GRUCell(2)])
        start = cell.zero_state(2, tf.float32)
        with tf.variable_scope("rnn"):
            _, final = tf.while_loop(
                lambda t, s: t < 4,
                lambda t, s: (t + 1, cell(tf.gather(x, t, axis=1), s)[1]),
                [tf.constant(0), start],
            )
        names = [v.name for v in tf.global_variables()]
        _, unrolled = rnn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
        assert [v.name for v in tf.global_variables()] == names  # static_rnn reused them
        (grad_loop,) = tf.gradients(tf.reduce_sum(final[1]), cell.weights[:1])
        (grad_static,) = tf.gradients(tf.reduce_sum(unrolled[1]), cell.weights[:1])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([final, unrolled, grad_loop, grad_static], {x: x_value})
    assert names[0] == "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0" and len(names) == 6
    for a, b in zip(sc._flatten(got[0]), sc._flatten(got[1])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], got[3], rtol=1e-4, atol=1e-6)


def test_contrib_rnn_has_the_cells_and_the_static_rnns():
    contrib = tf.contrib.rnn
    assert contrib is daskflow.contrib.rnn
    for name in ("BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper", "LSTMStateTuple"):
        assert getattr(contrib, name) is getattr(rnn, name)
    assert contrib.static_rnn is rnn.static_rnn
    assert contrib.static_bidirectional_rnn is rnn.static_bidirectional_rnn
    with pytest.raises(AttributeError, match="tf.contrib.rnn.LayerNormBasicLSTMCell is not part of daskflow"):
        contrib.LayerNormBasicLSTMCell  # noqa: B018
    with pytest.raises(AttributeError, match="tf.nn.rnn_cell.NASCell is not part of daskflow"):
        daskflow.rnn.rnn_cell.NASCell  # noqa: B018


def test_zero_state_with_a_tensor_batch_size_has_the_batch_of_the_feed():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        state = rnn.MultiRNNCell([rnn.BasicLSTMCell(4), rnn.GRUCell(2)]).zero_state(
            tf.shape(x)[0], tf.float32
        )
        with tf.Session() as sess:
            got = sess.run(state, {x: np.zeros([5, 3], np.float32)})
    assert [a.shape for a in sc._flatten(got)] == [(5, 4), (5, 4), (5, 2)]
    assert type(got[0]).__name__ == "LSTMStateTuple"
    assert all((a == 0).all() for a in sc._flatten(got))


def test_a_cell_called_with_a_scope_keeps_its_variables_there():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        cell = rnn.BasicRNNCell(2)
        out1, _ = cell(x, cell.zero_state(2, tf.float32), scope="step")
        out2, _ = cell(x, cell.zero_state(2, tf.float32), scope="step")
        assert [v.name for v in tf.global_variables()] == ["step/kernel:0", "step/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([out1, out2], {x: sc._values([2, 3], 31)})
    np.testing.assert_allclose(a, b, rtol=1e-6)


# -- the fused cells (TF's LSTMBlockCell and GRUBlockCell) ------------------------------------


def _op_types(build):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3, 5, 2])
        tf.nn.dynamic_rnn(build(), x, dtype=tf.float32)
        return {op.type for op in g.get_operations()} | {
            op.type for body in _loop_bodies(g) for op in body.get_operations()
        }


def _loop_bodies(graph):
    return [op.attrs["body"][0] for op in graph.get_operations() if op.type == "While"]


@pytest.mark.parametrize(
    "build, fused",
    [
        (lambda: tf.nn.rnn_cell.BasicLSTMCell(4), "LSTMBlockCell"),
        (lambda: tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True), "LSTMBlockCell"),
        (lambda: tf.nn.rnn_cell.LSTMCell(4, num_proj=2), None),  # TF's op takes h as wide as c
        (lambda: tf.nn.rnn_cell.GRUCell(4), "GRUBlockCell"),
        (lambda: tf.nn.rnn_cell.LSTMCell(4, cell_clip=1.0), None),  # its gradient stops where it clips
        (lambda: tf.nn.rnn_cell.BasicLSTMCell(4, activation=tf.nn.relu), None),
        (lambda: tf.nn.rnn_cell.GRUCell(4, activation=tf.nn.relu), None),
    ],
)
def test_cells_with_tanh_run_as_one_fused_op_per_step(build, fused):
    types = _op_types(build)
    blocks = {"LSTMBlockCell", "GRUBlockCell"} & types
    assert blocks == ({fused} if fused else set()), types
    if fused:
        assert "Sigmoid" not in types and "Split" not in types


@pytest.mark.parametrize("peephole, clip", [(False, -1.0), (False, 0.4), (True, -1.0)])
def test_the_compiled_and_numpy_lstm_kernels_agree(peephole, clip):
    from daskflow.kernels.compiled import use_compiled
    from daskflow.ops import rnn_ops

    rng = np.random.default_rng(5)
    values = [rng.standard_normal(s).astype(np.float32) for s in ([6, 3], [6, 4], [6, 4], [7, 16], [16])]
    x, c, h, w, b = (tf.placeholder(tf.float32, v.shape) for v in values)
    peepholes = [tf.constant(rng.standard_normal(4).astype(np.float32)) for _ in range(3)] if peephole else []
    outs = rnn_ops.lstm_block_cell(x, c, h, w, b, *peepholes, forget_bias=0.7, cell_clip=clip)
    loss = tf.reduce_sum(outs[6] * 1.3) + tf.reduce_sum(outs[1] ** 2)
    grads = tf.gradients(loss, [x, c, h, w, b])
    feed = dict(zip((x, c, h, w, b), values))
    with tf.Session() as sess:
        with use_compiled(False):
            plain = sess.run([list(outs), grads], feed)
        with use_compiled(True):
            compiled = sess.run([list(outs), grads], feed)
    for p, q in zip(plain[0] + plain[1], compiled[0] + compiled[1]):
        np.testing.assert_allclose(q, p, rtol=2e-6, atol=2e-6)
    # The forward pass as the cell writes it out: c' = c f + i j, h = tanh(c') o.
    i, cs, f, o, ci, co, hh = plain[0]
    np.testing.assert_allclose(
        cs, np.clip(values[1] * f + i * ci, -clip, clip) if clip > 0 else values[1] * f + i * ci, rtol=1e-6
    )
    np.testing.assert_allclose(hh, np.tanh(cs) * o, rtol=1e-6)


def test_contribs_block_cells_are_lstm_cell_and_gru_cell_in_one_op():
    x = tf.placeholder(tf.float32, [2, 3, 5])
    value = np.random.default_rng(2).standard_normal((2, 3, 5)).astype(np.float32)
    with tf.variable_scope("block"):
        block = tf.contrib.rnn.LSTMBlockCell(4, use_peephole=True, forget_bias=0.5)
        out_block, _ = tf.nn.dynamic_rnn(block, x, dtype=tf.float32)
    with tf.variable_scope("written"):
        cell = tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, forget_bias=0.5)
        out_cell, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    names = [v.name for v in block.weights]
    assert names == [
        f"block/rnn/lstm_cell/{n}:0" for n in ("kernel", "bias", "w_i_diag", "w_f_diag", "w_o_diag")
    ]
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size must be provided"):
        tf.contrib.rnn.GRUBlockCellV2(3, 3)  # TF1's order: num_units, cell_size, reuse, name
    gru = tf.contrib.rnn.GRUBlockCellV2(None, 3)
    with tf.variable_scope("gru"):
        tf.nn.dynamic_rnn(gru, x, dtype=tf.float32)
    assert [v.name.split("gru_cell/")[1] for v in gru.weights] == [
        "gates/kernel:0", "gates/bias:0", "candidate/kernel:0", "candidate/bias:0"
    ]  # fmt: skip
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        by_name = {v.name.split("lstm_cell/")[1]: v for v in cell.weights}
        for v in block.weights:  # the same weights in both cells
            sess.run(by_name[v.name.split("lstm_cell/")[1]].assign(v))
        a, b = sess.run([out_block, out_cell], {x: value})
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_the_compiled_and_numpy_gru_kernels_agree():
    from daskflow.kernels.compiled import use_compiled
    from daskflow.ops import rnn_ops

    rng = np.random.default_rng(6)
    shapes = ([6, 3], [6, 4], [7, 8], [7, 4], [8], [4])
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    inputs = [tf.placeholder(tf.float32, v.shape) for v in values]
    r, u, c, h = rnn_ops.gru_block_cell(*inputs)
    grads = tf.gradients(tf.reduce_sum(h * 1.7), inputs)
    feed = dict(zip(inputs, values))
    with tf.Session() as sess:
        with use_compiled(False):
            plain = sess.run([[r, u, c, h], grads], feed)
        with use_compiled(True):
            compiled = sess.run([[r, u, c, h], grads], feed)
    for p, q in zip(plain[0] + plain[1], compiled[0] + compiled[1]):
        np.testing.assert_allclose(q, p, rtol=2e-6, atol=2e-6)
    x, h_prev = values[:2]  # the new state as GRUCell writes it: u h + (1 - u) c
    np.testing.assert_allclose(plain[0][3], plain[0][1] * h_prev + (1 - plain[0][1]) * plain[0][2], rtol=1e-6)
