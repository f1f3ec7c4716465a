"""TF1's readers over real files in the test's folder, and TFRecord files byte for byte as TF
writes them (``tests/fixtures/make_readers.py`` ran ``scenarios_readers.py`` under TF1, stored
``readers.json`` and wrote the files in ``fixtures/readers/``)."""

from __future__ import annotations

import gzip
import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
from daskflow.lib.io import crc32c, tf_record

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_readers as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "readers.json").read_text())
TF_MADE = FIXTURES / "readers"


pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_every_reader_gives_tf1s_keys_values_and_counts(tmp_path):
    sc.write_files(tf, str(tmp_path))
    got = sc.readers(tf, str(tmp_path))
    assert got == TF1["readers"]


def test_crc32c_matches_the_published_check_values():
    # RFC 3720 (iSCSI), appendix B.4.
    assert crc32c.crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c.crc32c(b"123456789") == 0xE3069283


def test_tfrecord_files_are_byte_for_byte_what_tf_writes(tmp_path):
    path = tmp_path / "ours.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        for record in sc.RECORDS:
            writer.write(record)
    assert path.read_bytes() == (TF_MADE / "tf_made.tfrecord").read_bytes()


@pytest.mark.parametrize(
    "name, options",
    [
        ("tf_made.tfrecord", None),
        ("tf_made_gzip.tfrecord", "GZIP"),
        ("tf_made_zlib.tfrecord", tf.python_io.TFRecordCompressionType.ZLIB),
    ],
)
def test_tfrecord_files_tf_wrote_read_back(name, options):
    got = list(tf.python_io.tf_record_iterator(str(TF_MADE / name), options))
    assert got == sc.RECORDS


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compressed_tfrecords_round_trip_and_hold_tfs_frames(tmp_path, kind):
    path = str(tmp_path / "c.tfrecord")
    options = tf.python_io.TFRecordOptions(compression_type=kind)
    with tf.python_io.TFRecordWriter(path, options) as writer:
        for record in sc.RECORDS:
            writer.write(record)
    raw = pathlib.Path(path).read_bytes()
    inner = gzip.decompress(raw) if kind == "GZIP" else __import__("zlib").decompress(raw)
    assert inner == (TF_MADE / "tf_made.tfrecord").read_bytes()
    assert list(tf.python_io.tf_record_iterator(path, options)) == sc.RECORDS


def test_a_corrupted_record_is_data_loss_naming_the_offset(tmp_path):
    data = bytearray((TF_MADE / "tf_made.tfrecord").read_bytes())
    data[35 + 12] ^= 0xFF  # the third record's first byte (records of 3 and 0 bytes take 19 + 16 before it)
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 35"):
        list(tf.python_io.tf_record_iterator(str(path)))
    path.write_bytes(bytes(data[:40]))
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 35"):
        list(tf_record.tf_record_iterator(str(path)))


def test_a_missing_file_fails_the_read_with_not_found(tmp_path):
    queue = tf.train.string_input_producer([str(tmp_path / "absent.csv")], shuffle=False)
    key, value = tf.TextLineReader().read(queue)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.NotFoundError, match="absent.csv"):
            sess.run(value)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)


def test_a_reader_needs_a_queue_of_scalar_strings():
    numbers = tf.FIFOQueue(3, tf.int32, shapes=[[]])
    with pytest.raises(TypeError, match="not a reader or queue handle"):
        tf.TextLineReader().read(numbers.dequeue())
    key, value = tf.WholeFileReader().read(numbers)
    with tf.Session() as sess:
        sess.run(numbers.enqueue(3))
        with pytest.raises(tf.errors.InvalidArgumentError, match="scalar string"):
            sess.run(value)


def test_tfrecords_through_a_reader_and_a_batch_for_two_epochs(tmp_path):
    # The TF1 tutorial pipeline: files -> TFRecordReader -> decode_raw -> shuffle_batch.
    rows = np.arange(40, dtype=np.float32).reshape(10, 4)
    paths = [str(tmp_path / f"part-{i}.tfrecord") for i in range(2)]
    for i, path in enumerate(paths):
        with tf.python_io.TFRecordWriter(path) as writer:
            for row in rows[i * 5 : (i + 1) * 5]:
                writer.write(row.tobytes())
    files = tf.train.string_input_producer(paths, num_epochs=2, seed=1)
    _, record = tf.TFRecordReader().read(files)
    example = tf.reshape(tf.decode_raw(record, tf.float32), [4])
    batch = tf.train.shuffle_batch(
        [example], 3, capacity=8, min_after_dequeue=2, num_threads=2, allow_smaller_final_batch=True
    )
    assert batch.shape.as_list() == [None, 4]
    seen = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while not coord.should_stop():
                seen.extend(map(tuple, sess.run(batch).tolist()))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert sorted(seen) == sorted(map(tuple, np.concatenate([rows, rows]).tolist()))
