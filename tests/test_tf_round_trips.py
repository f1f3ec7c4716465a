"""Files crossing between daskflow and a live TensorFlow, both ways, in one test run
(:mod:`tests.tf_oracle`; skipped where no TensorFlow is beside daskflow)."""

import numpy as np
import pytest

import daskflow as tf
from tests.tf_oracle import needs_tf, run_tf

pytestmark = [needs_tf, pytest.mark.usefixtures("fresh_graph"), pytest.mark.process, pytest.mark.slow]


def _example(i):
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
                "words": tf.train.Feature(
                    bytes_list=tf.train.BytesList(value=[b"w%d" % j for j in range(i % 3)])
                ),
            }
        )
    )


READ_WITH_TF = """
spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64),
        "words": tf.io.VarLenFeature(tf.string)}
out = {}
for path, compression in ARGS["files"]:
    batch = (tf.data.TFRecordDataset(path, compression_type=compression).batch(100)
             .map(lambda r: tf.io.parse_example(r, spec)).make_one_shot_iterator().get_next())
    with tf.Session() as sess:
        got = sess.run(batch)
    words = got["words"]
    out[path] = {"x": got["x"].tolist(), "label": got["label"].tolist(),
                 "words": [w.decode() for w in words.values], "shape": words.dense_shape.tolist()}
print(json.dumps(out))
"""


def test_tfrecords_of_examples_daskflow_writes_are_read_by_tensorflow(tmp_path):
    files = []
    for compression in ["", "GZIP", "ZLIB"]:
        path = str(tmp_path / f"data{compression}.tfrecord")
        options = tf.python_io.TFRecordOptions(
            getattr(tf.python_io.TFRecordCompressionType, compression or "NONE")
        )
        with tf.python_io.TFRecordWriter(path, options) as writer:
            for i in range(7):
                writer.write(_example(i).SerializeToString())
        files.append((path, compression))
    theirs = run_tf(READ_WITH_TF, files=files)
    for path, _ in files:
        assert theirs[path]["x"] == [[i * 0.5, -i] for i in range(7)]
        assert theirs[path]["label"] == [i % 3 for i in range(7)]
        assert theirs[path]["words"] == [f"w{j}" for i in range(7) for j in range(i % 3)]
        assert theirs[path]["shape"] == [7, 2]


WRITE_WITH_TF = """
path = ARGS["path"]
with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type="GZIP")) as writer:
    for i in range(5):
        lists = tf.train.FeatureLists(feature_list={"steps": tf.train.FeatureList(feature=[
            tf.train.Feature(float_list=tf.train.FloatList(value=[t, t + i])) for t in range(i)])})
        name = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"s%d" % i]))
        context = tf.train.Features(feature={"id": name})
        writer.write(tf.train.SequenceExample(context=context, feature_lists=lists).SerializeToString())
print(json.dumps({"written": 5}))
"""


def test_sequence_examples_tensorflow_writes_are_parsed_by_daskflow(tmp_path):
    path = str(tmp_path / "sequences.tfrecord.gz")
    assert run_tf(WRITE_WITH_TF, path=path) == {"written": 5}
    records = tf.data.TFRecordDataset(path, compression_type="GZIP").make_one_shot_iterator().get_next()
    context, steps = tf.io.parse_single_sequence_example(
        records,
        {"id": tf.FixedLenFeature([], tf.string)},
        {"steps": tf.FixedLenSequenceFeature([2], tf.float32)},
    )
    with tf.Session() as sess:
        for i in range(5):
            got_context, got_steps = sess.run([context, steps])
            assert got_context["id"] == b"s%d" % i
            expected = np.reshape([[t, t + i] for t in range(i)], (-1, 2))
            np.testing.assert_array_equal(got_steps["steps"], expected)


TF_RESTORES_AND_SAVES = """
kernel = tf.get_variable("dense/kernel", [2, 3])
bias = tf.get_variable("dense/bias", [2], dtype=tf.float64)
step = tf.train.get_or_create_global_step()
with tf.Session() as sess:
    tf.train.Saver().restore(sess, ARGS["path"])
    values = sess.run({"kernel": kernel, "bias": bias, "step": step})
    restored = {key: value.tolist() for key, value in values.items()}
    sess.run([tf.assign_add(kernel, tf.ones([2, 3])), tf.assign(step, 99)])
    os.makedirs(os.path.dirname(ARGS["back"]))
    saved = tf.train.Saver(sharded=True).save(sess, ARGS["back"])
print(json.dumps({"restored": restored, "saved": saved}))
"""


def test_checkpoints_cross_both_ways_sharded_by_worker(tmp_path):
    with tf.device("/job:ps/task:0"):
        kernel = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="dense/kernel")
        step = tf.train.get_or_create_global_step()
    with tf.device("/job:ps/task:1"):
        tf.Variable([0.5, -1.5], dtype=tf.float64, name="dense/bias")
    saver = tf.train.Saver()
    with tf.local_cluster(ps=2, workers=1, processes=False) as cluster, tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        sess.load_variable(step, 7)  # set where it lives: ps-0
        path = saver.save(sess, f"{tmp_path}/daskflow/model", global_step=step)
        shards = sorted(p.name for p in (tmp_path / "daskflow").glob("model-7.data-*"))
        assert shards == ["model-7.data-00000-of-00002", "model-7.data-00001-of-00002"]  # one per ps
        theirs = run_tf(TF_RESTORES_AND_SAVES, path=path, back=f"{tmp_path}/tf/model")
        assert theirs["restored"] == {"kernel": [[0, 1, 2], [3, 4, 5]], "bias": [0.5, -1.5], "step": 7}
        saver.restore(sess, theirs["saved"])  # TF's sharded save (a temporary folder, merged)
        np.testing.assert_array_equal(sess.run(kernel), np.arange(1, 7).reshape(2, 3))
        assert sess.run(step) == 99
    assert tf.train.load_variable(theirs["saved"], "dense/bias").tolist() == [0.5, -1.5]


TRAIN_IN_TF = """
import numpy as np
feed = {k: np.asarray(v) for k, v in ARGS["feed"].items()}
feed["x:0"] = feed["x:0"].astype(np.float32)
saver = tf.train.import_meta_graph(ARGS["prefix"] + ".meta")
out = {}
with tf.Session() as sess:
    for key in ARGS["train_ops"]:
        saver.restore(sess, ARGS["prefix"])
        train = tf.get_collection(key)[0]
        out[key] = [float(sess.run(["loss:0", train], feed)[0]) for _ in range(3)]
print(json.dumps(out))
"""


def test_a_meta_graph_daskflow_wrote_trains_on_in_tensorflow(tmp_path):
    from tests.fixtures.meta_graph_model import build, feed

    build(tf)
    batch = feed()
    train_ops = ["train_adam", "train_momentum", "train_sgd"]
    ours = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver = tf.train.Saver()
        prefix = saver.save(sess, str(tmp_path / "model"))
        for key in train_ops:
            saver.restore(sess, prefix)
            ours[key] = [float(sess.run(["loss:0", tf.get_collection(key)[0]], batch)[0]) for _ in range(3)]
    theirs = run_tf(
        TRAIN_IN_TF, prefix=prefix, train_ops=train_ops, feed={k: v.tolist() for k, v in batch.items()}
    )
    for key in train_ops:
        np.testing.assert_allclose(theirs[key], ours[key], rtol=2e-4, err_msg=key)


RUN_GRAPH_DEF_IN_TF = """
import numpy as np
graph_def = tf.GraphDef()
graph_def.ParseFromString(open(ARGS["path"], "rb").read())
tf.import_graph_def(graph_def, name="")
with tf.Session() as sess:
    got = sess.run(ARGS["fetches"], {"x:0": np.asarray(ARGS["x"], np.float32)})
print(json.dumps([np.asarray(v).tolist() for v in got]))
"""


def test_a_graph_def_daskflow_writes_runs_in_tensorflow_with_the_same_outputs(tmp_path):
    x = tf.placeholder(tf.float32, [None, 4, 3], name="x")
    unknown = tf.placeholder_with_default(x, None)  # unknown rank: reductions over every axis
    outputs = [
        tf.nn.softmax(x, axis=1),
        tf.nn.log_softmax(x),
        x[:, 1:, ::2],
        x[..., 0],
        x[:, None, -1],
        tf.pad(x, [[0, 0], [1, 2], [0, 1]], constant_values=-1.0),
        tf.split(x, [1, 3], axis=1)[1],
        tf.tile(x, [1, 2, 1]),
        tf.reduce_sum(unknown),
        tf.reduce_max(x, axis=[0, 2], keepdims=True),
        tf.reduce_mean(x, axis=-1),
        tf.gather(x, [2, 0], axis=2),
        tf.one_hot(tf.argmax(x, axis=2), 3, dtype=tf.float32),
        tf.transpose(x, [2, 0, 1]),
        tf.squeeze(tf.expand_dims(x, 1), [1]),
        tf.concat([x, -x], axis=2),
        tf.where(x > 0.5, x, tf.zeros_like(x)),
        tf.cast(tf.argmin(x, 1), tf.float32),
        tf.gradients(tf.reduce_sum(tf.tile(x, [1, 2, 1])[:, 1:6] ** 2), x)[0],
        tf.gradients(tf.reduce_mean(tf.slice(x, [0, 1, 0], [-1, 2, 2]) * 3.0), x)[0],
    ]
    path = tmp_path / "graph.pb"
    path.write_bytes(tf.get_default_graph().as_graph_def().SerializeToString())
    value = np.random.default_rng(0).random((2, 4, 3), np.float32)
    with tf.Session() as sess:
        ours = sess.run(outputs, {x: value})
    names = [t.name for t in outputs]
    theirs = run_tf(RUN_GRAPH_DEF_IN_TF, path=str(path), fetches=names, x=value.tolist())
    for name, mine, their in zip(names, ours, theirs):
        np.testing.assert_allclose(np.asarray(their, np.float32), mine, rtol=1e-5, atol=1e-6, err_msg=name)


SAVED_MODEL_IN_TF = """
import numpy as np
x = np.asarray(ARGS["x"], np.float32)  # (TF2's resource variables: compat.v1's default here)
if ARGS["write"]:
    tf.set_random_seed(3)
    inputs = tf.placeholder(tf.float32, [None, 4], name="x")
    probs = tf.nn.softmax(tf.layers.dense(tf.layers.dense(inputs, 6, activation=tf.nn.relu), 3), name="probs")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, ARGS["dir"], {"x": inputs}, {"probs": probs})
        got = sess.run(probs, {inputs: x})
else:
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], ARGS["dir"])
        signature = meta.signature_def["serving_default"]
        got = sess.run(signature.outputs["probs"].name, {signature.inputs["x"].name: x})
print(json.dumps(np.asarray(got).tolist()))
"""


def _serve_saved_model(export_dir, x):
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        signature = meta.signature_def["serving_default"]
        return sess.run(signature.outputs["probs"].name, {signature.inputs["x"].name: x})


def test_saved_models_cross_both_ways(tmp_path):
    x = np.random.default_rng(1).random((5, 4), np.float32)
    theirs_dir = str(tmp_path / "from_tf")
    theirs = run_tf(SAVED_MODEL_IN_TF, write=True, dir=theirs_dir, x=x.tolist())
    np.testing.assert_allclose(_serve_saved_model(theirs_dir, x), theirs, rtol=1e-5, atol=1e-7)

    inputs = tf.placeholder(tf.float32, [None, 4], name="x")
    probs = tf.nn.softmax(tf.layers.dense(tf.layers.dense(inputs, 6, activation=tf.nn.relu), 3), name="probs")
    ours_dir = str(tmp_path / "from_daskflow")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, ours_dir, {"x": inputs}, {"probs": probs})
        ours = sess.run(probs, {inputs: x})
    np.testing.assert_allclose(
        run_tf(SAVED_MODEL_IN_TF, write=False, dir=ours_dir, x=x.tolist()), ours, rtol=1e-5
    )


RESTORE_PARTS_IN_TF = """
import numpy as np
tf.disable_v2_behavior()
embedding = tf.get_variable("embedding", [30, 4], partitioner=tf.fixed_size_partitioner(3))
words = tf.Variable([b"", b"", b""], name="words")
with tf.Session() as sess:
    tf.train.Saver().restore(sess, ARGS["prefix"])
    whole = sess.run(tf.concat(list(embedding), 0))
    print(json.dumps({"embedding": whole.tolist(), "words": [w.decode() for w in sess.run(words)]}))
"""


def test_tensorflow_restores_string_variables_and_partitions_of_a_whole_variable(tmp_path):
    value = np.random.default_rng(2).random((30, 4), np.float32)
    embedding = tf.Variable(value, name="embedding")
    words = tf.Variable([b"ab", b"", "\u00e9t\u00e9".encode()], name="words")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = tf.train.Saver([embedding, words]).save(sess, str(tmp_path / "model"))
    theirs = run_tf(RESTORE_PARTS_IN_TF, prefix=prefix)
    np.testing.assert_array_equal(np.asarray(theirs["embedding"], np.float32), value)
    assert theirs["words"] == ["ab", "", "\u00e9t\u00e9"]
