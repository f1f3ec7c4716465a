"""``tf.summary``: summary protos compared with real TF1's, event files read back
by TensorBoard's own reader, and a summary computed on a Dask worker."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image  # bokeh's dependency; decodes the PNGs independently of our encoder
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

import daskflow as tf
import daskflow.summary  # noqa: F401 - binds tf.summary
from daskflow.summary import Summary
from tests.fixtures.make_summary import build_summaries

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures", "summary.json")))
KEEP_ALL = {"scalars": 0, "histograms": 0, "images": 0, "tensors": 0, "audio": 0}


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def _without_images(summary):
    """``summary`` with each PNG replaced by its decoded pixels' bytes (encoders differ, pixels must not)."""
    for value in summary.value:
        if value.HasField("image"):
            value.image.encoded_image_string = _pixels(value.image.encoded_image_string).tobytes()
    return summary


@pytest.fixture(scope="module")
def ours():
    with tf.Graph().as_default() as graph:
        ops, feeds = build_summaries(tf, FIXTURE["inputs"])
        with tf.Session() as sess:
            values = sess.run(ops, feeds)
        collection = [t.op.name for t in graph.get_collection(tf.GraphKeys.SUMMARIES)]
    return ops, values, collection


def test_tensorboardx_loads_when_the_first_proto_is_made_not_before():
    # tensorboardX (with boto3) costs more than the rest of `import daskflow`; building a
    # graph with summaries, a saver and an optimizer makes no proto.
    code = (
        "import sys, daskflow as tf\n"
        "loaded = lambda: 'tensorboardX' in sys.modules\n"
        "assert not loaded(), 'at import'\n"
        "x = tf.Variable(3.0, name='x')\n"
        "tf.summary.scalar('x', x); tf.summary.histogram('h', x * 2.0); tf.summary.merge_all()\n"
        "tf.train.GradientDescentOptimizer(0.1).minimize(x * x)\n"
        "tf.train.Saver()\n"
        "assert not loaded(), 'while building'\n"
        "assert type(tf.get_default_graph().as_graph_def()).__name__ == 'GraphDef'\n"
        "assert loaded(), 'a GraphDef was made without tensorboardX'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("key", sorted(FIXTURE["summaries"]))
def test_summary_op_gives_tf1s_proto(ours, key):
    ops, values, _ = ours
    ref = FIXTURE["summaries"][key]
    assert (ops[key].op.name, ops[key].op.type) == (ref["op"], ref["type"])
    assert type(values[key]) is bytes
    got = _without_images(Summary.FromString(values[key]))
    expected = _without_images(Summary.FromString(base64.b64decode(ref["summary"])))
    assert got == expected


def test_summaries_collection_matches_tf1(ours):
    assert ours[2] == FIXTURE["summaries_collection"]


def test_name_scope_gives_the_tag_and_the_op_name():
    x = tf.constant(2.0)
    with tf.name_scope("layer1"):
        s = tf.summary.scalar("loss", x)
    assert s.op.name == "layer1/loss" and s.dtype == tf.string and s.shape.as_list() == []
    with tf.Session() as sess:
        assert Summary.FromString(sess.run(s)).value[0].tag == "layer1/loss"


def _train_and_log(logdir, steps):
    """A small model with summaries in name scopes, logged for ``steps`` steps; returns the batches fed."""
    x = tf.placeholder(tf.float32, [None, 2, 3, 1], name="x")
    with tf.name_scope("layer1"):
        w = tf.Variable(np.ones((6, 1), np.float32), name="w")
        y = tf.matmul(tf.reshape(x, [-1, 6]), w)
    with tf.name_scope("train"):
        loss = tf.reduce_mean(tf.square(y))
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("w", w)
    tf.summary.image("input", x, max_outputs=2)
    tf.summary.text("notes", tf.constant("step *note*"))
    merged = tf.summary.merge_all()
    batches = [np.full((3, 2, 3, 1), step + 1, np.float32) for step in range(steps)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with tf.summary.FileWriter(logdir, sess.graph) as writer:
            for step, batch in enumerate(batches):
                writer.add_summary(sess.run(merged, {x: batch}), global_step=10 * step)
    return batches


def test_event_files_are_read_by_tensorboard(tmp_path):
    batches = _train_and_log(str(tmp_path), steps=3)
    acc = EventAccumulator(str(tmp_path), size_guidance=KEEP_ALL).Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["train/loss"]
    assert tags["histograms"] == ["train/w"]
    assert sorted(tags["images"]) == ["input/image/0", "input/image/1"]
    assert tags["tensors"] == ["notes"] and tags["graph"]

    losses = acc.Scalars("train/loss")
    assert [e.step for e in losses] == [0, 10, 20]
    # w is all ones: each row of 6 pixels of value v sums to 6 v, so the loss is 36 v^2.
    assert [e.value for e in losses] == [36.0 * b[0, 0, 0, 0] ** 2 for b in batches]

    histograms = acc.Histograms("train/w")
    assert [(h.step, h.histogram_value.num, h.histogram_value.sum) for h in histograms] == [
        (0, 6.0, 6.0),
        (10, 6.0, 6.0),
        (20, 6.0, 6.0),
    ]
    image = acc.Images("input/image/1")[-1]
    assert (image.width, image.height) == (3, 2)
    assert np.all(_pixels(image.encoded_image_string) == 255)  # a constant positive image is white

    note = acc.Tensors("notes")[0].tensor_proto
    assert note.string_val == [b"step *note*"]
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"

    nodes = {n.name: n for n in acc.Graph().node}
    expected = {"x", "layer1/w", "layer1/MatMul", "train/loss", "train/w", "input", "Merge/MergeSummary"}
    assert expected <= set(nodes)
    assert nodes["train/loss"].op == "ScalarSummary"
    assert nodes["layer1/MatMul"].input[1] == "layer1/w/read"  # through the snapshot, as TF1 writes it


def test_graph_def_names_inputs_devices_and_types_as_tf():
    from daskflow.framework.graph_export import graph_def

    with tf.device("/job:worker/task:1"):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
    a, b = tf.split(x, 2, axis=1, name="halves")
    with tf.control_dependencies([a]):
        tf.add(b, 1.0, name="total")
    nodes = {n.name: n for n in graph_def(tf.get_default_graph()).node}
    assert nodes["x"].device == "/job:worker/task:1"
    assert nodes["x"].attr["dtype"].type == 1  # DT_FLOAT
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 4]
    # TF's SplitV reads its axis as an input: a constant under the node's name
    assert list(nodes["halves"].input) == ["x", "Const", "halves/split_dim"]
    assert tf.make_ndarray(nodes["halves/split_dim"].attr["value"].tensor) == 1
    assert nodes["halves"].attr["num_split"].i == 2 and nodes["halves"].attr["Tlen"].type == 3  # int32
    assert list(nodes["total"].input) == ["halves:1", "Const_1", "^halves"]
    assert nodes["total"].op == "Add" and nodes["total"].attr["T"].type == 1
    one = nodes["Const_1"].attr["value"].tensor
    assert one.float_val == [1.0]  # a scalar as TF writes it
    assert nodes["Const_1"].attr["dtype"].type == 1
    shapes = nodes["halves"].attr["_output_shapes"].list.shape
    assert [[d.size for d in s.dim] for s in shapes] == [[-1, 2], [-1, 2]]


def test_a_sessions_graph_def_goes_to_a_writer_as_tf1s_does(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    tf.identity(x * 2.0, name="doubled")
    with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path), sess.graph_def) as writer:
        writer.flush()
        plain = {n.name: n for n in sess.graph_def.node}
    assert {"x", "doubled"} <= set(plain) and "_output_shapes" not in plain["doubled"].attr
    config = tf.ConfigProto(graph_options=tf.GraphOptions(infer_shapes=True))
    with tf.Session(config=config) as sess:
        shaped = {n.name: n for n in sess.graph_def.node}
    assert [d.size for d in shaped["doubled"].attr["_output_shapes"].list.shape[0].dim] == [-1, 2]
    nodes = {n.name for n in EventAccumulator(str(tmp_path)).Reload().Graph().node}
    assert {"x", "doubled"} <= nodes


def test_writer_keeps_plugin_metadata_on_the_first_value_of_a_tag_only(tmp_path):
    note = tf.summary.text("notes", tf.constant("hi"))
    with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(sess.run(note), 1)
        writer.add_summary(sess.run(note), 2)
    (path,) = [p for p in tmp_path.iterdir()]
    events = [e for e in EventFileLoader(str(path)).Load() if e.HasField("summary")]
    assert [e.step for e in events] == [1, 2]
    assert [e.summary.value[0].HasField("metadata") for e in events] == [True, False]


def test_flush_reopen_session_log_and_run_metadata(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), flush_secs=3600, filename_suffix=".first")
    assert writer.get_logdir() == str(tmp_path)
    writer.add_summary(Summary(value=[Summary.Value(tag="a", simple_value=1.0)]), 1)
    writer.flush()  # readable now, with the file still open
    assert [e.value for e in EventAccumulator(str(tmp_path)).Reload().Scalars("a")] == [1.0]
    writer.add_session_log(tf.summary.SessionLog(status=tf.summary.SessionLog.START), 2)
    writer.add_run_metadata(b"", "step_2", 2)
    with pytest.raises(ValueError, match="step_2"):
        writer.add_run_metadata(b"", "step_2", 3)
    writer.close()
    writer.add_summary(Summary(value=[Summary.Value(tag="a", simple_value=9.0)]), 9)  # closed: dropped
    writer.reopen()
    writer.add_summary(Summary(value=[Summary.Value(tag="a", simple_value=3.0)]), 3)
    writer.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and files[0].endswith(".first")
    acc = EventAccumulator(str(tmp_path)).Reload()
    assert [(e.step, e.value) for e in acc.Scalars("a")] == [(1, 1.0), (3, 3.0)]
    assert acc.Tags()["run_metadata"] == ["step_2"]


def test_file_writer_cache_shares_one_writer_per_logdir(tmp_path):
    first = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is first
    tf.summary.FileWriterCache.clear()
    assert first._closed
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is not first
    tf.summary.FileWriterCache.clear()


def test_add_graph_refuses_what_is_not_a_graph(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer, pytest.raises(TypeError, match="str"):
        writer.add_graph("not a graph")


def test_merge_of_two_summaries_and_merge_all_of_nothing():
    a = tf.summary.scalar("a", tf.constant(1.0))
    b = tf.summary.histogram("b", tf.constant([1.0, 2.0]))
    merged = tf.summary.merge([a, b])
    assert tf.summary.merge_all(key="no_such_collection") is None
    with tf.Session() as sess:
        values = Summary.FromString(sess.run(merged)).value
    assert [(v.tag, v.WhichOneof("value")) for v in values] == [("a", "simple_value"), ("b", "histo")]
    with tf.Graph().as_default():
        assert tf.summary.merge_all() is None


def test_merge_with_a_repeated_tag_fails_naming_the_op():
    a = tf.summary.scalar("a", tf.constant(1.0))
    twice = tf.summary.merge([a, a], name="twice")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag a") as e:
        sess.run(twice)
    assert e.value.op is twice.op


def test_scalar_of_a_non_scalar_fails_when_run_naming_the_op():
    x = tf.placeholder(tf.float32, name="x")
    s = tf.summary.scalar("loss", x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="not the same shape") as e:
        sess.run(s, {x: [1.0, 2.0]})
    assert e.value.op is s.op and "loss" in str(e.value)


def test_histogram_of_nan_fails_when_run_naming_the_op():
    x = tf.placeholder(tf.float32, [2], name="x")
    h = tf.summary.histogram("weights", x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary") as e:
        sess.run(h, {x: [1.0, np.nan]})
    assert e.value.op is h.op and "weights" in str(e.value)


def test_bad_inputs_are_refused_when_built_naming_the_tensor():
    with pytest.raises(ValueError, match="rank3:0"):
        tf.summary.image("img", tf.zeros([2, 3, 1], name="rank3"))
    with pytest.raises(ValueError, match="two_channels:0"):
        tf.summary.image("img", tf.zeros([1, 2, 2, 2], name="two_channels"))
    with pytest.raises(TypeError, match="ints:0"):
        tf.summary.image("img", tf.zeros([1, 2, 2, 1], tf.int32, name="ints"))
    with pytest.raises(TypeError, match="words:0"):
        tf.summary.scalar("s", tf.constant("a", name="words"))
    with pytest.raises(ValueError, match="floats:0"):
        tf.summary.text("t", tf.zeros([2], name="floats"))
    with pytest.raises(TypeError, match="number:0"):
        tf.summary.merge([tf.constant(1.0, name="number")])


def test_image_of_unknown_rank_fails_when_run_naming_the_op():
    x = tf.placeholder(tf.float32, name="pixels")
    im = tf.summary.image("img", x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=r"4-D.*\[2, 3\]") as e:
        sess.run(im, {x: np.zeros((2, 3), np.float32)})
    assert e.value.op is im.op


def test_summary_runs_on_a_dask_worker_and_its_bytes_parse():
    with tf.local_cluster(ps=0, workers=2, processes=False) as cluster:
        with tf.device("/job:worker/task:1"):
            w = tf.Variable([1.0, 2.0, 4.0], name="w")
            hist = tf.summary.histogram("w", w)
            pic = tf.summary.image("w_image", tf.reshape(w, [1, 1, 3, 1]))
            merged = tf.summary.merge([hist, pic])
        with tf.Session(cluster) as sess:
            sess.run(tf.global_variables_initializer())
            where = sess.placement(merged)
            blob = sess.run(merged)
    assert where[hist.op.name].worker == where[merged.op.name].worker == "worker-1"
    values = Summary.FromString(blob).value
    assert [v.tag for v in values] == ["w_1", "w_image/image/0"]
    assert (values[0].histo.num, values[0].histo.sum, values[0].histo.max) == (3.0, 7.0, 4.0)
    assert _pixels(values[1].image.encoded_image_string).tolist() == [[63, 127, 255]]
