"""ConfigProto(placement="cost"): the greedy earliest-finish placer and its plans."""

import numpy as np
import pytest

import daskflow as tf
from daskflow.runtime.plan.cost_placement import CostPlacer, Rates

DEVICES = ["/job:worker/task:0", "/job:worker/task:1"]
RATES = Rates(flops=1e10, memory=1e10)  # stated, so the test does not depend on this machine


def _branches(dim=256, width=1024):
    """Two wide branches and a head, no device given; returns (graph, init, x, head)."""
    graph = tf.Graph()
    rng = np.random.default_rng(0)
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, dim], name="x")
        outs = []
        for name in ("left", "right"):
            with tf.name_scope(name):
                w1 = tf.Variable(rng.standard_normal((dim, width), dtype=np.float32) * 0.01, name="w1")
                w2 = tf.Variable(rng.standard_normal((width, dim), dtype=np.float32) * 0.01, name="w2")
                outs.append(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
        head = tf.reduce_mean(tf.tanh(outs[0] + outs[1]), name="head")
        init = tf.global_variables_initializer()
    return graph, init, x, head


def _devices(graph, placer):
    placed, reasons = placer.graph_placement(graph)
    return {op.name: device for op, device in placed.items()}, {op.name: why for op, why in reasons.items()}


def test_bad_placement_is_a_value_error_naming_the_field():
    with pytest.raises(ValueError, match="placement"):
        tf.ConfigProto(placement="greedy")


def test_wide_branches_go_to_different_workers_and_variables_follow_their_readers():
    graph, _, _, _ = _branches()
    where, why = _devices(graph, CostPlacer(DEVICES, RATES, batch=512))
    left = {where[n] for n in ("left/MatMul", "left/Relu", "left/MatMul_1", "left/w1", "left/w2")}
    right = {where[n] for n in ("right/MatMul", "right/Relu", "right/MatMul_1", "right/w1", "right/w2")}
    assert len(left) == 1 and len(right) == 1 and left != right
    assert where["left/w1/Assign"] == where["left/w1"]  # the initializer goes with its variable
    assert why["left/w1"] == "cost: with its heaviest reader, left/MatMul"
    assert why["right/MatMul"].startswith("cost: earliest estimated finish")


def test_cheap_chains_stay_on_one_worker():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8])
        a = tf.exp(x)
        b = tf.tanh(x)
        tf.add(a, b, name="out")
    where, _ = _devices(graph, CostPlacer(DEVICES, RATES, batch=4))
    assert set(where.values()) == {DEVICES[0]}  # a transfer would cost more than running here


def test_explicit_devices_and_colocation_are_kept():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 256])
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.ones((256, 256), np.float32), name="w")
        y = tf.matmul(x, w, name="y")
        with tf.device(DEVICES[1]):
            z = tf.matmul(y, w, name="z")
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(z))
    where, _ = _devices(graph, CostPlacer(DEVICES, RATES, batch=64))
    assert "z" not in where and "w" not in where  # placed by their scopes
    assert not any(name.startswith("GradientDescent/update_w") for name in where)  # with w, on the ps


@pytest.fixture(scope="module")
def cluster():
    with tf.local_cluster(ps=0, workers=2, processes=False) as cluster:
        yield cluster


def test_a_cost_placed_step_computes_what_the_default_does_and_says_why(cluster):
    # Wide enough that splitting the branches gains more than a hop at any batch: the graph
    # is placed when the initializer runs, before any batch is fed (DEFAULT_ROWS).
    graph, init, x, head = _branches(width=4096)
    feed = {x: np.random.default_rng(1).random((256, 256), dtype=np.float32)}
    values = {}
    for placement in (None, "cost"):
        with tf.Session(cluster, graph=graph, config=tf.ConfigProto(placement=placement)) as sess:
            sess.run(init)
            values[placement] = sess.run(head, feed)
            where = sess.placement(head, feed)
            metrics = sess.step_metrics()[-1]
    np.testing.assert_allclose(values["cost"], values[None], rtol=1e-5)
    assert where["left/MatMul"][1] != where["right/MatMul"][1]
    assert where["right/w1"][1] == where["right/MatMul"][1]  # its value lives with its reader
    assert all(len(v) == 3 for v in where.values())
    assert where["head"][2].startswith("cost:")
    assert sum(metrics["bytes_by_pair"].values()) == 256 * 256 * 4  # one branch's output crossed


def test_replicated_plans_are_left_to_replication(cluster):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            y = tf.reduce_sum(x * 2.0)
    with tf.Session(cluster, graph=graph, config=tf.ConfigProto(placement="cost")) as sess:
        where = sess.placement(y, {x: np.ones((4, 4), np.float32)})
    assert all(device == "/job:worker" for device, _, _ in where.values())
