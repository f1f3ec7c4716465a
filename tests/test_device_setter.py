"""replica_device_setter: variables on ps tasks by strategy, compute on workers."""

import numpy as np
import pytest

import daskflow as tf
from tests.models import digits_batches, xent

CLUSTER = {"ps": ["ps-0", "ps-1"], "worker": ["worker-0", "worker-1"]}


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _layers(sizes):
    ws, bs = [], []
    for a, b in zip(sizes, sizes[1:]):
        ws.append(tf.Variable(tf.zeros([a, b]), name="weights"))
        bs.append(tf.Variable(tf.zeros([b]), name="biases"))
    return ws, bs


def test_round_robin_puts_every_weight_on_one_ps_and_every_bias_on_the_other():
    with tf.device(tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(CLUSTER))):
        ws, bs = _layers([64, 64, 64, 10])
        h = tf.matmul(tf.ones([1, 64]), ws[0])
    assert {w.device for w in ws} == {"/job:ps/task:0"}
    assert {b.device for b in bs} == {"/job:ps/task:1"}
    assert h.device == "/job:worker"
    assert ws[0].initializer.device == "/job:ps/task:0"  # assignments follow their variable


def test_greedy_by_bytes_balances_the_ps_tasks():
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, tf.contrib.training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(cluster=CLUSTER, ps_strategy=strategy)):
        ws, bs = _layers([64, 64, 64, 10])
    loads = {"/job:ps/task:0": 0, "/job:ps/task:1": 0}
    for v in ws + bs:
        loads[v.device] += v.shape.num_elements() * 4
    assert ws[0].device != ws[1].device  # the two big weights are split
    assert abs(loads["/job:ps/task:0"] - loads["/job:ps/task:1"]) <= 64 * 10 * 4 + 64 * 4


def test_the_greedy_strategy_is_where_tf1_had_it():
    # TF1 (r1.15) defines both in tf.contrib.training only; tf.compat.v1.train has neither.
    for name in ("GreedyLoadBalancingStrategy", "byte_size_load_fn"):
        with pytest.raises(AttributeError, match=f"tf.train.{name} is not part of daskflow"):
            getattr(tf.train, name)
    with pytest.raises(TypeError, match="load_fn"):  # TF1's load_fn has no default
        tf.contrib.training.GreedyLoadBalancingStrategy(2)


def test_byte_size_load_fn_needs_one_output_of_a_known_shape():
    load = tf.contrib.training.byte_size_load_fn
    assert load(tf.Variable(tf.zeros([3, 4], tf.float64)).op) == 3 * 4 * 8
    assert load(tf.Variable(1, name="scalar").op) == 4
    unknown = tf.Variable(tf.zeros([3]), validate_shape=False, name="unknown")
    with pytest.raises(ValueError, match=r"Shape <unknown> is not fully defined .*op unknown"):
        load(unknown.op)
    with pytest.raises(ValueError, match="Op split must have a single output"):
        load(tf.split(tf.zeros([4]), 2, name="split")[0].op)


def test_worker_device_merges_with_enclosing_scopes():
    setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:1")
    with tf.device(setter):
        v = tf.Variable(1.0)
        y = v * 2.0
        with tf.device("/device:GPU:0"):
            z = v * 3.0
    assert v.device == "/job:ps/task:0"
    assert y.device == "/job:worker/task:1"
    assert z.device == "/job:worker/task:1/device:GPU:0"
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    assert tf.train.replica_device_setter(cluster={"worker": ["worker-0"]}) is None


def _train(target, steps=12):
    batches, _ = digits_batches(steps, 32)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
            w0 = tf.Variable(tf.truncated_normal([64, 32], stddev=0.1, seed=1))
            b0 = tf.Variable(tf.zeros([32]))
            w1 = tf.Variable(tf.truncated_normal([32, 10], stddev=0.1, seed=2))
            b1 = tf.Variable(tf.zeros([10]))
            logits = tf.matmul(tf.nn.relu(tf.matmul(x, w0) + b0), w1) + b1
            loss = xent(y, logits)
            train = tf.train.AdamOptimizer(0.01).minimize(
                loss, global_step=tf.train.get_or_create_global_step()
            )
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {x: bx, y: by})[0] for bx, by in batches]
            where = sess.placement(train, {x: batches[0][0], y: batches[0][1]}) if target else None
            return losses, where


def test_a_replica_device_setter_program_runs_on_two_ps_tasks():
    # One worker task: one replica, so the embedded numbers (more replicate: test_data_parallel).
    with tf.local_cluster(ps=2, workers=1, processes=False) as cluster:
        losses, where = _train(cluster)
    ref, _ = _train(None)
    np.testing.assert_allclose(losses, ref, rtol=1e-5)
    assert where["Variable"].worker == "ps-0" and where["Variable_1"].worker == "ps-1"
    assert where["MatMul"].worker == "worker-0"
