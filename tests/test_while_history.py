"""A loop's gradient takes the forward history its ``While`` kept in the same step.

``WhileGrad`` needs each iteration's loop values and the forward values the body's
gradient reads. Once a step has run it, the ``While`` of later steps keeps them, and
the ``WhileGrad`` of the same step takes them instead of running the loop again (TF1
pushes them to stacks). Values must be those of running it again, whatever steps
come in between.
"""

import numpy as np

import daskflow as tf

N = 5


class Calls:
    """A body step counting its calls (a ``py_func`` adding zero)."""

    def __init__(self):
        self.count = 0

    def __call__(self, i):
        self.count += 1
        return np.float32(0.0)


def _model(calls):
    """``h_{i+1} = tanh(h_i * w + x_i)`` over ``N`` steps; loss ``sum(h_N ** 2)``."""
    x = tf.placeholder(tf.float32, [N, 3], name="x")
    w = tf.Variable(np.full(3, 0.5, np.float32), name="w")
    inputs = tf.TensorArray(tf.float32, size=N).unstack(x)

    def body(i, h):
        tick = tf.py_func(calls, [i], tf.float32)
        tick.set_shape([])
        return i + 1, tf.tanh(h * w + inputs.read(i)) + tick

    _, h = tf.while_loop(lambda i, h: i < N, body, [0, tf.zeros([3])])
    loss = tf.reduce_sum(h * h)
    return x, w, loss, tf.gradients(loss, [w])[0]


def _reference(xs, w):
    """The loss and its gradient for ``w``, by hand in float64."""
    hs = [np.zeros(3)]
    for x in xs:
        hs.append(np.tanh(hs[-1] * w + x))
    g, dh = np.zeros(3), 2 * hs[-1]
    for k in range(N, 0, -1):
        da = dh * (1 - hs[k] ** 2)
        g += da * hs[k - 1]
        dh = da * w
    return (hs[-1] ** 2).sum(), g


def test_after_its_first_step_a_gradient_runs_the_loop_once_per_step():
    calls = Calls()
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x, w, loss, grad = _model(calls)
        sess = tf.Session()
        sess.run(w.initializer)
        counts = []
        for _ in range(3):
            xs = rng.standard_normal((N, 3)).astype(np.float32)
            before = calls.count
            got_loss, got_grad = sess.run([loss, grad], {x: xs})
            counts.append(calls.count - before)
            want_loss, want_grad = _reference(xs.astype(np.float64), np.full(3, 0.5))
            np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
            np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5)
    assert counts == [2 * N, N, N]


def test_evaluation_steps_between_training_steps_leave_gradients_right():
    """A step running only the loop leaves a history no gradient takes: the next steps
    must not use it, whatever their inputs."""
    calls = Calls()
    rng = np.random.default_rng(1)
    batches = [rng.standard_normal((N, 3)).astype(np.float32) for _ in range(4)]
    with tf.Graph().as_default():
        x, w, loss, grad = _model(calls)
        train = tf.assign_sub(w, 0.1 * grad)
        sess = tf.Session()
        sess.run(w.initializer)
        w_now = np.full(3, 0.5)
        for k, xs in enumerate(batches):
            sess.run(loss, {x: batches[(k + 1) % 4]})  # evaluation: the loop alone
            got = sess.run(grad, {x: xs})
            np.testing.assert_allclose(got, _reference(xs.astype(np.float64), w_now)[1], rtol=1e-5)
            sess.run(train, {x: xs})
            w_now = w_now - 0.1 * got.astype(np.float64)
        np.testing.assert_allclose(sess.run(w), w_now, rtol=1e-5)


def test_two_gradients_of_one_loop_in_one_step_each_get_their_own_values():
    calls = Calls()
    xs = np.random.default_rng(2).standard_normal((N, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x, w, loss, grad = _model(calls)
        (twice,) = tf.gradients(2.0 * loss, [w])
        sess = tf.Session()
        sess.run(w.initializer)
        for _ in range(3):
            one, two = sess.run([grad, twice], {x: xs})
            np.testing.assert_allclose(one, _reference(xs.astype(np.float64), np.full(3, 0.5))[1], rtol=1e-5)
            np.testing.assert_allclose(two, 2 * one, rtol=1e-6)
