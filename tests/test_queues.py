"""TF1's queues (``tf.FIFOQueue``, ``RandomShuffleQueue``, ``PaddingFIFOQueue``, ``PriorityQueue``),
``QueueRunner`` threads and the ``Coordinator``, and ``Session.run`` from several threads at once.

Names, static shapes and errors are compared with TF1's (``tests/fixtures/make_readers.py``
ran ``scenarios_readers.py`` under TF1 and stored ``readers.json``)."""

from __future__ import annotations

import json
import pathlib
import sys
import threading
import time

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from tests.waiting import poll_for

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_readers as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "readers.json").read_text())


pytestmark = pytest.mark.usefixtures("fresh_graph")


def started(target, *args):
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def caught(fn):
    """``fn``'s result, or the error it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return e


# -- as TF1 ---------------------------------------------------------------------------------------


def test_queue_ops_have_tf1_names_and_static_shapes():
    assert sc.queue_shapes(tf) == TF1["queue_shapes"]


def test_closed_queues_priorities_padding_and_shape_checks_run_as_tf1():
    assert sc.queue_runs(tf) == TF1["queue_runs"]


def test_bad_queue_arguments_raise_tf1_errors():
    with pytest.raises(ValueError, match="same length as dtypes"):
        tf.FIFOQueue(3, [tf.float32], shapes=[[1], [2]])
    with pytest.raises(ValueError, match="All shapes must be fully defined"):
        tf.FIFOQueue(3, [tf.float32], shapes=[[None]])
    with pytest.raises(ValueError, match="a list of shapes must be provided"):
        tf.PaddingFIFOQueue(3, [tf.float32], shapes=None)
    q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []], names=None)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        q.enqueue(([1.0, 2.0, 3.0], 1))
    with pytest.raises(ValueError, match="must have names to enqueue a dictionary"):
        q.enqueue({"a": 1.0, "b": 2})


# -- blocking, closing, cancelling ----------------------------------------------------------------


def test_closing_a_session_while_a_dequeue_blocks_returns_cancelled():
    queue = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    dequeue = queue.dequeue()
    sess = tf.Session()
    result = []
    waiting = started(lambda: result.append(caught(lambda: sess.run(dequeue))))
    time.sleep(0.2)  # the dequeue waits: nothing was enqueued
    assert waiting.is_alive()
    sess.close()
    waiting.join(10)
    assert not waiting.is_alive()
    assert isinstance(result[0], tf.errors.CancelledError)
    assert "Dequeue operation was cancelled" in str(result[0])


def test_a_dequeue_waits_for_an_enqueue_from_another_thread():
    queue = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    x = tf.placeholder(tf.float32, [])
    enqueue, dequeue = queue.enqueue(x), queue.dequeue()
    with tf.Session() as sess:
        got = []
        waiting = started(lambda: got.append(sess.run(dequeue)))
        time.sleep(0.1)
        assert not got
        sess.run(enqueue, {x: 4.5})
        waiting.join(10)
        assert got == [4.5]


def test_close_cancels_pending_enqueues_only_when_asked():
    queue = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    second = queue.enqueue(2)  # ops are built here: a thread's default graph is its own
    with tf.Session() as sess:
        sess.run(queue.enqueue(1))
        result = []
        pending = started(lambda: result.append(caught(lambda: sess.run(second))))
        time.sleep(0.1)
        close = queue.close()
        closing = started(lambda: sess.run(close))  # as TF1: it waits for the pending enqueue
        time.sleep(0.1)
        assert closing.is_alive() and not sess.run(queue.is_closed())
        assert sess.run(queue.dequeue()) == 1
        pending.join(10)
        closing.join(10)
        assert result == [None] and sess.run(queue.is_closed())
        assert sess.run(queue.dequeue()) == 2
        with pytest.raises(tf.errors.CancelledError, match="is already closed"):
            sess.run(close)
    queue = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    second = queue.enqueue(2)
    with tf.Session() as sess:
        sess.run(queue.enqueue(1))
        result = []
        pending = started(lambda: result.append(caught(lambda: sess.run(second))))
        time.sleep(0.1)
        sess.run(queue.close(cancel_pending_enqueues=True))
        pending.join(10)
        assert isinstance(result[0], tf.errors.CancelledError)
        assert "Enqueue operation was cancelled" in str(result[0])
        assert sess.run(queue.dequeue_up_to(5)).tolist() == [1]


def test_random_shuffle_queue_keeps_min_after_dequeue_and_repeats_with_a_seed():
    def order(seed):
        with tf.Graph().as_default():
            queue = tf.RandomShuffleQueue(20, 3, tf.int32, shapes=[[]], seed=seed)
            fill, close, take = queue.enqueue_many([list(range(10))]), queue.close(), queue.dequeue()
            with tf.Session() as sess:
                sess.run(fill)
                first = [int(sess.run(take)) for _ in range(7)]  # 10 - 7 = 3 left: no more until closed
                result = []
                waiting = started(lambda: result.append(int(sess.run(take))))
                time.sleep(0.2)
                assert waiting.is_alive() and not result
                sess.run(close)  # closed: min_after_dequeue no longer holds elements back
                waiting.join(10)
                rest = sess.run(queue.dequeue_up_to(10)).tolist()
                return first + result + rest

    a, b, c = order(5), order(5), order(6)
    assert sorted(a) == list(range(10))
    assert a == b and a != c and a != list(range(10))


def test_padding_queue_pads_each_batch_to_its_longest_element():
    queue = tf.PaddingFIFOQueue(5, [tf.string, tf.int32], shapes=[[None], []])
    words = tf.placeholder(tf.string, [None])
    enqueue = queue.enqueue((words, tf.size(words)))
    with tf.Session() as sess:
        for w in (["a", "b"], ["c"], ["d", "e", "f"]):
            sess.run(enqueue, {words: w})
        padded, sizes = sess.run(queue.dequeue_many(3))
    assert padded.tolist() == [[b"a", b"b", b""], [b"c", b"", b""], [b"d", b"e", b"f"]]
    assert sizes.tolist() == [2, 1, 3]


# -- Session.run from several threads ---------------------------------------------------------------


def test_session_runs_from_many_threads_at_once_give_each_its_own_results():
    x = tf.placeholder(tf.float32, [None])
    w = tf.Variable(2.0)
    y = tf.reduce_sum(x * w)
    with tf.Session() as sess:
        sess.run(w.initializer)
        errors, wrong = [], []

        def work(k):
            try:
                for i in range(30):
                    values = np.full(k + 1, float(i), np.float32)
                    if sess.run(y, {x: values}) != 2.0 * i * (k + 1):
                        wrong.append((k, i))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [started(work, k) for k in range(8)]
        for t in threads:
            t.join(60)
    assert not errors and not wrong


def test_threads_enqueue_while_the_main_thread_dequeues_every_element():
    queue = tf.FIFOQueue(5, tf.int64, shapes=[[]])
    x = tf.placeholder(tf.int64, [])
    enqueue, take = queue.enqueue(x), queue.dequeue_many(4)
    with tf.Session() as sess:

        def add(k):
            for i in range(10):
                sess.run(enqueue, {x: 100 * k + i})

        threads = [started(add, k) for k in range(4)]
        got = [v for _ in range(10) for v in sess.run(take).tolist()]
        for t in threads:
            t.join(10)
    assert sorted(got) == sorted(100 * k + i for k in range(4) for i in range(10))


# -- queue runners and the coordinator ------------------------------------------------------------


def test_queue_runner_threads_feed_training_on_digits_and_stop_cleanly():
    before = threading.active_count()
    data = load_digits()
    images, labels = data.train.images[:500].astype(np.float32), data.train.labels[:500].astype(np.int64)
    index = tf.train.range_input_producer(len(images), seed=3).dequeue()
    example = [tf.gather(images, index), tf.gather(labels, index)]
    queue = tf.RandomShuffleQueue(200, 50, [tf.float32, tf.int64], shapes=[[64], []], seed=1)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(example)] * 2))
    x, y = queue.dequeue_many(50)
    w, b = tf.Variable(tf.zeros([64, 10])), tf.Variable(tf.zeros([10]))
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert len(threads) == 5  # the producer's enqueue and cancel threads; two enqueues and a cancel
        losses = [sess.run([loss, train])[0] for _ in range(60)]
        accuracies = [sess.run(accuracy) for _ in range(5)]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert not any(t.is_alive() for t in threads)
    assert threading.active_count() == before
    assert np.mean(losses[-5:]) < 0.5 * losses[0]
    assert np.mean(accuracies) > 0.85


def test_a_runner_closes_its_queue_when_its_input_ends():
    n = tf.data.Dataset.range(5).make_one_shot_iterator().get_next()
    queue = tf.FIFOQueue(10, tf.int64, shapes=[[]])
    runner = tf.train.QueueRunner(queue, [queue.enqueue(n)])
    before = threading.active_count()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = runner.create_threads(sess, coord=coord, start=True)
        assert sess.run(queue.dequeue_up_to(10)).tolist() == [0, 1, 2, 3, 4]
        assert sess.run(queue.is_closed())
        coord.request_stop()
        coord.join(threads)
    assert threading.active_count() == before


def test_a_runners_error_stops_the_coordinator_and_unblocks_the_reader():
    bad = tf.placeholder(tf.float32, [], name="never_fed")
    queue = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(bad)]))
    take = queue.dequeue()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.OutOfRangeError):  # the cancel op closed the queue
            sess.run(take)
        assert coord.should_stop()
        with pytest.raises(tf.errors.InvalidArgumentError, match="never_fed"):
            coord.join(threads, stop_grace_period_secs=10)


def test_looper_thread_calls_its_target_until_the_coordinator_stops():
    coord = tf.train.Coordinator()
    ticks = []
    looper = coord.loop(0.001, ticks.append, args=(1,))
    poll_for(lambda: len(ticks) >= 3, 10, "the looper's third tick", every=0.01)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=10)
    assert not looper.is_alive()


def test_from_list_picks_a_queue_when_the_step_runs():
    a = tf.FIFOQueue(2, tf.int32, shapes=[[2]])
    b = tf.FIFOQueue(2, tf.int32, shapes=[[3]])
    which = tf.placeholder(tf.int32, [])
    chosen = tf.QueueBase.from_list(which, [a, b])
    assert chosen.dequeue().shape.as_list() == [None]  # what [2] and [3] have in common
    with tf.Session() as sess:
        sess.run([a.enqueue([[1, 2]]), b.enqueue([[3, 4, 5]])])
        assert sess.run(chosen.dequeue(), {which: 1}).tolist() == [3, 4, 5]
        assert sess.run(chosen.dequeue(), {which: 0}).tolist() == [1, 2]
    with pytest.raises(TypeError, match="matching component dtypes"):
        tf.QueueBase.from_list(0, [a, tf.FIFOQueue(2, tf.float32)])
