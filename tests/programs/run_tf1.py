"""Run one program of this folder under real TF1 (``tensorflow.compat.v1``).

Usage::

    /work/tfenv/bin/python tests/programs/run_tf1.py tests/programs/<name>.py

The programs say ``import daskflow as tf``. Here, before the program runs,
the module names it imports are bound in ``sys.modules`` to TF's:

- ``daskflow`` is ``tensorflow.compat.v1`` (after ``disable_v2_behavior``);
- ``daskflow.datasets`` offers ``read_data_sets`` from :mod:`harness` (the
  same data the daskflow runner gives);
- ``daskflow.contrib`` (and ``tf.contrib``) holds the few ``tf.contrib``
  names the programs use, bound to their TF1 core equivalents
  (``contrib.rnn`` -> ``nn.rnn_cell`` cells and ``nn.static_rnn``,
  ``contrib.layers.flatten`` -> ``layers.flatten``), since TensorFlow 2.x
  has no ``contrib``.

The graph-level random seed is set to 0 so reruns give the same numbers.
"""

import os
import sys
import types

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers / nn.rnn_cell need tf_keras
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402 - after the environment above
import tensorflow.compat.v1 as tf  # noqa: E402


def contrib_module():
    """The ``tf.contrib`` names the programs use, from TF1's core API."""
    rnn = types.ModuleType("daskflow.contrib.rnn")
    for name in ("BasicLSTMCell", "LSTMCell", "BasicRNNCell", "GRUCell", "MultiRNNCell", "LSTMStateTuple"):
        setattr(rnn, name, getattr(tf.nn.rnn_cell, name))
    rnn.static_rnn = tf.nn.static_rnn
    rnn.static_bidirectional_rnn = tf.nn.static_bidirectional_rnn
    layers = types.ModuleType("daskflow.contrib.layers")
    layers.flatten = tf.layers.flatten
    contrib = types.ModuleType("daskflow.contrib")
    contrib.rnn, contrib.layers = rnn, layers
    return contrib


def install():
    tf.disable_v2_behavior()
    tf.set_random_seed(0)
    datasets = types.ModuleType("daskflow.datasets")
    datasets.read_data_sets = harness.read_data_sets_for(harness.load_datasets_file())
    contrib = contrib_module()
    # `import daskflow.datasets as x` reads the attribute off the parent module.
    tf.datasets, tf.contrib = datasets, contrib
    sys.modules.update(
        {
            "daskflow": tf,
            "daskflow.datasets": datasets,
            "daskflow.contrib": contrib,
            "daskflow.contrib.rnn": contrib.rnn,
            "daskflow.contrib.layers": contrib.layers,
        }
    )
    harness.headless_pyplot()


if __name__ == "__main__":
    install()
    harness.run_program(sys.argv[1])
