"""In-graph asynchronous training whose replicas never meet: ConfigProto(independent_replicas=True)."""

import time

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.framework.replica import current_replica
from daskflow.runtime.worker.between_graph_tasks import names as shared_names
from tests.clusters import module_cluster
from tests.waiting import poll_for

cluster = module_cluster(ps=1, workers=2, processes=False, dashboard_page=False)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _linear(straggler_secs=0.0):
    """w (on the ps) and a replicated step on /job:worker; worker-1's replica sleeps first."""
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        x = tf.placeholder(tf.float32, [None], name="x")
        w = tf.Variable(0.0, name="w")
        step = tf.train.get_or_create_global_step()

        def maybe_sleep(value):
            if straggler_secs and current_replica()[0] == 1:  # the replica on worker-1
                time.sleep(straggler_secs)
            return value

        slowed = tf.py_func(maybe_sleep, [x], tf.float32)
        slowed.set_shape([None])
        loss = tf.reduce_sum(w * slowed)  # d loss / d w = sum(x): the same for every step
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, w, step, train


def test_each_run_is_one_replicas_update_on_its_whole_batch(cluster):
    x, w, step, train = _linear()
    config = tf.ConfigProto(independent_replicas=True)
    with tf.Session(cluster, config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(train, {x: np.ones(4, np.float32)})
        sess.sync()
        # Ten updates of 0.1 * sum(ones(4)), in whatever order: the batch is not split.
        assert sess.run(step) == 10
        assert sess.run(w) == pytest.approx(-4.0)
        # One staleness per update: the initializer's and ten more. Its size is timing: a run
        # returns once submitted, so while one replica computes, the other may apply two steps
        # (it did under CI's load: a staleness of 2).
        staleness = [s for m in sess.step_metrics() for s in m["staleness"]]
        assert len(staleness) == 11 and min(staleness) >= 0, staleness


def test_a_straggling_replica_does_not_hold_the_others_back(cluster):
    x, w, step, train = _linear(straggler_secs=0.3)
    feed = {x: np.ones(2, np.float32)}

    def runs_per_second(config, updates_per_run, seconds=2.0):
        with tf.Session(cluster, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, feed)
            sess.sync()
            start, runs = time.perf_counter(), 0
            while time.perf_counter() - start < seconds:
                sess.run(train, feed)
                runs += 1
            sess.sync()
            elapsed = time.perf_counter() - start
            assert sess.run(step) == (runs + 1) * updates_per_run
            return runs / elapsed

    independent = runs_per_second(tf.ConfigProto(independent_replicas=True), 1)
    together = runs_per_second(tf.ConfigProto(), 2)  # each run, both replicas: it waits for the slow one
    assert together < 1 / 0.3 + 0.5
    assert independent > 3 * together, (independent, together)


def _names_appear(client, job, deadline=10.0):
    """The shared variables the workers hold for ``job``, once any are there: this looks at
    the workers from outside the session, and under load their state may trail the run."""
    return poll_for(
        lambda: sorted(n for found in client.run(shared_names, job).values() for n in found),
        deadline,
        f"the shared variables of job {job} on the workers",
    )


def test_the_sessions_own_variables_go_with_it(cluster):
    x, w, step, train = _linear()
    with tf.Session(cluster, config=tf.ConfigProto(independent_replicas=True)) as sess:
        sess.run(tf.global_variables_initializer())
        job = sess.runtime.shared_job
        with Client(cluster, set_as_default=False) as client:
            assert _names_appear(client, job) == ["global_step", "w"]
    with Client(cluster, set_as_default=False) as client:
        assert all(found == [] for found in client.run(shared_names, job).values())


def test_sync_replicas_with_independent_replicas_is_refused(cluster):
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w = tf.Variable(1.0)
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 2)
        train = opt.minimize(tf.square(w), global_step=tf.train.get_or_create_global_step())
    with tf.Session(cluster, config=tf.ConfigProto(independent_replicas=True)) as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.UnimplementedError, match="independent_replicas"):
            sess.run(train)


def test_a_client_that_leaves_without_closing_takes_its_variables_with_it(cluster):
    x, w, step, train = _linear()
    sess = tf.Session(cluster.scheduler_address, config=tf.ConfigProto(independent_replicas=True))
    sess.run(tf.global_variables_initializer())
    job = sess.runtime.shared_job
    sess.runtime.client.close()  # gone, as a killed notebook's client is
    with Client(cluster, set_as_default=False) as client:
        poll_for(
            lambda: all(found == [] for found in client.run(shared_names, job).values()),
            10,
            lambda: f"job {job}'s shared variables to go: {client.run(shared_names, job)}",
            every=0.2,
        )
