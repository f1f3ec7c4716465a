"""Plan-time graph rewrites: each pass does its work, is switched off by TF1's own
options, and never changes a result (bit for bit against every pass off)."""

import numpy as np
import pytest

import daskflow as tf

RNG = np.random.default_rng(3)


def config(cse=True, arithmetic=True, remapping=True, folding=True):
    level = tf.OptimizerOptions.L1 if cse and folding else tf.OptimizerOptions.L0
    optimizer = tf.OptimizerOptions(
        opt_level=level, do_common_subexpression_elimination=cse, do_constant_folding=folding
    )
    on_off = {True: tf.RewriterConfig.DEFAULT, False: tf.RewriterConfig.OFF}
    rewrites = tf.RewriterConfig(arithmetic_optimization=on_off[arithmetic], remapping=on_off[remapping])
    return tf.ConfigProto(
        graph_options=tf.GraphOptions(optimizer_options=optimizer, rewrite_options=rewrites)
    )


ALL_OFF = dict(cse=False, arithmetic=False, remapping=False, folding=False)


def traced(sess, fetches, feeds):
    """``(results, names of the ops the step ran)``."""
    meta = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    out = sess.run(fetches, feeds, options=options, run_metadata=meta)
    return out, {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}


def test_common_subexpressions_run_once():
    x = tf.placeholder(tf.float32, [None, 4])
    a = tf.reduce_sum(tf.exp(x) * 2.0, axis=1)
    b = tf.reduce_sum(tf.exp(x) * 2.0, axis=1)
    total = a + b
    feeds = {x: RNG.standard_normal((3, 4)).astype(np.float32)}
    with tf.Session() as sess:
        merged, ran = traced(sess, total, feeds)
    assert b.op.name not in ran and b.op.inputs[0].op.name not in ran
    with tf.Session(config=config(cse=False)) as sess:
        separate, ran_all = traced(sess, total, feeds)
    assert b.op.name in ran_all
    np.testing.assert_array_equal(merged, separate)


def test_stateful_ops_are_never_merged():
    a = tf.random_uniform([1000])
    b = tf.random_uniform([1000])
    with tf.Session() as sess:
        va, vb = sess.run([a + 0, b + 0])
    assert not np.array_equal(va, vb)  # two ops draw two sequences, as in TF1


@pytest.mark.parametrize(
    "build",
    [
        lambda x: x * 1.0,
        lambda x: 1.0 * x,
        lambda x: x / 1.0,
        lambda x: x - 0.0,
        lambda x: tf.transpose(tf.transpose(x, [1, 0]), [1, 0]),
        lambda x: tf.negative(tf.negative(x)),
        lambda x: tf.reshape(x, [-1, 3]),
    ],
    ids=["x*1", "1*x", "x/1", "x-0", "transpose-twice", "neg-neg", "reshape-to-its-shape"],
)
def test_exact_identities_drop_the_op(build):
    x = tf.placeholder(tf.float32, [None, 3])
    y = build(x)
    out = tf.exp(y)  # y is read, not fetched: fetched tensors are always computed
    value = np.array([[-0.0, np.nan, np.inf], [1.5, -2.0, 0.0]], np.float32)
    with tf.Session() as sess:
        got, ran = traced(sess, out, {x: value})
    assert y.op.name not in ran
    with tf.Session(config=config(arithmetic=False, remapping=False)) as sess:  # no chain fused either
        plain, ran_all = traced(sess, out, {x: value})
    assert y.op.name in ran_all
    np.testing.assert_array_equal(got.view(np.uint32), plain.view(np.uint32))


def test_identities_that_would_change_a_result_are_left_alone():
    x = tf.placeholder(tf.float32, [None, 3])
    n = tf.placeholder(tf.int32, [None])
    cases = {
        "x+0 turns -0 into +0": x + 0.0,
        "x-(-0) likewise": x - np.float32(-0.0),
        "ones of more axes broadcast": x * np.ones((2, 1, 1), np.float32),
        "int/1 is a float": n / 1,
        "ones of another dtype": tf.cast(x, tf.float64) * np.float64(1.0),
    }
    outs = {k: tf.identity(v) * 1 for k, v in cases.items()}  # read through an op, as above
    feeds = {x: np.array([[-0.0, 1.0, 2.0]], np.float32), n: np.array([3, 4], np.int32)}
    with tf.Session() as sess:
        got = sess.run(outs, feeds)
    with tf.Session(
        config=tf.ConfigProto(
            graph_options=tf.GraphOptions(
                rewrite_options=tf.RewriterConfig(arithmetic_optimization=tf.RewriterConfig.OFF)
            )
        )
    ) as sess:
        want = sess.run(outs, feeds)
    for key in cases:
        assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, key
        np.testing.assert_array_equal(np.signbit(got[key]), np.signbit(want[key]), err_msg=key)
    assert np.signbit(got["x+0 turns -0 into +0"][0, 0]) == np.False_
    assert got["int/1 is a float"].dtype == np.float64


def dense_model(activation):
    """A two-layer MLP on the digits' shape, trained with Adam; returns (train, loss, feeds)."""
    tf.set_random_seed(5)
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    h = tf.layers.dense(x, 32, activation=activation)
    logits = tf.layers.dense(h, 10)
    loss = tf.losses.softmax_cross_entropy(y, logits)
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((16, 64)).astype(np.float32)
    ys = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 16)]
    return train, loss, {x: xs, y: ys}, h


def test_bias_add_and_relu_run_as_one_kernel_in_training():
    graph = tf.Graph()
    with graph.as_default():
        train, loss, feeds, h = dense_model(tf.nn.relu)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        _, ran = traced(sess, [train, loss], feeds)
    pre_activation = h.op.inputs[0].op
    assert pre_activation.type == "Add" and h.op.type == "Relu"
    assert pre_activation.name not in ran and h.op.name in ran


def trained_variables(cfg, steps=5):
    graph = tf.Graph()
    with graph.as_default():
        train, loss, feeds, _ = dense_model(tf.nn.relu)
        with tf.Session(config=cfg) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss], feeds)[1] for _ in range(steps)]
            return losses, sess.run(tf.trainable_variables())


def test_rewrites_never_change_training_bit_for_bit():
    losses_on, vars_on = trained_variables(None)
    losses_off, vars_off = trained_variables(config(**ALL_OFF))
    assert losses_on == losses_off
    for a, b in zip(vars_on, vars_off):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


def test_tf1_in_place_style_switches_a_pass_off():
    cfg = tf.ConfigProto()
    cfg.graph_options.rewrite_options.remapping = tf.RewriterConfig.OFF
    x = tf.placeholder(tf.float32, [None, 3])
    z = x + np.ones(3, np.float32)
    out = tf.nn.relu(z)
    with tf.Session(config=cfg) as sess:
        _, ran = traced(sess, out, {x: np.ones((2, 3), np.float32)})
    assert z.op.name in ran


@pytest.mark.parametrize(
    ("message", "build"),
    [
        ("GraphOptions", lambda: tf.GraphOptions(rewrite_option=None)),
        ("RewriterConfig", lambda: tf.RewriterConfig(arithmetic=tf.RewriterConfig.OFF)),
        ("OptimizerOptions", lambda: tf.OptimizerOptions(do_cse=True)),
    ],
)
def test_unknown_fields_are_refused_by_name(message, build):
    with pytest.raises(ValueError, match=rf'{message} has no "\w+" field'):
        build()


def test_fetched_tensors_are_computed_as_written():
    x = tf.placeholder(tf.float32, [2])
    y = x * 1.0
    with tf.Session() as sess:
        got, ran = traced(sess, y, {x: np.array([1.0, -0.0], np.float32)})
    assert y.op.name in ran
    assert np.signbit(got[1])


def test_a_reshape_of_a_reshape_reshapes_the_first_input():
    x = tf.placeholder(tf.float32, [None, 6])
    inner = tf.reshape(x, [-1, 2, 3])
    outer = tf.reshape(tf.reshape(inner, [-1, 3, 2]), [-1, 2, 3, 1])
    out = tf.exp(outer)
    value = RNG.standard_normal((4, 6)).astype(np.float32)
    with tf.Session() as sess:
        got, ran = traced(sess, out, {x: value})
    assert inner.op.name not in ran and outer.op.inputs[0].op.name not in ran and outer.op.name in ran
    with tf.Session(config=config(arithmetic=False)) as sess:
        plain, ran_all = traced(sess, out, {x: value})
    assert inner.op.name in ran_all
    np.testing.assert_array_equal(got, plain)
    assert got.shape == (4, 2, 3, 1)


# -- elementwise chains -------------------------------------------------------------------------------


def _chain_values(rows):
    x = RNG.standard_normal((rows, 256)).astype(np.float32)
    x[0, :4] = [np.nan, np.inf, -np.inf, -0.0]  # special values go through the chain as through the ops
    return x, RNG.standard_normal(256).astype(np.float32)


@pytest.mark.parametrize("rows", [2, 512], ids=["small", "large-in-place"])
def test_an_elementwise_chain_runs_as_one_kernel_bit_for_bit(rows):
    x = tf.placeholder(tf.float32, [None, 256])
    w = tf.placeholder(tf.float32, [256])
    z = tf.tanh(x * w + 1.0)
    out = tf.square(z - 0.5) / w  # a row vector and scalars broadcast along the chain
    x_value, w_value = _chain_values(rows)
    kept = x_value.copy()
    with tf.Session() as sess:
        got, ran = traced(sess, out, {x: x_value, w: w_value})
    inner = {z.op.name, z.op.inputs[0].op.name, out.op.inputs[0].op.name}
    assert out.op.name in ran and not inner & ran
    np.testing.assert_array_equal(x_value, kept)  # a fed value is never written into
    with tf.Session(config=config(remapping=False)) as sess:
        plain, ran_all = traced(sess, out, {x: x_value, w: w_value})
    assert inner <= ran_all
    np.testing.assert_array_equal(got.view(np.uint32), plain.view(np.uint32))


def test_a_value_read_elsewhere_or_fetched_ends_the_chain():
    x = tf.placeholder(tf.float32, [None, 256])
    shared = tf.exp(x * 0.5)  # read by two ops: computed as written
    a, b = tf.tanh(shared) - 1.0, shared * 2.0
    fetched = tf.sqrt(tf.abs(x))  # fetched: computed as written
    last = fetched + 3.0
    x_value, _ = _chain_values(64)
    with tf.Session() as sess:
        values, ran = traced(sess, [a, b, fetched, last], {x: x_value})
    assert {shared.op.name, fetched.op.name, a.op.name, b.op.name, last.op.name} <= ran
    assert a.op.inputs[0].op.name not in ran  # the tanh ran inside a's kernel
    with tf.Session(config=config(remapping=False)) as sess:
        plain = sess.run([a, b, fetched, last], {x: x_value})
    for got, want in zip(values, plain):
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_integer_chains_and_ops_on_two_devices_are_left_alone():
    i = tf.placeholder(tf.int32, [None])
    ints = (i * 3 + 1) - i
    x = tf.placeholder(tf.float32, [None])
    with tf.device("/cpu:0"):
        y = tf.exp(x)
    z = tf.tanh(y)  # another device string than the exp's: two kernels
    with tf.Session() as sess:
        (got, z_value), ran = traced(
            sess, [ints, z], {i: np.arange(5, dtype=np.int32), x: np.ones(3, np.float32)}
        )
    assert {ints.op.inputs[0].op.name, y.op.name} <= ran
    np.testing.assert_array_equal(got, np.arange(5) * 3 + 1 - np.arange(5))
    np.testing.assert_array_equal(z_value, np.tanh(np.exp(np.ones(3, np.float32))))
