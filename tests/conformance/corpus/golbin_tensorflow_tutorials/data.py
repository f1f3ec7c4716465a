"""Stand-in for golbin/TensorFlow-Tutorials' ``05 - TensorBoard, Saver/data.csv``.

Rows ``fur, wings, other, mammal, bird`` (two 0/1 features, a one-hot class),
``", "``-separated like the real file: wings make a bird, fur without wings a
mammal, neither "other".
"""

import os

import numpy as np


def make(directory):
    """Write ``data.csv`` into `directory`."""
    rng = np.random.default_rng(0)
    rows = []
    for fur, wings in rng.integers(0, 2, size=(6, 2)):
        label = [0, 0, 1] if wings else ([0, 1, 0] if fur else [1, 0, 0])
        rows.append(", ".join(str(int(v)) for v in (fur, wings, *label)))
    with open(os.path.join(directory, "data.csv"), "w") as out:
        out.write("\n".join(rows) + "\n")
