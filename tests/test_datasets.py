import gzip
import re
import struct

import numpy as np
import pytest

from daskflow.datasets import DataSet, Datasets, load_digits, read_data_sets, read_idx

_CODES = {
    np.dtype(np.uint8): 0x08,
    np.dtype(np.int8): 0x09,
    np.dtype(np.int16): 0x0B,
    np.dtype(np.int32): 0x0C,
    np.dtype(np.float32): 0x0D,
    np.dtype(np.float64): 0x0E,
}


def idx_bytes(array):
    array = np.asarray(array)
    header = bytes([0, 0, _CODES[array.dtype], array.ndim])
    header += struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_idx(path, array, gz=False):
    data = idx_bytes(array)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --- digits -----------------------------------------------------------------


def test_digits_shapes_dtypes_ranges():
    data = load_digits()
    assert isinstance(data, Datasets)
    assert data.train.images.shape == (1437, 64)
    assert data.validation.images.shape == (0, 64)
    assert data.test.images.shape == (360, 64)
    for ds in data:
        assert ds.images.dtype == np.float32
        assert ds.labels.dtype == np.int64
    all_images = np.concatenate([d.images for d in data])
    assert all_images.min() == 0.0 and all_images.max() == 1.0
    all_labels = np.concatenate([d.labels for d in data])
    assert sorted(set(all_labels.tolist())) == list(range(10))
    # deterministic split
    again = load_digits()
    np.testing.assert_array_equal(again.test.images, data.test.images)
    np.testing.assert_array_equal(again.train.labels, data.train.labels)


def test_digits_one_hot_reshape_and_sizes():
    data = load_digits(one_hot=True, reshape=False, validation_size=100, test_size=200)
    assert data.train.images.shape == (1497, 8, 8, 1)
    assert data.validation.images.shape == (100, 8, 8, 1)
    assert data.test.images.shape == (200, 8, 8, 1)
    labels = data.train.labels
    assert labels.shape == (1497, 10) and labels.dtype == np.float32
    np.testing.assert_array_equal(labels.sum(axis=1), 1.0)
    ids = load_digits(validation_size=100, test_size=200).train.labels
    np.testing.assert_array_equal(labels.argmax(axis=1), ids)
    with pytest.raises(ValueError, match="validation_size"):
        load_digits(validation_size=1500)
    with pytest.raises(ValueError, match="test_size"):
        load_digits(test_size=-1)


def test_read_data_sets_default_is_digits():
    a = read_data_sets(one_hot=True, validation_size=123)
    b = load_digits(one_hot=True)
    assert a.validation.num_examples == 0
    np.testing.assert_array_equal(a.train.images, b.train.images)
    np.testing.assert_array_equal(a.test.labels, b.test.labels)


# --- DataSet.next_batch -----------------------------------------------------


def make_ds(n=10, **kw):
    images = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return DataSet(images, np.arange(n) % 10, **kw)


def test_next_batch_deterministic():
    a, b, c = make_ds(seed=3), make_ds(seed=3), make_ds(seed=4)
    seq_a = [a.next_batch(3)[1].tolist() for _ in range(8)]
    seq_b = [b.next_batch(3)[1].tolist() for _ in range(8)]
    seq_c = [c.next_batch(3)[1].tolist() for _ in range(8)]
    assert seq_a == seq_b
    assert seq_a != seq_c
    xs, ys = make_ds(seed=3).next_batch(4)
    np.testing.assert_array_equal(xs[:, 0], ys * 2)  # images and labels stay paired


def test_next_batch_epoch_boundary():
    ds = make_ds(n=10, seed=0)
    batches = [ds.next_batch(4)[1] for _ in range(5)]
    seen = np.concatenate(batches)
    assert np.bincount(seen, minlength=10).tolist() == [2] * 10
    first, second = seen[:10], seen[10:]
    assert sorted(first.tolist()) == list(range(10))
    assert sorted(second.tolist()) == list(range(10))
    assert first.tolist() != list(range(10))  # shuffled
    # batch 3 straddles the boundary: 2 old examples + 2 new ones
    np.testing.assert_array_equal(batches[2][:2], first[8:])
    assert ds.epochs_completed == 1


def test_next_batch_no_shuffle_and_one_hot():
    ds = make_ds(n=5, one_hot=True)
    _, y1 = ds.next_batch(3, shuffle=False)
    _, y2 = ds.next_batch(3, shuffle=False)
    assert y1.shape == (3, 10) and y1.dtype == np.float32
    assert y1.argmax(axis=1).tolist() == [0, 1, 2]
    assert y2.argmax(axis=1).tolist() == [3, 4, 0]
    assert ds.epochs_completed == 1


@pytest.mark.parametrize("bad", [0, -2, 11, 2.5, "3", True])
def test_next_batch_bad_size(bad):
    ds = make_ds(n=10)
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        ds.next_batch(bad)


def test_dataset_validation():
    with pytest.raises(ValueError, match="differ in length"):
        DataSet(np.zeros((3, 2)), [0, 1])
    with pytest.raises(ValueError, match=r"\[0, 10\)"):
        DataSet(np.zeros((2, 2)), [0, 10])


# --- IDX files ---------------------------------------------------------------


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_round_trip(tmp_path, gz):
    rng = np.random.default_rng(0)
    for dtype in _CODES:
        arr = (rng.standard_normal((2, 3, 4)) * 50).astype(dtype)
        path = write_idx(tmp_path / f"x-{dtype}", arr, gz=gz)  # no .gz suffix
        out = read_idx(path)
        assert out.dtype == dtype and out.dtype.isnative
        np.testing.assert_array_equal(out, arr)


def write_mnist(tmp_path, train_n=6, test_n=3, gz_train=True, gz_test=False):
    rng = np.random.default_rng(1)
    tr_x = rng.integers(0, 256, (train_n, 4, 5), dtype=np.uint8)
    tr_y = (np.arange(train_n) % 10).astype(np.uint8)
    te_x = rng.integers(0, 256, (test_n, 4, 5), dtype=np.uint8)
    te_y = (np.arange(test_n)[::-1] % 10).astype(np.uint8)
    tr, te = (".gz" if gz_train else ""), (".gz" if gz_test else "")
    write_idx(tmp_path / f"train-images-idx3-ubyte{tr}", tr_x, gz_train)
    write_idx(tmp_path / f"train-labels-idx1-ubyte{tr}", tr_y, gz_train)
    write_idx(tmp_path / f"t10k-images-idx3-ubyte{te}", te_x, gz_test)
    write_idx(tmp_path / f"t10k-labels-idx1-ubyte{te}", te_y, gz_test)
    return tr_x, tr_y, te_x, te_y


def test_read_data_sets_from_idx(tmp_path):
    tr_x, tr_y, te_x, te_y = write_mnist(tmp_path)
    data = read_data_sets(tmp_path, validation_size=2)
    assert [d.num_examples for d in data] == [4, 2, 3]
    np.testing.assert_allclose(data.validation.images, tr_x[:2].reshape(2, 20) / 255.0)
    np.testing.assert_allclose(data.train.images, tr_x[2:].reshape(4, 20) / 255.0)
    np.testing.assert_allclose(data.test.images, te_x.reshape(3, 20) / 255.0)
    np.testing.assert_array_equal(data.train.labels, tr_y[2:])
    np.testing.assert_array_equal(data.test.labels, te_y)
    assert data.train.images.dtype == np.float32
    assert data.train.labels.dtype == np.int64

    nhwc = read_data_sets(str(tmp_path), one_hot=True, reshape=False, validation_size=2)
    assert nhwc.train.images.shape == (4, 4, 5, 1)
    assert nhwc.test.labels.shape == (3, 10)
    np.testing.assert_array_equal(nhwc.test.labels.argmax(axis=1), te_y)
    with pytest.raises(ValueError, match="validation_size"):
        read_data_sets(tmp_path, validation_size=7)


def test_gzip_detected_by_content(tmp_path):
    # gzip content under a plain name, plain content under a .gz name
    arr = np.arange(6, dtype=np.uint8)
    a = write_idx(tmp_path / "plain-name", arr, gz=True)
    b = write_idx(tmp_path / "gz-name.gz", arr, gz=False)
    np.testing.assert_array_equal(read_idx(a), arr)
    np.testing.assert_array_equal(read_idx(b), arr)


def test_truncated_file(tmp_path):
    data = idx_bytes(np.zeros((4, 3, 3), dtype=np.uint8))
    path = tmp_path / "short-idx3-ubyte"
    path.write_bytes(data[:-5])
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*truncated"):
        read_idx(path)
    path.write_bytes(data[:10])  # cut inside the header
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*truncated"):
        read_idx(path)
    gz = tmp_path / "short.gz"
    gz.write_bytes(gzip.compress(data)[:-12])
    with pytest.raises(ValueError, match=re.escape(str(gz))):
        read_idx(gz)


def test_bad_magic(tmp_path):
    path = tmp_path / "bad-magic"
    path.write_bytes(b"\x01\x02\x08\x01" + struct.pack(">I", 1) + b"\x00")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*magic"):
        read_idx(path)
    path.write_bytes(b"\x00\x00\x42\x01" + struct.pack(">I", 1) + b"\x00")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*type code"):
        read_idx(path)


def test_bad_file_in_read_data_sets(tmp_path):
    write_mnist(tmp_path, gz_train=False)
    bad = tmp_path / "t10k-images-idx3-ubyte"
    bad.write_bytes(b"\xff\xff\xff\xff")
    with pytest.raises(ValueError, match=re.escape(str(bad))):
        read_data_sets(tmp_path, validation_size=2)


def test_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        read_data_sets(tmp_path)
    msg = str(info.value)
    assert str(tmp_path) in msg
    for name in (
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    ):
        assert name in msg
    write_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(
        FileNotFoundError,
        match=r"missing from .*: t10k-labels-idx1-ubyte\[\.gz\] \(expected",
    ):
        read_data_sets(tmp_path)
