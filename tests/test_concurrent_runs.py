"""Runs of one cluster session from several threads at once.

TF1 programs train from several threads (word2vec's ``concurrent_steps``, A3C's workers, a
QueueRunner filling a queue while the loop trains): every run's update must count, as in TF1,
whose variables are updated in place.
"""

import threading
import time

import numpy as np
import pytest

import daskflow as tf
from tests.clusters import module_cluster
from tests.models import ps_counter

cluster = module_cluster(ps=1, workers=2, processes=False)

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _in_threads(count, body):
    errors = []

    def run(i):
        try:
            body(i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


@pytest.mark.parametrize(
    "options",
    [{}, {"stage_next_step": False}, {"async_dispatch": 2}],
    ids=["staged", "unstaged", "async_dispatch"],
)
def test_every_run_of_every_thread_updates_the_variable(cluster, options):
    v, d, bump = ps_counter()
    with tf.Session(cluster, config=tf.ConfigProto(**options)) as sess:
        sess.run(v.initializer)

        def loop(i):
            for _ in range(15):
                sess.run(bump.op, {d: np.full(3, i + 1, np.float32)})

        assert _in_threads(3, loop) == []
        # 15 runs of each thread, adding 2 * (its index + 1): 30 * (1 + 2 + 3).
        np.testing.assert_array_equal(sess.run(v), np.full(3, 180.0))


def test_threads_running_different_plans_on_different_workers_keep_every_update(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.get_variable("shared", initializer=tf.zeros([2]))
    bumps = []
    for w in range(2):
        with tf.device(f"/job:worker/task:{w}"):
            delta = tf.ones([2]) * float(w + 1)
        with tf.device("/job:ps/task:0"):
            bumps.append(tf.assign_add(v, delta).op)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)

        def loop(i):
            for _ in range(12):
                sess.run(bumps[i])

        assert _in_threads(2, loop) == []
        np.testing.assert_array_equal(sess.run(v), np.full(2, 12 * (1 + 2)))


def test_a_reader_sees_each_value_once_made_and_never_an_older_one(cluster):
    v, d, bump = ps_counter()
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        seen = []

        def body(i):
            if i == 2:  # the reader, from the first commit on: it reads while the others write
                while not seen or seen[-1] == 0.0:
                    seen.append(float(sess.run(v)[0]))
                for _ in range(20):
                    seen.append(float(sess.run(v)[0]))
                return
            for _ in range(10):
                sess.run(bump.op, {d: np.ones(3, np.float32)})

        assert _in_threads(3, body) == []
        assert seen == sorted(seen) and set(seen) <= {2.0 * k for k in range(21)}, seen
        np.testing.assert_array_equal(sess.run(v), np.full(3, 40.0))


def test_a_failing_run_in_one_thread_loses_none_of_the_others_updates(cluster):
    v, n, bump = ps_counter(worker=1, failing=True)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        failures = []

        def body(i):
            for k in range(12):
                if i == 1 and k % 3 == 0:
                    with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
                        sess.run(bump.op, {n: [1, 2]})
                    failures.append(k)
                    continue
                sess.run(bump.op, {n: [1, 1, 1]})

        assert _in_threads(2, body) == []
        assert len(failures) == 4
        np.testing.assert_array_equal(sess.run(v), np.full(3, 12.0 + 8.0))


def test_runs_updating_other_variables_hold_them_at_once_and_runs_sharing_one_take_turns():
    from daskflow.runtime.cluster.updating import Updating

    updating, inside = Updating(), threading.Barrier(2, timeout=5)

    def disjoint(i):
        with updating.holding([f"w{i}"]):
            inside.wait()  # both hold theirs at once, or the barrier breaks

    assert _in_threads(2, disjoint) == []
    order = []
    first_in, go = threading.Event(), threading.Event()

    def sharing(i):
        if i == 1:
            first_in.wait(5)
        with updating.holding(["w", f"own{i}"]):
            order.append(("in", i))
            if i == 0:
                first_in.set()
                go.wait(0.3)  # thread 1 asks meanwhile, and waits
            order.append(("out", i))

    assert _in_threads(2, sharing) == []
    assert order == [("in", 0), ("out", 0), ("in", 1), ("out", 1)]
    with updating.holding(["w"]), updating.holding(["w", "v"]):  # one thread may hold one again
        assert set(updating.held()) == {"w", "v"}
    assert updating.held() == {}


def test_a_run_waiting_long_for_another_threads_variables_says_which(monkeypatch, caplog):
    from daskflow.runtime.cluster import updating as updating_module

    monkeypatch.setattr(updating_module, "PATIENCE", 0.05)
    updating, held = updating_module.Updating(), threading.Event()

    def body(i):
        if i == 0:
            with updating.holding(["model/w"]):
                held.set()
                time.sleep(0.3)
        else:
            held.wait(5)
            with updating.holding(["model/w", "model/b"]):
                pass

    with caplog.at_level("WARNING", logger=updating_module.__name__):
        assert _in_threads(2, body) == []
    warnings = [r.getMessage() for r in caplog.records if "waited" in r.getMessage()]
    assert len(warnings) == 1 and "model/w" in warnings[0] and "model/b" not in warnings[0], warnings


def test_a_run_reading_what_a_failed_dispatched_step_made_runs_on_the_values_before_it(cluster):
    """``async_dispatch``: the session's thread dispatches a step that fails after a while;
    meanwhile another thread assigns the variable that step updates. As in TF1, where the
    failed step changed nothing, the assignment stands, and the failure is raised in the
    thread that dispatched it, at its next synchronisation."""

    def fail_late(x):
        time.sleep(0.5)
        raise ValueError("late failure")

    with tf.device("/job:ps/task:0"):
        v = tf.get_variable("dispatched", initializer=tf.zeros([3]))
    with tf.device("/job:worker/task:0"):
        late = tf.py_func(fail_late, [tf.ones([3])], tf.float32)
        late.set_shape([3])
    with tf.device("/job:ps/task:0"):
        step = tf.assign_add(v, late).op
        put = tf.assign(v, tf.fill([3], 7.0)).op
        bump = tf.assign_add(v, tf.ones([3])).op
    with tf.Session(cluster, config=tf.ConfigProto(async_dispatch=2)) as sess:
        sess.run(v.initializer)
        assert sess.run(step) is None  # dispatched: returns at once
        seen = []
        assert _in_threads(1, lambda i: seen.append((sess.run(put), sess.run(v)))) == []
        np.testing.assert_array_equal(seen[0][1], np.full(3, 7.0))
        # The session's thread's next run raises it, before its own step goes: that one never ran.
        with pytest.raises(tf.errors.InvalidArgumentError, match="late failure"):
            sess.run(bump)
        np.testing.assert_array_equal(sess.run(v), np.full(3, 7.0))


def test_a_plan_dropped_from_another_thread_waits_for_none_of_the_dispatched_steps(cluster):
    """Another thread drops the plan of a dispatched step that waits on a queue it is about
    to fill (cost placement plans a signature again from the thread whose traced run
    measured it): the plan leaves the workers once that step has finished, and the thread
    goes on meanwhile. (It finished the session's steps first, so it waited for ever.)"""
    with tf.device("/job:ps/task:0"):
        v = tf.get_variable("queued", initializer=tf.zeros([3]))
        queue = tf.FIFOQueue(4, tf.float32, shapes=[3])
        take = tf.assign_add(v, queue.dequeue()).op
        put = queue.enqueue(tf.ones([3]))
    with tf.Session(cluster, config=tf.ConfigProto(async_dispatch=2)) as sess:
        sess.run(v.initializer)
        sess.run(take)  # dispatched: waits on the queue
        runtime, executable = sess.runtime, sess.executable(take)
        plan = runtime.lowered[executable]

        def other(i):
            runtime.forget(executable)
            sess.run(put)

        thread = threading.Thread(target=other, args=(0,), daemon=True)
        thread.start()
        thread.join(timeout=30)
        assert not thread.is_alive(), "the plan's drop waited for the step that waits on this thread"
        np.testing.assert_array_equal(sess.run(v), np.ones(3))
        assert plan not in runtime.lowered.values()
        on_workers = runtime.client.run(lambda dask_worker: list(dask_worker.plugins))
        assert not any(plan.plan_id in name for names in on_workers.values() for name in names), on_workers
