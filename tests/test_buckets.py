"""Gradients leave in buckets while the backward pass runs (daskflow.runtime.plan.buckets).

A worker's partition is cut after the op completing each bucket of the values it
sends to the ps; the ps's updates of the variables in an early bucket run apart
from the later ones, so they apply (and push their new values back) while the
worker computes the rest. The cut changes when values leave, never what is
computed: a cut session trains to an uncut one's values.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.kernels import devices
from daskflow.runtime.plan.partition import make_plan

SIZES = (64, 256, 256, 4)  # weights of 64 KB, 256 KB and 4 KB in float32
BUCKET = 100_000  # the 256 KB gradient fills a bucket, and 64 KB (over half a bucket) is left


def _mlp(worker="/job:worker/task:0", seed=0):
    """An MLP whose weights live on the ps and whose forward and backward run on ``worker``:
    (weights, their gradients, the ps's update, the loss)."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((8, SIZES[0])).astype(np.float32)
    ys = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], 8)]
    with tf.device("/job:ps/task:0"):
        weights = [
            tf.Variable((0.1 * rng.standard_normal((a, b))).astype(np.float32), name=f"w{i}")
            for i, (a, b) in enumerate(zip(SIZES, SIZES[1:]))
        ]
    with tf.device(worker):
        h = tf.constant(xs)
        for i, w in enumerate(weights):
            h = tf.matmul(h, w)
            h = tf.nn.relu(h) if i < len(weights) - 1 else h
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=ys, logits=h))
        grads = tf.gradients(loss, weights)
    with tf.device("/job:ps/task:0"):
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(list(zip(grads, weights)))
    return weights, grads, train, loss


def _parts(plan, label):
    return [p for p in plan.partitions if p.key.startswith(label)]


def _holding(plan, op):
    return plan.partition_of[op].key


def test_a_partition_is_cut_after_the_op_completing_a_bucket_of_what_it_sends(fresh_graph):
    weights, grads, train, _ = _mlp()
    plan = make_plan([], [train], [], bucket_bytes=BUCKET)
    first, second = _parts(plan, "worker-0")
    assert second.continues == first.key and first.continues is None
    # The last layers' weight gradients are in the first piece; the first layer's, in the next.
    assert _holding(plan, grads[2].op) == _holding(plan, grads[1].op) == first.key
    assert _holding(plan, grads[0].op) == second.key
    # The gradient flowing below the second layer is not needed for its weight gradient:
    # it runs after the cut, not before.
    below = fresh_graph.get_operation_by_name("gradients/MatMul_1_grad/MatMul")
    assert _holding(plan, below) == second.key


def test_the_updates_of_an_early_bucket_run_apart_from_the_later_ones(fresh_graph):
    weights, grads, train, _ = _mlp()
    plan = make_plan([], [train], [], bucket_bytes=BUCKET)
    first, second = _parts(plan, "worker-0")
    updates = {w.op.name: plan.partition_of[op] for w in weights for op in plan.ops if _updates(op, w)}
    early, late = updates["w1"], updates["w0"]
    assert early is updates["w2"] and early is not late and early.device == late.device
    made = (plan.partition_of.get(t.op) for op in early.ops for t in plan.inputs_of(op))
    reads = {part.key for part in made if part is not None}
    assert second.key not in reads and first.key in reads


def _updates(op, variable):
    return op.type == "AssignSub" and op.inputs[0].op is variable.op


@pytest.mark.parametrize("bucket_bytes", [None, 0, 240_000])
def test_no_cut_without_buckets_or_with_less_than_a_bucket_and_a_half_to_send(fresh_graph, bucket_bytes):
    _, _, train, _ = _mlp()
    plan = make_plan([], [train], [], bucket_bytes=bucket_bytes)
    assert [p.key for p in _parts(plan, "worker-0")] == ["worker-0-s0"]
    assert not any(p.continues for p in plan.partitions)


def test_cutting_is_a_cluster_option_refused_below_zero():
    assert tf.ConfigProto().cluster.send_bucket_bytes == 8 << 20
    assert tf.ConfigProto(send_bucket_bytes=0).cluster.send_bucket_bytes == 0
    with pytest.raises(ValueError, match=r"send_bucket_bytes=-1"):
        tf.ConfigProto(send_bucket_bytes=-1)


def _train(cluster, bucket_bytes, worker, steps=3):
    """Values of the MLP's weights and the losses after ``steps`` steps on ``cluster``, and
    the partition instances the last step ran."""
    with tf.Graph().as_default():
        weights, _, train, loss = _mlp(worker)
        # A step that cannot finish (a piece kept from running) fails the test, not hangs it.
        config = tf.ConfigProto(send_bucket_bytes=bucket_bytes, operation_timeout_in_ms=60_000)
        with tf.Session(cluster, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss])[1] for _ in range(steps)]
            instances = sorted(sess.step_metrics()[-1]["phases"])
            return sess.run(weights), losses, instances


@pytest.mark.parametrize("gpu", [False, True], ids=["cpu", "gpu"])
def test_a_cut_session_trains_to_the_values_of_an_uncut_one(gpu):
    """On a GPU worker the second piece waits for the first without holding the GPU: a
    piece ready first (the first waits for its inputs) must not keep it from running."""
    from tests.strict_device import cupy as standin

    worker = "/job:worker/task:0" + ("/device:GPU:0" if gpu else "")
    kind = {"gpu_workers": 1, "workers": 0} if gpu else {"workers": 1}
    with devices.gpu_module(standin), tf.local_cluster(ps=1, processes=False, **kind) as cluster:
        cut, cut_losses, cut_instances = _train(cluster, BUCKET, worker)
        whole, whole_losses, whole_instances = _train(cluster, 0, worker)
    label = "worker-0-gpu0" if gpu else "worker-0"
    assert [i for i in cut_instances if i.startswith(label)] == [f"{label}-s0", f"{label}-s1"]
    assert [i for i in whole_instances if i.startswith(label)] == [f"{label}-s0"]
    assert cut_losses[-1] < cut_losses[0]
    np.testing.assert_allclose(cut_losses, whole_losses, rtol=1e-6)
    for a, b in zip(cut, whole):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
