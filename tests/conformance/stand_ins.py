"""Data stand-ins for corpus programs, written into each run's working directory.

- ``MNIST_data/``: the four MNIST IDX files (gzip), made from scikit-learn's
  digits in MNIST's geometry (``daskflow.datasets.digits_as_mnist``). The
  1437 training digits appear nine times, shifted by 0 or ±2 pixels each way
  (12933 training images, so TF1's default ``validation_size=5000`` fits);
  the 360 test digits appear once. Built once per machine into a cache
  folder and copied.
- whatever the program folder's ``data.py`` writes with ``make(directory)``
  (synthetic files in the layout of the data the programs were written for).
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import pathlib
import shutil
import struct
import sys

import numpy as np

_CACHE_HOME = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
CACHE = _CACHE_HOME / "daskflow-conformance"
MNIST_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)
TEST_SIZE = 360
SHIFTS = (-2, 0, 2)


def _idx_bytes(array):
    """``array`` (uint8) in IDX format: magic (0, 0, type 8 = ubyte, ndim), sizes, data."""
    head = struct.pack(">BBBB", 0, 0, 8, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return head + np.ascontiguousarray(array, dtype=np.uint8).tobytes()


def _digits_as_mnist():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "programs"))
    import harness

    return harness.load_datasets_file().digits_as_mnist()


def mnist_arrays():
    """(train images [N,28,28], train labels, test images [360,28,28], test labels), uint8."""
    images, labels = _digits_as_mnist()
    images = images[..., 0]
    train, train_labels = images[:-TEST_SIZE], labels[:-TEST_SIZE]
    shifted = [np.roll(train, (dy, dx), axis=(1, 2)) for dy in SHIFTS for dx in SHIFTS]
    return (
        np.concatenate(shifted),
        np.tile(train_labels, len(shifted)).astype(np.uint8),
        images[-TEST_SIZE:],
        labels[-TEST_SIZE:].astype(np.uint8),
    )


def _mnist_folder():
    folder = CACHE / "MNIST_data"
    if all((folder / name).is_file() for name in MNIST_FILES):
        return folder
    staging = CACHE / f"MNIST_data.{os.getpid()}"
    staging.mkdir(parents=True, exist_ok=True)
    for name, array in zip(MNIST_FILES, mnist_arrays()):
        (staging / name).write_bytes(gzip.compress(_idx_bytes(array), mtime=0))
    try:
        staging.rename(folder)
    except OSError:  # another run made it first
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def populate(workdir, program_dir):
    """Write the stand-ins into `workdir` for a program of folder `program_dir`."""
    shutil.copytree(_mnist_folder(), pathlib.Path(workdir) / "MNIST_data")
    maker = pathlib.Path(program_dir) / "data.py"
    if maker.is_file():
        spec = importlib.util.spec_from_file_location(f"_stand_ins_{pathlib.Path(program_dir).name}", maker)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.make(str(workdir))
