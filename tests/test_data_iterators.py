"""tf.data's iterator kinds and TF1's tf.data surface, against TF1's own values.

TF-taken values come from ``tests/fixtures/data_iterators.json``, made by
``tests/fixtures/make_data_iterators.py`` under TensorFlow 2.21's
``compat.v1``; the rest are derived by hand in the tests.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import daskflow as tf
from daskflow.data import nest
from daskflow.datasets import load_digits

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "data_iterators.json").read_text())


pytestmark = pytest.mark.usefixtures("fresh_graph")


def plain(value):
    """As the fixture script stores values: lists, latin-1 text, structures kept."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, np.ndarray):
        return plain(value.tolist()) if value.dtype == object else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def step(sess, tensor, feed=None):
    try:
        return plain(sess.run(tensor, feed))
    except tf.errors.OutOfRangeError:
        return "OutOfRange"


def drain(sess, tensors, limit=200):
    out = []
    for _ in range(limit):
        value = step(sess, tensors)
        if value == "OutOfRange":
            return out
        out.append(value)
    raise AssertionError(f"not exhausted after {limit} steps")


def structure(value):
    return plain(nest.map_structure(lambda x: x.name if isinstance(x, tf.DType) else str(x), value))


# -- 1. initializable iterators over placeholders -------------------------------------------------


def test_placeholders_fed_at_initialisation_and_fed_again():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int64, [None])
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    assert ds.output_types == (tf.float32, tf.int64)
    assert ds.output_shapes == (tf.TensorShape([2]), tf.TensorShape([]))
    it = ds.batch(2).make_initializable_iterator()
    one = tf.data.make_initializable_iterator(tf.data.Dataset.from_tensors(x).repeat(2))
    assert one.output_shapes.as_list() == [None, 2]
    nxt, whole = it.get_next(), one.get_next()
    feeds = [
        {x: np.arange(10, dtype=np.float32).reshape(5, 2), y: np.arange(5)},
        {x: -np.arange(6, dtype=np.float32).reshape(3, 2), y: np.arange(30, 33)},
    ]
    got = []
    with tf.Session() as sess:
        for feed in feeds:
            sess.run(it.initializer, feed)
            got.append([step(sess, nxt) for _ in range(4)])
        sess.run(one.initializer, {x: np.ones((1, 2), np.float32)})
        got.append([step(sess, whole) for _ in range(3)])
    assert got == FIXTURE["iterators"]["initializable"]


def test_initializer_needs_its_feeds_and_checks_the_lengths():
    x = tf.placeholder(tf.float32, [None], name="xs")
    y = tf.placeholder(tf.int32, [None], name="ys")
    it = tf.data.Dataset.from_tensor_slices((x, y)).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)  # not initialised yet
        with pytest.raises(tf.errors.InvalidArgumentError, match="xs"):
            sess.run(it.initializer)  # nothing fed
        sess.run(it.initializer, {x: [1.0, 2.0], y: [1, 2]})
        assert step(sess, nxt) == [1.0, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"0th dimension, sizes \[3, 2\]"):
            sess.run(it.initializer, {x: [1.0, 2.0, 3.0], y: [1, 2]})
        # A failed initialisation leaves the iterator where it was (TF's does too).
        assert step(sess, nxt) == [2.0, 2]
        assert step(sess, nxt) == "OutOfRange"


def test_a_fed_array_edited_after_initialisation_does_not_change_the_data():
    x = tf.placeholder(tf.float64, [None])
    it = tf.data.Dataset.from_tensor_slices(x).make_initializable_iterator()
    nxt = it.get_next()
    data = np.array([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(it.initializer, {x: data})
        data[:] = -1.0
        assert drain(sess, nxt) == [1.0, 2.0]


def test_two_sessions_keep_their_own_passes():
    x = tf.placeholder(tf.int64, [None])
    it = tf.data.Dataset.from_tensor_slices(x).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as a, tf.Session() as b:
        a.run(it.initializer, {x: [1, 2, 3]})
        b.run(it.initializer, {x: [7, 8]})
        got = [step(a, nxt), step(b, nxt), step(a, nxt), step(b, nxt), step(b, nxt)]
        assert got == [1, 7, 2, 8, "OutOfRange"]


def test_iterator_is_in_no_collection():
    tf.data.Dataset.range(3).make_initializable_iterator()
    tf.data.Iterator.from_structure(tf.int64)
    assert tf.global_variables() == [] and tf.local_variables() == []


# -- 2. reinitializable iterators --------------------------------------------------------------------


def test_reinitializable_iterator_switches_datasets():
    train = tf.data.Dataset.range(10).batch(3)
    val = tf.data.Dataset.range(100, 105).batch(2)
    it = tf.data.Iterator.from_structure(tf.data.get_output_types(train), tf.data.get_output_shapes(train))
    nxt = it.get_next()
    assert nxt.shape.as_list() == [None] and nxt.dtype == tf.int64
    to_train, to_val = it.make_initializer(train), it.make_initializer(val)
    assert isinstance(to_train, tf.Operation)
    script = [to_train, nxt, nxt, to_val, nxt, nxt, nxt, nxt, to_train, nxt]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)
        got = [step(sess, s) if s is nxt else sess.run(s) for s in script]
    assert got == FIXTURE["iterators"]["reinitializable"]


def test_from_structure_shapes_default_to_unknown():
    it = tf.data.Iterator.from_structure((tf.float32, {"y": tf.int64}))
    assert it.output_types == (tf.float32, {"y": tf.int64})
    assert it.output_shapes == (tf.TensorShape(None), {"y": tf.TensorShape(None)})
    assert it.output_classes == (tf.Tensor, {"y": tf.Tensor})
    x, d = it.get_next()
    assert x.shape.ndims is None and d["y"].dtype == tf.int64


def test_make_initializer_refuses_other_types_shapes_and_structures():
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    with pytest.raises(
        TypeError, match="Expected output types tf.int64 but got dataset with output types tf.int32"
    ):
        it.make_initializer(tf.data.Dataset.range(3).map(lambda v: tf.cast(v, tf.int32)))
    with pytest.raises(TypeError, match="Expected output shapes compatible with"):
        it.make_initializer(tf.data.Dataset.range(3).batch(2))
    with pytest.raises(ValueError, match="same nested structure"):
        it.make_initializer(tf.data.Dataset.range(3).map(lambda v: (v, v)))
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = it.initializer


# -- 3. feedable iterators ------------------------------------------------------------------------


def test_feedable_iterator_reads_each_iterator_at_its_own_position():
    handle = tf.placeholder(tf.string, shape=[])
    train = tf.data.Dataset.range(10).repeat().make_one_shot_iterator()
    val = tf.data.Dataset.range(100, 103).make_initializable_iterator()
    it = tf.data.Iterator.from_string_handle(handle, tf.int64, tf.TensorShape([]))
    nxt = it.get_next()
    assert nxt.shape.as_list() == [] and it.output_types == tf.int64
    h = train.string_handle()
    assert h.dtype == tf.string and h.shape.as_list() == []
    with tf.Session() as sess:
        h_train, h_val = sess.run([h, val.string_handle()])
        assert isinstance(h_train, bytes) and h_train != h_val
        got = []
        for s in ["t", "t", "init", "v", "v", "t", "v", "v", "t", "init", "v"]:
            if s == "init":
                got.append(sess.run(val.initializer))
            else:
                got.append(step(sess, nxt, {handle: h_train if s == "t" else h_val}))
        assert step(sess, train.get_next()) == 4  # the one-shot iterator's own get_next shares its position
    assert got == FIXTURE["iterators"]["feedable"]


def test_feedable_iterator_refuses_other_types_and_unknown_handles():
    handle = tf.placeholder(tf.string, shape=[])
    nxt = tf.data.Iterator.from_string_handle(handle, tf.int64).get_next()
    ints32 = tf.data.Dataset.range(3).map(lambda v: tf.cast(v, tf.int32)).make_one_shot_iterator()
    with tf.Session() as sess:
        h = sess.run(ints32.string_handle())
        with pytest.raises(tf.errors.InvalidArgumentError, match="Data type mismatch at component 0"):
            sess.run(nxt, {handle: h})
        with pytest.raises(tf.errors.InvalidArgumentError, match="nonsense"):
            sess.run(nxt, {handle: b"nonsense"})
    with pytest.raises(ValueError, match="requested dtype string"):
        tf.data.Iterator.from_string_handle(tf.constant(1), tf.int64)


# -- 4. end of data, restarts ---------------------------------------------------------------------


def test_out_of_range_then_restart():
    it = tf.data.Dataset.range(2).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert drain(sess, nxt) == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence") as caught:
            sess.run(nxt)
        assert type(caught.value).__name__ == "OutOfRangeError"
        assert caught.value.op is not None and caught.value.op.name == nxt.op.name
        sess.run(it.initializer)
        assert drain(sess, nxt) == [0, 1]


# -- 5. the rest of tf.data -----------------------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path):
    for name, text in FIXTURE["files"].items():  # the files TF read, byte for byte
        (tmp_path / name).write_bytes(text.encode("latin-1"))
    return tmp_path


@pytest.mark.parametrize("name", sorted(FIXTURE["pipelines"]))
def test_pipeline_matches_tf(name, data_dir):
    case = FIXTURE["pipelines"][name]
    ds = eval(case["expression"].replace("{dir}", str(data_dir)), {"tf": tf, "np": np})  # noqa: S307
    assert structure(tf.data.get_output_types(ds)) == case["types"]
    assert structure(tf.data.get_output_shapes(ds)) == case["shapes"]
    with tf.Session() as sess:
        got = drain(sess, tf.data.make_one_shot_iterator(ds).get_next())
    if name == "list_files_sorted":  # TF's names are of its own temporary folder
        got, expected = [pathlib.Path(v).name for v in got], [pathlib.Path(v).name for v in case["values"]]
    else:
        expected = case["values"]
    assert got == expected


def test_text_lines_from_a_fed_file_list(data_dir):
    names = tf.placeholder(tf.string, shape=[None])
    it = tf.data.TextLineDataset(names).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {names: [str(data_dir / "b.txt")]})
        assert drain(sess, nxt) == ["b1", "b2"]
        sess.run(it.initializer, {names: [str(data_dir / "a.txt"), str(data_dir / "b.txt")]})
        assert len(drain(sess, nxt)) == 6
        sess.run(it.initializer, {names: [str(data_dir / "missing.txt")]})
        with pytest.raises(tf.errors.NotFoundError, match="missing.txt"):
            sess.run(nxt)


def test_file_readers_refuse_bad_arguments(data_dir):
    with pytest.raises(TypeError, match="must contain `tf.string` elements"):
        tf.data.TextLineDataset(3)
    (data_dir / "odd.bin").write_bytes(b"abcdefg")
    ds = tf.data.FixedLengthRecordDataset(str(data_dir / "odd.bin"), 3)
    with tf.Session() as sess:
        with pytest.raises(
            tf.errors.InvalidArgumentError, match="not an exact multiple of the record length"
        ):
            sess.run(ds.make_one_shot_iterator().get_next())


def test_transformations_refuse_as_tf_does():
    r = tf.data.Dataset.range(5)
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar tensor"):
        r.filter(lambda x: x)
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        r.concatenate(r.map(lambda x: tf.cast(x, tf.int32)))
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        tf.data.Dataset.zip([r, r])
    with pytest.raises(TypeError, match="encountered object of type <class 'int'>"):
        tf.data.Dataset.zip((r, 3))
    with pytest.raises(ValueError, match=r"The padded shape \(1,\) is not compatible with the shape \(2,\)"):
        tf.data.Dataset.from_tensors(np.zeros(2)).padded_batch(2, padded_shapes=[1])
    with pytest.raises(TypeError, match="Invalid `padding_values`"):
        r.map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[5], padding_values=-1)
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components"):
        r.unbatch()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index must be between 0 and 1"):
        r.shard(2, 3)
    with pytest.raises(TypeError, match="must return a `tf.data.Dataset` object"):
        r.apply(lambda d: 3)
    with pytest.raises(TypeError, match="must return a `Dataset` object"):
        r.flat_map(lambda x: x)
    with pytest.raises(TypeError, match="windows"):
        r.window(2).make_one_shot_iterator()
    with pytest.raises(TypeError, match="Invalid `dataset_or_iterator`"):
        tf.data.get_output_types(3)


def test_sample_from_datasets_keeps_each_datasets_order_and_is_seeded():
    def sampled():
        a, b = tf.data.Dataset.range(5), tf.data.Dataset.range(100, 103)
        ds = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.3, 0.7], seed=4)
        with tf.Session() as sess:
            return drain(sess, ds.make_one_shot_iterator().get_next())

    got = sampled()
    assert sorted(got) == [0, 1, 2, 3, 4, 100, 101, 102]  # an exhausted input's weight goes to the other
    assert [v for v in got if v < 100] == [0, 1, 2, 3, 4] and [v for v in got if v >= 100] == [100, 101, 102]
    assert sampled() == got
    with pytest.raises(TypeError, match="must be scalar `tf.int64` tensors"):
        tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)], tf.data.Dataset.range(2).batch(2))


def test_csv_fields_are_checked_when_read(data_dir):
    required = tf.data.experimental.CsvDataset(
        str(data_dir / "c.csv"), [tf.int32, tf.float32, tf.string], header=True
    )
    bad_number = tf.data.experimental.CsvDataset(str(data_dir / "c.csv"), [tf.int32, tf.int32, tf.string])
    with tf.Session() as sess:
        nxt = required.make_one_shot_iterator().get_next()
        assert step(sess, nxt) == [1, 2.5, "x"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing"):
            sess.run(nxt)
        with pytest.raises(
            tf.errors.InvalidArgumentError, match="Field 0 in record 0 is not a valid int32: a"
        ):
            sess.run(bad_number.make_one_shot_iterator().get_next())


def test_generator_elements_are_checked_when_read():
    bad_shape = tf.data.Dataset.from_generator(
        lambda: iter([[1, 2], [1, 2, 3]]), tf.int64, tf.TensorShape([2])
    )
    bad_type = tf.data.Dataset.from_generator(lambda: iter(["x"]), tf.int64)
    with tf.Session() as sess:
        nxt = bad_shape.make_one_shot_iterator().get_next()
        assert step(sess, nxt) == [1, 2]
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=r"element of shape \(3,\) where an element of shape \(2,\)"
        ):
            sess.run(nxt)
        with pytest.raises(tf.errors.InvalidArgumentError, match="`generator` yielded an element"):
            sess.run(bad_type.make_one_shot_iterator().get_next())


def test_generator_args_may_be_fed():
    n = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.from_generator(lambda k: iter(range(k)), tf.int64, tf.TensorShape([]), args=(n,))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {n: 3})
        assert drain(sess, nxt) == [0, 1, 2]
        sess.run(it.initializer, {n: 1})
        assert drain(sess, nxt) == [0]


def test_options_are_kept_and_unknown_ones_refused():
    options = tf.data.Options()
    options.experimental_deterministic = False
    options.experimental_optimization.map_and_batch_fusion = True
    options.experimental_threading.private_threadpool_size = 4
    ds = tf.data.Dataset.range(3).with_options(options).map(lambda x: x + 1)
    got = ds.options()
    assert got.deterministic is False and got.experimental_deterministic is False
    assert got.experimental_optimization.map_and_batch_fusion is True
    assert got.threading.private_threadpool_size == 4
    assert tf.data.Dataset.range(3).options().deterministic is None
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
        options.foo = 1
    with tf.Session() as sess:
        assert drain(sess, ds.make_one_shot_iterator().get_next()) == [1, 2, 3]


def test_module_names_and_constants():
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert tf.data.Dataset.range(3).prefetch(tf.data.experimental.AUTOTUNE).output_types == tf.int64
    ds = tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE)
    assert tf.data.get_output_classes(ds) == tf.Tensor
    it = tf.data.make_one_shot_iterator(ds)
    assert (tf.data.get_output_types(it), tf.data.get_output_shapes(it)) == (tf.int64, tf.TensorShape([]))


# -- 6. training on digits, switching between training and validation data -----------------------------


def _digits_model(x, y):
    w = tf.Variable(tf.zeros([64, 10]))
    b = tf.Variable(tf.zeros([10]))
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return loss, train, accuracy


def _digits_datasets():
    features = tf.placeholder(tf.float32, [None, 64])
    labels = tf.placeholder(tf.int64, [None])
    train = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(128)
    val = tf.data.Dataset.from_tensor_slices((features, labels)).batch(400)
    return features, labels, train, val


def _check_digits(got, kind):
    expected = FIXTURE["digits"][kind]
    np.testing.assert_allclose(got["losses"], expected["losses"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got["accuracies"], expected["accuracies"], atol=1e-6)


def test_digits_with_a_reinitializable_iterator():
    data = load_digits()
    features, labels, train, val = _digits_datasets()
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    x, y = it.get_next()
    loss, minimize, accuracy = _digits_model(x, y)
    to_train, to_val = it.make_initializer(train), it.make_initializer(val)
    got = {"losses": [], "accuracies": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(to_train, {features: data.train.images, labels: data.train.labels})
            got["losses"] += [float(sess.run([loss, minimize])[0]) for _ in range(10)]
            sess.run(to_val, {features: data.test.images, labels: data.test.labels})
            got["accuracies"].append(float(sess.run(accuracy)))
    _check_digits(got, "reinitializable")


def test_digits_with_a_feedable_iterator():
    data = load_digits()
    features, labels, train, val = _digits_datasets()
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
    x, y = it.get_next()
    loss, minimize, accuracy = _digits_model(x, y)
    train_it, val_it = train.make_initializable_iterator(), val.make_initializable_iterator()
    got = {"losses": [], "accuracies": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_it.initializer, {features: data.train.images, labels: data.train.labels})
        h_train, h_val = sess.run([train_it.string_handle(), val_it.string_handle()])
        for _ in range(3):
            got["losses"] += [float(sess.run([loss, minimize], {handle: h_train})[0]) for _ in range(10)]
            sess.run(val_it.initializer, {features: data.test.images, labels: data.test.labels})
            got["accuracies"].append(float(sess.run(accuracy, {handle: h_val})))
    _check_digits(got, "feedable")


# -- on a cluster: every compiled step reaches the same iterator -----------------------------------


@pytest.mark.process
def test_every_iterator_kind_on_a_local_cluster():
    x = tf.placeholder(tf.float32, [None])
    it = tf.data.Dataset.from_tensor_slices(x).batch(2).make_initializable_iterator()
    doubled = it.get_next() * 2
    train, val = tf.data.Dataset.range(10), tf.data.Dataset.range(100, 103)
    switch = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    to_train, to_val, switched = (
        switch.make_initializer(train),
        switch.make_initializer(val),
        switch.get_next(),
    )
    handle = tf.placeholder(tf.string, [])
    fed = tf.data.Iterator.from_string_handle(handle, tf.int64, tf.TensorShape([])).get_next()
    one_shot = train.make_one_shot_iterator()
    with tf.local_cluster(ps=1, workers=2) as cluster, tf.Session(cluster) as sess:
        sess.run(it.initializer, {x: [1.0, 2.0, 3.0]})
        assert [step(sess, doubled) for _ in range(3)] == [[2.0, 4.0], [6.0], "OutOfRange"]
        sess.run(it.initializer, {x: [5.0]})
        assert step(sess, doubled) == [10.0]
        sess.run(to_train)
        got = [step(sess, switched)]
        sess.run(to_val)
        got.append(step(sess, switched))
        assert got == [0, 100]
        h_train, h_it = sess.run([one_shot.string_handle(), switch.string_handle()])
        got = [step(sess, fed, {handle: h}) for h in (h_train, h_train, h_it, h_train, h_it, h_it)]
        assert got == [0, 1, 101, 2, 102, "OutOfRange"]
