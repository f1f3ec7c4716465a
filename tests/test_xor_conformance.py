"""The two-layer XOR net trains as under TF1, from the same start.

Issue #38 saw a TF1 XOR program (DeepLearningZeroToAll's lab 9, Adam on a
2-2-1 sigmoid net, ``tf.random_normal`` weights under ``set_random_seed(777)``)
reach 100% under TF and stay at 75% under daskflow. From the same initial
weights every loss, gradient and output below is TF's to float32 rounding
(``tests/fixtures/make_xor.py`` recorded TF 2.21's), and each op's gradient
alone is TF's: the difference was the start. TF's and daskflow's random
streams differ (the same distributions, other draws), and on XOR whether a
2-2-1 net escapes the 75%/50% minima depends on the start alone: over 40
graph seeds (Adam, 2000 steps) TF solved 16 and daskflow 18.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_xor  # noqa: E402

TF1 = json.loads((FIXTURES / "xor.json").read_text())


@pytest.mark.parametrize("loss, optimizer, seed", scenarios_xor.CASES)
def test_training_follows_tf1_step_by_step(loss, optimizer, seed):
    expected = TF1["train"][f"{loss}-{optimizer}-{seed}"]
    got = scenarios_xor.train(tf, loss, optimizer, seed)
    for mine, theirs in zip(got["gradients"], expected["gradients"]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got["losses"], expected["losses"], rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(got["outputs"], expected["outputs"], rtol=2e-3, atol=1e-5)
    assert got["accuracy"] == expected["accuracy"]


def test_each_ops_gradient_is_tf1s():
    got = scenarios_xor.gradients(tf)
    assert set(got) == set(TF1["gradients"])
    for name, expected in TF1["gradients"].items():
        assert len(got[name]) == len(expected), name
        for mine, theirs in zip(got[name], expected):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7, err_msg=name)


def test_random_initialisers_draw_tf1s_distributions():
    """Moments of the initialisers the XOR programs use, against their distributions."""
    tf.reset_default_graph()
    tf.set_random_seed(777)
    normal = tf.random_normal([200_000])
    uniform = tf.random_uniform([200_000], -1.0, 1.0)
    truncated = tf.truncated_normal([200_000])
    with tf.Session() as sess:
        n, u, t = sess.run([normal, uniform, truncated])
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1.0) < 0.01
    assert u.min() >= -1.0 and u.max() < 1.0 and abs(u.mean()) < 0.01 and abs(u.std() - 2 / 12**0.5) < 0.01
    # truncated at two standard deviations: std 0.8796 (scipy.stats.truncnorm(-2, 2).std())
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.8796) < 0.01
