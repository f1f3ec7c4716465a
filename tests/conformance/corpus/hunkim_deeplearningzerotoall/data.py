"""Stand-ins for hunkim/DeepLearningZeroToAll's CSV files (same columns, made-up values).

- ``data-01-test-score.csv``: 25 rows ``quiz1,quiz2,midterm,final`` (integers, no header).
- ``data-02-stock_daily.csv``: two ``#`` lines, then rows ``Open,High,Low,Volume,Close``
  (newest first, as the programs reverse it).
- ``data-03-diabetes.csv``: 759 rows of 8 features scaled into [-1, 1] and a 0/1 label.
- ``data-04-zoo.csv``: ``#`` description lines, then 101 rows of 16 animal features
  (booleans, legs in {0, 2, 4, 5, 6, 8}) and a class 0..6.
"""

import os

import numpy as np


def _test_score(rng):
    x = rng.integers(45, 101, size=(25, 3))
    y = np.rint(0.5 * x[:, 0] + 0.5 * x[:, 1] + x[:, 2] + rng.normal(0, 3, 25)).astype(int)
    return [",".join(str(v) for v in (*row, t)) for row, t in zip(x, y)]


def _stock(rng, rows=300):
    close = 500 + np.cumsum(rng.normal(0, 5, rows))
    open_ = close + rng.normal(0, 3, rows)
    high = np.maximum(open_, close) + rng.uniform(0, 4, rows)
    low = np.minimum(open_, close) - rng.uniform(0, 4, rows)
    volume = rng.integers(10_000, 3_000_000, rows)
    lines = ["# http://finance.yahoo.com/quote/GOOG/history?ltr=1", "# Open,High,Low,Volume,Close"]
    for i in reversed(range(rows)):  # newest first, like the real file
        lines.append(f"{open_[i]:.6f},{high[i]:.6f},{low[i]:.6f},{volume[i]},{close[i]:.6f}")
    return lines


def _diabetes(rng, rows=759):
    x = np.clip(rng.normal(-0.2, 0.4, size=(rows, 8)), -1, 1)
    x[rng.random((rows, 8)) < 0.1] = 0  # the real file has many exact zeros
    score = x @ rng.normal(0, 1.5, 8) + rng.normal(0, 0.5, rows)
    label = (score > np.median(score) - 0.3).astype(int)
    return [",".join(f"{v:g}" for v in row) + f",{t}" for row, t in zip(x, label)]


def _zoo(rng, rows=101):
    names = [
        "hair",
        "feathers",
        "eggs",
        "milk",
        "airborne",
        "aquatic",
        "predator",
        "toothed",
        "backbone",
        "breathes",
        "venomous",
        "fins",
        "legs",
        "tail",
        "domestic",
        "catsize",
    ]
    lines = [
        "# https://archive.ics.uci.edu/ml/machine-learning-databases/zoo/zoo.data" + "," * 16,
        "#   1. animal name:     (deleted)" + "," * 16,
    ]
    lines += [f"#  {i + 2:2d}. {name}     Boolean" + "," * 16 for i, name in enumerate(names)]
    lines.append("#  18. type     Numeric (integer values in range [0,6])" + "," * 15)
    prototypes = rng.integers(0, 2, size=(7, 16))
    legs = np.array([0, 2, 4, 5, 6, 8])
    proto_legs = rng.choice(legs, 7)
    for _ in range(rows):
        label = rng.integers(0, 7)
        feats = prototypes[label] ^ (rng.random(16) < 0.1)
        feats[12] = proto_legs[label] if rng.random() > 0.1 else rng.choice(legs)
        lines.append(",".join(str(int(v)) for v in feats) + f",{label}")
    return lines


def make(directory):
    """Write the four CSV stand-ins into `directory`."""
    rng = np.random.default_rng(0)
    files = {
        "data-01-test-score.csv": _test_score(rng),
        "data-02-stock_daily.csv": _stock(rng),
        "data-03-diabetes.csv": _diabetes(rng),
        "data-04-zoo.csv": _zoo(rng),
    }
    for name, lines in files.items():
        with open(os.path.join(directory, name), "w") as out:
            out.write("\n".join(lines) + "\n")
