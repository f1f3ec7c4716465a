"""Data stand-ins for chiphuyen/stanford-tensorflow-tutorials, in the layout of the real files.

- ``data/heart.csv``: the South African heart-disease table of the 2017 examples
  (header sbp,tobacco,ldl,adiposity,famhist,typea,obesity,alcohol,age,chd;
  famhist is ``Present``/``Absent``, chd is 0/1), 462 synthetic rows.
"""

import os

import numpy as np


def make(directory):
    """Write this repository's data stand-ins into `directory`."""
    rng = np.random.default_rng(2017)
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    n = 462
    with open(os.path.join(directory, "data", "heart.csv"), "w") as f:
        f.write("sbp,tobacco,ldl,adiposity,famhist,typea,obesity,alcohol,age,chd\n")
        for _ in range(n):
            famhist = "Present" if rng.random() < 0.42 else "Absent"
            row = [
                int(rng.integers(101, 219)),
                round(float(rng.exponential(3.6)), 2),
                round(float(rng.uniform(0.98, 15.33)), 2),
                round(float(rng.uniform(6.74, 42.49)), 2),
                famhist,
                int(rng.integers(13, 79)),
                round(float(rng.uniform(14.7, 46.58)), 2),
                round(float(rng.exponential(17.0)), 2),
                int(rng.integers(15, 65)),
                int(rng.random() < 0.35),
            ]
            f.write(",".join(str(v) for v in row) + "\n")
