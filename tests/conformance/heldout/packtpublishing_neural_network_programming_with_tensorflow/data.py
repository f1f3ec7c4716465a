"""Stand-ins for the data files of PacktPublishing/Neural-Network-Programming-with-TensorFlow.

- ``iris.csv`` and ``target.csv`` (``Chapter02/misc/feed_forward_iris.py`` reads them from its
  own folder; the repository keeps them in ``Chapter02/iris/``): the iris measurements and
  class numbers written with ``numpy.savetxt(..., delimiter=",")``, from scikit-learn's bundled
  iris with UCI's three differing values (rows 35 and 38), as the repository's files have them,
  so both files are byte for byte the repository's.
- ``n02107142_16917.jpg`` (``Chapter04/cnn/edge_detection.py`` reads an ImageNet photo from
  ``/home/ubuntu/Downloads/``): a synthetic 96x128 RGB JPEG (smooth gradients and a bright
  square, drawn with a fixed seed), not the photo.
"""

import os

import numpy as np


def make(directory):
    """Write the stand-ins into `directory`."""
    from sklearn.datasets import load_iris

    iris = load_iris()
    data = iris.data.copy()
    data[34, 3], data[37, 1], data[37, 2] = 0.1, 3.1, 1.5  # UCI's values, as in the repository's iris.csv
    np.savetxt(os.path.join(directory, "iris.csv"), data, delimiter=",")
    np.savetxt(os.path.join(directory, "target.csv"), iris.target.astype(float), delimiter=",")

    from PIL import Image

    rng = np.random.RandomState(0)
    rows, cols = np.mgrid[0:96, 0:128]
    image = np.stack([rows * 2.5, cols * 2.0, (rows + cols) * 1.1], axis=-1)
    image[30:60, 40:80] = 240
    image += rng.uniform(0, 10, size=image.shape)
    Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(os.path.join(directory, "n02107142_16917.jpg"), quality=90)
