"""A model under ``replica_device_setter`` (``/job:worker``, no task) whose input is a queue
or an initializable iterator, on a cluster of two worker tasks.

daskflow runs such a model as one replica per worker task; but a queue is filled, and an
initializable iterator set, by other runs (a feeding thread's, a ``QueueRunner``'s, the
initializer's), planned without replicas, on one worker. Each replica read a queue or an
iterator of its own: the training run waited for ever on the empty one, or failed with
``FailedPreconditionError`` on the uninitialized one. Such a step now runs its
``/job:worker`` ops on ``/job:worker/task:0``, as TF1 places a device naming no task, and
says so in the log; a one-shot ``tf.data`` input is still read by every replica.
"""

import logging
import threading

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from tests.clusters import module_cluster

# Worker processes: threads of one process would share one queue between the replicas.
cluster = module_cluster(ps=1, workers=2, threads_per_worker=2)

pytestmark = pytest.mark.usefixtures("fresh_graph")

LIMIT = tf.RunOptions(timeout_in_ms=30_000)  # a run that would wait for ever fails instead


def _digits():
    data = load_digits(one_hot=False)
    return data.train.images.astype(np.float32), data.train.labels.astype(np.int64)


def _model(images, labels):
    """A softmax classifier under ``replica_device_setter``: ``(train, loss)``."""
    with tf.device(tf.train.replica_device_setter(ps_tasks=1)):
        w = tf.get_variable("w", [64, 10], initializer=tf.zeros_initializer())
        loss = tf.losses.sparse_softmax_cross_entropy(labels, tf.matmul(images, w))
        return tf.train.GradientDescentOptimizer(0.5).minimize(loss), loss


def _said(caplog, name):
    return [
        r.getMessage()
        for r in caplog.records
        if "other runs fill or initialize" in r.getMessage() and name in r.getMessage()
    ]


def test_a_queue_runners_batches_train_a_replicated_model(cluster, caplog):
    caplog.set_level(logging.WARNING)
    x, y = _digits()
    image, label = tf.train.slice_input_producer([tf.constant(x), tf.constant(y)], shuffle=True, seed=0)
    images, labels = tf.train.shuffle_batch([image, label], 50, capacity=400, min_after_dequeue=200, seed=0)
    train, loss = _model(images, labels)
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        losses = [sess.run([train, loss], options=LIMIT)[1] for _ in range(30)]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert np.mean(losses[-5:]) < 0.5 * losses[0], losses
    assert _said(caplog, "shuffle_batch/random_shuffle_queue")


def test_a_feeding_threads_batches_train_a_replicated_model(cluster):
    x, y = _digits()
    xs, ys = tf.placeholder(tf.float32, [None, 64]), tf.placeholder(tf.int64, [None])
    queue = tf.FIFOQueue(64, [tf.float32, tf.int64], shapes=[[64], []])
    enqueue = queue.enqueue_many([xs, ys])
    train, loss = _model(*queue.dequeue_many(50))
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        stop = threading.Event()

        def feed(seed):
            rows = np.random.default_rng(seed)
            try:
                while not stop.is_set():
                    pick = rows.integers(0, len(x), 25)
                    sess.run(enqueue, {xs: x[pick], ys: y[pick]})
            except tf.errors.CancelledError:  # the queue closed under a waiting enqueue
                pass

        feeders = [threading.Thread(target=feed, args=(seed,)) for seed in range(2)]
        for feeder in feeders:
            feeder.start()
        losses = [sess.run([train, loss], options=LIMIT)[1] for _ in range(30)]
        stop.set()
        sess.run(queue.close(cancel_pending_enqueues=True))
        for feeder in feeders:
            feeder.join(timeout=30)
        assert not any(feeder.is_alive() for feeder in feeders)
    assert np.mean(losses[-5:]) < 0.5 * losses[0], losses


def test_an_initializable_iterator_trains_a_replicated_model_epoch_after_epoch(cluster, caplog):
    caplog.set_level(logging.WARNING)
    x, y = _digits()
    xs, ys = tf.placeholder(tf.float32, [None, 64]), tf.placeholder(tf.int64, [None])
    iterator = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(50).make_initializable_iterator()
    images, labels = iterator.get_next()
    train, loss = _model(images, labels)
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        first = []
        for _epoch in range(2):
            sess.run(iterator.initializer, {xs: x[:200], ys: y[:200]})
            for _ in range(4):
                first.append(sess.run([train, loss], options=LIMIT)[1])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(train, options=LIMIT)
        sess.run(iterator.initializer, {xs: x[:200], ys: y[:200]})
        np.testing.assert_array_equal(sess.run(labels), y[:50])  # in order, from the start again
    assert first[-1] < first[0]
    assert _said(caplog, "Iterator")


def test_a_one_shot_dataset_is_still_read_by_every_replica(cluster, caplog):
    caplog.set_level(logging.WARNING)
    x, y = _digits()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(50)
    images, labels = dataset.make_one_shot_iterator().get_next()
    train, loss = _model(images, labels)
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, options=LIMIT)
        assert sess.runtime.lowered[sess.executable(train)].num_replicas == 2
    assert not [r for r in caplog.records if "other runs fill or initialize" in r.getMessage()]
