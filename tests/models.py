"""Small deterministic models shared by the distributed tests."""

import numpy as np

import daskflow as tf


def digits_batches(steps, batch, seed=0):
    from daskflow.datasets import load_digits

    data = load_digits(one_hot=True, seed=seed)
    return [data.train.next_batch(batch) for _ in range(steps)], data.test


def initial_weights(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((a, b)) * 0.1).astype(np.float32) for a, b in zip(shapes, shapes[1:])]


def mlp_logits(x, weights, biases):
    h = x
    for i, (w, b) in enumerate(zip(weights, biases)):
        h = tf.matmul(h, w) + b
        if i < len(weights) - 1:
            h = tf.nn.relu(h)
    return h


def xent(labels, logits):
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))


def assert_same_training(got_losses, got_final, ref_losses, ref_final):
    """A cluster run gave the embedded run's numbers (float32 tolerance)."""
    np.testing.assert_allclose(got_losses, ref_losses, rtol=1e-5)
    for got, ref in zip(got_final, ref_final, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def ps_linear_graph():
    """A 300x300 variable on ps-0 trained by a square loss on worker-0 (its update on ps-0):
    (graph, w, x, train). A batch of 256 rows is 300 KB, big enough to be posted directly."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.full((300, 300), 0.01, np.float32), name="w")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None, 300])
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return g, w, x, train


# Hypothesis, derandomized and with no example database: CI runs the same examples every time.
HYPOTHESIS_SETTINGS = dict(max_examples=60, deadline=None, derandomize=True, database=None)


def ps_counter(worker=0, failing=False):
    """``(v, fed, bump)``: a counter of 3 on ps-0 that ``bump`` adds twice the fed ``d`` to,
    computed on ``/job:worker/task:<worker>``; ``failing``: fed ints ``n`` reshaped to 3
    instead (a feed of another size fails the step's Reshape)."""
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.zeros([3]), name="counter")
    with tf.device(f"/job:worker/task:{worker}"):
        if failing:
            fed = tf.placeholder(tf.int32, [None], name="n")
            delta = tf.reshape(tf.cast(fed, tf.float32), [3])
        else:
            fed = tf.placeholder(tf.float32, [3], name="d")
            delta = fed * 2.0
    with tf.device("/job:ps/task:0"):
        bump = tf.assign_add(v, delta)
    return v, fed, bump
