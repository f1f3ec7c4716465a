"""``from tensorflow.examples.tutorials.mnist import input_data``, as TF1 tutorials write it.

The same reader as :mod:`daskflow.datasets` (nothing is downloaded: the
IDX files are read from the directory, or scikit-learn's digits stand in),
with TF1's helper functions for single IDX streams.

Examples
--------
>>> import warnings
>>> from daskflow.examples.tutorials.mnist import input_data
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     mnist = input_data.read_data_sets("/no/such/MNIST_data", one_hot=True)
>>> mnist.train.next_batch(2)[1].shape
(2, 10)
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ....datasets import DataSet, Datasets, read_data_sets, read_idx

__all__ = [
    "DataSet",
    "Datasets",
    "dense_to_one_hot",
    "extract_images",
    "extract_labels",
    "maybe_download",
    "read_data_sets",
]


def _read_stream(f):
    """An IDX stream (an open binary file, plain or gzip) as an array."""
    with tempfile.NamedTemporaryFile(suffix=".idx", delete=False) as copy:
        copy.write(f.read())
    try:
        return read_idx(copy.name)
    finally:
        os.unlink(copy.name)


def extract_images(f):
    """Images of an IDX stream as a uint8 ``[n, rows, cols, 1]`` array (TF1's helper).

    Raises
    ------
    ValueError
        If the stream is not a 3-D unsigned-byte IDX file; the message names it.
    """
    images = _read_stream(f)
    if images.ndim != 3 or images.dtype != np.uint8:
        name = getattr(f, "name", "stream")
        raise ValueError(
            f"Invalid magic number in MNIST image file: {name} (shape {images.shape}, {images.dtype})"
        )
    return images[..., np.newaxis]


def dense_to_one_hot(labels_dense, num_classes):
    """Class ids ``[n]`` as one-hot rows ``[n, num_classes]`` (float64, as TF1's helper)."""
    labels_dense = np.asarray(labels_dense)
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """Labels of an IDX stream as uint8 ``[n]`` (or one-hot rows), TF1's helper.

    Raises
    ------
    ValueError
        If the stream is not a 1-D IDX file; the message names it.
    """
    labels = _read_stream(f)
    if labels.ndim != 1:
        name = getattr(f, "name", "stream")
        raise ValueError(f"Invalid magic number in MNIST label file: {name} (shape {labels.shape})")
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


def maybe_download(filename, work_directory, source_url=None):
    """The path of `filename` in `work_directory`; nothing is ever downloaded.

    Raises
    ------
    FileNotFoundError
        If the file is not there (daskflow has no network access to fetch it).
    """
    path = os.path.join(work_directory, filename)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not present and daskflow downloads nothing; place the file there")
    return path
