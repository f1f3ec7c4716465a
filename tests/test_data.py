"""tf.data: datasets read through iterator ops, compared against plain numpy."""

from __future__ import annotations

import cloudpickle
import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits

pytestmark = pytest.mark.usefixtures("fresh_graph")


def drain(tensors, sess=None, limit=10_000):
    """Every value ``tensors`` take until the iterator is exhausted."""
    own = sess is None
    sess = sess or tf.Session()
    out = []
    try:
        for _ in range(limit):
            out.append(sess.run(tensors))
    except tf.errors.OutOfRangeError:
        return out
    finally:
        if own:
            sess.close()
    raise AssertionError(f"iterator not exhausted after {limit} steps")


def values(dataset):
    return drain(dataset.make_one_shot_iterator().get_next())


def ints(dataset):
    return [int(v) for v in values(dataset)]


# -- sources -----------------------------------------------------------------------------------


def test_slices_in_order_with_dtypes_and_shapes():
    X = np.arange(12.0).reshape(6, 2)  # float64 stays float64, as in TF
    Y = np.arange(6)  # int64
    x, y = tf.data.Dataset.from_tensor_slices((X, Y)).make_one_shot_iterator().get_next()
    assert (x.dtype, y.dtype) == (tf.float64, tf.int64)
    assert (x.shape.as_list(), y.shape.as_list()) == ([2], [])
    got = drain([x, y])
    assert len(got) == 6
    for i, (xv, yv) in enumerate(got):
        np.testing.assert_array_equal(xv, X[i])
        assert yv == Y[i] and yv.dtype == np.int64 and xv.dtype == np.float64


def test_python_values_get_tf_dtypes():
    ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [1, 2], [True, False]))
    assert ds.output_types == (tf.float32, tf.int32, tf.bool)
    assert [v[0].dtype for v in values(ds)] == [np.float32, np.float32]


def test_mismatched_lengths_name_the_sizes():
    with pytest.raises(ValueError, match=r"sizes \[5, 4\]"):
        tf.data.Dataset.from_tensor_slices((np.zeros(5), np.zeros(4)))
    with pytest.raises(ValueError, match="scalars"):
        tf.data.Dataset.from_tensor_slices(np.float32(1.0))


def test_constant_tensors_are_read_and_placeholders_need_an_initializable_iterator():
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([1.0, 2.0]))
    assert ds.output_types == tf.float32 and [float(v) for v in values(ds)] == [1.0, 2.0]
    x = tf.placeholder(tf.float32, [None], name="xs")
    with pytest.raises(
        ValueError, match=r"Cannot capture a placeholder \(name:xs, type:Placeholder\) by value"
    ):
        tf.data.Dataset.from_tensor_slices(x).make_one_shot_iterator()


def test_dict_structure():
    ds = tf.data.Dataset.from_tensor_slices({"y": np.arange(3), "x": np.ones((3, 2), np.float32)})
    assert ds.output_types == {"y": tf.int64, "x": tf.float32}
    assert ds.output_shapes == {"y": tf.TensorShape([]), "x": tf.TensorShape([2])}
    nxt = ds.make_one_shot_iterator().get_next()
    assert set(nxt) == {"x", "y"} and nxt["x"].shape.as_list() == [2]
    got = drain(nxt)
    assert [int(e["y"]) for e in got] == [0, 1, 2]
    np.testing.assert_array_equal(got[1]["x"], np.ones(2, np.float32))


def test_nested_structure_is_kept():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(2), {"a": np.arange(2.0), "b": (np.arange(2),)}))
    nxt = ds.make_one_shot_iterator().get_next()
    assert isinstance(nxt, tuple) and isinstance(nxt[1], dict) and isinstance(nxt[1]["b"], tuple)
    assert float(drain(nxt)[1][1]["a"]) == 1.0


def test_from_tensors_range_take_skip_prefetch():
    one = values(tf.data.Dataset.from_tensors([1.0, 2.0]))
    assert len(one) == 1 and one[0].dtype == np.float32
    assert ints(tf.data.Dataset.range(2, 11, 3)) == [2, 5, 8]
    assert tf.data.Dataset.range(3).output_types == tf.int64
    assert ints(tf.data.Dataset.range(10).skip(3).take(4).prefetch(2)) == [3, 4, 5, 6]
    assert ints(tf.data.Dataset.range(3).take(-1)) == [0, 1, 2]
    assert ints(tf.data.Dataset.range(3).skip(-1)) == []


# -- shuffle ------------------------------------------------------------------------------------


def test_shuffle_is_a_seeded_permutation():
    orders = []
    for _ in range(2):
        with tf.Graph().as_default():
            orders.append(ints(tf.data.Dataset.range(50).shuffle(50, seed=3)))
    assert orders[0] == orders[1]
    assert sorted(orders[0]) == list(range(50)) and orders[0] != list(range(50))
    with tf.Graph().as_default():
        assert ints(tf.data.Dataset.range(50).shuffle(50, seed=4)) != orders[0]


def test_graph_seed_alone_is_deterministic():
    orders = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(7)
            orders.append(ints(tf.data.Dataset.range(30).shuffle(30)))
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(30))


def test_buffer_semantics():
    assert ints(tf.data.Dataset.range(20).shuffle(1, seed=0)) == list(range(20))
    for seed in range(5):
        out = ints(tf.data.Dataset.range(40).shuffle(4, seed=seed))
        assert sorted(out) == list(range(40))
        # The k-th output is drawn from a buffer that has seen only the first k + 4 inputs.
        assert all(v < k + 4 for k, v in enumerate(out))


def test_reshuffle_each_iteration():
    out = ints(tf.data.Dataset.range(20).shuffle(20, seed=1).repeat(3))
    epochs = [out[:20], out[20:40], out[40:]]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    out = ints(tf.data.Dataset.range(20).shuffle(20, seed=1, reshuffle_each_iteration=False).repeat(2))
    assert out[:20] == out[20:] and out[:20] != list(range(20))


# -- batch, repeat ----------------------------------------------------------------------------------


def test_batch_shapes_and_remainder():
    X, Y = np.arange(20.0).reshape(10, 2), np.arange(10)
    x, y = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).make_one_shot_iterator().get_next()
    assert x.shape.as_list() == [None, 2] and y.shape.as_list() == [None]
    got = drain([x, y])
    assert [b[0].shape for b in got] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), X)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), Y)

    nxt = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4, drop_remainder=True).make_one_shot_iterator()
    x, y = nxt.get_next()
    assert x.shape.as_list() == [4, 2] and y.shape.as_list() == [4]
    assert [b[1].tolist() for b in drain([x, y])] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_repeat_count_then_out_of_range():
    nxt = tf.data.Dataset.range(3).repeat(2).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [int(sess.run(nxt)) for _ in range(6)] == [0, 1, 2, 0, 1, 2]
        for _ in range(2):  # stays exhausted
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence") as info:
                sess.run(nxt)
            assert info.value.op is nxt.op


def test_repeat_forever_and_empty():
    nxt = tf.data.Dataset.range(3).repeat().make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [int(sess.run(nxt)) for _ in range(10)] == [0, 1, 2] * 3 + [0]
    assert ints(tf.data.Dataset.range(0).repeat()) == []


# -- map ----------------------------------------------------------------------------------------------


def test_map_with_tf_ops():
    X, Y = np.arange(8).reshape(4, 2), np.arange(4)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).map(lambda x, y: (tf.cast(x, tf.float32) / 16.0, y))
    assert ds.output_types == (tf.float32, tf.int64)
    assert ds.output_shapes == (tf.TensorShape([2]), tf.TensorShape([]))
    got = values(ds.batch(4))
    np.testing.assert_allclose(got[0][0], X / 16.0)
    assert got[0][0].dtype == np.float32
    np.testing.assert_array_equal(got[0][1], Y)


def test_map_structures_and_constants():
    ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(3.0)})
    ds = ds.map(lambda e: {"twice": e["a"] * 2.0, "one": np.float32(1.0)})
    assert ds.output_types == {"twice": tf.float64, "one": tf.float32}
    got = values(ds)
    assert [float(e["twice"]) for e in got] == [0.0, 2.0, 4.0] and float(got[0]["one"]) == 1.0
    single = tf.data.Dataset.range(3).map(lambda x: x * x)
    assert ints(single) == [0, 1, 4]


def test_map_after_batch_keeps_unknown_batch_dim():
    ds = tf.data.Dataset.from_tensor_slices(np.ones((5, 3))).batch(2).map(lambda x: tf.reduce_sum(x, 1))
    assert ds.output_shapes.as_list() == [None]
    assert [v.tolist() for v in values(ds)] == [[3.0, 3.0], [3.0, 3.0], [3.0]]


# -- iterators ----------------------------------------------------------------------------------------


def test_new_session_restarts_a_one_shot_iterator():
    it = tf.data.Dataset.range(5).shuffle(5, seed=2).make_one_shot_iterator()
    assert it.get_next() is it.get_next()
    nxt = it.get_next()
    with tf.Session() as sess:
        first = [int(sess.run(nxt)) for _ in range(3)]
    with tf.Session() as sess:
        again = [int(sess.run(nxt)) for _ in range(5)]
    assert again[:3] == first and sorted(again) == list(range(5))


def test_initializable_iterator_restarts():
    it = tf.data.Dataset.range(4).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())  # does not initialise iterators, as in TF
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)
        sess.run(it.initializer)
        assert [int(sess.run(nxt)) for _ in range(2)] == [0, 1]
        sess.run(it.initializer)
        assert drain(nxt, sess) == [0, 1, 2, 3]
        sess.run(it.initializer)
        assert int(sess.run(nxt)) == 0
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = tf.data.Dataset.range(1).make_one_shot_iterator().initializer


def test_feeding_get_next_bypasses_the_iterator():
    x = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    y = x * 10
    with tf.Session() as sess:
        assert int(sess.run(y, {x: np.int64(7)})) == 70
        assert int(sess.run(x)) == 0  # the fed run did not advance it


def test_dataset_pickles_and_replays():
    ds = (
        tf.data.Dataset.from_tensor_slices((np.arange(10.0), np.arange(10)))
        .shuffle(4, seed=5)
        .map(lambda x, y: (x + 1.0, y))
        .batch(3)
    )
    clone = cloudpickle.loads(cloudpickle.dumps(ds))
    for a, b in zip(ds.flat_elements(), clone.flat_elements(), strict=True):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


# -- end to end ---------------------------------------------------------------------------------------


def test_softmax_regression_on_digits():
    data = load_digits(one_hot=True)
    ds = tf.data.Dataset.from_tensor_slices((data.train.images, data.train.labels))
    x, y = ds.shuffle(2000, seed=0).repeat().batch(64).make_one_shot_iterator().get_next()
    W, b = tf.Variable(tf.zeros([64, 10])), tf.Variable(tf.zeros([10]))
    logits = tf.matmul(x, W) + b
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(400):
            sess.run(train)
        acc = sess.run(accuracy, {x: data.test.images, y: data.test.labels})
    assert acc >= 0.9


def test_random_ops_in_map_follow_the_graph_seed():
    runs = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            ds = tf.data.Dataset.range(3).map(lambda x: tf.random_uniform([2]))
            runs.append(np.stack(values(ds)))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert runs[0].shape == (3, 2) and len(np.unique(runs[0])) == 6
