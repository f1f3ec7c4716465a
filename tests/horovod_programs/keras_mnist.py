"""Stands in for ``tensorflow.keras`` in Horovod's example: ``datasets.mnist.load_data``.

Keras downloads MNIST; the suite has no network. This returns MNIST from IDX
files where ``DASKFLOW_MNIST_DIR`` names a folder holding them, else
scikit-learn's digits in MNIST's geometry (``daskflow.datasets.digits_as_mnist``),
shuffled once with a fixed seed and split 1437 / 360, as keras's arrays:
``(x_train, y_train), (x_test, y_test)``, uint8 images ``[n, 28, 28]``, uint8 labels.
"""

import os
import types

import numpy as np

from daskflow.datasets import digits_as_mnist, read_idx

TEST = 360


def load_data(path="mnist.npz"):
    folder = os.environ.get("DASKFLOW_MNIST_DIR")
    if folder:
        read = lambda name: read_idx(os.path.join(folder, name))  # noqa: E731
        train = read("train-images-idx3-ubyte.gz"), read("train-labels-idx1-ubyte.gz")
        test = read("t10k-images-idx3-ubyte.gz"), read("t10k-labels-idx1-ubyte.gz")
        return train, test
    images, labels = digits_as_mnist()
    order = np.random.default_rng(0).permutation(len(images))
    images, labels = images[order, :, :, 0], labels[order].astype(np.uint8)
    return (images[TEST:], labels[TEST:]), (images[:TEST], labels[:TEST])


datasets = types.SimpleNamespace(mnist=types.SimpleNamespace(load_data=load_data))
