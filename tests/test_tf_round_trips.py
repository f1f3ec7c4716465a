"""Files crossing between daskflow and a live TensorFlow, both ways, in one test run
(:mod:`tests.tf_oracle`; skipped where no TensorFlow is beside daskflow)."""

import numpy as np

import daskflow as tf
from tests.tf_oracle import needs_tf, run_tf

pytestmark = needs_tf


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
