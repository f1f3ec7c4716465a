"""Checkpoints TF1's ``Saver`` wrote (V2 bundles) read by daskflow's checkpoint readers.

``tests/fixtures/make_tf_checkpoint.py`` saved ``tf_checkpoint/model`` with TF 2.21's
``compat.v1`` and stored the values it saved in ``values.json``.
"""

import json
import pathlib
import shutil

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import DataLossError, NotFoundError
from daskflow.train.tensor_bundle import Bundle

HERE = pathlib.Path(__file__).parent / "fixtures" / "tf_checkpoint"
PREFIX = str(HERE / "model")
SAVED = json.loads((HERE / "values.json").read_text())["variables"]


def test_every_variable_tf_saved_reads_back_with_its_dtype_and_shape():
    reader = tf.train.NewCheckpointReader(PREFIX)
    shapes, kinds = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    assert set(shapes) == set(SAVED)
    for name, saved in SAVED.items():
        got = reader.get_tensor(name)
        assert kinds[name].name == saved["dtype"] and got.dtype == tf.as_dtype(saved["dtype"]).as_numpy_dtype
        assert shapes[name] == list(np.shape(saved["value"])) == list(got.shape)
        np.testing.assert_array_equal(got, np.asarray(saved["value"], dtype=got.dtype))


def test_the_one_line_readers_and_the_folders_latest():
    assert tf.train.list_variables(str(HERE))[:2] == [("counts", [2, 2]), ("dense/bias", [4])]
    np.testing.assert_array_equal(
        tf.train.load_variable(str(HERE), "dense/bias:0"), SAVED["dense/bias"]["value"]
    )
    assert tf.train.latest_checkpoint(str(HERE)) == PREFIX


def test_variables_start_from_a_tf_checkpoint():
    with tf.Graph().as_default():
        with tf.variable_scope("dense"):
            kernel = tf.get_variable("kernel", [3, 4])
        tf.train.init_from_checkpoint(PREFIX, {"dense/": "dense/"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(kernel), SAVED["dense/kernel"]["value"], rtol=0)


def _damaged(tmp_path, suffix, offset):
    for f in HERE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / f"model{suffix}"
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    return str(tmp_path / "model")


def test_a_damaged_tensor_is_a_data_loss_naming_the_file_and_the_tensor(tmp_path):
    prefix = _damaged(tmp_path, ".data-00000-of-00001", 0)
    reader = tf.train.NewCheckpointReader(prefix)
    entries = Bundle(prefix).entries
    first = next(name for name in sorted(SAVED) if entries[name]["offset"] == 0)
    with pytest.raises(DataLossError, match=rf"model\.data-00000-of-00001: checksum mismatch for {first}"):
        reader.get_tensor(first)


def test_a_damaged_index_is_a_data_loss_naming_it(tmp_path):
    prefix = _damaged(tmp_path, ".index", 20)
    with pytest.raises(DataLossError, match=r"model\.index: corrupted block"):
        tf.train.NewCheckpointReader(prefix)


def test_a_name_the_checkpoint_lacks_and_a_missing_checkpoint_say_so():
    with pytest.raises(NotFoundError, match="Key nothing not found in checkpoint"):
        tf.train.NewCheckpointReader(PREFIX).get_tensor("nothing")
    with pytest.raises(NotFoundError, match="Failed to find any matching files for .*absent"):
        tf.train.NewCheckpointReader(str(HERE / "absent"))


def test_saver_restores_a_tf_checkpoint_and_refuses_a_mismatch_changing_nothing():
    with tf.Graph().as_default():
        with tf.variable_scope("dense"):
            kernel = tf.get_variable("kernel", [3, 4], initializer=tf.zeros_initializer())
            bias = tf.get_variable("bias", [4], initializer=tf.zeros_initializer())
        step = tf.Variable(0, dtype=tf.int64, name="global_step")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, PREFIX)
            np.testing.assert_array_equal(sess.run(kernel), SAVED["dense/kernel"]["value"])
            assert sess.run(step) == SAVED["global_step"]["value"]
            sess.run(bias.assign([9.0, 9.0, 9.0, 9.0]))
            wrong = tf.Variable(tf.zeros([5]), name="half")  # TF saved "half" as float16 [2]
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"half: checkpoint \(2,\) float16"):
                tf.train.Saver([bias, wrong]).restore(sess, PREFIX)
            np.testing.assert_array_equal(sess.run(bias), [9.0] * 4)  # nothing changed


PARTS = pathlib.Path(__file__).parent / "fixtures" / "tf_checkpoint_parts"
PARTS_SAVED = json.loads((PARTS / "values.json").read_text())


def test_string_and_partitioned_variables_tf_saved_read_back_whole():
    reader = tf.train.NewCheckpointReader(str(PARTS / "model"))
    assert sorted(reader.get_variable_to_shape_map()) == ["embedding", "vocab/table", "wide", "words"]
    for name, value in PARTS_SAVED["strings"].items():
        expected = np.vectorize(lambda s: s.encode(), otypes=[object])(np.asarray(value, dtype=object))
        got = reader.get_tensor(name)
        assert reader.get_variable_to_dtype_map()[name] == tf.string and got.shape == expected.shape
        assert got.tolist() == expected.tolist()
    for name, value in PARTS_SAVED["partitioned"].items():
        np.testing.assert_array_equal(reader.get_tensor(name), np.asarray(value, np.float32))


def test_a_tf_partitioned_variable_restores_into_one_daskflow_variable():
    with tf.Graph().as_default():
        embedding = tf.get_variable("embedding", [300, 4], partitioner=tf.fixed_size_partitioner(3))
        wide = tf.get_variable("wide", [5, 130])
        words = tf.Variable([b"", b"", b""], name="words")
        with tf.Session() as sess:
            tf.train.Saver([embedding, wide, words]).restore(sess, str(PARTS / "model"))
            np.testing.assert_array_equal(sess.run(embedding), PARTS_SAVED["partitioned"]["embedding"])
            np.testing.assert_array_equal(sess.run(wide), PARTS_SAVED["partitioned"]["wide"])
            assert sess.run(words).tolist() == [s.encode() for s in PARTS_SAVED["strings"]["words"]]


def test_a_damaged_string_tensor_is_a_data_loss_naming_it(tmp_path):
    for f in PARTS.iterdir():
        shutil.copy(f, tmp_path / f.name)
    bundle = Bundle(str(tmp_path / "model"))
    entry = bundle.entries["words"]
    data = bytearray((tmp_path / "model.data-00000-of-00001").read_bytes())
    data[entry["offset"] + entry["size"] - 1] ^= 0x01  # the last character
    (tmp_path / "model.data-00000-of-00001").write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="words"):
        tf.train.load_variable(str(tmp_path / "model"), "words")


def test_hostile_string_and_part_records_are_data_loss_naming_the_tensor(tmp_path):
    from daskflow.runtime.checkpoint import read_variable

    shard = tmp_path / "model.data-00000-of-00001"
    shard.write_bytes(b"\x85")  # a length whose varint never ends
    record = {"name": "words", "shape": [1], "dtype": "object", "offset": 0, "size": 1, "crc32c": None}
    with pytest.raises(DataLossError, match="words"):
        read_variable(str(shard), record)
    with pytest.raises(DataLossError, match="words"):  # more strings than bytes
        read_variable(str(shard), {**record, "shape": [10**9]})
    with pytest.raises(DataLossError, match="emb.*cover"):  # parts that leave a gap
        read_variable(str(shard), {"name": "emb", "shape": [2, 2], "dtype": "float32", "parts": []})


def test_a_first_format_manifest_with_other_keys_is_refused(tmp_path):
    from daskflow.train.checkpoint_files import FORMAT, read_manifest

    record = {"file": "v.npy", "shape": [1], "dtype": "float32", "bytes": 1, "sha256": "0", "parts": []}
    manifest = {"format": FORMAT, "data": "model.data", "variables": {"v": record}}
    (tmp_path / "model.index.json").write_text(json.dumps(manifest))
    with pytest.raises(DataLossError, match="not a daskflow checkpoint manifest"):
        read_manifest(str(tmp_path / "model"))
