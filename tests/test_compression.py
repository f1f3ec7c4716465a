"""Compressed transfers: the encodings themselves, and training on a cluster with them."""

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from daskflow.kernels import codecs
from daskflow.kernels.compiled import use_compiled
from tests.clusters import module_cluster

# -- the encodings ------------------------------------------------------------------------


def test_int8_error_feedback_sends_what_rounding_alone_would_lose():
    # One large value per bucket makes the step coarse (1/127); the small values sit
    # below half a step, so rounding alone sends them as 0, step after step.
    g = np.full(1000, 0.003, np.float32)
    g[:: codecs.BUCKET] = 1.0
    steps = 200
    residual = np.zeros(g.size, np.float32)
    fed_back = sum(
        codecs.decode(codecs.encode("int8", g, residual), g.shape, np.float32) for _ in range(steps)
    )
    alone = sum(
        codecs.decode(codecs.encode("int8", g, np.zeros(g.size, np.float32)), g.shape, np.float32)
        for _ in range(steps)
    )
    true_sum = steps * 0.003
    assert np.all(alone[1:10] == 0)  # the loss error feedback exists for
    # Within one step's quantization (the residual left on the sender) of the true sum.
    np.testing.assert_allclose(fed_back[1:10], true_sum, atol=0.5 / 127 + 1e-4)
    np.testing.assert_allclose(fed_back[1:10], true_sum - residual[1:10], rtol=1e-5)


def test_int8_applied_updates_sum_to_the_true_gradients_within_one_step():
    rng = np.random.default_rng(1)
    residual = np.zeros(3000, np.float32)
    sent = np.zeros(3000)
    true = np.zeros(3000)
    for _ in range(300):
        g = (rng.standard_normal(3000) * rng.choice([1e-3, 1.0], 3000)).astype(np.float32)
        true += g
        sent += codecs.decode(codecs.encode("int8", g, residual), g.shape, np.float32)
    # The difference is what is still on the sender: at most half a step of the last encoding.
    assert np.max(np.abs(true - sent)) <= 0.5 * 5.0 / 127
    np.testing.assert_allclose(true - sent, residual, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [7, 512, 1000, 70_000])
def test_the_int8_loop_and_numpy_agree_bit_for_bit(dtype, size):
    rng = np.random.default_rng(size)
    g = rng.standard_normal(size).astype(dtype)
    r1 = (rng.standard_normal(size) * 0.01).astype(dtype)
    r2 = r1.copy()
    fast = codecs.encode("int8", g, r1)
    with use_compiled(False):
        slow = codecs.encode("int8", g, r2)
        slow_back = codecs.decode(slow, g.shape, dtype)
    assert fast.dtype == np.int8 and np.array_equal(fast, slow) and np.array_equal(r1, r2)
    assert np.array_equal(codecs.decode(fast, g.shape, dtype), slow_back)
    assert fast.nbytes == codecs.encoded_size("int8", size)


def _every_rounding_case():
    """float32 values that test a conversion to half precision: every finite half, the
    midpoints between neighbouring halves (ties round to even) and the floats on either
    side of them, subnormals, zeros of both signs and random values, up to ±65504."""
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    exact = halves[np.isfinite(halves)].astype(np.float32)
    magnitudes = np.unique(np.abs(exact)).astype(np.float64)
    mid = ((magnitudes[:-1] + magnitudes[1:]) / 2).astype(np.float32)
    rng = np.random.default_rng(0)
    cases = [exact, mid, -mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(1e9))]
    cases += [rng.uniform(-65504, 65504, 200_000).astype(np.float32), np.float32([0.0, -0.0, 1e-45, -3e-8])]
    return np.concatenate(cases)


def test_the_fp16_loops_and_numpy_agree_bit_for_bit():
    values = _every_rounding_case()
    fast = codecs.encode("fp16", values)
    with use_compiled(False):
        slow = codecs.encode("fp16", values)
    assert fast.dtype == np.float16 and np.array_equal(fast.view(np.uint16), slow.view(np.uint16))
    every_half = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    back = codecs.decode(every_half, every_half.shape, np.float32)
    with use_compiled(False):
        slow_back = codecs.decode(every_half, every_half.shape, np.float32)
    same = back.view(np.uint32) == slow_back.view(np.uint32)
    assert np.all(same | (np.isnan(back) & np.isnan(slow_back)))  # NaN payloads aside
    for beyond in (np.float32(65504.5), np.float32(np.inf), np.float32(np.nan)):
        assert codecs.encode("fp16", np.append(values, beyond)).dtype == np.float32  # sent as is


def test_int8_steps_below_the_smallest_normal_float_keep_the_residual_finite():
    # A bucket whose largest value is tiny has a subnormal step, whose reciprocal is inf.
    g = np.full(300, 1e-39, np.float32)
    g[::7] = 3e-39
    residual = np.zeros(g.size, np.float32)
    for _ in range(3):
        sent = codecs.encode("int8", g, residual)
        assert sent.dtype == np.int8 and np.all(np.isfinite(residual))
    np.testing.assert_allclose(codecs.decode(sent, g.shape, np.float32), g, atol=3e-39 / 127)


@pytest.mark.parametrize("codec", ["int8", "fp16", "bf16"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_tensor_no_encoding_can_hold_goes_as_it_is(codec, bad):
    g = np.ones(100, np.float32)
    g[17] = bad
    residual = np.full(100, 0.25, np.float32)
    sent = codecs.encode(codec, g, residual)
    assert sent is g  # a NaN or Inf arrives as it was, for check_numerics to see
    assert np.all(residual == 0.25)  # and the residual waits for the next gradient


def test_fp16_never_makes_a_value_infinite():
    g = np.array([1.0, 70000.0], np.float32)  # beyond half precision's 65504
    assert codecs.encode("fp16", g) is g
    small = np.array([1.0, -65504.0, 0.1], np.float32)
    sent = codecs.encode("fp16", small)
    assert sent.dtype == np.float16 and sent.nbytes == small.nbytes // 2
    np.testing.assert_allclose(codecs.decode(sent, small.shape, np.float32), small, rtol=1e-3)


def test_bf16_truncates_as_the_whitepaper_says():
    # pi is 0x40490FDB in float32; its top 16 bits, 0x4049, are 3.140625.
    x = np.array([np.pi, 1.0, 1.0 + 2.0**-10, -2.5], np.float32)
    sent = codecs.encode("bf16", x)
    assert sent.dtype == np.uint16 and list(sent) == [0x4049, 0x3F80, 0x3F80, 0xC020]
    assert list(codecs.decode(sent, x.shape, np.float32)) == [3.140625, 1.0, 1.0, -2.5]


@pytest.mark.parametrize(
    ("field", "value"), [("gradient_compression", "int4"), ("variable_compression", "int8")]
)
def test_an_unknown_encoding_is_refused_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        tf.ConfigProto(**{field: value})


# -- on a cluster --------------------------------------------------------------------------


cluster = module_cluster(ps=1, workers=2, processes=False)


def _train(target, config, steps=40, sync=True, poison=False):
    """A data-parallel MLP on digits; returns (test accuracy, metrics, variables)."""
    tf.reset_default_graph()
    data = load_digits(one_hot=True)
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    rng = np.random.default_rng(0)
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w1 = tf.Variable((rng.standard_normal((64, 128)) * 0.1).astype(np.float32), name="w1")
        w2 = tf.Variable((rng.standard_normal((128, 10)) * 0.1).astype(np.float32), name="w2")
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        opt = tf.train.GradientDescentOptimizer(0.3)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=2)
        grads = opt.compute_gradients(loss)
        if not sync:  # checked on the ps, after each replica's gradient has travelled
            grads = [(_checked(g, v), v) for g, v in grads]
        train = opt.apply_gradients(grads, global_step=tf.train.get_or_create_global_step())
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32))
    images, labels = data.train.images, data.train.labels
    with tf.Session(target, config=config) as sess:
        sess.run(tf.global_variables_initializer())
        if sync:
            sess.run(opt.get_init_tokens_op())
        for i in range(steps):
            rows = slice((i * 128) % 1280, (i * 128) % 1280 + 128)
            sess.run(train, {x: images[rows], y: labels[rows]})
        if target:  # a traced step runs the encoders and decoders too
            options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            metadata = tf.RunMetadata()
            sess.run(train, {x: images[:128], y: labels[:128]}, options=options, run_metadata=metadata)
            assert any(d.node_stats for d in metadata.step_stats.dev_stats)
        if poison:
            before = sess.run([w1, w2])
            bad = images[:128].copy()
            bad[3, 5] = np.nan
            with pytest.raises(tf.errors.InvalidArgumentError, match="gradient of w1"):
                sess.run(train, {x: bad, y: labels[:128]})
            after = sess.run([w1, w2])
            assert all(np.array_equal(a, b) for a, b in zip(before, after))
        value = sess.run(accuracy, {x: data.test.images, y: data.test.labels})
        return value, sess.step_metrics() if target else None, sess.run([w1, w2])


def _checked(gradient, variable):
    with tf.device(variable.device):
        return tf.check_numerics(gradient, f"gradient of {variable.op.name}")


def _bytes(metrics, toward):
    """Bytes per training step sent to workers whose name starts with ``toward``."""
    steps = [m for m in metrics if m["bytes_by_pair"]]
    total = sum(n for m in steps for (_, to), n in m["bytes_by_pair"].items() if to.startswith(toward))
    return total / len(steps)


def test_compressed_gradients_cut_the_bytes_to_the_ps_and_still_train(cluster):
    address = cluster.scheduler_address
    plain_acc, plain, _ = _train(address, tf.ConfigProto())
    fp16_acc, fp16, _ = _train(address, tf.ConfigProto(gradient_compression="fp16"))
    int8_acc, int8, _ = _train(address, tf.ConfigProto(gradient_compression="int8"))
    assert _bytes(plain, "ps") / _bytes(fp16, "ps") >= 1.9
    assert _bytes(plain, "ps") / _bytes(int8, "ps") >= 3.7
    assert plain_acc > 0.85
    assert abs(fp16_acc - plain_acc) < 0.03 and abs(int8_acc - plain_acc) < 0.03


@pytest.mark.parametrize("codec", ["fp16", "bf16"])
def test_compressed_variable_pushes_halve_the_bytes_to_the_workers(cluster, codec):
    address = cluster.scheduler_address
    _, plain, _ = _train(address, tf.ConfigProto(), sync=False)
    # The accuracy is computed by another plan, on worker-0: it decodes what the training pushed.
    acc, half, rounded = _train(address, tf.ConfigProto(variable_compression=codec), sync=False)
    assert _bytes(half, "worker") <= 0.55 * _bytes(plain, "worker")
    assert acc > 0.85
    # The ps keeps exact float32 values: only the copies the workers read are rounded.
    assert rounded[0].dtype == np.float32
    assert not np.array_equal(rounded[0], rounded[0].astype(np.float16).astype(np.float32))


@pytest.mark.parametrize("codec", ["int8", "fp16"])
def test_a_nan_gradient_is_still_caught_with_compression_on(cluster, codec):
    config = tf.ConfigProto(gradient_compression=codec)
    _train(cluster.scheduler_address, config, steps=2, sync=False, poison=True)


@pytest.mark.filterwarnings("ignore:devices")
def test_an_embedded_session_sends_nothing_and_so_compresses_nothing():
    _, _, exact = _train("", tf.ConfigProto(), steps=5, sync=False)
    _, _, same = _train("", tf.ConfigProto(gradient_compression="int8"), steps=5, sync=False)
    assert all(np.array_equal(a, b) for a, b in zip(exact, same))
