import gzip
import re
import struct

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import DataSet, Datasets, digits_as_mnist, load_digits, read_data_sets, read_idx

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
    a = read_data_sets(one_hot=True)
    b = load_digits(one_hot=True)
    # TF1 keeps its default 5000 of MNIST's 60000 training examples for validation:
    # the same fraction of the 1437 training digits is 120.
    assert [d.num_examples for d in a] == [1317, 120, 360]
    assert a.validation.images.shape == (120, 64) and a.validation.labels.shape == (120, 10)
    assert a.validation.images.dtype == np.float32
    assert a.validation.images.min() == 0.0 and a.validation.images.max() == 1.0
    # load_digits' digits in its order: validation first, then training; the test set unchanged.
    np.testing.assert_array_equal(a.validation.images, b.train.images[:120])
    np.testing.assert_array_equal(a.train.images, b.train.images[120:])
    np.testing.assert_array_equal(a.test.labels, b.test.labels)


SPLITS = [(0, [1437, 0]), (12000, [1150, 287]), (60000, [0, 1437])]  # 1437 * validation_size / 60000


@pytest.mark.parametrize(("validation_size", "sizes"), SPLITS)
def test_read_data_sets_digits_validation_size_counts_mnist_examples(validation_size, sizes):
    data = read_data_sets(validation_size=validation_size, dtype="uint8")
    assert [data.train.num_examples, data.validation.num_examples] == sizes
    assert data.test.num_examples == 360


@pytest.mark.parametrize("bad", [60001, -1])
def test_read_data_sets_digits_validation_size_out_of_range_is_tf1s_error(bad):
    # TF r1.15's contrib/learn/python/learn/datasets/mnist.py raises this ValueError.
    want = f"Validation size should be between 0 and 60000. Received: {bad}."
    with pytest.raises(ValueError, match=re.escape(want)):
        read_data_sets(validation_size=bad)


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
    tf1_message = "Validation size should be between 0 and 6. Received: 7."
    with pytest.raises(ValueError, match=re.escape(tf1_message)):
        read_data_sets(tmp_path, validation_size=7)
    with pytest.raises(ValueError, match="validation_size must be an integer"):
        read_data_sets(tmp_path, validation_size=2.5)


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
    write_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    # Some files but not all: a broken download, reported rather than replaced.
    with pytest.raises(FileNotFoundError) as info:
        read_data_sets(tmp_path)
    msg = str(info.value)
    assert str(tmp_path) in msg
    assert re.search(r"missing from .*: t10k-labels-idx1-ubyte\[\.gz\] \(expected", msg)
    for name in (
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    ):
        assert name in msg


# --- TF1's signatures ---------------------------------------------------------


def test_read_data_sets_takes_tf1s_positional_order(tmp_path):
    # mnist.read_data_sets(train_dir, fake_data, one_hot, dtype, reshape,
    #                      validation_size, seed, source_url) in TF r1.15.
    tr_x, tr_y, te_x, te_y = write_mnist(tmp_path)
    data = read_data_sets(str(tmp_path), False, True, "uint8", False, 2, 0, "http://never.fetched/")
    assert data.train.images.dtype == np.uint8
    assert data.train.images.shape == (4, 4, 5, 1)
    np.testing.assert_array_equal(data.train.images[..., 0], tr_x[2:])  # bytes kept as stored
    np.testing.assert_array_equal(data.test.images[..., 0], te_x)
    np.testing.assert_array_equal(data.validation.labels.argmax(axis=1), tr_y[:2])


def test_float32_images_are_tf1s_scaling(tmp_path):
    tr_x, *_ = write_mnist(tmp_path)
    data = read_data_sets(tmp_path, dtype=tf.float32, validation_size=0)
    # TF1: images.astype(float32) then numpy.multiply(images, 1.0 / 255.0).
    tf1 = np.multiply(tr_x.reshape(6, 20).astype(np.float32), 1.0 / 255.0)
    assert data.train.images.dtype == np.float32
    np.testing.assert_array_equal(data.train.images, tf1)


def test_bad_dtype(tmp_path):
    write_mnist(tmp_path)
    for bad in ("float64", tf.int32):
        with pytest.raises(TypeError, match="Invalid image dtype"):
            read_data_sets(tmp_path, dtype=bad)
    with pytest.raises(TypeError, match="Invalid image dtype"):
        DataSet(np.zeros((2, 3)), [0, 1], dtype=np.float16)


def test_dataset_takes_tf1s_constructor():
    # DataSet(images, labels, fake_data, one_hot, dtype, reshape, seed) as TF1,
    # with [n, rows, cols, 1] uint8 images as TF1's extract_images made them.
    images = np.arange(2 * 3 * 2, dtype=np.uint8).reshape(2, 3, 2, 1) * 20
    ds = DataSet(images, np.array([3, 1]), False, True, "float32", True, 7)
    assert ds.images.shape == (2, 6) and ds.images.dtype == np.float32
    np.testing.assert_allclose(ds.images, images.reshape(2, 6) / 255.0, rtol=1e-6)
    assert ds.labels.tolist() == [[0, 0, 0, 1, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]]
    kept = DataSet(images, [0, 1], reshape=False, dtype=tf.uint8)
    assert kept.images.shape == (2, 3, 2, 1) and kept.images.dtype == np.uint8
    with pytest.raises(ValueError, match=r"\[n, rows, cols, 1\]"):
        DataSet(np.zeros((2, 3, 3, 3), np.uint8), [0, 1])
    with pytest.raises(ValueError, match="dtype=uint8"):
        DataSet(np.full((2, 3), 0.5), [0, 1], dtype="uint8")


def test_next_batch_takes_tf1s_signature():
    a, b = make_ds(seed=1), make_ds(seed=1)
    # next_batch(batch_size, fake_data=False, shuffle=True)
    for _ in range(4):
        xa, ya = a.next_batch(3, False, False)
        xb, yb = b.next_batch(3, fake_data=False, shuffle=False)
        np.testing.assert_array_equal(ya, yb)
    assert ya.tolist() == [9, 0, 1]  # unshuffled: 9, then the next epoch's 0, 1


def test_fake_data():
    # TF1: three sets of 10000 fake examples; next_batch(n, fake_data=True)
    # hands out images of ones (784 of them) and label 0 / one-hot [1, 0...].
    data = read_data_sets("unused", fake_data=True)
    assert [d.num_examples for d in data] == [10000] * 3
    xs, ys = data.train.next_batch(5, fake_data=True)
    assert xs.shape == (5, 784) and xs.dtype == np.float32
    assert (xs == 1).all() and ys.tolist() == [0] * 5
    xs, ys = read_data_sets(None, fake_data=True, one_hot=True, reshape=False).test.next_batch(2)
    assert xs.shape == (2, 28, 28, 1) and (xs == 1).all()
    assert ys.tolist() == [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]] * 2
    xs, _ = read_data_sets(None, True, dtype="uint8").validation.next_batch(1, True)
    assert xs.dtype == np.uint8 and (xs == 1).all()
    # A real set gives fake examples of its own shape, and its epoch does not move.
    real = make_ds(n=4, seed=0)
    xs, ys = real.next_batch(3, fake_data=True)
    assert xs.shape == (3, 2) and (xs == 1).all() and ys.tolist() == [0, 0, 0]
    assert sorted(real.next_batch(4)[1].tolist()) == [0, 1, 2, 3]


def test_embedded_digits_as_bytes():
    data = read_data_sets(dtype="uint8")
    floats = read_data_sets()
    assert data.train.images.dtype == np.uint8 and data.train.images.shape == (1317, 64)
    assert data.validation.images.dtype == np.uint8 and data.validation.images.shape == (120, 64)
    assert data.train.images.max() == 255
    # Intensity 16 of 16 is byte 255, 8 is 128 (rounded 127.5): the same pixels.
    np.testing.assert_array_equal(data.test.images, np.rint(floats.test.images * 255))
    np.testing.assert_array_equal(data.validation.images, np.rint(floats.validation.images * 255))


# --- 28x28 digits standing in for MNIST files ----------------------------------


@pytest.fixture(scope="module")
def stand_in():
    with pytest.warns(UserWarning) as caught:
        data = read_data_sets("/no/such/MNIST_data/", one_hot=True)
    return data, [str(w.message) for w in caught]


def test_stand_in_shapes_and_warning(stand_in):
    data, messages = stand_in
    assert len(messages) == 1
    assert "/no/such/MNIST_data/" in messages[0] and "\n" not in messages[0]
    assert data.train.images.shape == (1317, 784)
    assert data.validation.images.shape == (120, 784)  # 5000 of 60000 MNIST examples
    assert data.test.images.shape == (360, 784)
    assert data.train.labels.shape == (1317, 10) and data.train.labels.dtype == np.float32
    for ds in data:
        assert ds.images.dtype == np.float32
        assert ds.images.min() == 0.0 and ds.images.max() == 1.0


def test_stand_in_is_mnist_shaped_digits(stand_in):
    data, _ = stand_in
    images = np.concatenate([d.images for d in data]).reshape(-1, 28, 28)
    # MNIST's frame: the digit sits in the middle 20x20, a 4-pixel margin is blank.
    assert images[:, :4].max() == 0 and images[:, 24:].max() == 0
    assert images[:, :, :4].max() == 0 and images[:, :, 24:].max() == 0
    # The same digits as load_digits, in the same order: the box's corners are
    # the 8x8 image's corner pixels.
    small = load_digits(reshape=False).test.images[..., 0]
    big = data.test.images.reshape(-1, 28, 28)
    np.testing.assert_allclose(big[:, 4, 4], small[:, 0, 0], atol=0.5 / 255)
    np.testing.assert_allclose(big[:, 23, 23], small[:, 7, 7], atol=0.5 / 255)
    np.testing.assert_array_equal(data.test.labels.argmax(axis=1), load_digits().test.labels)


def test_stand_in_is_learnable(stand_in):
    data, _ = stand_in
    labels = data.train.labels.argmax(axis=1)
    counts = np.bincount(labels, minlength=10)
    assert counts.min() >= 0.85 * counts.mean()  # balanced classes
    means = np.stack([data.train.images[labels == k].mean(axis=0) for k in range(10)])
    gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)[~np.eye(10, dtype=bool)]
    assert gaps.min() > 1.0  # every class looks different from every other
    # A nearest-class-mean classifier fitted on train does well on test.
    test = data.test.images
    guess = np.linalg.norm(test[:, None] - means[None], axis=-1).argmin(axis=1)
    assert (guess == data.test.labels.argmax(axis=1)).mean() > 0.85


def test_stand_in_options():
    with pytest.warns(UserWarning, match="empty"):
        data = read_data_sets("empty", validation_size=0, reshape=False, dtype="uint8", seed=3)
    assert data.train.images.shape == (1437, 28, 28, 1) and data.train.images.dtype == np.uint8
    assert data.validation.num_examples == 0 and data.train.labels.dtype == np.int64
    with pytest.warns(UserWarning):
        floats = read_data_sets("empty", validation_size=0)
    np.testing.assert_allclose(floats.train.images, data.train.images.reshape(1437, 784) / 255.0, rtol=1e-6)
    tf1_message = "Validation size should be between 0 and 60000. Received: 60001."
    with pytest.raises(ValueError, match=re.escape(tf1_message)):
        read_data_sets("empty", validation_size=60001)


def test_empty_directory_uses_the_stand_in(tmp_path):
    with pytest.warns(UserWarning, match=re.escape(str(tmp_path))):
        data = read_data_sets(tmp_path)
    assert data.test.images.shape == (360, 784)


def test_digits_as_mnist():
    images, labels = digits_as_mnist()
    assert images.shape == (1797, 28, 28, 1) and images.dtype == np.uint8
    assert labels.shape == (1797,) and sorted(set(labels.tolist())) == list(range(10))
    assert images.max() == 255
