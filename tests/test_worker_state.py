"""Each Dask worker's daskflow state is its own (runtime/worker/state.py).

Workers sharing a process (``processes=False``) each hold their own mailbox,
push cache, programs, accounting and bulk receiver, released when the worker
closes. A mailbox keeps an unclaimed value past ``daskflow.mailbox-ttl``
while someone may still take it, and drops it once nobody can. The client
process forgets the credentials it has used least recently.
"""

import asyncio
import logging
import secrets
import sys
import threading

import dask
import numpy as np
import pytest

import daskflow as tf
from daskflow.runtime.wire import bulk
from daskflow.runtime.wire.mailbox import Mailbox
from daskflow.runtime.worker.arrivals import step_log
from daskflow.runtime.worker.state import EXTENSION, WorkerState, state_of
from tests.models import ps_linear_graph

# beside the clusters: no timings checked and no fixed port bound (free ports only)

TTL = 60  # seconds, on the mailbox's clock (the tests' fake one: mailbox_clock)
OLDER = 61  # seconds the clock moves on: every value put before is older than TTL
W_BYTES = 300 * 300 * 4  # ps_linear_graph's float32 variable


# -- one state per worker, in one process ---------------------------------------------------


def test_workers_sharing_a_process_each_have_their_own_state_closed_with_them():
    g, w, x, train = ps_linear_graph()
    batch = np.random.default_rng(0).random((256, 300), dtype=np.float32)
    with tf.local_cluster(ps=1, workers=1, processes=False, dashboard_address=None) as cluster:
        workers = {name: worker for name, worker in cluster.workers.items()}
        assert sorted(workers) == ["ps-0", "worker-0"]  # two Worker objects in this process
        with tf.Session(cluster, graph=g) as sess:
            sess.run(w.initializer)
            for _ in range(3):
                sess.run(train, {x: batch})
            metrics = sess.step_metrics()
            states = {name: worker.extensions[EXTENSION] for name, worker in workers.items()}
            ps, tower = states["ps-0"], states["worker-0"]
            assert type(ps) is WorkerState and type(tower) is WorkerState and ps is not tower
            assert ps.mailbox is not tower.mailbox and ps.cache is not tower.cache
            assert ps.sent is not tower.sent and ps.log is not tower.log
            assert ps.receiver is not None and tower.receiver is not None
            assert ps.receiver is not tower.receiver
            assert not ps.receiver.closed and not tower.receiver.closed
            # The new w is pushed to the tower that reads it: only the tower's cache holds it.
            assert not ps.cache._values and [n.endswith("/w") for n in tower.cache._values] == [True]
            # Each worker counts what it sent: the ps the initial w (copied to the tower) and
            # each new w, pushed to the tower, the 2nd and 4th updating steps also copying it
            # there (recovery's early copies); the tower what the update needs, in the training
            # steps only. (A count shared by the process would be reported by both workers.)
            assert list(ps.sent.values()) == [W_BYTES, 2 * W_BYTES, W_BYTES, 2 * W_BYTES]
            assert len(tower.sent) == 3
            assert metrics[0]["bytes_between_workers"] == W_BYTES  # the initialisation
    assert ps.receiver.closed and tower.receiver.closed
    assert not ps.programs and not tower.programs and not ps.plans and not tower.plans
    assert len(ps.mailbox) == 0 and not ps.sent and not tower.sent


# -- which unclaimed values the mailbox drops ------------------------------------------------


def _swept(box, clock):
    """``box`` swept once every value in it is older than the TTL."""
    clock.advance(OLDER)
    box.sweep()
    return box


def test_an_unclaimed_value_of_a_step_still_running_is_kept_past_the_ttl(mailbox_clock):
    installed = {"plan"}
    box, released = Mailbox(installed), []
    with dask.config.set({"daskflow.mailbox-ttl": TTL}):
        box.put(("plan", 7, "producer", "consumer"), "waited for", lambda: released.append(7))
        _swept(box, mailbox_clock)
        assert box.ready(("plan", 7, "producer", "consumer")) and released == []
        assert asyncio.run(box.take(("plan", 7, "producer", "consumer"), timeout=1)) == "waited for"
        assert released == [7]


def test_an_unclaimed_value_of_a_plan_no_longer_installed_is_dropped(caplog, mailbox_clock):
    installed = {"plan"}
    box, released = Mailbox(installed), []
    with dask.config.set({"daskflow.mailbox-ttl": TTL}), caplog.at_level(logging.WARNING):
        box.put(("gone", 1, "producer", "consumer"), "orphan", lambda: released.append("gone"))
        box.put(("plan", 1, "producer", "consumer"), "kept", lambda: released.append("plan"))
        _swept(box, mailbox_clock)
        assert released == ["gone"] and box.ready(("plan", 1, "producer", "consumer"))
        assert "dropped 1 values unclaimed" in caplog.text and "'gone'" in caplog.text
        with pytest.raises(TimeoutError, match="partition producer came but were dropped.*mailbox-ttl"):
            asyncio.run(box.take(("gone", 1, "producer", "consumer"), timeout=1))
        installed.discard("plan")  # its session closed here without clearing it
        box.sweep()
        assert released == ["gone", "plan"] and not box.ready(("plan", 1, "producer", "consumer"))


def test_an_unclaimed_value_older_than_a_step_its_consumer_took_is_dropped(mailbox_clock):
    box, released = Mailbox({"plan"}), []
    with dask.config.set({"daskflow.mailbox-ttl": TTL}):
        box.put(("plan", 1, "producer", "consumer"), "skipped", lambda: released.append("skipped"))
        box.put(("plan", 1, "producer", "other"), "awaited", lambda: released.append("awaited"))
        box.put(("plan", 2, "producer", "consumer"), "taken", lambda: released.append("taken"))
        assert asyncio.run(box.take(("plan", 2, "producer", "consumer"), timeout=1)) == "taken"
        _swept(box, mailbox_clock)
        assert released == ["taken", "skipped"]
        # Another consumer of the same plan may still be in step 1: its value stays.
        assert box.ready(("plan", 1, "producer", "other"))


def test_a_worker_states_mailbox_keeps_values_while_their_plan_is_installed(mailbox_clock):
    state = WorkerState()
    state.install_programs("plan", {"plan-0": ("partition", abs)})
    key = ("plan", 3, "producer", "consumer")
    with dask.config.set({"daskflow.mailbox-ttl": TTL}):
        state.mailbox.put(key, "value")
        _swept(state.mailbox, mailbox_clock)
        assert state.mailbox.ready(key)
        state.uninstall_programs("plan", ["plan-0"])
        state.mailbox.sweep()
        assert not state.mailbox.ready(key)


# -- the client process's credentials: least recently used forgotten ------------------------


def test_the_client_forgets_the_credentials_it_used_least_recently():
    credentials = bulk.Credentials("session", secrets.token_bytes(32))
    sessions = bulk.Sessions(limit=2)
    assert sessions.admit("p1", credentials) and sessions.admit("p2", credentials)
    assert sessions.credentials("p1") is credentials  # used: p2 is now the least recent
    assert sessions.admit("p3", credentials)
    assert sessions.credentials("p2") is None
    assert sessions.credentials("p1") is credentials and sessions.credentials("p3") is credentials
    assert sessions.plans("session") == {"p1", "p3"}
    assert sessions.admit("p4", credentials)  # p1 was looked up before p3: it goes
    assert sessions.plans("session") == {"p3", "p4"}


def test_a_sessions_pushed_values_stay_until_its_last_plan_leaves_the_worker():
    from distributed import Client

    from daskflow.runtime.worker.programs import ProgramRegistry
    from daskflow.runtime.worker.state import state_of

    def cached(dask_worker):
        return sorted(state_of(dask_worker).cache._values)

    def push(dask_worker):
        state_of(dask_worker).cache.put("sess/w", 1, "value", 2)

    with (
        tf.local_cluster(ps=1, workers=0, processes=False, dashboard_address=None) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        first, second = ProgramRegistry("p1", {}, "sess"), ProgramRegistry("p2", {}, "sess")
        client.register_plugin(first)
        client.register_plugin(second)
        client.run(push)
        client.unregister_worker_plugin(first.name)  # a re-planned session: p2 still reads w
        assert list(client.run(cached).values()) == [["sess/w"]]
        client.unregister_worker_plugin(second.name)
        assert list(client.run(cached).values()) == [[]]


# -- what the dashboard asks a worker while its tasks run ------------------------------------


def test_a_workers_step_log_is_read_while_its_tasks_add_to_it():
    # The dashboard's question runs on the worker's event loop; the tasks filling the log, the
    # phases and the byte counts run on its threads. Threads switch as often as they can here.
    with tf.local_cluster(ps=1, workers=0, processes=False, dashboard_address=None) as cluster:
        worker = next(iter(cluster.workers.values()))
        state = state_of(worker)
        stop, started = threading.Event(), threading.Event()

        def tasks():
            n = 0
            while not stop.is_set():
                n += 1
                state.log.append({"plan": "p", "step": n})
                state.note_phases("p", ("ps_0 update", n, "ps_0"), (0.0, 0.001, 0.0))
                state.count_sent(("p", n), "tcp://127.0.0.1:1", [np.zeros(2)])
                if n == 10:
                    started.set()

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        adding = threading.Thread(target=tasks)
        adding.start()
        try:
            assert started.wait(30)  # under load the reads could otherwise all come first (CI did)
            answers = [step_log(["p"], dask_worker=worker) for _ in range(300)]
        finally:
            stop.set()
            adding.join()
            sys.setswitchinterval(interval)
    newest = answers[-1]
    assert newest["log"] and newest["phases"] and newest["sent"] and newest["sent_to"]
