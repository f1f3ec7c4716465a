"""TensorArray writes into a buffer no one else holds, instead of copying it.

A write returns a new TensorArray; in a loop of T writes, copying the buffer
each time costs T^2 rows. A loop body's write takes its buffer over when the
previous iteration made it and nothing else reads it; a ``WhileGrad``'s
forward pass does the same where the gradient program reads the buffer only
for its shape. Every value a step hands out must be the one a copy would give.
"""

import numpy as np

import daskflow as tf
from daskflow.ops import functional_ops

N = 4


def _loop_writing_rows():
    """A loop writing ``x * (i + 1)`` to row ``i`` for ``i < N``; its While op and ``x``."""
    x = tf.placeholder(tf.float32, [3], name="x")
    ta = tf.TensorArray(tf.float32, size=N)

    def body(i, ta):
        return i + 1, ta.write(i, x * tf.cast(i + 1, tf.float32))

    i, out = tf.while_loop(lambda i, ta: i < N, body, [0, ta])
    (loop,) = [op for op in tf.get_default_graph().get_operations() if op.type == "While"]
    return loop, x, out


def _start(loop, x_value):
    """The body and its first iteration's inputs, as the While kernel gives them."""
    sess = tf.Session()
    n = loop.attrs["n"]
    inputs = sess.run(list(loop.inputs), {loop.graph.get_tensor_by_name("x:0"): x_value})
    body = functional_ops._Loop(loop).body
    return body, inputs[:n], inputs[n:]


def test_a_loop_body_writes_in_place_only_into_a_buffer_it_is_handed():
    with tf.Graph().as_default():
        loop, _, _ = _loop_writing_rows()
        body, values, captured = _start(loop, np.ones(3, np.float32))
        first = body.run(np, *values, *captured)
        assert first[1] is not values[1]
        assert 1 in body.owned_outputs  # the buffer: made fresh by the write
        handed = body.run(np, *first, *captured, owned=body.owned_outputs)
        assert handed[1] is first[1]  # written in place
        kept = handed[1].copy()
        again = body.run(np, *handed, *captured)
        assert again[1] is not handed[1]  # not handed over: copied
        np.testing.assert_array_equal(handed[1], kept)
    rows = np.arange(1, N + 1, dtype=np.float32)[:, None] * np.ones(3, np.float32)
    rows[3] = 0
    np.testing.assert_array_equal(again[1], rows)


def test_a_loop_never_writes_into_the_buffer_it_was_given():
    """The first iteration's buffer comes from outside: other readers still see it."""
    rows = np.arange(N * 3, dtype=np.float32).reshape(N, 3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        fed = tf.placeholder(tf.float32, [N, 3])
        before = tf.TensorArray(tf.float32, size=N).unstack(fed)  # made in the step: writable

        def body(i, ta):
            return i + 1, ta.write(i, x * 10.0)

        _, after = tf.while_loop(lambda i, ta: i < N, body, [0, before])
        old, new = tf.Session().run([before.stack(), after.stack()], {x: np.ones(3, np.float32), fed: rows})
    np.testing.assert_array_equal(old, rows)
    np.testing.assert_array_equal(new, np.full((4, 3), 10, np.float32))


def test_a_buffer_read_after_a_later_write_keeps_its_rows():
    """A body reading an earlier version after writing the same row sees the old row."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])

        def body(i, total, ta):
            first = ta.write(i, x)
            second = first.write(i, x * 2.0)
            return i + 1, total + first.read(i), second

        init = [0, tf.zeros([3]), tf.TensorArray(tf.float32, size=N)]
        _, total, ta = tf.while_loop(lambda i, *_: i < N, body, init)
        got, rows = tf.Session().run([total, ta.stack()], {x: np.arange(3, dtype=np.float32)})
    np.testing.assert_array_equal(got, N * np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(rows, np.tile(2 * np.arange(3, dtype=np.float32), (N, 1)))


def test_a_row_read_before_a_write_keeps_its_value_after_it():
    """A read's row is a view of the buffer: a later write must not write into it."""
    rows = np.arange(N * 3, dtype=np.float32).reshape(N, 3)
    with tf.Graph().as_default():
        fed = tf.placeholder(tf.float32, [N, 3])

        def body(i, total, ta):
            row = ta.read(i)
            rewritten = ta.write(i, tf.fill([3], 100.0))
            return i + 1, total + row, rewritten

        init = [0, tf.zeros([3]), tf.TensorArray(tf.float32, size=N).unstack(fed)]
        _, total, _ = tf.while_loop(lambda i, *_: i < N, body, init)
        got = tf.Session().run(total, {fed: rows})
    np.testing.assert_array_equal(got, rows.sum(axis=0))


def test_a_row_a_loop_passes_on_keeps_its_value_through_the_next_write():
    """A row read from the written buffer and handed to the next iteration is a view of
    that buffer: the next iteration must not write into it."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])

        def body(i, total, previous, ta):
            written = ta.write(0, x * tf.cast(i, tf.float32))
            return i + 1, total + previous, written.read(0), written

        init = [0, tf.zeros([3]), tf.zeros([3]), tf.TensorArray(tf.float32, size=1)]
        _, total, _, _ = tf.while_loop(lambda i, *_: i < N, body, init)
        got = tf.Session().run(total, {x: np.ones(3, np.float32)})
    np.testing.assert_array_equal(got, np.full(3, sum(range(N - 1)), np.float32))


def test_writes_outside_a_loop_leave_earlier_versions_as_they_were():
    with tf.Graph().as_default():
        a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
        first = tf.TensorArray(tf.float32, size=2).write(0, a)
        second = first.write(0, b)
        old, new = tf.Session().run([first.read(0), second.read(0)])
    np.testing.assert_array_equal(old, [1.0, 2.0])
    np.testing.assert_array_equal(new, [3.0, 4.0])


def test_rows_and_their_gradient_are_a_copys_when_written_in_place():
    """Values and gradients of a loop writing in place, against the same sums by hand:
    ``loss = sum_i (i + 1) * sum(w * x_i)`` read back from the written rows."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((N, 3)).astype(np.float32)
    w0 = rng.standard_normal(3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xs)
        w = tf.Variable(w0)
        inputs = tf.TensorArray(tf.float32, size=N).unstack(x)

        def body(i, ta):
            return i + 1, ta.write(i, inputs.read(i) * w * tf.cast(i + 1, tf.float32))

        _, out = tf.while_loop(lambda i, ta: i < N, body, [0, tf.TensorArray(tf.float32, size=N)])
        rows = out.stack()
        (grad,) = tf.gradients(tf.reduce_sum(rows), [w])
        sess = tf.Session()
        sess.run(w.initializer)
        got_rows, got_grad = sess.run([rows, grad])
    scale = np.arange(1, N + 1, dtype=np.float32)[:, None]
    np.testing.assert_allclose(got_rows, xs * w0 * scale, rtol=1e-6)
    np.testing.assert_allclose(got_grad, (xs * scale).sum(axis=0), rtol=1e-6)


def test_a_gradient_reading_the_buffers_values_gets_each_iterations_own():
    """Where the gradient program reads a loop buffer's values (here through daskflow's
    ``flow``, which is the buffer), ``WhileGrad``'s forward pass must not write into the
    buffers its history keeps. With row ``j`` equal to ``r_j = x_j * w * (j + 1)`` and
    ``total = sum_i sum(buffer_i * u)`` (``buffer_i``: rows ``j < i`` written), row ``j``
    of ``d total / d u`` is ``(N - 1 - j) r_j`` and ``d total / d w`` is
    ``sum_j (N - 1 - j) (j + 1) u_j x_j``."""
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((N, 3)).astype(np.float32)
    w0 = rng.standard_normal(3).astype(np.float32)
    u0 = rng.standard_normal((N, 3)).astype(np.float32)
    with tf.Graph().as_default():
        w, u = tf.Variable(w0), tf.Variable(u0)
        inputs = tf.TensorArray(tf.float32, size=N).unstack(tf.constant(xs))

        def body(i, total, ta):
            seen = tf.reduce_sum(ta.flow * u)  # the rows written so far
            return i + 1, total + seen, ta.write(i, inputs.read(i) * w * tf.cast(i + 1, tf.float32))

        init = [0, tf.constant(0.0), tf.TensorArray(tf.float32, size=N, element_shape=[3])]
        _, total, _ = tf.while_loop(lambda i, *_: i < N, body, init)
        grads = tf.gradients(total, [u, w])
        sess = tf.Session()
        sess.run([w.initializer, u.initializer])
        got_u, got_w = sess.run(grads)
    j = np.arange(N)[:, None]
    later = N - 1 - j
    np.testing.assert_allclose(got_u, later * xs * w0 * (j + 1), rtol=1e-5)
    np.testing.assert_allclose(got_w, (later * (j + 1) * u0 * xs).sum(axis=0), rtol=1e-5)


def test_a_python_function_in_the_condition_keeps_the_buffer_it_was_given():
    """The condition runs before each iteration: a value it may keep (a ``py_func``'s
    argument) is not handed to the body's write."""
    seen = []

    def keep(buffer, i):
        seen.append(buffer)
        return np.bool_(i < 3)

    with tf.Graph().as_default():

        def cond(i, ta):
            going = tf.py_func(keep, [ta.flow, i], tf.bool)
            going.set_shape([])
            return going

        def body(i, ta):
            return i + 1, ta.write(i, tf.fill([2], tf.cast(i + 1, tf.float32)))

        init = [0, tf.TensorArray(tf.float32, size=3, element_shape=[2])]
        _, out = tf.while_loop(cond, body, init)
        tf.Session().run(out.stack())
    rows = np.repeat(np.arange(1.0, 4.0)[:, None], 2, axis=1)  # row j: j + 1
    before = [np.where(np.arange(3)[:, None] < k, rows, 0) for k in range(4)]  # rows j < k written
    assert len(seen) == 4
    for got, want in zip(seen, before):
        np.testing.assert_array_equal(got, want)
