"""Stand-ins for the data of rasbt/deeplearning-models' ``tensorflow1_ipynb`` notebooks.

MNIST: most notebooks call ``input_data.read_data_sets("./")`` (the folder where TF1's reader
would download the four files; the GAN notebooks say ``'MNIST_data'``); the run directory's
``MNIST_data/`` stand-in files are copied into the run directory itself, so the notebooks
keep their own path.
"""

import os
import shutil


def make(directory):
    """Copy the MNIST stand-in files of ``MNIST_data/`` into `directory` itself."""
    source = os.path.join(directory, "MNIST_data")
    for name in os.listdir(source):
        shutil.copy(os.path.join(source, name), os.path.join(directory, name))
