"""TF1's queue-based input (``tf.train.slice_input_producer``, ``batch``, ``shuffle_batch``,
``start_queue_runners``, ``Coordinator``) on real queues and threads, against TF1's own answers
(``tests/fixtures/make_input_queues.py`` ran ``scenarios_input_queues.py`` under TF1
and stored ``input_queues.json``)."""

from __future__ import annotations

import contextlib
import json
import pathlib
import sys
import threading
import types
import warnings

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from daskflow.train import input as input_api
from daskflow.train import queue_runner

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_input_queues as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "input_queues.json").read_text())

_INPUT_NAMES = [
    "slice_input_producer",
    "string_input_producer",
    "input_producer",
    "range_input_producer",
    "batch",
    "batch_join",
    "shuffle_batch",
    "shuffle_batch_join",
]


def _with_input_api():
    """``daskflow`` with ``tf.train``'s input names (until ``daskflow.train`` exports them)."""
    train = types.SimpleNamespace(**{n: getattr(tf.train, n) for n in dir(tf.train) if not n.startswith("_")})
    for name in _INPUT_NAMES:
        setattr(train, name, getattr(input_api, name))
    for name in ("QueueRunner", "add_queue_runner", "start_queue_runners"):
        setattr(train, name, getattr(queue_runner, name))

    class Proxy:
        def __getattr__(self, name):
            return train if name == "train" else getattr(tf, name)

    return Proxy()


TF = _with_input_api()


pytestmark = pytest.mark.usefixtures("fresh_graph")


def assert_close(got, want):
    np.testing.assert_allclose(
        np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=1e-6
    )


# -- TF1's order and shapes -----------------------------------------------------------------------


@pytest.mark.parametrize("key, smaller", [("ordered", False), ("ordered_smaller", True)])
def test_unshuffled_batches_come_in_tf1_order_until_out_of_range(key, smaller):
    got, want = sc.ordered_batches(TF, allow_smaller_final_batch=smaller), TF1[key]
    assert got["shapes"] == want["shapes"] and got["dtypes"] == want["dtypes"]
    assert len(got["batches"]) == len(want["batches"]) == (4 if smaller else 3)
    for (images, labels), (want_images, want_labels) in zip(got["batches"], want["batches"]):
        assert labels == want_labels
        assert_close(images, want_images)


@pytest.mark.parametrize(
    "scenario", ["raw_slices", "string_queue", "range_queue", "input_queue", "structures"]
)
def test_producers_and_structures_match_tf1(scenario):
    assert getattr(sc, scenario)(TF) == TF1[scenario]


@pytest.mark.parametrize("scenario", ["dynamic_pad", "enqueue_many"])
def test_padded_and_enqueue_many_batches_match_tf1(scenario):
    got, want = getattr(sc, scenario)(TF), TF1[scenario]
    assert got["shape"] == want["shape"]
    assert got["batches"] == want["batches"]


def test_shuffled_input_keeps_every_example_per_epoch_as_tf1():
    assert sc.shuffled_counts(TF) == TF1["shuffled_counts"]


def test_training_until_the_input_ends_matches_tf1():
    got, want = sc.train_linear(TF), TF1["train_linear"]
    assert len(got["losses"]) == len(want["losses"]) == 6  # 2 epochs x 12 examples / 4 per step
    assert_close(got["seen"], want["seen"])
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5)
    np.testing.assert_allclose(got["w"], want["w"], rtol=1e-5)
    np.testing.assert_allclose(got["b"], want["b"], rtol=1e-5, atol=1e-7)


def test_build_errors_have_tf1_types():
    assert sc.errors(TF) == TF1["errors"]


# -- a TF1 tutorial's pipeline ---------------------------------------------------------------------


def test_tutorial_pipeline_trains_on_exactly_two_epochs():
    data = load_digits()
    n = 300
    pixels = np.round(data.train.images[:n] * 16).astype(np.uint8)  # raw 0..16 intensities
    labels = data.train.labels[:n]
    image, label, index = TF.train.slice_input_producer([pixels, labels, np.arange(n)], num_epochs=2, seed=4)
    image = tf.cast(image, tf.float32) / 16.0  # per-example preprocessing, as tutorials do
    images, label_batch, indices = TF.train.shuffle_batch(
        [image, label, index], batch_size=50, capacity=200, min_after_dequeue=100, seed=2
    )
    assert images.shape.as_list() == [50, 64]
    W, b = tf.Variable(tf.zeros([64, 10])), tf.Variable(tf.zeros([10]))
    logits = tf.matmul(images, W) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label_batch, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    seen, losses = [], []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = TF.train.start_queue_runners(sess=sess, coord=coord)
        assert threads and all(isinstance(t, threading.Thread) for t in threads)
        try:
            while not coord.should_stop():
                step_loss, ids, _ = sess.run([loss, indices, train])
                losses.append(step_loss)
                seen.extend(ids.tolist())
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    assert len(losses) == 12
    assert sorted(seen) == sorted(list(range(n)) * 2)  # every example exactly twice
    assert seen[:n] != sorted(seen[:n])  # and shuffled
    assert np.mean(losses[-3:]) < 0.75 * losses[0]


@contextlib.contextmanager
def running(sess):
    """The graph's queue runners running in ``sess`` under a coordinator, stopped and joined after."""
    coord = tf.train.Coordinator()
    threads = TF.train.start_queue_runners(sess, coord)
    try:
        yield coord
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)


def test_the_smaller_final_batch_comes_before_out_of_range():
    (x,) = TF.train.slice_input_producer([np.arange(7)], num_epochs=1)
    xb = TF.train.shuffle_batch([x], 3, capacity=10, min_after_dequeue=2, allow_smaller_final_batch=True)
    sizes, values = [], []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with running(sess):
            with pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(10):
                    got = sess.run(xb)
                    sizes.append(len(got))
                    values.extend(got.tolist())
            with pytest.raises(tf.errors.OutOfRangeError):  # and stays exhausted
                sess.run(xb)
    assert sizes == [3, 3, 1] and sorted(values) == list(range(7))


def test_an_uninitialised_epochs_variable_stops_the_input_naming_it():
    (x,) = TF.train.slice_input_producer([np.arange(4)], num_epochs=1, shuffle=False)
    batch = TF.train.batch([x], 2)
    assert [v.name for v in tf.local_variables()] == ["input_producer/input_producer/limit_epochs/epochs:0"]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = TF.train.start_queue_runners(sess, coord)
        # As TF1: the runner's error stops the coordinator, whose cancel ops close the queues.
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(batch)
        with pytest.raises(tf.errors.FailedPreconditionError, match="limit_epochs/epochs"):
            coord.join(threads, stop_grace_period_secs=10)


def test_without_num_epochs_the_input_repeats_and_needs_no_initialiser():
    (x,) = TF.train.slice_input_producer([np.arange(3)], shuffle=False)
    batch = TF.train.batch([x], 2)
    assert tf.local_variables() == []
    with tf.Session() as sess, running(sess):
        assert [sess.run(batch).tolist() for _ in range(3)] == [[0, 1], [2, 0], [1, 2]]


def test_a_seeded_shuffle_repeats_in_every_session():
    (x,) = TF.train.slice_input_producer([np.arange(20)], seed=11)
    batch = TF.train.batch([x], 20)
    runs = []
    for _ in range(2):
        with tf.Session() as sess, running(sess):
            runs.append(sess.run(batch).tolist())
    assert runs[0] == runs[1] != list(range(20)) and sorted(runs[0]) == list(range(20))


def test_batch_join_readers_of_one_producer_share_its_examples():
    (x,) = TF.train.slice_input_producer([np.arange(6.0)], num_epochs=1, shuffle=False)
    xb = TF.train.batch_join([[x], [x * 10.0]], batch_size=3, allow_smaller_final_batch=True)
    got = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with running(sess), pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(5):
                got.extend(sess.run(xb).tolist())
    # Two threads race for the producer's examples, as in TF1: each example once, by either reader.
    assert len(got) == 6 and sorted(v if v < 10 or v % 10 else v / 10 for v in got) == list(range(6))


def test_shuffle_batch_join_of_two_producers_keeps_all_their_examples():
    (a,) = TF.train.slice_input_producer([np.arange(5)], num_epochs=1, name="evens")
    (b,) = TF.train.slice_input_producer([np.arange(100, 103)], num_epochs=1, name="odds")
    xb = TF.train.shuffle_batch_join(
        [[a], [b]], 4, capacity=8, min_after_dequeue=2, allow_smaller_final_batch=True
    )
    got = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with running(sess), pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(10):
                got.extend(sess.run(xb).tolist())
    assert sorted(got) == [0, 1, 2, 3, 4, 100, 101, 102]


def test_shapes_argument_refines_static_shapes():
    (n,) = TF.train.slice_input_producer([np.array([2, 2, 2], np.int32)], shuffle=False)
    xb = TF.train.batch([tf.range(n)], 3, shapes=[[2]])
    assert xb.shape.as_list() == [3, 2]
    with tf.Session() as sess, running(sess):
        assert sess.run(xb).tolist() == [[0, 1]] * 3


def test_string_producer_feeds_per_example_string_ops():
    queue = TF.train.string_input_producer(["a", "b"], num_epochs=1, shuffle=False)
    name = queue.dequeue()
    assert name.dtype == tf.string and queue.name == "input_producer"
    names = TF.train.batch([name], 2)
    numbers = TF.train.string_input_producer(["1.5", "-2"], num_epochs=1, shuffle=False).dequeue()
    parsed = TF.train.batch([tf.string_to_number(numbers)], 2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with running(sess):
            assert sess.run(names).tolist() == [b"a", b"b"]
            assert sess.run(parsed).tolist() == [1.5, -2.0]


def test_batches_of_any_tensors_as_tf1_constants_variables_and_two_producers():
    c = tf.constant([1.0, 2.0], name="not_produced")
    w = tf.Variable(3.0, dtype=tf.float64, name="w")
    (a,) = TF.train.slice_input_producer([np.arange(5.0)], name="left", shuffle=False)
    (b,) = TF.train.slice_input_producer([np.arange(5.0)], name="right", shuffle=False)
    constants = TF.train.batch([c * 2.0], 2)
    mixed = TF.train.batch([(a + b) * w], 3)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with running(sess):
            assert sess.run(constants).tolist() == [[2.0, 4.0]] * 2
            assert sess.run(mixed).tolist() == [0.0, 6.0, 12.0]


# -- bad input -------------------------------------------------------------------------------------


def test_mismatched_first_dimensions_are_named():
    labels = tf.constant([0, 1, 2, 3], name="labels")
    with pytest.raises(ValueError, match=r"tensor_list\[0\] has 5, tensor_list\[1\] \(labels:0\) has 4"):
        TF.train.slice_input_producer([np.zeros((5, 2)), labels])


def test_producers_take_tensors_and_refuse_bad_arguments():
    p = tf.placeholder(tf.float32, [4], name="fed")
    (x,) = TF.train.slice_input_producer([p])  # as TF1: any tensor, fed when the runner runs
    assert x.shape.as_list() == []
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        TF.train.slice_input_producer([np.arange(3)], num_epochs=0)
    with pytest.raises(TypeError, match="string_tensor must hold strings"):
        TF.train.string_input_producer([1, 2])


def test_batch_size_may_be_a_tensor():
    with tf.Graph().as_default():  # two batches of one producer would race for its examples
        (x,) = TF.train.slice_input_producer([np.arange(4)], shuffle=False)
        assert TF.train.batch([x], tf.constant(2)).shape.as_list() == [2]
    (x,) = TF.train.slice_input_producer([np.arange(4)], shuffle=False)
    size = tf.placeholder(tf.int32, [], name="size")
    xb = TF.train.batch([x], size)
    assert xb.shape.as_list() == [None]
    with tf.Session() as sess, running(sess):
        assert sess.run(xb, {size: 3}).tolist() == [0, 1, 2]


def test_undefined_shapes_name_the_tensor():
    (n,) = TF.train.slice_input_producer([np.array([1, 2], np.int32)])
    ids = tf.range(n, name="ids")
    with pytest.raises(ValueError, match="All shapes must be fully defined.*ids:0"):
        TF.train.batch([ids], 2)
    with pytest.raises(ValueError, match="does not fit ids:0"):
        TF.train.batch([ids], 2, shapes=[[2, 2]])


# -- queue runners and the coordinator ------------------------------------------------------------


def test_start_queue_runners_needs_a_session():
    TF.train.range_input_producer(3)
    with pytest.raises(ValueError, match="No default session"):
        TF.train.start_queue_runners()
    with tf.Session() as sess, sess.as_default():
        coord = tf.train.Coordinator()
        threads = TF.train.start_queue_runners(coord=coord)
        assert [t.name for t in threads] == [
            "QueueRunnerThread-input_producer-input_producer/input_producer_EnqueueMany",
            "QueueRunnerThread-input_producer-close_on_stop",
        ]
        assert all(t.is_alive() for t in threads)  # the producer repeats forever: it waits for room
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert not any(t.is_alive() for t in threads)


def test_a_users_queue_runner_runs_its_op_until_out_of_range_then_closes():
    n = tf.data.Dataset.range(4).make_one_shot_iterator().get_next()
    total = tf.Variable(0, dtype=tf.int64)
    closed = tf.Variable(False)
    qr = TF.train.QueueRunner(
        queue=total, enqueue_ops=[tf.assign_add(total, n)], close_op=closed.assign(True)
    )
    TF.train.add_queue_runner(qr)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = TF.train.start_queue_runners(sess, coord)
        for t in threads[:1]:
            t.join(10.0)
        assert sess.run([total, closed]) == [6, True]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)


def test_queue_runner_errors_reach_the_coordinator():
    x = tf.placeholder(tf.float32, [], name="never_fed")
    qr = TF.train.QueueRunner(queue=x, enqueue_ops=[tf.identity(x)])
    coord = tf.train.Coordinator()
    with tf.Session() as sess:
        threads = qr.create_threads(sess, coord=coord, start=True)
        with pytest.raises(Exception, match="never_fed"):
            coord.join(threads, stop_grace_period_secs=10)
    with pytest.raises(ValueError, match="Must provide queue and enqueue_ops"):
        TF.train.QueueRunner(queue=x)
    with pytest.raises(TypeError, match="queue_closed_exception_types"):
        TF.train.QueueRunner(queue=x, enqueue_ops=[x.op], queue_closed_exception_types=(ValueError,))


def test_coordinator_reports_a_threads_exception_once_joined():
    coord = tf.train.Coordinator()

    def work():
        with coord.stop_on_exception():
            raise KeyError("bad record")

    thread = threading.Thread(target=work)
    thread.start()
    with pytest.raises(KeyError, match="bad record"):
        coord.join([thread])
    assert coord.should_stop() and coord.joined
    with pytest.raises(ValueError, match="late"):
        coord.request_stop(ValueError("late"))  # after join, as TF1: raised at once
    coord.clear_stop()
    assert not coord.should_stop() and not coord.joined
    coord.raise_requested_exception()  # cleared: nothing to raise


def test_coordinator_out_of_range_is_a_clean_stop_and_stragglers_are_named():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "input exhausted"))
    coord.raise_requested_exception()
    release = threading.Event()
    laggard = threading.Thread(target=release.wait, name="laggard")
    laggard.start()
    coord.register_thread(laggard)
    try:
        with pytest.raises(RuntimeError, match="laggard"):
            coord.join(stop_grace_period_secs=0.05)
        coord.join([laggard], stop_grace_period_secs=0.05, ignore_live_threads=True)
    finally:
        release.set()
        laggard.join()


def test_monitored_training_session_ends_cleanly_when_the_input_does():
    (x,) = TF.train.slice_input_producer([np.arange(6.0)], num_epochs=1, shuffle=False)
    xb = TF.train.batch([x], 4, allow_smaller_final_batch=True)
    got = []
    with tf.train.MonitoredTrainingSession() as sess:  # runs the local initialiser itself
        assert TF.train.start_queue_runners(sess) == []
        while not sess.should_stop():
            got.append(sess.run(xb).tolist())
    assert got == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]


def test_a_batch_runs_on_a_cluster_worker_until_the_input_ends():
    # The graph travels to the worker with its collections (queue runners included). One
    # thread: a dequeue waiting there gives it up to the runner's enqueue (kernels/blocking.py).
    with tf.local_cluster(ps=1, workers=1, processes=False, threads_per_worker=1) as cluster:
        with tf.device("/job:worker/task:0"):
            x, i = TF.train.slice_input_producer([np.arange(6, dtype=np.float32), np.arange(6)], num_epochs=1)
            xb, ib = TF.train.batch([x * 2.0, i], 4, allow_smaller_final_batch=True)
            total = tf.Variable(0.0)
            add = tf.assign_add(total, tf.reduce_sum(xb))
        seen = []
        with tf.Session(cluster) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            with running(sess), pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(5):
                    seen.extend(sess.run([ib, add])[0].tolist())
            assert sess.run(total) == 30.0
    assert sorted(seen) == list(range(6))


def _epochs_into_a_small_queue(epochs):
    """A runner counting ``epochs`` (its own variable) into a queue of 2, and a training op
    on ps-0 taking from it: ``(train, w)``."""
    data = np.arange(40, dtype=np.float32).reshape(20, 2)
    x = TF.train.limit_epochs(tf.constant(data), num_epochs=epochs)
    queue = tf.FIFOQueue(2, [tf.float32], shapes=[[20, 2]])
    TF.train.add_queue_runner(TF.train.QueueRunner(queue, [queue.enqueue([x])]))
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(tf.zeros([2]), name="w")
    loss = tf.reduce_sum(tf.square(queue.dequeue() - w))
    return tf.train.GradientDescentOptimizer(0.001).minimize(loss), w


def _train_until_the_input_ends(target, epochs):
    with tf.Graph().as_default():
        train, w = _epochs_into_a_small_queue(epochs)
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an embedded session ignores the ps device
            with tf.Session(target) as sess:
                sess.run(init)
                steps = 0
                with running(sess), pytest.raises(tf.errors.OutOfRangeError):
                    while True:
                        sess.run(train)
                        steps += 1
                return steps, sess.run(w)


def test_a_runner_blocked_on_a_full_queue_of_a_one_thread_worker_lets_training_take_from_it():
    # The runner's enqueue updates its epoch counter and waits on the full queue while the
    # training run, updating the model, waits for the worker's one thread: before, both
    # waited for ever (the thread, and a session-wide lock on updating runs).
    with tf.local_cluster(ps=1, workers=1, processes=False, threads_per_worker=1) as cluster:
        steps, w = _train_until_the_input_ends(cluster, 30)
    want_steps, want_w = _train_until_the_input_ends(None, 30)
    assert steps == want_steps == 30
    np.testing.assert_allclose(w, want_w, rtol=1e-6)


def test_runners_waiting_their_turn_behind_a_blocked_enqueue_leave_the_thread_too():
    # batch(num_threads=4): four enqueues, one waiting on the full queue, three for their turn.
    with tf.local_cluster(ps=1, workers=1, processes=False, threads_per_worker=1) as cluster:
        (x,) = TF.train.slice_input_producer([np.arange(200, dtype=np.float32)], num_epochs=1, shuffle=False)
        xb = TF.train.batch([x * 1.0], 4, num_threads=4, capacity=4)
        with tf.device("/job:ps/task:0"):
            total = tf.Variable(0.0)
        add = tf.assign_add(total, tf.reduce_sum(xb))
        with tf.Session(cluster) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            runs = 0
            with running(sess), pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    sess.run(add)
                    runs += 1
            assert (runs, sess.run(total)) == (50, float(sum(range(200))))


def test_local_variables_reset_while_a_runner_waits_on_its_full_queue():
    # The runner's enqueue counts epochs (a local variable) and waits on the full queue; the
    # main thread resets the local variables meanwhile (as tf.metrics' evaluations do): a run
    # holding them while it waits would make the reset wait for ever.
    with tf.local_cluster(ps=1, workers=1, processes=False, threads_per_worker=1) as cluster:
        train, _ = _epochs_into_a_small_queue(1000)
        with tf.Session(cluster) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            with running(sess):
                sess.run(train)  # the runner has filled the queue and waits behind it
                sess.run(tf.local_variables_initializer())
                sess.run(train)


def test_queue_runners_beside_a_training_loop_with_async_dispatch_keep_going():
    # The runner's runs fetch only ops, as the loop's do: with both dispatched, the runner's
    # run waited for the loop's oldest step, which waited on the runner's next enqueue. The
    # session's own thread dispatches; the runner's runs block beside it. The loop runs in a
    # thread of its own, which opens the session, so that a hang fails here.
    got = []

    def train(cluster, train_op, w):
        with tf.Session(cluster, config=tf.ConfigProto(async_dispatch=2)) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            with running(sess):
                for _ in range(30):
                    sess.run(train_op)
                sess.sync()
            got.append(sess.run(w))

    with tf.local_cluster(ps=1, workers=1, processes=False, threads_per_worker=1) as cluster:
        train_op, w = _epochs_into_a_small_queue(1000)
        loop = threading.Thread(target=train, args=(cluster, train_op, w), daemon=True)
        loop.start()
        loop.join(timeout=60)
        assert got, "30 dispatched steps beside a queue runner did not end in 60 s"
    # Each step takes the same batch (the queue repeats it): 30 plain steps, in numpy.
    data, want = np.arange(40, dtype=np.float32).reshape(20, 2), np.zeros(2, np.float32)
    for _ in range(30):
        want -= 0.001 * (-2.0 * (data - want)).sum(axis=0)
    np.testing.assert_allclose(got[0], want, rtol=1e-5)
