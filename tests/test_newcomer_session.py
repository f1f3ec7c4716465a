"""What a newcomer's first mistakes get from a Session: placement without feeds, a
gRPC or unreachable target, an array as a fetch, a mistyped ConfigProto option and
a fed value out of its dtype's range, each a clear TF1 error naming the culprit."""

import json
import pathlib
import re
import subprocess
import sys
import textwrap
import time
import warnings

import dask
import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError, UnavailableError
from daskflow.runtime.plan.feeds import FeedSpec

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
WORKER, PS = "/job:worker/task:0", "/job:ps/task:0"
UNREACHABLE = "tcp://127.0.0.1:1"  # nothing listens on port 1: refused, retried until the timeout


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _readme_model():
    """The README's cluster program, small: placeholders and model on worker-0, variables on ps-0."""
    with tf.device(WORKER):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y_ = tf.placeholder(tf.float32, [None, 2], name="y_")
    with tf.device(PS):
        W = tf.Variable(tf.zeros([4, 2]), name="W")
        b = tf.Variable(tf.zeros([2]), name="b")
    with tf.device(WORKER):
        logits = tf.add(tf.matmul(x, W, name="mm"), b, name="logits")
        loss = tf.reduce_mean(tf.square(logits - y_), name="loss")
    with tf.device(PS):
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    batch = {x: np.ones((3, 4), np.float32), y_: np.ones((3, 2), np.float32)}
    return x, y_, step, batch


# -- 1. placement needs no feeds ---------------------------------------------------------------
def test_placement_without_feeds_places_as_if_the_placeholders_were_fed():
    x, y_, step, batch = _readme_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        unfed = sess.placement(step)
        assert unfed == sess.placement(step, batch) == sess.placement(step, {x: batch[x]})
        assert {unfed[op].device for op in ("mm", "logits")} == {WORKER}
        assert {unfed[op].device for op in ("W", "b")} == {PS}
        assert "x" not in unfed and "y_" not in unfed  # fed, so not run
        with pytest.raises(InvalidArgumentError, match="placeholder tensor 'x:0'"):
            sess.run(step)  # running still needs the values


def test_placement_still_names_a_fetch_that_is_not_in_the_graph():
    with tf.Session() as sess, pytest.raises(ValueError, match="nope"):
        sess.placement("nope:0")


def test_placement_on_a_cluster_without_feeds_names_the_workers():
    x, y_, step, batch = _readme_model()
    with tf.local_cluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
        with tf.Session(cluster) as sess:
            sess.run(tf.global_variables_initializer())
            unfed = sess.placement(step)
            assert {(unfed[op].device, unfed[op].worker) for op in ("mm", "logits")} == {(WORKER, "worker-0")}
            assert {(unfed[op].device, unfed[op].worker) for op in ("W", "b")} == {(PS, "ps-0")}
            assert "x" not in unfed and "y_" not in unfed
            sess.run(step, batch)  # the plan placed without feeds runs with them
            assert sess.placement(step, batch) == unfed


# -- 2. a target daskflow cannot use fails at once, naming it --------------------------------------
def test_a_grpc_target_is_refused_with_the_address_daskflow_wants():
    with pytest.raises(InvalidArgumentError, match=r"'grpc://localhost:2222'.*tcp://host:8786"):
        tf.Session("grpc://localhost:2222")


def test_an_unknown_scheme_is_refused_naming_the_target():
    with pytest.raises(ValueError, match=r"'foo://h:1'.*unknown address scheme 'foo'"):
        tf.Session("foo://h:1")


def test_an_unreachable_scheduler_is_unavailable_within_operation_timeout():
    config = tf.ConfigProto(operation_timeout_in_ms=1000)
    start = time.monotonic()
    with pytest.raises(UnavailableError, match=f"{UNREACHABLE} within 1 s"):
        tf.Session(UNREACHABLE, config=config)
    assert time.monotonic() - start < 6


def test_an_unreachable_scheduler_is_unavailable_within_dasks_connect_timeout():
    start = time.monotonic()
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(UnavailableError, match=UNREACHABLE):
            tf.Session(UNREACHABLE)
    assert time.monotonic() - start < 6


@pytest.mark.parametrize(
    "target, config, error",
    [
        ("grpc://localhost:2222", "None", "InvalidArgumentError"),
        (UNREACHABLE, "tf.ConfigProto(operation_timeout_in_ms=1000)", "UnavailableError"),
    ],
)
@pytest.mark.process
def test_a_failed_connection_leaves_nothing_that_holds_the_interpreter(target, config, error):
    # A half-made distributed.Client used to block the interpreter's exit for 60 s.
    script = textwrap.dedent(f"""
        import daskflow as tf
        try:
            tf.Session({target!r}, config={config})
        except Exception as e:
            print(type(e).__name__)
    """)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert time.monotonic() - start < 15, done.stderr
    assert done.stdout.split() == [error], done.stderr
    assert "Traceback" not in done.stderr


# -- 3. an array is no fetch ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "fetches",
    [np.zeros(3), [tf.constant(1.0), np.zeros(3)], {"a": np.zeros(3)}],
    ids=["array", "in a list", "in a dict"],
)
def test_an_array_fetch_is_tf1s_type_error_naming_it(fetches):
    expected = (
        "Fetch argument array([0., 0., 0.]) has invalid type <class 'numpy.ndarray'>, "
        "must be a string or Tensor. (Can not convert a ndarray into a Tensor or Operation.)"
    )
    with tf.Session() as sess, pytest.raises(TypeError) as info:
        sess.run(fetches)
    assert str(info.value) == expected


def test_a_number_fetch_is_tf1s_type_error_naming_it():
    message = r"Fetch argument 3 has invalid type <class 'int'>, must be a string or Tensor"
    with tf.Session() as sess, pytest.raises(TypeError, match=message):
        sess.run(3)


# -- 4. ConfigProto: a typo is an error, TF1's fields are accepted ----------------------------------
def test_a_mistyped_config_option_is_refused_naming_it():
    with pytest.raises(ValueError, match='no "allow_soft_placment" field'):
        tf.ConfigProto(allow_soft_placment=True)


def test_every_field_of_tf1s_config_proto_is_accepted():
    fields = json.loads((FIXTURES / "tf1_config_fields.json").read_text())["fields"]
    config = tf.ConfigProto(**{name: None for name in fields if name != "operation_timeout_in_ms"})
    # None leaves a field unset, as in TF's protobuf messages (tests/test_config_protos.py has the rest).
    assert config.allow_soft_placement is False and not config.HasField("gpu_options")


# -- 5. a fed value out of its dtype's range ------------------------------------------------------
@pytest.mark.parametrize(
    "dtype, value, shown",
    [
        (tf.float32, 1e300, "1e+300"),
        (tf.float32, [1.0, -1e300], "-1e+300"),
        (tf.float16, np.array([1e5], np.float32), "100000.0"),
        (tf.int32, 2**40, "1099511627776"),
        (tf.int32, np.array([1, 2**40]), "1099511627776"),
        (tf.int8, -129, "-129"),
        (tf.uint8, np.array([-1]), "-1"),
        (tf.int64, np.array([2**64 - 1], np.uint64), "18446744073709551615"),
    ],
)
def test_a_value_out_of_the_placeholders_range_is_refused_naming_it(dtype, value, shown):
    x = tf.placeholder(dtype, name="narrow")
    with tf.Session() as sess, warnings.catch_warnings():
        warnings.simplefilter("error")  # no "overflow encountered in cast" on the way
        message = rf"value {re.escape(shown)} .*'narrow:0' of dtype {dtype.name}"
        with pytest.raises(InvalidArgumentError, match=message):
            sess.run(tf.identity(x), {x: value})


@pytest.mark.parametrize(
    "dtype, value",
    [
        (tf.float32, [3.0e38, -3.0e38, 1e-50]),  # the largest finite; an underflow is no overflow
        (tf.float32, [np.inf, -np.inf, np.nan]),  # not finite already: kept, as TF1 keeps them
        (tf.int32, [2**31 - 1, -(2**31)]),
        (tf.uint8, [0, 255]),
        (tf.int32, np.array([7], np.uint64)),
    ],
)
def test_a_value_in_range_is_cast(dtype, value):
    x = tf.placeholder(dtype, name="narrow")
    with tf.Session() as sess, warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sess.run(tf.identity(x), {x: value})
    assert got.dtype == dtype.np
    np.testing.assert_array_equal(got, np.array(value, dtype=np.float64).astype(dtype.np))


def test_a_batch_of_the_placeholders_dtype_is_taken_as_it_is():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    batch = np.ones((3, 2), np.float32)
    assert FeedSpec(x).check(batch) is batch  # the per-step path makes no copy and no check
