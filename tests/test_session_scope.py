"""A cluster session's effects stay inside it: other clients keep Dask's behaviour.

A session unbatches its own streams and cuts the lineage of its own
variable values (daskflow.runtime.cluster.scope); a second, unrelated client
keeps its streams batched and its keys' lineage (the streams shared between
the scheduler and its workers are unbatched while any session is open), two
sessions do not disturb each other, and closing a session, or its client
leaving, undoes what it did: plugins, programs and secret included.
"""

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from tests.clusters import module_cluster
from tests.waiting import poll_for

pytestmark = pytest.mark.process

# Dask's batching intervals (seconds), as distributed sets them.
CLIENT_TO_SCHEDULER = 0.01
SCHEDULER_TO_CLIENT = 0.002
SCHEDULER_TO_WORKER = 0.005
WORKER_TO_SCHEDULER = 0.002


# Worker processes: each process keeps its own record of what it unbatched.
cluster = module_cluster(ps=1, workers=1)


@pytest.fixture
def other(cluster):
    """An unrelated client of the same cluster."""
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        yield client


def _intervals(client, of):
    """The batching intervals the scheduler and the workers use: for client ``of``, to workers,
    and the workers' own."""

    def on_scheduler(dask_scheduler, client_id):
        return (
            dask_scheduler.client_comms[client_id].interval,
            sorted({s.interval for s in dask_scheduler.stream_comms.values()}),
        )

    to_client, to_workers = client.run_on_scheduler(on_scheduler, client_id=of.id)
    workers = sorted(set(client.run(lambda dask_worker: dask_worker.batched_stream.interval).values()))
    return to_client, to_workers, workers


def _daskflow_plugins(client):
    """daskflow's plugins on the scheduler (its own, and those it hands new workers), and on
    the workers: a session's effects, its programs and its secret."""

    def names(dask_scheduler):
        return sorted(
            n for n in [*dask_scheduler.plugins, *dask_scheduler.worker_plugins] if n.startswith("daskflow-")
        )

    def on_worker(dask_worker):
        return sorted(n for n in dask_worker.plugins if n.startswith("daskflow-"))

    on_workers = client.run(on_worker)
    return client.run_on_scheduler(names), sorted({n for names in on_workers.values() for n in names})


def _counter_graph():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([3]), name="v")
        with tf.device("/job:worker/task:0"):
            delta = tf.ones([3])
        with tf.device("/job:ps/task:0"):
            bump = tf.assign_add(v, delta)
    return g, v, bump


def test_another_client_keeps_dasks_batching_and_closing_gives_it_back(cluster, other):
    g, v, bump = _counter_graph()
    with Client(cluster.scheduler_address, set_as_default=False) as mine:
        with tf.Session(mine, graph=g) as sess:
            sess.run(v.initializer)
            sess.run(bump)
            assert mine.scheduler_comm.interval == 0
            assert other.scheduler_comm.interval == CLIENT_TO_SCHEDULER
            assert _intervals(other, of=mine) == (0, [0], [0])  # while a session runs
            assert _intervals(other, of=other)[0] == SCHEDULER_TO_CLIENT  # the other's own stream
        # Closed: everything has Dask's intervals back.
        assert mine.scheduler_comm.interval == CLIENT_TO_SCHEDULER
        expected = (SCHEDULER_TO_CLIENT, [SCHEDULER_TO_WORKER], [WORKER_TO_SCHEDULER])
        assert _intervals(other, of=mine) == expected
        assert _daskflow_plugins(other) == ([], [])


def test_another_clients_variable_like_keys_keep_their_lineage(cluster, other):
    g, v, bump = _counter_graph()
    with tf.Session(cluster, graph=g) as sess:
        sess.run(v.initializer)
        sess.run(bump)
        # Keys shaped like daskflow's variable values, with steps outside the session's range.
        first = other.submit(np.ones, 3, key=("var-theirs", 1))
        second = other.submit(np.add, first, 1.0, key=("var-theirs", 2))
        assert list(second.result()) == [2.0, 2.0, 2.0]
        sess.run(bump)  # a transition of the session's own keys meanwhile

        def dependencies(dask_scheduler, key):
            return [d.key for d in dask_scheduler.tasks[key].dependencies]

        assert other.run_on_scheduler(dependencies, key=("var-theirs", 2)) == [("var-theirs", 1)]
        np.testing.assert_array_equal(sess.run(v), [2.0, 2.0, 2.0])


def test_two_sessions_on_one_cluster_do_not_disturb_each_other(cluster, other):
    ga, va, bump_a = _counter_graph()
    gb, vb, bump_b = _counter_graph()  # the same variable name "v", in another session
    a = tf.Session(cluster, graph=ga)
    b = tf.Session(cluster, graph=gb)
    try:
        a.run(va.initializer)
        b.run(vb.initializer)
        for _ in range(3):
            a.run(bump_a)
        b.run(bump_b)
        token_a = a.runtime.token
        a.close()
        # b still runs, with its own value and its streams still unbatched.
        b.run(bump_b)
        np.testing.assert_array_equal(b.run(vb), [2.0, 2.0, 2.0])
        assert _intervals(other, of=other)[1:] == ([0], [0])
        assert not any(token_a in name for name in _daskflow_plugins(other)[0])  # a's are gone
        assert any(b.runtime.token in name for name in _daskflow_plugins(other)[0])
    finally:
        a.close()
        b.close()
    assert _intervals(other, of=other)[1:] == ([SCHEDULER_TO_WORKER], [WORKER_TO_SCHEDULER])


def test_a_client_that_leaves_without_closing_takes_its_effects_with_it(cluster, other):
    g, v, bump = _counter_graph()
    mine = Client(cluster.scheduler_address, set_as_default=False)
    sess = tf.Session(mine, graph=g)
    sess.run(v.initializer)
    sess.run(bump)
    assert _daskflow_plugins(other) != ([], [])
    mine.close()  # the session is never closed
    poll_for(
        lambda: _daskflow_plugins(other) == ([], []),
        10,
        lambda: f"the closed client's plugins to go: {_daskflow_plugins(other)}",
    )
    assert _intervals(other, of=other)[1:] == ([SCHEDULER_TO_WORKER], [WORKER_TO_SCHEDULER])
    sess.close()  # the test closes what it opened: its publisher lets go of the client


def test_a_session_never_numbers_its_steps_in_the_range_of_an_open_one(cluster, other, monkeypatch):
    from daskflow.runtime.cluster import runtime, scope

    g, v, bump = _counter_graph()
    a = tf.Session(cluster, graph=g)
    try:
        a.run(v.initializer)
        held = a.runtime.token
        first = int(held, 16) % runtime.SESSION_SLOTS * runtime.STEPS_PER_SESSION
        overlapping = (first + 5, first + runtime.STEPS_PER_SESSION + 5)
        with pytest.raises(scope.StepsTakenError, match=held):
            scope.open_session(other, "feedbeef", overlapping, low_latency=False)
        # The next session draws a's token first, then another: it takes the free range.
        draws = iter([held + "0" * 24, "0123456789abcdef" * 2])
        monkeypatch.setattr(runtime.uuid, "uuid4", lambda: type("U", (), {"hex": next(draws)})())
        b = tf.Session(cluster, graph=_counter_graph()[0])
        try:
            assert b.runtime.token == "01234567"
        finally:
            b.close()
    finally:
        a.close()
    assert _daskflow_plugins(other) == ([], [])


def test_a_session_dropped_without_close_is_closed_and_its_effects_undone(cluster, other):
    """TF1 closes a session that is garbage-collected unclosed; so does daskflow, off the
    collecting thread: its plugins and programs leave, and the client it made is let go."""
    import gc
    import weakref

    from daskflow.dashboard import publish

    g, v, bump = _counter_graph()
    sess = tf.Session(cluster.scheduler_address, graph=g)  # the session makes its own client
    sess.run(v.initializer)
    sess.run(bump)
    token, made = sess.runtime.token, weakref.ref(sess.runtime.client)
    assert any(token in name for name in _daskflow_plugins(other)[0])
    del sess
    gc.collect()
    poll_for(lambda: _daskflow_plugins(other) == ([], []), 30, "the dropped session's plugins to go")
    poll_for(lambda: gc.collect() is not None and made() is None, 30, "its client to be freed")
    assert publish.publisher_of(token) is None
