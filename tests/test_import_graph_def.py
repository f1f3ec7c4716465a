"""``tf.import_graph_def`` on frozen GraphDefs TensorFlow wrote (``fixtures/make_tf_graphs.py``):
the imported graph gives TF's outputs under TF's names, with ``input_map`` and
``return_elements``; a GraphDef with an op daskflow cannot import is refused naming it."""

import json
import pathlib

import numpy as np
import pytest

import daskflow as tf

HERE = pathlib.Path(__file__).parent / "fixtures" / "tf_graphs"
INDEX = json.loads((HERE / "index.json").read_text())


def _graph_def(model):
    graph_def = tf.GraphDef()
    graph_def.ParseFromString((HERE / f"{model}.pb").read_bytes())
    return graph_def


@pytest.mark.parametrize("model", ["mlp", "cnn", "block_cells"])
def test_a_frozen_tf_graph_gives_tfs_outputs_under_tfs_names(model):
    expected = np.load(HERE / f"{model}.npz")
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(_graph_def(model))
        fetches = [graph.get_tensor_by_name(f"import/{name}") for name in INDEX[model]["fetches"]]
        with tf.Session() as sess:
            values = sess.run(fetches, {"import/x:0": expected["x"]})
    for node in _graph_def(model).node:  # every node's output 0 under its own name
        assert graph.get_operation_by_name(f"import/{node.name}").type is not None
    for name, value in zip(INDEX[model]["fetches"], values):
        np.testing.assert_allclose(value, expected[name], rtol=1e-5, atol=1e-6, err_msg=name)
        assert np.asarray(value).dtype == expected[name].dtype, name


def test_input_map_and_return_elements_as_in_tf1():
    expected = np.load(HERE / "mlp.npz")
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, 64], name="images")
        probs, label_op = tf.import_graph_def(
            _graph_def("mlp"), input_map={"x": images}, return_elements=["probs:0", "label"], name="model"
        )
        assert probs.name == "model/probs:0" and label_op.name == "model/label"
        assert probs.shape.as_list() == [None, 10]
        with tf.Session() as sess:
            got = sess.run(probs, {images: expected["x"]})
    np.testing.assert_allclose(got, expected["probs:0"], rtol=1e-5, atol=1e-6)


def test_an_op_daskflow_cannot_import_is_refused_naming_it_and_nothing_is_added():
    with tf.Graph().as_default() as graph:
        with pytest.raises(ValueError, match=r"node 'Bucketize' is a 'Bucketize' op"):
            tf.import_graph_def(_graph_def("unsupported"))
        assert graph.get_operations() == []


def test_bad_arguments_name_the_culprit():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="GraphDef"):
            tf.import_graph_def(b"not a proto")
        with pytest.raises(ValueError, match="nothing:0"):
            tf.import_graph_def(_graph_def("mlp"), input_map={"nothing": tf.constant(1.0)})
        with pytest.raises(ValueError, match="'absent:0' not found"):
            tf.import_graph_def(_graph_def("mlp"), return_elements=["absent:0"])


def test_a_graph_daskflow_wrote_imports_again():
    with tf.Graph().as_default() as first:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.nn.relu(tf.matmul(x, tf.constant([[1.0, -1.0], [2.0, 0.5]])) + 1.0, name="y")
    with tf.Graph().as_default():
        (imported,) = tf.import_graph_def(first.as_graph_def(), return_elements=["y:0"], name="")
        assert imported.name == "y:0"
        with tf.Session() as sess:
            got = sess.run(imported, {"x:0": [[1.0, 2.0]]})
    np.testing.assert_allclose(got, [[6.0, 1.0]])
    assert y.name == "y:0"


def test_a_trained_graph_frozen_by_graph_util_imports_and_gives_the_same_outputs():
    rng = np.random.default_rng(0)
    x_data = rng.random((8, 4), np.float32)
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        b = tf.Variable(tf.zeros([3]), name="b")
        probs = tf.nn.softmax(tf.matmul(x, w) + b, name="probs")
        loss = -tf.reduce_mean(tf.log(probs[:, 0]))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: x_data})
            expected = sess.run(probs, {x: x_data})
            with pytest.raises(AssertionError, match="absent is not in graph"):
                tf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["absent"])
            frozen = tf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["probs"])
    assert {n.op for n in frozen.node} & {"VariableV2", "Assign"} == set()  # only what probs needs
    assert "w" in {n.name for n in frozen.node if n.op == "Const"}
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(frozen, return_elements=["probs:0"])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {"import/x:0": x_data}), expected, rtol=1e-6)
