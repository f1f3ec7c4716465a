"""Stand-ins for the data files of BinRoot/TensorFlow-Book's programs.

- ``big.txt``: plain English-like text, one sentence a line (the book reads Peter
  Norvig's ``big.txt`` line by line with ``tf.TextLineReader``); 500 lines of
  words drawn from a small vocabulary with a fixed seed.
"""

import os

import numpy as np

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there one all we their been has more would will"
).split()


def make(directory):
    """Write ``big.txt`` into `directory`."""
    rng = np.random.RandomState(0)
    lines = []
    for _ in range(500):
        words = rng.choice(WORDS, size=rng.randint(4, 15))
        lines.append(" ".join(words).capitalize() + ".")
    with open(os.path.join(directory, "big.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")
