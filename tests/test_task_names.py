"""What Dask's task stream calls a step's tasks, and the bytes each pair of workers exchanged."""

import numpy as np
import pytest
from dask.utils import key_split
from distributed import get_task_stream

import daskflow as tf
from tests.clusters import module_cluster
from tests.models import digits_batches, initial_weights, mlp_logits, xent

HIDDEN = 32
# float32 bytes of the MLP's variables (64x32 and 32x10 weights, 32 and 10 biases): what the
# worker's gradients weigh, and the ps's new values.
VARIABLE_BYTES = 4 * (64 * HIDDEN + HIDDEN + HIDDEN * 10 + 10)
assert VARIABLE_BYTES == 9_640


pytestmark = pytest.mark.usefixtures("fresh_graph")


cluster = module_cluster(ps=1, workers=1, processes=False)


def _ps_worker_mlp():
    """An MLP on the digits: its variables and their updates on ps-0, its forward and backward
    passes on worker-0, so the worker sends the ps gradients and the ps pushes it new values.
    Returns (train, loss, x, y)."""
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    with tf.device("/job:ps/task:0"):
        w0, w1 = initial_weights([64, HIDDEN, 10])
        weights = [tf.Variable(w0, name="w0"), tf.Variable(w1, name="w1")]
        biases = [tf.Variable(tf.zeros([HIDDEN]), name="b0"), tf.Variable(tf.zeros([10]), name="b1")]
    variables = weights + biases
    with tf.device("/job:worker/task:0"):
        loss = xent(y, mlp_logits(x, weights, biases))
        grads = tf.gradients(loss, variables)
    with tf.device("/job:ps/task:0"):
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(list(zip(grads, variables)))
    return train, loss, x, y


def _step_tasks(sess, fetches, feed):
    """The keys of the tasks the scheduler ran for one ``sess.run``, from Dask's task stream."""
    with get_task_stream(client=sess.runtime.client) as stream:
        sess.run(fetches, feed)
    return [task["key"] for task in stream.data]


def test_the_task_stream_names_a_steps_tasks_by_worker_and_what_they_do(cluster):
    ((bx, by),), _ = digits_batches(1, 16)
    train, loss, x, y = _ps_worker_mlp()
    with tf.Session(cluster, config=tf.ConfigProto(backup_variables=False)) as sess:  # copies: below
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: bx, y: by})  # the plan is made and installed
        first = _step_tasks(sess, [train, loss], {x: bx, y: by})
        second = _step_tasks(sess, [train, loss], {x: bx, y: by})
    # The worker's forward and backward pass, the loss fetched from it, the ps's update and
    # the task holding the new values it made.
    expected = {"worker_0 step", "worker_0 fetch", "ps_0 update", "ps_0 values"}
    assert sorted(key_split(k) for k in first) == sorted(expected), first
    assert sorted(key_split(k) for k in second) == sorted(expected), second
    # Unique per step: each step's keys carry its own number.
    assert len({k[1] for k in first}) == len({k[1] for k in second}) == 1
    assert not set(first) & set(second)


def _holders(keys, dask_scheduler=None):
    return {str(ws.name) for key in keys for ws in dask_scheduler.tasks[key].who_has}


def test_copies_of_new_values_are_variable_backups_on_the_other_worker(cluster):
    ((bx, by),), _ = digits_batches(1, 16)
    train, _, x, y = _ps_worker_mlp()
    with tf.Session(cluster, config=tf.ConfigProto(backup_variables_every=1)) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: bx, y: by})
        keys = _step_tasks(sess, train, {x: bx, y: by})
        copies = [k for k in keys if key_split(k) == "variable backup"]
        workers = sess.runtime.client.run_on_scheduler(_holders, keys=copies)
    names = sorted(key_split(k) for k in keys)
    assert names == sorted(["worker_0 step", "ps_0 update", "ps_0 values"] + ["variable backup"] * 4), keys
    assert workers == {"worker-0"}  # the copies of the ps's values: kept on the other worker


def test_replicas_are_named_after_the_worker_task_running_them():
    batches, _ = digits_batches(2, 16)
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w0, w1 = initial_weights([64, HIDDEN, 10])
        loss = xent(
            y,
            mlp_logits(
                x,
                [tf.Variable(w0), tf.Variable(w1)],
                [tf.Variable(tf.zeros([HIDDEN])), tf.Variable(tf.zeros([10]))],
            ),
        )
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with (
        tf.local_cluster(ps=1, workers=2, processes=False) as two,
        tf.Session(two, config=tf.ConfigProto(backup_variables=False)) as sess,
    ):
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: batches[0][0], y: batches[0][1]})
        keys = _step_tasks(sess, [train, loss], {x: batches[1][0], y: batches[1][1]})
    # Replica 0's loss is the one fetched (TF1's chief).
    expected = ["ps_0 update", "ps_0 values", "worker_0 fetch", "worker_0 step", "worker_1 step"]
    assert sorted(key_split(k) for k in keys) == expected, keys


def test_each_pair_of_workers_counts_the_bytes_it_sent_the_other(cluster):
    batches, _ = digits_batches(3, 16)
    train, _, x, y = _ps_worker_mlp()
    # No copies: only the gradients and the new values cross.
    with tf.Session(cluster, config=tf.ConfigProto(backup_variables=False)) as sess:
        sess.run(tf.global_variables_initializer())
        for bx, by in batches:
            sess.run(train, {x: bx, y: by})
        metrics = sess.step_metrics()
    assert len(metrics) == 1 + len(batches)
    assert metrics[0]["bytes_by_pair"] == {} and metrics[0]["bytes_between_workers"] == 0  # on ps-0 alone
    for m in metrics[1:]:
        # worker-0 sends ps-0 one gradient per variable; ps-0 pushes worker-0 every new value.
        assert m["bytes_by_pair"] == {
            ("worker-0", "ps-0"): VARIABLE_BYTES,
            ("ps-0", "worker-0"): VARIABLE_BYTES,
        }
        assert m["bytes_between_workers"] == 2 * VARIABLE_BYTES


def test_a_worker_counts_what_it_sent_by_step_and_by_receiver():
    from daskflow.runtime.worker.state import LOG_LIMIT, WorkerState

    state = WorkerState()
    state.count_sent(("p", 0), "tcp://a", (np.zeros(3, np.float32), None))
    state.count_sent(("p", 0), "tcp://b", [np.zeros((2, 2))])
    state.count_sent(("p", 0), "tcp://a", [np.zeros(1, np.int8)])
    state.count_sent(("p", 0), "tcp://c", (None,))  # a control edge: no arrays
    assert state.sent == {("p", 0): 12 + 32 + 1}
    assert state.sent_to == {("p", 0): {"tcp://a": 13, "tcp://b": 32}}
    for n in range(1, LOG_LIMIT + 1):
        state.count_sent(("p", n), "tcp://a", [np.zeros(1, np.int8)])
    assert ("p", 0) not in state.sent and ("p", 0) not in state.sent_to  # the oldest step went
    assert len(state.sent) == len(state.sent_to) == LOG_LIMIT
