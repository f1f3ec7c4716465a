"""``ConfigProto(device_filters=...)``: a cluster session sees only the workers its filters name."""

import numpy as np
import pytest

import daskflow as tf
from tests.clusters import module_cluster

SPEC = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]}


cluster = module_cluster(ps=1, workers=3, processes=False, dashboard_page=False)


def _replicated_step(replicas):
    """A data-parallel step over ``replicas`` replicas (sync, all aggregated): (init, train, w)."""
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.device(tf.train.replica_device_setter(cluster=SPEC)):
        w = tf.Variable(tf.ones([2, 1]))
        loss = tf.reduce_sum(tf.matmul(x, w))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.5), replicas, replicas)
        train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return tf.global_variables_initializer(), train, w


def _replica_workers(sess, train):
    """The workers that run the replicated ops (placed on "/job:worker", one per replica)."""
    return {where.worker for where in sess.placement(train).values() if where.device == "/job:worker"}


def test_replicas_run_on_the_filtered_workers_alone(cluster):
    """Filters naming the ps and worker 1 make a one-replica session of a three-worker cluster:
    the replica runs on worker-1, and the update is its gradient."""
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:1"])
    with tf.Graph().as_default():
        init, train, w = _replicated_step(1)
        with tf.Session(cluster, config=config) as sess:
            sess.run(init)
            sess.run(train)
            got = sess.run(w)
            assert _replica_workers(sess, train) == {"worker-1"}
    # d(sum(x @ w))/dw = column sums of x = [12, 16]; one step of 0.5.
    np.testing.assert_allclose(got, [[1 - 6.0], [1 - 8.0]])


def test_without_filters_the_session_replicates_over_every_worker(cluster):
    with tf.Graph().as_default():
        init, train, _ = _replicated_step(3)
        with tf.Session(cluster) as sess:
            sess.run(init)
            sess.run(train)
            assert _replica_workers(sess, train) == {"worker-0, worker-1, worker-2"}


def test_an_op_on_a_filtered_out_worker_is_an_error_naming_its_device(cluster):
    config = tf.ConfigProto(device_filters=["/job:worker/task:0"])
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:2"):
            y = tf.constant(2.0) * tf.placeholder(tf.float32, [])
        with tf.Session(cluster, config=config) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="/job:worker/task:2"):
                sess.run(y, {y.op.inputs[1]: 1.0})


@pytest.mark.parametrize("bad", ["/job:worker/task:x", "garbage"])
def test_a_malformed_filter_is_refused_naming_the_field(bad):
    with pytest.raises(ValueError, match="device_filters"):
        tf.ConfigProto(device_filters=[bad])


@pytest.mark.parametrize("bad", [[3], [None], 5])
def test_a_filter_that_is_not_a_string_is_a_type_error_naming_the_field(bad):
    with pytest.raises(TypeError, match="device_filters"):
        tf.ConfigProto(device_filters=bad)


def test_ops_with_no_task_go_to_the_lowest_worker_task_the_filters_keep(cluster):
    """TF1's between-graph filters for task 1 leave out worker-0: an op with no task runs
    on worker-1 (the lowest worker there is), not on the ps that sorts first."""
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:1"])
    with tf.Graph().as_default():
        y = tf.constant(2.0) * tf.placeholder(tf.float32, [])
        with tf.Session(cluster, config=config) as sess:
            assert sess.run(y, {y.op.inputs[1]: 3.0}) == 6.0
            assert {where.worker for where in sess.placement(y).values()} == {"worker-1"}


def test_a_single_string_is_one_filter():
    assert tf.ConfigProto(device_filters="/job:ps").device_filters == ["/job:ps"]
