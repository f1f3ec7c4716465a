"""Bad input gets a clear error that names the culprit, and changes nothing."""

import numpy as np
import pytest

import daskflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
# beside the clusters: no timings checked and no fixed port bound (free ports only)


@pytest.fixture
def model():
    x = tf.placeholder(tf.float32, [None, 3], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    logits = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    yield x, y, w, train, sess
    sess.close()


def test_wrong_feed_shape_names_the_placeholder_and_both_shapes(model):
    x, y, w, train, sess = model
    with pytest.raises(ValueError) as err:  # TF1's session raises ValueError, before any op runs
        sess.run(train, {x: np.ones((4, 5), np.float32), y: [0, 1, 0, 1]})
    message = str(err.value)
    assert "images:0" in message and "(4, 5)" in message and "(?, 3)" in message
    np.testing.assert_array_equal(sess.run(w), np.ones((3, 2)))


def test_wrong_feed_dtype_names_the_placeholder(model):
    x, y, w, train, sess = model
    with pytest.raises(ValueError, match="labels:0.*int32"):  # numpy's error in TF1, as here
        sess.run(train, {x: np.ones((2, 3), np.float32), y: ["zero", "one"]})
    with pytest.raises(ValueError, match="images:0"):
        sess.run(train, {x: [["a", "b", "c"]], y: [0]})
    np.testing.assert_array_equal(sess.run(w), np.ones((3, 2)))


def test_compatible_feeds_are_cast_like_tf1(model):
    x, y, w, train, sess = model
    sess.run(train, {x: np.ones((2, 3), np.float64), y: np.array([0, 0], np.int64)})
    assert not np.array_equal(sess.run(w), np.ones((3, 2)))


def test_a_failing_step_leaves_every_variable_unchanged():
    v = tf.Variable(1.0, name="v")
    n = tf.placeholder(tf.int32, [None])
    bump = tf.assign_add(v, 5.0)
    with tf.control_dependencies([bump]):
        bad = tf.reshape(n, [2, 2])  # fails at run time for other sizes
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape") as err:
            sess.run(bad, {n: [1, 2, 3]})
        assert err.value.op is bad.op
        assert sess.run(v) == 1.0  # the assign ran, but its step failed: not committed
        sess.run(bad, {n: [1, 2, 3, 4]})
        assert sess.run(v) == 6.0


def test_unfed_placeholder_is_named(model):
    x, y, w, train, sess = model
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'labels:0'"
    ):
        sess.run(train, {x: np.ones((2, 3), np.float32)})


def test_uninitialised_variable_is_named():
    v = tf.Variable(1.0, name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(v * 2.0)


def test_tensor_from_another_graph():
    g = tf.Graph()
    with g.as_default():
        foreign = tf.constant(1.0, name="foreign")
    with pytest.raises(ValueError, match="foreign:0 is from another graph"):
        tf.constant(2.0) + foreign
    with tf.Session() as sess, pytest.raises(ValueError, match="not an element of this graph"):
        sess.run(foreign)


def test_unknown_names():
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="The operation, 'nope', does not exist in the graph"):
            sess.run("nope:0")  # TF1's type and words
        with pytest.raises(ValueError, match="The name 'nope' refers to an Operation not in the graph"):
            sess.run("nope")
        with pytest.raises(tf.errors.InvalidArgumentError, match="cannot feed 'ghost:0'"):
            sess.run(tf.constant(1.0), {"ghost:0": 1.0})


def test_closed_session():
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(tf.constant(1.0))


@pytest.mark.parametrize(
    "build, pattern",
    [
        (
            lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]), name="mm"),
            r"mm \(MatMul\).*\(2, 3\).*\(4, 5\)",
        ),
        (lambda: tf.add(tf.ones([2, 3]), tf.ones([4]), name="plus"), r"plus \(Add\).*\(2, 3\).*\(4,\)"),
        (lambda: tf.reshape(tf.ones([2, 3]), [4, 2], name="rs"), r"rs \(Reshape\).*\(2, 3\)"),
        (lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0, name="cat"), r"cat \(ConcatV2\)"),
        (lambda: tf.reduce_sum(tf.ones([2, 3]), axis=2), r"axis 2 is out of range"),
        (lambda: tf.constant(1.0) + tf.constant(1), r"(float32|int32)"),
    ],
)
def test_incompatible_shapes_and_dtypes_at_build_time(build, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        build()


def test_cycle_is_reported():
    a = tf.identity(tf.constant(1.0), name="a")
    b = tf.identity(a, name="b")
    a.op._add_control_input(b.op)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="cycle through: a, b"):
        sess.run(b)


def test_fetch_none_and_bad_types():
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="None"):
            sess.run(None)
        with pytest.raises(TypeError):
            sess.run(3.5)


def test_assign_of_the_wrong_shape():
    v = tf.Variable(np.zeros(3, np.float32), name="v")
    with pytest.raises(ValueError, match="shape"):
        tf.assign(v, np.zeros(4, np.float32))
    p = tf.placeholder(tf.float32, [None])
    update = tf.assign(v, p)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not fit"):
            sess.run(update, {p: np.ones(5, np.float32)})
        np.testing.assert_array_equal(sess.run(v), np.zeros(3))


@pytest.mark.parametrize(
    "get, name",
    [
        (lambda: tf.contrib.factorization, "tf.contrib.factorization"),
        (lambda: tf.nn.ctc_loss, "tf.nn.ctc_loss"),
        (lambda: tf.train.SessionManager, "tf.train.SessionManager"),
        (lambda: tf.contrib.layers.optimize_loss, "tf.contrib.layers.optimize_loss"),
    ],
)
def test_a_tf1_name_daskflow_lacks_says_so(get, name):
    with pytest.raises(AttributeError, match=f"{name} is not part of daskflow"):
        get()


@pytest.mark.parametrize(
    "module",
    ["app", "contrib", "flags", "gfile", "initializers", "layers", "logging", "losses", "metrics", "summary"],
)
@pytest.mark.process
def test_tf1_submodules_are_attributes_of_the_package(module):
    # Scripts reach them as tf.layers.dense, never by importing daskflow.layers.
    import subprocess
    import sys

    code = f"import daskflow as tf; tf.{module}"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


# -- TF1's error classes ----------------------------------------------------------------------------


def test_error_classes_carry_tf_status_codes():
    # The numbers of TF's error_codes.proto, as tf.errors names them.
    expected = {
        tf.errors.CancelledError: 1,
        tf.errors.UnknownError: 2,
        tf.errors.InvalidArgumentError: 3,
        tf.errors.DeadlineExceededError: 4,
        tf.errors.NotFoundError: 5,
        tf.errors.AlreadyExistsError: 6,
        tf.errors.PermissionDeniedError: 7,
        tf.errors.ResourceExhaustedError: 8,
        tf.errors.FailedPreconditionError: 9,
        tf.errors.AbortedError: 10,
        tf.errors.OutOfRangeError: 11,
        tf.errors.UnimplementedError: 12,
        tf.errors.InternalError: 13,
        tf.errors.UnavailableError: 14,
        tf.errors.DataLossError: 15,
        tf.errors.UnauthenticatedError: 16,
    }
    for cls, code in expected.items():
        assert cls(None, None, "m").error_code == code
        assert tf.errors.exception_type_from_error_code(code) is cls
        assert tf.errors.error_code_from_exception_type(cls) == code
    assert tf.errors.INVALID_ARGUMENT == 3 and tf.errors.OpError(None, None, "m", 7).error_code == 7
    with pytest.warns(UserWarning, match="Unknown class exception"):
        assert isinstance(tf.errors.error_code_from_exception_type(ValueError), tf.errors.UnknownError)


def test_errors_survive_pickling_without_their_op():
    # They cross process boundaries on a cluster; the op stays with its graph.
    import pickle

    op = tf.no_op(name="culprit")
    error = pickle.loads(pickle.dumps(tf.errors.NotFoundError(op.node_def, op, "no such thing")))
    assert type(error) is tf.errors.NotFoundError
    assert (error.message, error.error_code, error.op, error.node_def.name) == (
        "no such thing",
        5,
        None,
        "culprit",
    )


def test_nan_loss_error_says_what_tf1_says():
    assert str(tf.train.NanLossDuringTrainingError()) == "NaN loss during training."
    assert str(tf.train.NanLossDuringTrainingError("loss:0 is NaN")).startswith("NaN loss during training.")


def test_dimensions_are_int64_and_a_float_beyond_int32_is_refused():
    """TF1's answers (TF 2.21's compat.v1): no dimension wraps at 2**32."""
    assert tf.zeros([2**32 + 5]).shape.as_list() == [2**32 + 5]
    assert tf.zeros([10**12]).shape.as_list() == [10**12]
    assert tf.zeros([5.7]).shape.as_list() == [5]  # TF1 truncates a float that fits
    with pytest.raises(TypeError, match="Expected int32, but got 1000000000000.0 of type 'float'"):
        tf.zeros([1e12])
    with pytest.raises(ValueError, match="cannot reshape"):
        tf.reshape(tf.range(6), [2**32 + 2, 3])
    assert tf.constant([1, 2**40]).dtype == tf.int64 and tf.constant(3).dtype == tf.int32
    assert tf.constant(2**63).dtype == tf.uint64


def test_a_while_loop_condition_must_be_bool():
    with pytest.raises(
        TypeError, match="'LoopCond' Op has type float32 that does not match expected type of bool"
    ):
        tf.while_loop(lambda i: tf.cast(i, tf.float32), lambda i: i + 1, [tf.constant(0)])


def test_cross_entropy_of_mismatched_batches_names_both_sizes():
    labels = tf.zeros([3, 4])
    logits = tf.placeholder_with_default(tf.zeros([2, 4]), [None, 4])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match=r"logits_size=\[2,4\] labels_size=\[3,4\]"),
    ):
        sess.run(loss)


def test_a_step_past_its_deadline_is_tf1s_error_and_changes_nothing():
    """RunOptions(timeout_in_ms) and ConfigProto(operation_timeout_in_ms) on a loop that
    never ends (TF1: DeadlineExceededError, 'Timed out waiting for notification')."""
    v = tf.Variable(1.0)
    forever = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)])
    bump = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run([forever, bump], options=tf.RunOptions(timeout_in_ms=200))
        assert sess.run(v) == 1.0
        assert sess.run(bump, options=tf.RunOptions(timeout_in_ms=60_000)) == 2.0  # in time: runs
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(forever)
