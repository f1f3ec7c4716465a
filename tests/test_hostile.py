"""Hostile input: every bad feed, device string, cluster spec or checkpoint gets a clear
error and leaves variables and checkpoints as they were (hypothesis-generated)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import daskflow as tf
from tests.models import HYPOTHESIS_SETTINGS

SETTINGS = settings(**HYPOTHESIS_SETTINGS, suppress_health_check=[HealthCheck.function_scoped_fixture])
CLEAR = (tf.errors.InvalidArgumentError, ValueError, TypeError)


class _Model:
    """A placeholder [None, 4] float32 feeding one SGD step of a linear model."""

    def __init__(self):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.x = tf.placeholder(tf.float32, [None, 4], name="images")
            self.w = tf.Variable(np.ones((4, 1), np.float32), name="w")
            loss = tf.reduce_mean(tf.square(tf.matmul(self.x, self.w)))
            self.train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
            self.checks = tf.add_check_numerics_ops()
        self.sess = tf.Session(graph=self.graph)
        self.sess.run(self.w.initializer)


MODEL = _Model()

feeds = st.one_of(
    hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64, np.uint8]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
        elements=None,
    ),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6),
    st.text(max_size=5),
    st.none(),
)


def _fits_images(value) -> bool:
    """Whether TF1 takes ``value`` for a float32 [None, 4] placeholder: numbers of shape (n, 4)
    (TF1 casts any numeric dtype, complex and bool included; checked with tensorflow 2.21's
    compat.v1)."""
    if isinstance(value, str) or value is None:
        return False
    return np.shape(value)[1:] == (4,) and len(np.shape(value)) == 2


@SETTINGS
@given(value=feeds)
@pytest.mark.filterwarnings("ignore:Casting complex values")
def test_any_feed_runs_or_is_refused_naming_the_placeholder(value):
    before = MODEL.sess.run(MODEL.w)
    if not _fits_images(value):
        with pytest.raises(ValueError, match="images"):  # TF1's type; the culprit is named
            MODEL.sess.run(MODEL.train, {MODEL.x: value})
        np.testing.assert_array_equal(MODEL.sess.run(MODEL.w), before)  # and nothing changed
        return
    MODEL.sess.run(MODEL.train, {MODEL.x: value})
    MODEL.sess.load_variable(MODEL.w, before)  # a good feed trained: put it back for the next example


@SETTINGS
@given(rows=st.sampled_from([0, 1, 100_000]), poison=st.sampled_from([None, np.nan, np.inf]))
def test_empty_huge_and_non_finite_batches(rows, poison):
    batch = np.ones((rows, 4), np.float32)
    if poison is not None and rows:
        batch[rows // 2, 1] = poison
    before = MODEL.sess.run(MODEL.w)
    if poison is not None and rows:
        with pytest.raises(tf.errors.InvalidArgumentError, match="images:0 : Tensor had (NaN|Inf)"):
            MODEL.sess.run([MODEL.train, MODEL.checks], {MODEL.x: batch})
        np.testing.assert_array_equal(MODEL.sess.run(MODEL.w), before)
    else:
        MODEL.sess.run(MODEL.train, {MODEL.x: batch})
        MODEL.sess.load_variable(MODEL.w, before)


@SETTINGS
@given(spec=st.text(max_size=40))
def test_any_device_string_is_taken_or_refused_clearly(spec):
    g = tf.Graph()
    with g.as_default():
        try:
            with tf.device(spec):
                t = tf.constant(1.0)
        except ValueError as e:  # TF1's DeviceSpec raises ValueError too
            assert repr(spec) in str(e)  # the culprit, quoted
            return
        assert isinstance(t.device, str)
        assert tf.DeviceSpec.from_string(t.device).to_string() == t.device  # a canonical string


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(cluster=st.dictionaries(st.text(max_size=6), json_values, max_size=3) | json_values)
def test_any_cluster_spec_is_taken_or_refused_clearly(cluster):
    expected = _cluster_spec_error(cluster)
    if expected is None:
        spec = tf.train.ClusterSpec(cluster)
        assert spec.jobs == list(cluster)
        for job, tasks in cluster.items():
            by_index = (
                {int(i): a for i, a in tasks.items()} if isinstance(tasks, dict) else dict(enumerate(tasks))
            )
            assert spec.job_tasks(job) == [by_index[i] for i in sorted(by_index)]
        return
    error, culprit = expected
    with pytest.raises(error) as raised:
        tf.train.ClusterSpec(cluster)
    assert type(raised.value) is error and culprit in str(raised.value)


def _cluster_spec_error(cluster):
    """(error type, text naming the culprit) TF1's ClusterSpec raises for ``cluster``, or None.

    As tensorflow 2.21's compat.v1 answers (tried by hand): a non-dict, a job name or a task
    address that is not a string, tasks that are neither list nor dict are TypeErrors; a task
    index that is no integer is a ValueError. daskflow also refuses an empty job name
    (ValueError): no device string could name its tasks."""
    if not isinstance(cluster, dict):
        return TypeError, "dict"
    for job, tasks in cluster.items():
        if not isinstance(job, str):
            return TypeError, repr(job)
        if not job:
            return ValueError, "job name"
        if not isinstance(tasks, (list, dict)):
            return TypeError, repr(job)
        pairs = tasks.items() if isinstance(tasks, dict) else enumerate(tasks)
        for index, address in pairs:
            if isinstance(tasks, dict) and not index.strip().lstrip("+-").isdigit():
                return ValueError, repr(index)
            if not isinstance(address, str):
                return TypeError, repr(address)
    return None


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.arange(4, dtype=np.float32), name="w")
        saver = tf.train.Saver()
    sess = tf.Session(graph=g)
    sess.run(w.initializer)
    path = saver.save(sess, f"{root}/model")
    yield root, path, sess, saver, w
    sess.close()


@SETTINGS
@given(data=st.binary(max_size=300), target=st.sampled_from(["data", "index"]))
def test_any_checkpoint_bytes_are_refused_before_anything_changes(checkpoint, data, target):
    root, path, sess, saver, w = checkpoint
    file = root / ("model.data-00000-of-00001" if target == "data" else "model.index")
    good = file.read_bytes()
    try:
        file.write_bytes(data)
        sess.load_variable(w, np.full(4, -1.0, np.float32))
        try:
            saver.restore(sess, path)
        except (tf.errors.DataLossError, tf.errors.NotFoundError, tf.errors.InvalidArgumentError):
            np.testing.assert_array_equal(sess.run(w), np.full(4, -1.0))
        else:  # only the very same bytes restore (a shard may have more after its tensors)
            assert data[: len(good)] == good if target == "data" else data == good
    finally:
        file.write_bytes(good)


@SETTINGS
@given(path=st.text(max_size=30))
def test_any_checkpoint_path_is_refused_clearly(checkpoint, path):
    _, _, sess, saver, w = checkpoint
    sess.load_variable(w, np.full(4, -1.0, np.float32))
    with pytest.raises(ValueError) as raised:  # TF1's type for a path with no checkpoint
        saver.restore(sess, path)
    assert repr(path) in str(raised.value)  # the culprit, quoted
    np.testing.assert_array_equal(sess.run(w), np.full(4, -1.0))  # and nothing changed


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")  # log(-1): the NaN it checks
def test_nan_tensor_hook_stops_at_the_first_nan_naming_the_op():
    tf.reset_default_graph()  # add_check_numerics_ops checks every op of the graph
    x = tf.placeholder(tf.float32, [None])
    w = tf.Variable(1.0)
    loss = tf.reduce_mean(tf.log(x * w))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    checks = tf.add_check_numerics_ops()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Log:0 : Tensor had NaN"):
        with tf.train.MonitoredTrainingSession(progress_bar=False) as sess:
            sess.run([train, checks], {x: [1.0, 2.0]})
            sess.run([train, checks], {x: [-1.0, 2.0]})
    tf.reset_default_graph()
