"""Meta graphs: ``export_meta_graph`` / ``import_meta_graph``, and the ``GraphDef`` TF imports.

TF's side: a training graph TensorFlow wrote, with a checkpoint and TF's losses training on
from it (``tests/fixtures/make_tf_meta_graphs.py``); the live round trips, TF reading what
daskflow writes, are in ``tests/test_tf_round_trips.py``.
"""

import json
import pathlib

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.op_defs import op_def
from tests.fixtures.meta_graph_model import build
from tests.test_graph_def_round_trip import _check_signature

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "tf_meta_graphs"
RECORD = json.loads((FIXTURES / "losses.json").read_text())
FEED = {
    name: np.asarray(value, np.float32 if name == "x:0" else np.int64)
    for name, value in RECORD["feed"].items()
}


pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.mark.parametrize("train_op", sorted(RECORD["losses"]))
def test_a_graph_tensorflow_wrote_trains_on_as_in_tensorflow(train_op):
    saver = tf.train.import_meta_graph(str(FIXTURES / "model.meta"))
    train = tf.get_collection(train_op)[0]
    with tf.Session() as sess:
        saver.restore(sess, str(FIXTURES / "model"))
        losses = [sess.run(["loss:0", train], FEED)[0] for _ in RECORD["losses"][train_op]]
    np.testing.assert_allclose(losses, RECORD["losses"][train_op], rtol=2e-4, atol=2e-5)


def test_imported_collections_hold_the_variables_and_their_initializers():
    tf.train.import_meta_graph(str(FIXTURES / "model.meta"))
    names = [v.op.name for v in tf.global_variables()]
    assert "dense/kernel" in names and "global_step" in names
    assert "dense/kernel/Adam" in names and "dense/kernel/Momentum" in names
    assert {v.op.name for v in tf.trainable_variables()} == {
        "conv2d/kernel",
        "conv2d/bias",
        "dense/kernel",
        "dense/bias",
        "dense_1/kernel",
        "dense_1/bias",
    }
    assert tf.train.get_global_step().op.name == "global_step"
    with tf.Session() as sess:  # the initializers TF wrote run, and give TF's zeros
        sess.run(tf.global_variables_initializer())
        assert sess.run("global_step:0") == 0
        assert not sess.run("dense/kernel/Adam:0").any()


def _trained(sess, train, steps=3):
    return [float(sess.run(["loss:0", train], FEED)[0]) for _ in range(steps)]


def test_a_graph_daskflow_wrote_trains_on_after_import(tmp_path):
    build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model"))
        expected = {key: None for key in ("train_adam", "train_momentum")}
        for key in expected:
            tf.train.Saver().restore(sess, prefix)
            expected[key] = _trained(sess, tf.get_collection(key)[0])
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(prefix + ".meta")
    with tf.Session() as sess:
        for key, losses in expected.items():
            saver.restore(sess, prefix)
            np.testing.assert_allclose(_trained(sess, tf.get_collection(key)[0]), losses, rtol=1e-5)


def test_import_scope_prefixes_names_and_collections():
    tf.train.import_meta_graph(str(FIXTURES / "model.meta"), import_scope="imported")
    assert tf.get_default_graph().get_tensor_by_name("imported/loss:0").dtype == tf.float32
    assert tf.global_variables()[0].op.name.startswith("imported/")


def test_every_exported_node_has_tensorflows_signature():
    """Each node of a TF op type: TF's inputs and attributes (checked against TF's op
    signatures, without TensorFlow)."""
    build(tf)
    meta = tf.train.Saver().export_meta_graph()
    checked = set()
    for node in meta.graph_def.node:
        signature = op_def(node.op)
        assert signature is not None, f"{node.name}: {node.op} is no TF op"
        _check_signature(node, signature)
        checked.add(node.op)
    assert {"Conv2DBackpropFilter", "BroadcastGradientArgs", "IdentityN", "SaveV2", "RestoreV2"} <= checked
    assert meta.saver_def.restore_op_name == "save/restore_all"


def test_exported_variables_are_read_through_snapshots():
    v = tf.Variable([1.0, 2.0], name="v")
    tf.multiply(v, 2.0, name="twice")
    tf.assign_add(v, [1.0, 1.0], name="bump")
    nodes = {n.name: n for n in tf.get_default_graph().as_graph_def().node}
    assert nodes["v/read"].op == "Snapshot" and list(nodes["v/read"].input) == ["v"]
    assert nodes["twice"].input[0] == "v/read"
    assert nodes["bump"].input[0] == "v"  # an update takes the variable itself
    variable_def = v.to_proto()
    assert (variable_def.variable_name, variable_def.snapshot_name) == ("v:0", "v/read:0")


def test_as_text_writes_the_text_format_import_reads(tmp_path):
    tf.Variable(3.0, name="v")
    tf.train.export_meta_graph(str(tmp_path / "g.pbtxt"), as_text=True)
    assert "meta_info_def" in (tmp_path / "g.pbtxt").read_text()
    tf.reset_default_graph()
    tf.train.import_meta_graph(str(tmp_path / "g.pbtxt"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run("v:0") == 3.0


def test_a_missing_file_is_an_oserror_naming_it(tmp_path):
    with pytest.raises(OSError, match="nothing.meta"):
        tf.train.import_meta_graph(str(tmp_path / "nothing.meta"))


def test_an_op_daskflow_lacks_is_named_and_nothing_is_added(tmp_path):
    tf.Variable(1.0, name="v")
    meta = tf.train.export_meta_graph()
    node = meta.graph_def.node.add(name="odd", op="NoSuchOp")
    node.input.append("v")
    tf.reset_default_graph()
    with pytest.raises(ValueError, match="'odd' is a 'NoSuchOp' op"):
        tf.train.import_meta_graph(meta)
    assert tf.get_default_graph().get_operations() == []
    assert tf.global_variables() == []
