"""Data stand-ins for nfmcclure/tensorflow_cookbook, in the layout of the real files.

- ``temp/cifar-10-batches-bin/``: CIFAR-10's binary layout (records of one
  label byte and 3072 image bytes, channel-major), 100 random records in each
  of data_batch_1..5.bin and test_batch.bin, and a placeholder
  ``temp/cifar-10-binary.tar.gz`` so the program skips its download.

The iris and make_circles programs load scikit-learn's bundled data
directly; the MNIST programs read the runner's ``MNIST_data/``.
"""

import gzip
import os

import numpy as np


def _cifar_bins(rng, folder):
    batches = os.path.join(folder, "cifar-10-batches-bin")
    os.makedirs(batches, exist_ok=True)
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
    for name in names:
        labels = rng.integers(0, 10, (100, 1), dtype=np.uint8)
        pixels = rng.integers(0, 256, (100, 3072), dtype=np.uint8)
        with open(os.path.join(batches, name), "wb") as f:
            f.write(np.concatenate([labels, pixels], axis=1).tobytes())
    # Only its existence matters: the program downloads when it is missing.
    with gzip.GzipFile(os.path.join(folder, "cifar-10-binary.tar.gz"), "wb", mtime=0) as f:
        f.write(b"")


def make(directory):
    """Write this repository's data stand-ins into `directory`."""
    rng = np.random.default_rng(20161)
    _cifar_bins(rng, os.path.join(directory, "temp"))
