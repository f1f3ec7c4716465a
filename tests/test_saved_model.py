"""SavedModels (TF1's ``tf.saved_model``): written, loaded, and loaded from TensorFlow's.

TF's side: a SavedModel TensorFlow wrote with ``simple_save`` and its outputs
(``tests/fixtures/make_tf_meta_graphs.py``); the live round trips are in
``tests/test_tf_round_trips.py``.
"""

import json
import pathlib

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "tf_meta_graphs"
RECORD = json.loads((FIXTURES / "losses.json").read_text())
X = np.asarray(RECORD["feed"]["x:0"], np.float32)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _serve(export_dir, tags=("serve",), key="serving_default"):
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, list(tags), str(export_dir))
        signature = meta.signature_def[key]
        inputs = {name: info.name for name, info in signature.inputs.items()}
        outputs = {name: info.name for name, info in signature.outputs.items()}
        return sess.run(outputs, {inputs["x"]: X})


def test_a_saved_model_tensorflow_wrote_serves_tensorflows_outputs():
    assert tf.saved_model.maybe_saved_model_directory(str(FIXTURES / "saved_model"))
    got = _serve(FIXTURES / "saved_model")
    np.testing.assert_allclose(got["probs"], RECORD["probs"], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("train_op", sorted(RECORD["resource_losses"]))
def test_its_graph_of_resource_variables_trains_on_as_in_tensorflow(train_op):
    feed = {"x:0": X, "labels:0": np.asarray(RECORD["feed"]["labels:0"], np.int64)}
    with tf.Session(graph=tf.Graph()) as sess:
        tf.saved_model.loader.load(sess, ["serve"], str(FIXTURES / "saved_model"))
        variables = {v.op.name for v in tf.global_variables()}
        assert {"conv2d/kernel", "dense_1/bias", "global_step"} <= variables
        train = tf.get_collection(train_op)[0]
        losses = [sess.run(["loss:0", train], feed)[0] for _ in RECORD["resource_losses"][train_op]]
    np.testing.assert_allclose(losses, RECORD["resource_losses"][train_op], rtol=2e-4, atol=2e-5)


def _model():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    hidden = tf.layers.dense(tf.layers.flatten(x), 5, activation=tf.nn.relu)
    return x, tf.nn.softmax(tf.layers.dense(hidden, 3), name="probs")


def test_simple_save_then_load_gives_the_same_outputs(tmp_path):
    x, probs = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        expected = sess.run(probs, {x: X})
        tf.saved_model.simple_save(sess, str(tmp_path / "model"), {"x": x}, {"probs": probs})
    assert sorted(p.name for p in (tmp_path / "model").iterdir()) == ["saved_model.pb", "variables"]
    np.testing.assert_array_equal(_serve(tmp_path / "model")["probs"], expected)


def test_the_builder_keeps_meta_graphs_by_tags_over_one_set_of_variables(tmp_path):
    x, probs = _model()
    counter = tf.Variable(0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    export_dir = str(tmp_path / "model")
    signature = tf.saved_model.predict_signature_def({"x": x}, {"probs": probs})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        expected = sess.run(probs, {x: X})
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(
            sess, ["serve"], {"serving_default": signature}, main_op=tf.saved_model.main_op.main_op()
        )
        with pytest.raises(AssertionError, match="add_meta_graph"):
            builder.add_meta_graph_and_variables(sess, ["again"])
        builder.add_meta_graph(["train", "gpu"], {"predict": signature})
        assert builder.save(as_text=True).endswith(b"saved_model.pbtxt")
    np.testing.assert_array_equal(_serve(export_dir)["probs"], expected)
    np.testing.assert_array_equal(_serve(export_dir, ("gpu", "train"), "predict")["probs"], expected)
    with tf.Session(graph=tf.Graph()) as sess:  # the main op initialized the local variable
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        assert sess.run(counter.name) == 0


def test_loading_unknown_tags_names_them_and_the_available_ones(tmp_path):
    x, probs = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"probs": probs})
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(RuntimeError, match=r"'train'.*\['serve'\]"):
        tf.saved_model.loader.load(sess, ["train"], str(tmp_path / "m"))


def test_a_folder_without_a_saved_model_is_an_oserror_naming_it(tmp_path):
    assert not tf.saved_model.maybe_saved_model_directory(str(tmp_path))
    with tf.Session() as sess, pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.loader.load(sess, ["serve"], str(tmp_path))


def test_a_builder_refuses_a_folder_with_files_and_leaves_them(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(AssertionError, match="isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path))
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_signature_helpers_check_their_inputs():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty"):
        tf.saved_model.predict_signature_def({}, {"y": x})
    with pytest.raises(ValueError, match="examples must be a string Tensor"):
        tf.saved_model.regression_signature_def(x, x)
    examples = tf.placeholder(tf.string, [None], name="examples")
    signature = tf.saved_model.classification_signature_def(examples, None, x)
    assert signature.method_name == "tensorflow/serving/classify"
    assert tf.saved_model.is_valid_signature(signature)
    info = signature.outputs["scores"]
    assert info.name == "x:0" and info.dtype == 1 and [d.size for d in info.tensor_shape.dim] == [-1, 3]
    assert tf.saved_model.utils.get_tensor_from_tensor_info(info) is x
