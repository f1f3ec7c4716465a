"""Stand-ins for the data of sjchoi86/Tensorflow-101's notebooks (they read from ``data/``).

- ``data/``: the four MNIST stand-in files of the run directory's ``MNIST_data/``, copied, since
  the notebooks call ``input_data.read_data_sets('data/', one_hot=True)`` (the folder TF1's reader
  would download them to; the repository's own copies are not all in the snapshot).
- ``data/custom_data.npz``: what ``basic_gendataset.ipynb`` writes from four folders of celebrity
  photos (``../../img_dataset/celebs/<name>``, not in the repository), in its layout: ``trainimg``,
  ``testimg`` (rows of 64x64 grayscale pixels in [0, 1]), ``trainlabel``, ``testlabel`` (one-hot, 4
  classes), ``imgsize`` ``[64, 64]``, ``use_gray`` ``1``. Here the images are scikit-learn's bundled
  8x8 digits 0-3 (50 of each), each pixel repeated 8x8 times and scaled to [0, 1]; 3/5 of them
  (shuffled with a fixed seed) for training, as the notebook splits them.
"""

import os
import shutil

import numpy as np


def make(directory):
    """Write the stand-ins into `directory`."""
    target = os.path.join(directory, "data")
    os.makedirs(target, exist_ok=True)
    source = os.path.join(directory, "MNIST_data")
    for name in os.listdir(source):
        shutil.copy(os.path.join(source, name), os.path.join(target, name))

    from sklearn.datasets import load_digits

    digits = load_digits()
    chosen = np.concatenate([np.flatnonzero(digits.target == k)[:50] for k in range(4)])
    chosen = np.random.RandomState(0).permutation(chosen)
    images = np.stack([np.kron(digits.images[i], np.ones((8, 8))) / 16.0 for i in chosen])
    images = images.reshape(len(chosen), -1)
    labels = np.eye(4)[digits.target[chosen]]
    ntrain = int(3 * len(chosen) / 5)
    np.savez(
        os.path.join(target, "custom_data.npz"),
        trainimg=images[:ntrain],
        trainlabel=labels[:ntrain],
        testimg=images[ntrain:],
        testlabel=labels[ntrain:],
        imgsize=[64, 64],
        use_gray=1,
    )
