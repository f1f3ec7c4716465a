"""A loop's next step staged on the workers while its step runs (``ConfigProto(stage_next_step)``).

The staged step's tasks wait on their workers for the next run of the same kind, which starts
them with a word to each worker (and posts its feeds); a run of anything else drops them first.
"""

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from tests.clusters import module_cluster
from tests.models import ps_counter
from tests.waiting import poll_for

cluster = module_cluster(ps=1, workers=1, processes=False)

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _staged(sess):
    return sess.runtime.staged_step


def _nothing_left_running(client):
    poll_for(lambda: not any(client.processing().values()), 10, lambda: f"idle: {client.processing()}")


def test_each_run_of_a_loop_starts_the_step_staged_by_the_one_before_with_its_own_feeds(cluster):
    v, d, bump = ps_counter()
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        for k in range(1, 7):
            sess.run(bump.op, {d: np.full(3, k, np.float32)})
            if k >= 2:  # the second run of the loop on: the next step waits on the workers
                assert _staged(sess) is not None
        # 2 * (1 + ... + 6): every run's own feed, none twice, none lost.
        np.testing.assert_array_equal(sess.run(v), np.full(3, 42.0))


def test_a_run_of_another_kind_drops_the_staged_step_unstarted(cluster):
    v, d, bump = ps_counter()
    one = {d: np.ones(3, np.float32)}
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(bump.op, one)
        assert _staged(sess) is not None
        np.testing.assert_array_equal(sess.run(v), np.full(3, 6.0))  # not 8: it never ran
        assert _staged(sess) is None
        _nothing_left_running(sess.runtime.client)  # its tasks ended, doing nothing
        for _ in range(2):
            sess.run(bump.op, one)
        np.testing.assert_array_equal(sess.run(v), np.full(3, 10.0))


def test_a_failing_step_drops_the_staged_one_and_leaves_the_variables_as_before(cluster):
    v, n, bump = ps_counter(failing=True)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(bump.op, {n: [1, 1, 1]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.run(bump.op, {n: [1, 2]})
        assert _staged(sess) is None
        np.testing.assert_array_equal(sess.run(v), np.full(3, 3.0))
        _nothing_left_running(sess.runtime.client)
        for _ in range(2):
            sess.run(bump.op, {n: [1, 1, 1]})
        np.testing.assert_array_equal(sess.run(v), np.full(3, 5.0))


def test_closing_with_a_staged_step_ends_its_tasks(cluster):
    v, d, bump = ps_counter()
    with Client(cluster, set_as_default=False) as client:
        sess = tf.Session(client)
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(bump.op, {d: np.ones(3, np.float32)})
        assert _staged(sess) is not None
        sess.close()
        _nothing_left_running(client)


def test_without_staging_each_run_is_its_own_submission(cluster):
    v, d, bump = ps_counter()
    with tf.Session(cluster, config=tf.ConfigProto(stage_next_step=False)) as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(bump.op, {d: np.ones(3, np.float32)})
            assert _staged(sess) is None
        np.testing.assert_array_equal(sess.run(v), np.full(3, 6.0))


def test_a_dropped_steps_replicas_end_their_aggregators_wait_quietly():
    """Every replica of a dropped step tells the ps so: the aggregation ends with the first
    word and the others' are taken too (asyncio logged each as an exception never retrieved)."""
    import asyncio
    import gc

    from daskflow.runtime.wire import rendezvous
    from daskflow.runtime.worker import arrivals
    from daskflow.runtime.worker.state import WorkerState

    keys = [("drop-test", 0, f"replica-{r}", "ps") for r in range(3)]
    state = WorkerState()
    for key in keys:
        state.mailbox.put(key, rendezvous.Failed(key[2], discarded=True))
    unretrieved = []

    async def aggregate():
        asyncio.get_running_loop().set_exception_handler(lambda _, context: unretrieved.append(context))
        with pytest.raises(rendezvous.StepDiscardedError):
            await arrivals.first(
                state.mailbox, [rendezvous.FromReplicas(tuple(keys))], 3, 5.0, lambda **_: None
            )
        await asyncio.sleep(0)
        gc.collect()

    asyncio.run(aggregate())
    assert unretrieved == []


def test_a_session_closed_after_its_client_leaves_the_staged_step_to_the_cluster(cluster):
    v, d, bump = ps_counter()
    client = Client(cluster, set_as_default=False)
    sess = tf.Session(client)
    sess.run(v.initializer)
    for _ in range(3):
        sess.run(bump.op, {d: np.ones(3, np.float32)})
    assert _staged(sess) is not None
    client.close()  # its keys leave with it; nobody can tell the workers any more
    sess.close()  # returns: nothing to tell the workers through a closed client
    with Client(cluster, set_as_default=False) as other:
        _nothing_left_running(other)


@pytest.mark.parametrize(
    "options",
    [{"async_dispatch": 2}, {"operation_timeout_in_ms": 60_000}],
    ids=["async_dispatch", "operation_timeout"],
)
def test_no_step_is_staged_with_steps_in_flight_or_an_operation_timeout(cluster, options):
    # In flight: an op-only run would change the values a staged step read, unseen. A timeout:
    # its waits would count from when it was staged.
    v, d, bump = ps_counter()
    read = v + 0.0
    with tf.Session(cluster, config=tf.ConfigProto(**options)) as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run([bump, read], {d: np.ones(3, np.float32)})  # fetches a tensor: waits
            assert _staged(sess) is None
        sess.run(bump.op, {d: np.ones(3, np.float32)})
        np.testing.assert_array_equal(sess.run(v), np.full(3, 8.0))


def test_a_loop_on_one_worker_starts_each_staged_step(cluster):
    # With no second worker for the copies, no copy ever exists and every step is "due" for
    # one: made so when staged, it starts as staged (not dropped and made again).
    with tf.local_cluster(ps=0, workers=1, processes=False) as one:
        v = tf.Variable(tf.zeros([3]), name="counter")
        bump = tf.assign_add(v, tf.ones([3]))
        with tf.Session(one) as sess:
            sess.run(v.initializer)
            staged = []
            for _ in range(5):
                sess.run(bump.op)
                staged.append(_staged(sess))
            assert staged[0] is None and all(b - a == 1 for a, b in zip(staged[1:], staged[2:])), staged
            np.testing.assert_array_equal(sess.run(v), np.full(3, 5.0))


def test_runs_from_two_threads_each_take_their_steps_once(cluster):
    # Two loops at once (queue runners run beside the training loop): a step is staged only
    # while a single run is in flight, and neither thread starts or drops the other's.
    import threading

    counters = [ps_counter() for _ in range(2)]
    with tf.Session(cluster) as sess:
        sess.run([v.initializer for v, _, _ in counters])
        errors = []

        def loop(d, bump):
            try:
                for _ in range(10):
                    sess.run(bump.op, {d: np.ones(3, np.float32)})
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=loop, args=(d, bump)) for _, d, bump in counters]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        for v, _, _ in counters:
            np.testing.assert_array_equal(sess.run(v), np.full(3, 20.0))  # each of its runs once
        _nothing_left_running(sess.runtime.client)
