"""Small in-memory data sets with TF1's MNIST ``input_data`` interface.

This module mirrors the old ``tensorflow.examples.tutorials.mnist.input_data``
helpers: a :class:`DataSet` that hands out shuffled mini-batches with
:meth:`DataSet.next_batch`, a :class:`Datasets` triple of train, validation
and test sets, and :func:`read_data_sets` to build that triple.

Nothing is ever downloaded. The default data is scikit-learn's bundled 8x8
digits (:func:`load_digits`); real MNIST can be read from IDX files already
on disk (:func:`read_data_sets` with a directory, or :func:`read_idx` for a
single file).

Examples
--------
>>> from daskflow.datasets import read_data_sets
>>> data = read_data_sets(one_hot=True, seed=0)
>>> xs, ys = data.train.next_batch(32)
>>> xs.shape, ys.shape
((32, 64), (32, 10))
"""

from __future__ import annotations

import collections
import gzip
import operator
import os
import struct
import zlib

import numpy as np

__all__ = ["DataSet", "Datasets", "load_digits", "read_data_sets", "read_idx"]


def _check_count(name, value, low, high=None):
    """Return ``value`` as an int in ``[low, high]`` or raise ValueError."""
    # Booleans and non-integers are rejected with ValueError (not TypeError),
    # as the public API documents.
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if number < low or (high is not None and number > high):
        bounds = f">= {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be {bounds}, got {value!r}")
    return number


def _one_hot(labels, num_classes):
    out = np.zeros((labels.shape[0], num_classes), dtype=np.float32)
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


class DataSet:
    """An in-memory set of examples that yields mini-batches.

    Parameters
    ----------
    images : array_like
        Examples, shape ``[n, ...]``; stored as float32 without rescaling.
    labels : array_like
        Integer class ids, shape ``[n]``, each in ``[0, num_classes)``.
        With ``one_hot=True`` a ``[n, num_classes]`` one-hot array is also
        accepted.
    one_hot : bool, optional
        Store labels as one-hot float32 rows of length `num_classes` instead
        of int64 class ids.
    num_classes : int, optional
        Number of classes (default 10).
    seed : int or None, optional
        Seed for ``numpy.random.default_rng`` used to shuffle each epoch;
        the same seed gives the same sequence of batches.

    Notes
    -----
    :attr:`images` and :attr:`labels` keep the order given; shuffling only
    changes the order in which :meth:`next_batch` returns examples.

    Examples
    --------
    >>> import numpy as np
    >>> ds = DataSet(np.zeros((5, 3)), [0, 1, 2, 3, 4], seed=0)
    >>> ds.num_examples, ds.images.dtype, ds.labels.dtype
    (5, dtype('float32'), dtype('int64'))
    """

    def __init__(self, images, labels, *, one_hot=False, num_classes=10, seed=None):
        num_classes = _check_count("num_classes", num_classes, 1)
        images = np.asarray(images, dtype=np.float32)
        labels = np.asarray(labels)
        if images.ndim < 1:
            raise ValueError(f"images must have at least one dimension, got shape {images.shape}")
        if labels.ndim == 2 and one_hot:
            if labels.shape[1] != num_classes:
                raise ValueError(f"one-hot labels must have shape [n, {num_classes}], got {labels.shape}")
            labels = labels.astype(np.float32)
        elif labels.ndim == 1:
            if labels.size and not np.issubdtype(labels.dtype, np.integer):
                raise ValueError(f"labels must be integer class ids, got dtype {labels.dtype}")
            labels = labels.astype(np.int64)
            if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
                raise ValueError(
                    f"labels must lie in [0, {num_classes}), got values from {labels.min()} to {labels.max()}"
                )
            if one_hot:
                labels = _one_hot(labels, num_classes)
        else:
            want = "[n] or [n, num_classes]" if one_hot else "[n]"
            raise ValueError(f"labels must have shape {want}, got {labels.shape}")
        if images.shape[0] != labels.shape[0]:
            raise ValueError(
                f"images and labels differ in length: {images.shape[0]} images, {labels.shape[0]} labels"
            )
        self._images = images
        self._labels = labels
        self._num_examples = images.shape[0]
        self._one_hot = bool(one_hot)
        self._num_classes = num_classes
        self._rng = np.random.default_rng(seed)
        self._order = np.arange(self._num_examples)
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        """numpy.ndarray : All examples as float32, in their original order."""
        return self._images

    @property
    def labels(self):
        """numpy.ndarray : int64 class ids ``[n]`` or float32 one-hot ``[n, k]``."""
        return self._labels

    @property
    def num_examples(self):
        """int : Number of examples."""
        return self._num_examples

    @property
    def epochs_completed(self):
        """int : Number of epochs :meth:`next_batch` has moved past.

        As in TF, the counter moves when a batch first needs examples from
        the next epoch, not when the last example of an epoch is handed out.
        """
        return self._epochs_completed

    def __repr__(self):
        return (
            f"DataSet(num_examples={self._num_examples}, "
            f"image_shape={self._images.shape[1:]}, one_hot={self._one_hot}, "
            f"num_classes={self._num_classes})"
        )

    def next_batch(self, batch_size, shuffle=True):
        """Return the next `batch_size` examples.

        Parameters
        ----------
        batch_size : int
            Number of examples, from 1 to :attr:`num_examples`.
        shuffle : bool, optional
            Shuffle the examples at the start of the first epoch and of each
            new epoch (default True). Without shuffling, examples come in the
            current order (the original order unless an earlier call
            shuffled).

        Returns
        -------
        images : numpy.ndarray
            float32, shape ``[batch_size, ...]``.
        labels : numpy.ndarray
            Shape ``[batch_size]`` (int64) or ``[batch_size, num_classes]``.

        Raises
        ------
        ValueError
            If `batch_size` is not a positive integer no larger than
            :attr:`num_examples`.

        Notes
        -----
        A batch that crosses the end of an epoch holds the rest of that
        epoch followed by the start of the next (reshuffled) epoch, so each
        example is seen once per epoch.

        Examples
        --------
        >>> import numpy as np
        >>> ds = DataSet(np.arange(10).reshape(5, 2), [0, 1, 2, 3, 4])
        >>> xs, ys = ds.next_batch(2, shuffle=False)
        >>> ys
        array([0, 1])
        >>> xs, ys = ds.next_batch(4, shuffle=False)
        >>> ys, ds.epochs_completed
        (array([2, 3, 4, 0]), 1)
        """
        size = _check_count("batch_size", batch_size, 1)
        if size > self._num_examples:
            raise ValueError(
                f"batch_size must be at most num_examples ({self._num_examples}), got {batch_size!r}"
            )
        n = self._num_examples
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._order = self._rng.permutation(n)
        if start + size > n:
            self._epochs_completed += 1
            rest = self._order[start:]
            if shuffle:
                self._order = self._rng.permutation(n)
            end = size - rest.shape[0]
            index = np.concatenate([rest, self._order[:end]])
        else:
            end = start + size
            index = self._order[start:end]
        self._index_in_epoch = end
        return self._images[index], self._labels[index]


Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
Datasets.__doc__ = """Train, validation and test :class:`DataSet` triple.

Examples
--------
>>> data = load_digits(validation_size=100)
>>> [d.num_examples for d in data]
[1337, 100, 360]
"""


def load_digits(one_hot=False, reshape=True, validation_size=0, test_size=360, seed=None):
    """Load scikit-learn's bundled 8x8 handwritten digits.

    The 1797 examples ship with scikit-learn; nothing is downloaded. They are
    permuted with a fixed seed (0), the last `test_size` become the test set,
    the first `validation_size` of the rest the validation set, and the
    remainder the training set.

    Parameters
    ----------
    one_hot : bool, optional
        Labels as one-hot float32 rows of length 10 instead of int64 ids.
    reshape : bool, optional
        If True (default) images are flat ``[n, 64]``; if False they are
        ``[n, 8, 8, 1]`` (NHWC).
    validation_size : int, optional
        Number of validation examples (default 0).
    test_size : int, optional
        Number of test examples (default 360).
    seed : int or None, optional
        Shuffling seed given to each :class:`DataSet`; the split itself is
        always the same.

    Returns
    -------
    Datasets
        Images are float32 in ``[0, 1]`` (pixel values divided by 16).

    Raises
    ------
    ValueError
        If the sizes are negative or together exceed 1797.
    ImportError
        If scikit-learn is not installed.

    Examples
    --------
    >>> data = load_digits(reshape=False)
    >>> data.train.images.shape, data.test.images.shape
    ((1437, 8, 8, 1), (360, 8, 8, 1))
    """
    try:
        from sklearn.datasets import load_digits as _sk_load_digits
    except ImportError as exc:
        raise ImportError(
            "daskflow.datasets.load_digits needs scikit-learn (pip install scikit-learn)"
        ) from exc
    bunch = _sk_load_digits()
    images = np.asarray(bunch.data, dtype=np.float32) / np.float32(16.0)
    labels = np.asarray(bunch.target, dtype=np.int64)
    n = images.shape[0]
    test_size = _check_count("test_size", test_size, 0, n)
    validation_size = _check_count("validation_size", validation_size, 0, n - test_size)
    order = np.random.default_rng(0).permutation(n)
    images, labels = images[order], labels[order]
    if not reshape:
        images = images.reshape(n, 8, 8, 1)
    cut_val = validation_size
    cut_test = n - test_size

    def make(lo, hi):
        return DataSet(images[lo:hi], labels[lo:hi], one_hot=one_hot, seed=seed)

    return Datasets(
        train=make(cut_val, cut_test),
        validation=make(0, cut_val),
        test=make(cut_test, n),
    )


_IDX_DTYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def read_idx(path):
    """Read one IDX file (the MNIST file format).

    Parameters
    ----------
    path : str or os.PathLike
        File to read, plain or gzip-compressed. Compression is detected from
        the gzip magic bytes, not from the file name.

    Returns
    -------
    numpy.ndarray
        Array with the file's shape and type (uint8, int8, int16, int32,
        float32 or float64 for type codes 0x08, 0x09, 0x0B, 0x0C, 0x0D,
        0x0E), in native byte order.

    Raises
    ------
    ValueError
        If the file is not a valid IDX file: bad magic number, unknown type
        code, truncated header or data, trailing bytes, or a corrupt gzip
        stream. The message names the path.
    FileNotFoundError
        If the file does not exist.

    Examples
    --------
    >>> import os, struct, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(bytes([0, 0, 0x08, 1]) + struct.pack(">I", 3) + bytes([7, 1, 4]))
    >>> read_idx(path)
    array([7, 1, 4], dtype=uint8)
    """
    name = os.fspath(path)
    with open(name, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise ValueError(f"{name}: corrupt gzip data ({exc})") from None
    if len(raw) < 4:
        raise ValueError(f"{name}: truncated IDX file ({len(raw)} bytes, the magic number alone needs 4)")
    if raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{name}: bad IDX magic number 0x{raw[:4].hex()} (the first two bytes must be zero)")
    code, ndim = raw[2], raw[3]
    if code not in _IDX_DTYPES:
        raise ValueError(f"{name}: unknown IDX data type code 0x{code:02X}")
    if ndim == 0:
        raise ValueError(f"{name}: IDX file declares zero dimensions")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(
            f"{name}: truncated IDX header ({ndim} dimensions need {header} bytes, file has {len(raw)})"
        )
    shape = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = _IDX_DTYPES[code]
    count = 1
    for dim in shape:
        count *= dim
    want = count * dtype.itemsize
    have = len(raw) - header
    if have < want:
        raise ValueError(f"{name}: truncated IDX data (shape {shape} needs {want} bytes, file has {have})")
    if have > want:
        raise ValueError(f"{name}: {have - want} unexpected trailing bytes after IDX data of shape {shape}")
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=header)
    return data.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


_MNIST_FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)


def _mnist_images(path, reshape):
    images = read_idx(path)
    if images.ndim != 3:
        raise ValueError(f"{path}: expected a 3-D [n, rows, cols] image file, got shape {images.shape}")
    if images.dtype != np.uint8:
        raise ValueError(f"{path}: expected unsigned byte images, got {images.dtype}")
    n, rows, cols = images.shape
    images = images.astype(np.float32) / np.float32(255.0)
    if reshape:
        return images.reshape(n, rows * cols)
    return images.reshape(n, rows, cols, 1)


def _mnist_labels(path):
    labels = read_idx(path)
    if labels.ndim != 1:
        raise ValueError(f"{path}: expected a 1-D label file, got shape {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"{path}: expected integer labels, got {labels.dtype}")
    return labels.astype(np.int64)


def read_data_sets(train_dir=None, one_hot=False, reshape=True, validation_size=5000, seed=None):
    """Build train, validation and test sets, TF1 ``input_data`` style.

    Parameters
    ----------
    train_dir : str, os.PathLike or None, optional
        Local directory holding the four MNIST IDX files
        ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
        ``t10k-images-idx3-ubyte`` and ``t10k-labels-idx1-ubyte``, each
        optionally with a ``.gz`` suffix (the uncompressed name is tried
        first). If None (default), the embedded digits data is returned:
        ``load_digits(one_hot=one_hot, reshape=reshape, seed=seed)``, and
        `validation_size` is ignored (its validation set is empty).
        Nothing is ever downloaded.
    one_hot : bool, optional
        Labels as one-hot float32 rows of length 10 instead of int64 ids.
    reshape : bool, optional
        If True (default) images are flattened to ``[n, rows * cols]``
        (784 for MNIST); otherwise ``[n, rows, cols, 1]``.
    validation_size : int, optional
        The first `validation_size` training examples become the
        validation set (default 5000).
    seed : int or None, optional
        Shuffling seed given to each :class:`DataSet`.

    Returns
    -------
    Datasets
        Images are float32 in ``[0, 1]`` (bytes divided by 255).

    Raises
    ------
    FileNotFoundError
        If any of the four files is missing; the message lists the expected
        names and the directory.
    ValueError
        If a file is not valid IDX, the shapes do not fit together, or
        `validation_size` is not between 0 and the number of training
        examples.

    Examples
    --------
    >>> data = read_data_sets()  # embedded 8x8 digits, no files needed
    >>> data.train.num_examples, data.validation.num_examples, data.test.num_examples
    (1437, 0, 360)
    """
    if train_dir is None:
        return load_digits(one_hot=one_hot, reshape=reshape, seed=seed)
    directory = os.fspath(train_dir)
    paths, missing = [], []
    for base in _MNIST_FILES:
        for candidate in (base, base + ".gz"):
            full = os.path.join(directory, candidate)
            if os.path.isfile(full):
                paths.append(full)
                break
        else:
            missing.append(base)
    if missing:
        raise FileNotFoundError(
            f"MNIST files missing from {directory!r}: "
            + ", ".join(f"{m}[.gz]" for m in missing)
            + " (expected: "
            + ", ".join(f"{b}[.gz]" for b in _MNIST_FILES)
            + ")"
        )
    train_images = _mnist_images(paths[0], reshape)
    train_labels = _mnist_labels(paths[1])
    test_images = _mnist_images(paths[2], reshape)
    test_labels = _mnist_labels(paths[3])
    for images, labels, ipath, lpath in (
        (train_images, train_labels, paths[0], paths[1]),
        (test_images, test_labels, paths[2], paths[3]),
    ):
        if images.shape[0] != labels.shape[0]:
            raise ValueError(f"{ipath} has {images.shape[0]} images but {lpath} has {labels.shape[0]} labels")
    if train_images.shape[1:] != test_images.shape[1:]:
        raise ValueError(
            f"{paths[0]} images have shape {train_images.shape[1:]} but "
            f"{paths[2]} images have shape {test_images.shape[1:]}"
        )
    n_train = train_images.shape[0]
    validation_size = _check_count("validation_size", validation_size, 0, n_train)

    def make(images, labels):
        return DataSet(images, labels, one_hot=one_hot, seed=seed)

    return Datasets(
        train=make(train_images[validation_size:], train_labels[validation_size:]),
        validation=make(train_images[:validation_size], train_labels[:validation_size]),
        test=make(test_images, test_labels),
    )
