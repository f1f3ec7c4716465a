"""Small in-memory data sets with TF1's MNIST ``input_data`` interface.

This module mirrors the old ``tensorflow.examples.tutorials.mnist.input_data``
helpers: a :class:`DataSet` that hands out shuffled mini-batches with
:meth:`DataSet.next_batch`, a :class:`Datasets` triple of train, validation
and test sets, and :func:`read_data_sets` to build that triple.

Nothing is ever downloaded. The default data is scikit-learn's bundled 8x8
digits (:func:`load_digits`); real MNIST can be read from IDX files already
on disk (:func:`read_data_sets` with a directory, or :func:`read_idx` for a
single file). A TF1 tutorial's ``read_data_sets("MNIST_data/")`` on a
machine without those files gets the same digits resized to MNIST's 28x28
(with a warning), so a model written for 784 inputs runs unchanged and
learns real handwriting.

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
import warnings
import zlib

import numpy as np

from . import dtypes as _dtypes

__all__ = ["DataSet", "Datasets", "digits_as_mnist", "load_digits", "read_data_sets", "read_idx"]


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
        Examples, shape ``[n, ...]``. Pixel bytes (uint8) become float32 in
        ``[0, 1]`` (times 1/255, as TF1); other numbers are stored as float32
        without rescaling.
    labels : array_like
        Integer class ids, shape ``[n]``, each in ``[0, num_classes)``.
        With ``one_hot=True`` a ``[n, num_classes]`` one-hot array is also
        accepted.
    fake_data : bool, optional
        TF1's test mode: `images` and `labels` are ignored, the set claims
        10000 examples and :meth:`next_batch` hands out images of ones with
        label 0.
    one_hot : bool, optional
        Store labels as one-hot float32 rows of length `num_classes` instead
        of int64 class ids.
    dtype : daskflow DType, numpy dtype or str, optional
        ``float32`` (default) or ``uint8``; with ``uint8`` the images are
        kept as bytes 0..255 and must be integers in that range.
    reshape : bool, optional
        Flatten ``[n, rows, cols, 1]`` images to ``[n, rows * cols]``
        (default True, as TF1); images of any other rank are kept as given.
    seed : int or None, optional
        Seed for ``numpy.random.default_rng`` used to shuffle each epoch;
        the same seed gives the same sequence of batches.
    num_classes : int, optional
        Number of classes (default 10).

    Raises
    ------
    TypeError
        If `dtype` is not uint8 or float32.
    ValueError
        If images and labels do not fit together, a label is out of range,
        ``dtype=uint8`` images are not bytes, or 4-D images to flatten have
        more than one channel.

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

    def __init__(
        self,
        images,
        labels,
        fake_data=False,
        one_hot=False,
        dtype=_dtypes.float32,
        reshape=True,
        seed=None,
        *,
        num_classes=10,
    ):
        num_classes = _check_count("num_classes", num_classes, 1)
        dtype = _image_dtype(dtype)
        self._fake = bool(fake_data)
        if self._fake:
            image_shape = (_MNIST_SIDE * _MNIST_SIDE,) if reshape else (_MNIST_SIDE, _MNIST_SIDE, 1)
            images = np.zeros((0, *image_shape), dtype=dtype)
            labels = np.zeros(0, dtype=np.int64)
        else:
            images = _convert_images(np.asarray(images), dtype, reshape)
        labels = np.asarray(labels)
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
        # TF1's fake sets claim 10000 examples that next_batch makes up.
        self._num_examples = _FAKE_EXAMPLES if self._fake else images.shape[0]
        self._one_hot = bool(one_hot)
        self._num_classes = num_classes
        self._rng = np.random.default_rng(seed)
        self._order = np.arange(self._num_examples)
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        """numpy.ndarray : All examples (float32 or uint8), in their original order."""
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

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """Return the next `batch_size` examples.

        Parameters
        ----------
        batch_size : int
            Number of examples, from 1 to :attr:`num_examples`.
        fake_data : bool, optional
            Return made-up examples instead, as TF1: images of ones shaped
            like this set's, label 0 (one-hot ``[1, 0, ...]``). A set made
            with ``fake_data=True`` always does.
        shuffle : bool, optional
            Shuffle the examples at the start of the first epoch and of each
            new epoch (default True). Without shuffling, examples come in the
            current order (the original order unless an earlier call
            shuffled).

        Returns
        -------
        images : numpy.ndarray
            Shape ``[batch_size, ...]``, the set's dtype.
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
        if fake_data or self._fake:
            return self._fake_batch(size)
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

    def _fake_batch(self, size):
        images = np.ones((size, *self._images.shape[1:]), dtype=self._images.dtype)
        if self._one_hot:
            labels = np.zeros((size, self._num_classes), dtype=np.float32)
            labels[:, 0] = 1.0
        else:
            labels = np.zeros(size, dtype=np.int64)
        return images, labels


_MNIST_SIDE = 28
_MNIST_MARGIN = 4  # MNIST digits fill a 20x20 box in the middle of the 28x28 frame
_DIGITS_TEST_SIZE = 360
_DIGITS_EXAMPLES = 1797  # scikit-learn's digits
_MNIST_TRAIN_EXAMPLES = 60000
_FAKE_EXAMPLES = 10000


def _image_dtype(dtype):
    """Return the numpy dtype for TF1's image `dtype` (uint8 or float32 only)."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.uint8, _dtypes.float32):
        raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
    return dtype.np


def _convert_images(images, dtype, reshape):
    if images.ndim < 1:
        raise ValueError(f"images must have at least one dimension, got shape {images.shape}")
    if reshape and images.ndim == 4:
        if images.shape[3] != 1:
            raise ValueError(f"reshape=True flattens [n, rows, cols, 1] images, got shape {images.shape}")
        images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
    if dtype == np.uint8:
        if images.dtype != np.uint8 and images.size:
            integral = np.issubdtype(images.dtype, np.integer)
            if not integral or images.min() < 0 or images.max() > 255:
                raise ValueError(
                    f"dtype=uint8 keeps pixel bytes: images must be integers 0..255, got {images.dtype} "
                    f"values from {images.min()} to {images.max()}"
                )
        return images.astype(np.uint8)
    if images.dtype == np.uint8:
        # TF1 multiplies by 1/255 in float32; the same rounding gives the same pixels.
        return images.astype(np.float32) * np.float32(1.0 / 255.0)
    return images.astype(np.float32)


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
    pixels, labels = _shuffled_digits()
    n = pixels.shape[0]
    test_size = _check_count("test_size", test_size, 0, n)
    validation_size = _check_count("validation_size", validation_size, 0, n - test_size)
    images = pixels.astype(np.float32) / np.float32(16.0)
    if not reshape:
        images = images.reshape(n, 8, 8, 1)
    return _split(images, labels, validation_size, test_size, one_hot=one_hot, seed=seed, reshape=False)


def _shuffled_digits():
    """scikit-learn's digits as ``([1797, 64] ints 0..16, [1797] int64)``, in a fixed order."""
    try:
        from sklearn.datasets import load_digits as _sk_load_digits
    except ImportError as exc:
        raise ImportError(
            "daskflow.datasets.load_digits needs scikit-learn (pip install scikit-learn)"
        ) from exc
    bunch = _sk_load_digits()
    pixels = np.asarray(bunch.data)
    labels = np.asarray(bunch.target, dtype=np.int64)
    order = np.random.default_rng(0).permutation(pixels.shape[0])
    return pixels[order], labels[order]


def _split(images, labels, validation_size, test_size, **options):
    """Validation first, test last, training in between; `options` go to each DataSet."""
    n = images.shape[0]
    cut_test = n - test_size

    def make(lo, hi):
        return DataSet(images[lo:hi], labels[lo:hi], **options)

    return Datasets(
        train=make(validation_size, cut_test),
        validation=make(0, validation_size),
        test=make(cut_test, n),
    )


def _resize_bilinear(images, side):
    """Resize square images ``[n, k, k]`` to ``[n, side, side]`` (pixel centres aligned)."""
    k = images.shape[1]
    centres = np.clip((np.arange(side) + 0.5) * (k / side) - 0.5, 0, k - 1)
    low = np.floor(centres).astype(int)
    high = np.minimum(low + 1, k - 1)
    weights = np.zeros((side, k))
    np.add.at(weights, (np.arange(side), low), 1 - (centres - low))
    np.add.at(weights, (np.arange(side), high), centres - low)
    return np.einsum("ij,njk,lk->nil", weights, images, weights)


def digits_as_mnist():
    """scikit-learn's digits in MNIST's geometry: uint8 ``[1797, 28, 28, 1]`` and int64 labels.

    Each 8x8 digit is resized (bilinear) to 20x20 and centred in a 28x28
    frame with a 4-pixel margin, as MNIST's digits are; intensities 0..16
    become bytes 0..255. The order is fixed: the last 360 are the test
    digits of :func:`read_data_sets`' fallback and of :func:`load_digits`.

    Returns
    -------
    images : numpy.ndarray
        uint8, shape ``[1797, 28, 28, 1]``.
    labels : numpy.ndarray
        int64 class ids, shape ``[1797]``.

    Examples
    --------
    >>> images, labels = digits_as_mnist()
    >>> images.shape, images.dtype, int(images.max())
    ((1797, 28, 28, 1), dtype('uint8'), 255)
    """
    pixels, labels = _shuffled_digits()
    box = _MNIST_SIDE - 2 * _MNIST_MARGIN
    digits = _resize_bilinear(pixels.reshape(-1, 8, 8).astype(np.float64), box)
    images = np.zeros((pixels.shape[0], _MNIST_SIDE, _MNIST_SIDE, 1), dtype=np.uint8)
    inner = slice(_MNIST_MARGIN, _MNIST_MARGIN + box)
    images[:, inner, inner, 0] = np.rint(np.clip(digits, 0, 16) * (255 / 16)).astype(np.uint8)
    return images, labels


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


def _mnist_images(path):
    images = read_idx(path)
    if images.ndim != 3:
        raise ValueError(f"{path}: expected a 3-D [n, rows, cols] image file, got shape {images.shape}")
    if images.dtype != np.uint8:
        raise ValueError(f"{path}: expected unsigned byte images, got {images.dtype}")
    return images[..., np.newaxis]


def _mnist_labels(path):
    labels = read_idx(path)
    if labels.ndim != 1:
        raise ValueError(f"{path}: expected a 1-D label file, got shape {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"{path}: expected integer labels, got {labels.dtype}")
    return labels.astype(np.int64)


DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"


def read_data_sets(
    train_dir=None,
    fake_data=False,
    one_hot=False,
    dtype=_dtypes.float32,
    reshape=True,
    validation_size=5000,
    seed=None,
    source_url=DEFAULT_SOURCE_URL,
):
    """Build train, validation and test sets, TF1 ``input_data`` style.

    Parameters
    ----------
    train_dir : str, os.PathLike or None, optional
        Local directory holding the four MNIST IDX files
        ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
        ``t10k-images-idx3-ubyte`` and ``t10k-labels-idx1-ubyte``, each
        optionally with a ``.gz`` suffix (the uncompressed name is tried
        first). If the directory holds none of them (or does not exist),
        scikit-learn's digits resized to 28x28 (:func:`digits_as_mnist`)
        stand in, with a warning naming the directory: 1437 training and
        validation examples, 360 test examples. If None (default), the
        embedded 8x8 digits, in :func:`load_digits`' order and with its
        test set, split the same way (without a warning).
    fake_data : bool, optional
        Return three fake sets (TF1's test mode; see :class:`DataSet`).
    one_hot : bool, optional
        Labels as one-hot float32 rows of length 10 instead of int64 ids.
    dtype : daskflow DType, numpy dtype or str, optional
        ``float32`` (default): images scaled to ``[0, 1]``; ``uint8``: the
        bytes 0..255 as stored.
    reshape : bool, optional
        If True (default) images are flattened to ``[n, rows * cols]``
        (784 for MNIST); otherwise ``[n, rows, cols, 1]``.
    validation_size : int, optional
        The first `validation_size` training examples become the
        validation set (default 5000, as TF1). For the digits (the 8x8
        default and the 28x28 stand-in) it counts MNIST examples: the
        same fraction of the 1437 training digits is held out, so the
        default keeps 120 for validation and 1317 for training. A count of
        digits would not do: TF1's default 5000 exceeds them, and a
        script written for MNIST (``validation_size=5000`` and a
        validation pass) would get an error or an empty set. For exact
        counts of digits use :func:`load_digits`.
    seed : int or None, optional
        Shuffling seed given to each :class:`DataSet`.
    source_url : str, optional
        Accepted for TF1's signature; nothing is ever downloaded.

    Returns
    -------
    Datasets

    Raises
    ------
    FileNotFoundError
        If some but not all of the four files are present (a broken
        download); the message lists the missing and expected names and
        the directory.
    TypeError
        If `dtype` is not uint8 or float32.
    ValueError
        If a file is not valid IDX, the shapes do not fit together, or
        `validation_size` is not between 0 and the number of training
        examples (60000 for the digits), with TF1's message
        ``Validation size should be between 0 and 60000. Received: 60001.``

    Warns
    -----
    UserWarning
        When the 28x28 digits stand in for missing MNIST files.

    Examples
    --------
    >>> data = read_data_sets()  # embedded 8x8 digits, no files needed
    >>> data.train.num_examples, data.validation.num_examples, data.test.num_examples
    (1317, 120, 360)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     mnist = read_data_sets("/no/such/MNIST_data", one_hot=True)
    >>> mnist.train.images.shape, mnist.test.labels.shape
    ((1317, 784), (360, 10))
    """
    options = dict(one_hot=one_hot, dtype=dtype, reshape=reshape, seed=seed)
    if fake_data:
        return Datasets(*(DataSet([], [], fake_data=True, **options) for _ in range(3)))
    if train_dir is None:
        return _embedded_digits(validation_size, **options)
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
    if len(missing) == len(_MNIST_FILES):
        return _digits_standing_in_for_mnist(directory, validation_size, **options)
    if missing:
        raise FileNotFoundError(
            f"MNIST files missing from {directory!r}: "
            + ", ".join(f"{m}[.gz]" for m in missing)
            + " (expected: "
            + ", ".join(f"{b}[.gz]" for b in _MNIST_FILES)
            + ")"
        )
    _image_dtype(dtype)  # a bad dtype fails before the files are read
    train_images = _mnist_images(paths[0])
    train_labels = _mnist_labels(paths[1])
    test_images = _mnist_images(paths[2])
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
    validation_size = _validation_size(validation_size, train_images.shape[0])
    images = np.concatenate([train_images, test_images])
    labels = np.concatenate([train_labels, test_labels])
    return _split(images, labels, validation_size, test_images.shape[0], **options)


def _validation_size(value, n_train):
    """`value` as an int in ``[0, n_train]``, else ValueError with TF1's message."""
    value = _check_count("validation_size", value, float("-inf"))  # its range: TF1's message below
    if not 0 <= value <= n_train:
        raise ValueError(f"Validation size should be between 0 and {n_train}. Received: {value}.")
    return value


def _digits_held_out(validation_size):
    """How many of the 1437 training digits stand for `validation_size` of MNIST's 60000."""
    validation_size = _validation_size(validation_size, _MNIST_TRAIN_EXAMPLES)
    pool = _DIGITS_EXAMPLES - _DIGITS_TEST_SIZE
    return round(validation_size * pool / _MNIST_TRAIN_EXAMPLES)


def _embedded_digits(validation_size, dtype, **options):
    image_dtype = _image_dtype(dtype)
    held_out = _digits_held_out(validation_size)
    if image_dtype == np.float32:
        return load_digits(validation_size=held_out, **options)
    pixels, labels = _shuffled_digits()
    images = np.rint(pixels * (255 / 16)).astype(np.uint8).reshape(-1, 8, 8, 1)
    return _split(images, labels, held_out, _DIGITS_TEST_SIZE, dtype=dtype, **options)


def _digits_standing_in_for_mnist(directory, validation_size, **options):
    _image_dtype(options["dtype"])
    held_out = _digits_held_out(validation_size)
    images, labels = digits_as_mnist()
    pool = images.shape[0] - _DIGITS_TEST_SIZE
    warnings.warn(
        f"no MNIST files in {directory!r}: using scikit-learn's digits resized to 28x28 instead "
        f"({pool - held_out} train, {held_out} validation, {_DIGITS_TEST_SIZE} test examples)",
        stacklevel=3,
    )
    return _split(images, labels, held_out, _DIGITS_TEST_SIZE, **options)
