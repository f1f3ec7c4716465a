"""Data-parallel training: one replica per worker task, sync (backup workers) and async."""

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits


@pytest.fixture(scope="module")
def cluster():
    with tf.local_cluster(ps=1, workers=3, processes=False) as cluster:
        yield cluster


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _params(shapes, seed=0):
    rng = np.random.default_rng(seed)
    ws = [
        tf.Variable((rng.standard_normal((a, b)) * 0.1).astype(np.float32))
        for a, b in zip(shapes, shapes[1:])
    ]
    bs = [tf.Variable(tf.zeros([b])) for b in shapes[1:]]
    return ws, bs


def mlp(x, params):
    ws, bs = params
    h = x
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = tf.matmul(h, w) + b
        if i < len(ws) - 1:
            h = tf.nn.relu(h)
    return h


class _Evaluate(tf.train.SessionRunHook):
    """Test accuracy and the step metrics at the end of training (TF1's way: a hook's ``end``)."""

    def __init__(self, accuracy, feed):
        self.accuracy, self.feed, self.value, self.metrics = accuracy, feed, None, None

    def end(self, session):
        self.metrics = session.step_metrics()
        self.value = session.run(self.accuracy, self.feed)


def contract_program(target, sync, steps=300, workers=3, aggregate=2, config=None):
    """The issue's program, as written, plus an evaluation hook; returns (accuracy, metrics)."""
    data = load_digits(one_hot=True)
    X, Y = data.train.images, data.train.labels
    cluster = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]})
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(2000, seed=0).repeat().batch(64)
    x, y_ = ds.make_one_shot_iterator().get_next()
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        params = _params([64, 64, 10])
        logits = mlp(x, params)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
        opt = tf.train.AdamOptimizer(0.01)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(
                opt, replicas_to_aggregate=aggregate, total_num_replicas=workers
            )
        train_op = opt.minimize(loss, global_step=gs)
    xt = tf.placeholder(tf.float32, [None, 64])
    yt = tf.placeholder(tf.float32, [None, 10])
    correct = tf.equal(tf.argmax(mlp(xt, params), 1), tf.argmax(yt, 1))
    evaluate = _Evaluate(
        tf.reduce_mean(tf.cast(correct, tf.float32)), {xt: data.test.images, yt: data.test.labels}
    )
    hooks = [tf.train.StopAtStepHook(last_step=steps), evaluate]
    if sync:
        hooks.append(opt.make_session_run_hook(is_chief=True))
    with tf.train.MonitoredTrainingSession(
        master=target, hooks=hooks, config=config, progress_bar=False
    ) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    return evaluate.value, evaluate.metrics


def test_sync_replicas_with_a_backup_worker_train_the_contract_program(cluster):
    accuracy, metrics = contract_program(cluster.scheduler_address, sync=True)
    assert accuracy >= 0.95
    train = [m for m in metrics if m["replicas_used"]]
    assert len(train) == 300  # one global step per run
    assert all(m["replicas_used"] == 2 and m["gradients_dropped"] == 1 for m in train)


def test_async_replicas_train_the_contract_program_within_the_staleness_bound(cluster):
    config = tf.ConfigProto(max_staleness=1)
    accuracy, metrics = contract_program(cluster.scheduler_address, sync=False, config=config)
    assert accuracy >= 0.93
    staleness = [s for m in metrics for s in m["staleness"]]
    assert staleness and max(staleness) <= 1
    assert 0 in staleness and 1 in staleness
    # Three replicas, a bound of one: each round's last arrival is over the bound;
    # the global step counts applied updates, two per round (StopAtStepHook, reading
    # the step as it was before each run, as TF1's does, may allow one round more).
    rounds = [m for m in metrics if m["replicas_used"]]
    assert all(m["replicas_used"] == 2 and m["gradients_dropped"] == 1 for m in rounds)
    assert len(rounds) in (150, 151)
