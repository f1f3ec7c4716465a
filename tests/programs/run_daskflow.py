"""Run one program of this folder under daskflow.

Usage::

    python tests/programs/run_daskflow.py tests/programs/<name>.py

The program imports daskflow itself. Before it runs, only the data and the
plotting are arranged as for TF1 (see :mod:`harness`):
``daskflow.datasets.read_data_sets`` is wrapped to shuffle with seed 0,
pyplot is a no-op, and the graph-level random seed is 0. Nothing else is filled in: a
TF1 name daskflow lacks fails here as it would for a user.
"""

import sys

import harness

import daskflow
import daskflow.datasets


def install():
    daskflow.datasets.read_data_sets = harness.read_data_sets_for(daskflow.datasets)
    daskflow.set_random_seed(0)
    harness.headless_pyplot()


if __name__ == "__main__":
    install()
    harness.run_program(sys.argv[1])
