"""Values that do not fit a worker's memory fail their step; they never hang it."""

import time

import dask
import numpy as np
import pytest

import daskflow as tf

LIMIT = 300 * 10**6  # each worker's memory limit, bytes


pytestmark = [pytest.mark.usefixtures("fresh_graph"), pytest.mark.process]


def _graph():
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(1.0, name="w")
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [None], name="images")
        total = tf.reduce_sum(x)
    with tf.device("/job:ps/task:0"):
        train = tf.assign_add(w, total)
    return w, x, train


def test_a_feed_larger_than_its_worker_can_hold_fails_the_step_naming_it_and_changes_nothing():
    w, x, train = _graph()
    too_big = np.empty(LIMIT // 4, np.float32)  # as much as the limit: never touched, never sent
    with tf.local_cluster(ps=1, workers=1, memory_limit=LIMIT) as cluster:
        with tf.Session(cluster) as sess:
            sess.run(w.initializer)
            start = time.monotonic()
            with pytest.raises(tf.errors.ResourceExhaustedError) as caught:
                sess.run(train, {x: too_big})
            assert time.monotonic() - start < 10  # at once: the worker was never pushed over
            message = str(caught.value)
            assert "images:0" in message and "'worker-0'" in message
            assert f"{too_big.nbytes:,} bytes" in message and f"{LIMIT:,}" in message
            assert caught.value.op is not None and caught.value.op.name == "images"
            assert sess.run(w) == 1.0  # no variable changed
            assert sess.run(train, {x: np.ones(100_000, np.float32)}) == 100_001.0  # and it goes on
            assert not sess.recoveries  # no worker was lost


def _hog(megabytes):
    """A step that fills more memory than its worker has (its Nanny restarts it)."""
    held = np.ones(int(megabytes) * 2**20 // 8)
    time.sleep(2.0)
    return np.float32(held.sum())


def test_a_step_that_fills_its_workers_memory_each_time_ends_after_the_allowed_failures():
    w, _, _ = _graph()
    with tf.device("/job:worker/task:0"):
        hog = tf.py_func(_hog, [float(LIMIT * 2 // 2**20)], tf.float32)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with tf.local_cluster(ps=1, workers=1, memory_limit=LIMIT) as cluster:
            with tf.Session(cluster) as sess:
                sess.run(w.initializer)
                with pytest.raises(tf.errors.AbortedError, match=r"\['worker-0'\] left the cluster 2 times"):
                    sess.run(hog)
                assert [r["lost"] for r in sess.recoveries] == [["worker-0"]]  # once recovered, then ended
                assert sess.run(w) == 1.0  # the ps kept its variable
