"""Stand-ins for the data folders of PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition.

The programs read MNIST with ``input_data.read_data_sets`` from the relative folders
``temp/``, ``data/`` and ``MNIST-data`` (where TF1's reader would download it). The run
directory already holds the MNIST stand-in in ``MNIST_data/``; the same four files are
copied under those names, so the programs keep their own paths (``softmax_classifier.py``
also saves its checkpoint into ``data/``).
"""

import os
import shutil

FOLDERS = ("temp", "data", "MNIST-data")


def make(directory):
    """Copy ``MNIST_data/`` to the folder names the programs read."""
    source = os.path.join(directory, "MNIST_data")
    for name in FOLDERS:
        shutil.copytree(source, os.path.join(directory, name))
