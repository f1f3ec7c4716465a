"""Adam's update written into the variables' own arrays (embedded sessions).

TF1's ``ApplyAdam`` updates its variable, ``m`` and ``v`` in place. An embedded
session does the same for variables of ``IN_PLACE_MIN`` elements or more where
nothing else in the step reads the old value after the update; every value a
step hands out must still be the one TF1 semantics give.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.kernels.compiled import use_compiled
from daskflow.ops import training_ops

SHAPE = (300, 256)  # 76,800 elements: above IN_PLACE_MIN
LR, B1, B2, EPS = 0.01, 0.9, 0.999, 1e-8


def test_the_variable_is_large_enough_to_be_updated_in_place():
    assert np.prod(SHAPE) >= training_ops.IN_PLACE_MIN


def _model():
    """``loss = sum(W * c)``: the gradient of ``W`` is ``c`` at every step."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(SHAPE).astype(np.float32)
    c = rng.standard_normal(SHAPE).astype(np.float32)
    w = tf.Variable(w0, name="W")
    loss = tf.reduce_sum(w * tf.constant(c))
    return w, loss, w0, c


def _adam_reference(w0, g, steps):
    """TF1's Adam formula in float64, ``steps`` steps with the constant gradient ``g``."""
    w, m, v = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape)
    g = g.astype(np.float64)
    for t in range(1, steps + 1):
        lr_t = LR * np.sqrt(1 - B2**t) / (1 - B1**t)
        m = B1 * m + (1 - B1) * g
        v = B2 * v + (1 - B2) * g * g
        w = w - lr_t * m / (np.sqrt(v) + EPS)
    return w


def _adam(loss):
    return tf.train.AdamOptimizer(LR, B1, B2, EPS).minimize(loss)


def test_adam_updates_a_large_variable_in_its_own_array_and_follows_tf1s_formula():
    w, loss, w0, c = _model()
    train = _adam(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        held = sess.runtime.variables["W"]  # the array the session keeps for W
        for _ in range(2):
            sess.run(train)
        assert sess.runtime.variables["W"] is held  # written in place, not replaced
        np.testing.assert_allclose(sess.run(w), _adam_reference(w0, c, 3), rtol=1e-5, atol=1e-6)


def test_an_array_fetched_before_a_step_keeps_its_values():
    w, loss, w0, _ = _model()
    train = _adam(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        before = sess.run(w)
        kept = before.copy()
        sess.run(train)
        np.testing.assert_array_equal(before, kept)
        assert not np.array_equal(sess.run(w), kept)


@pytest.mark.parametrize("read", ["variable", "view", "product"])
def test_a_value_read_in_the_same_run_as_the_update_is_the_old_one(read):
    w, loss, w0, c = _model()
    train = _adam(loss)
    fetched = {"variable": w, "view": tf.reshape(w, [-1]), "product": w * 1.0}[read]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        old, _ = sess.run([fetched, train])
        np.testing.assert_array_equal(np.reshape(old, SHAPE), w0)
        np.testing.assert_allclose(sess.run(w), _adam_reference(w0, c, 1), rtol=1e-5, atol=1e-6)


def test_a_read_ordered_between_the_update_and_its_assignment_sees_the_old_value():
    rng = np.random.default_rng(1)
    w0, g = (rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2))
    w = tf.Variable(w0, name="W")
    m, v = (tf.Variable(np.zeros(SHAPE, np.float32), name=n) for n in ("m", "v"))
    new_w, new_m, new_v = training_ops.adam_update(w, m, v, tf.constant(g), B1, B2, LR, EPS)
    with tf.control_dependencies([new_w]):
        snapshot = w * 1.0  # after the update's kernel, before the assignment
    with tf.control_dependencies([snapshot]):
        assigned = tf.group(tf.assign(w, new_w), tf.assign(m, new_m), tf.assign(v, new_v))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        seen, _ = sess.run([snapshot, assigned])
        np.testing.assert_array_equal(seen, w0)
        assert not np.array_equal(sess.run(w), w0)


def test_a_bad_feed_leaves_an_in_place_variable_untouched():
    x = tf.placeholder(tf.float32, [None, SHAPE[0]], name="x")
    w = tf.Variable(np.ones(SHAPE, np.float32), name="W")
    train = _adam(tf.reduce_sum(tf.matmul(x, w)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: np.ones((2, SHAPE[0]), np.float32)})
        before = sess.run(w)
        with pytest.raises(ValueError, match="x"):
            sess.run(train, {x: np.ones((2, 7), np.float32)})
        np.testing.assert_array_equal(sess.run(w), before)


@pytest.mark.parametrize("compiled", [True, False], ids=["loop", "numpy"])
def test_the_kernel_in_place_computes_what_it_computes_into_new_arrays(compiled):
    rng = np.random.default_rng(2)
    n = training_ops.IN_PLACE_MIN + 5
    var, m, grad = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    v = rng.random(n, dtype=np.float32)
    with use_compiled(compiled):
        expected = training_ops._adam_kernel(np, var, m, v, grad, B1, B2, LR, EPS)
        held = [a.copy() for a in (var, m, v)]
        for a in held:
            a.flags.writeable = False  # as the session keeps them
        got = training_ops._adam_kernel(np, *held, grad, B1, B2, LR, EPS, in_place=True)
    assert all(g is h for g, h in zip(got, held))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_the_kernel_leaves_a_view_alone_and_returns_new_arrays():
    n = training_ops.IN_PLACE_MIN
    base = np.ones(2 * n, np.float32)
    var, m, v, grad = base[:n], np.zeros(n, np.float32), np.zeros(n, np.float32), np.ones(n, np.float32)
    got = training_ops._adam_kernel(np, var, m, v, grad, B1, B2, LR, EPS, in_place=True)
    assert got[0] is not var
    np.testing.assert_array_equal(base, 1.0)


def test_a_step_failing_after_the_update_leaves_every_variable_as_it_was():
    w, loss, w0, _ = _model()
    train = _adam(loss)
    flag = tf.placeholder(tf.bool, [], name="flag")
    with tf.control_dependencies([train]):
        check = tf.Assert(flag, [flag], name="after_train")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(check, {flag: True})
        names = [v.op.name for v in tf.global_variables()]
        before = dict(zip(names, sess.run(tf.global_variables())))
        with pytest.raises(tf.errors.InvalidArgumentError, match="after_train"):
            sess.run(check, {flag: False})
        for name, value in zip(names, sess.run(tf.global_variables())):
            np.testing.assert_array_equal(value, before[name], err_msg=name)


def test_a_lowered_step_gives_the_same_values_each_time_it_runs():
    import dask

    w, loss, w0, c = _model()
    train = _adam(loss)
    new_w = tf.identity(w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        graph = sess.lower([train])
        keys = [k for k in graph if not k.startswith(("feed-", "var-"))]
        first = [np.array(a, copy=True) for a in _arrays(dask.get(graph, keys))]
        again = _arrays(dask.get(graph, keys))
        assert first and len(first) == len(again)
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(sess.run(new_w), w0)  # the session's own W untouched


def _arrays(results):
    """The arrays among the partitions' results (each a tuple of values)."""
    return [a for r in results for a in (r if isinstance(r, tuple) else (r,)) if isinstance(a, np.ndarray)]
