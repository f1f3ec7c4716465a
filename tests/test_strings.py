"""String tensors and dtype names against TF1's own answers (``tests/fixtures/scopes.json``)."""

import json
import pathlib
import sys

import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_scopes as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "scopes.json").read_text())


def test_dtype_names_and_python_types_map_as_in_tf1():
    assert sc.dtypes(tf) == TF1["dtypes"]


@pytest.mark.parametrize("key", sorted(TF1["strings"]))
def test_string_tensors_match_tf1(key):
    assert sc.strings(tf)[key] == TF1["strings"][key]


def test_numeric_ops_refuse_strings_naming_the_inputs():
    x = tf.constant(["a"])
    with pytest.raises(TypeError, match="Const"):
        tf.subtract(x, x)
    with pytest.raises(TypeError, match="Const"):
        tf.less(x, x)


def test_a_non_string_feed_to_a_string_placeholder_names_it():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None], name="words")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="words"):
                sess.run(x, {x: [1, 2]})


def test_a_bad_number_string_fails_the_step_naming_the_op():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        n = tf.string_to_number(x, name="parse")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="parse"):
                sess.run(n, {x: ["1.5", "abc"]})


@pytest.mark.process
def test_strings_cross_workers_on_a_cluster():
    # Object arrays stay off the bulk port: they travel on Dask's comms.
    with tf.local_cluster(ps=1, workers=1, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                word = tf.as_string(tf.constant([1, 2]))
            with tf.device("/job:worker/task:0"):
                joined = tf.string_join([word, "x"])
            with tf.Session(cluster) as sess:
                assert list(sess.run(joined)) == [b"1x", b"2x"]
