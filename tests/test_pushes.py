"""New variable values pushed to the workers that read them (runtime/pushes.py)."""

import asyncio

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.runtime.wire.pushes import Pushed, cache_name, value_of
from daskflow.runtime.wire.variable_cache import VariableCache
from daskflow.runtime.worker.state import state_of
from tests.clusters import module_cluster

cluster = module_cluster(ps=1, workers=2, processes=False)


def test_the_cache_keeps_the_newest_versions_and_wakes_a_waiting_reader():
    async def scenario():
        cache = VariableCache()
        reader = asyncio.ensure_future(cache.get("s/w", 3))
        await asyncio.sleep(0)
        assert not reader.done()
        for version in range(1, 6):
            cache.put("s/w", version, f"value {version}", keep=2)
        assert await reader == "value 3"
        assert cache.ready("s/w", 5) and cache.ready("s/w", 4)
        assert not cache.ready("s/w", 3) and cache.superseded("s/w", 3)
        with pytest.raises(TimeoutError, match="variable s/w from step 7"):
            await cache.get("s/w", 7, timeout=0.01)
        cache.clear("other/")
        assert cache.ready("s/w", 5)
        cache.clear("s/")
        assert not cache.ready("s/w", 5)

    asyncio.run(scenario())


def _tower_graph():
    """``w`` on the ps, read by a tower on worker-0; the update runs on the ps."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.zeros((3, 2), np.float32), name="w")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None, 3])
            y = tf.matmul(x, w)
        with tf.device("/job:ps/task:0"):
            step = tf.assign_add(w, tf.ones_like(w) + 0.0 * tf.reduce_sum(y))
            reset = tf.assign(w, tf.fill([3, 2], -5.0))
    return g, w, x, y, step, reset


def _sending(dask_worker):
    return dask_worker.transfer_outgoing_count


def _cached(dask_worker):
    return {name: sorted(versions) for name, versions in state_of(dask_worker).cache._values.items()}


def test_readers_get_each_new_value_pushed_and_keep_only_the_newest(cluster):
    g, w, x, y, step, reset = _tower_graph()
    ones = np.ones((1, 3), np.float32)
    with tf.Session(cluster, graph=g) as sess, Client(cluster.scheduler_address) as client:
        sess.run(w.initializer)
        for k in range(5):
            got, _ = sess.run([y, step], {x: ones})
            np.testing.assert_allclose(got, np.full((1, 2), 3.0 * k))  # the value before this step
        caches = {client.scheduler_info()["workers"][a]["name"]: c for a, c in client.run(_cached).items()}
        assert caches["ps-0"] == {} and caches["worker-1"] == {}
        (name, versions), *others = caches["worker-0"].items()
        assert not others and name.endswith("/w")
        assert len(versions) == 2  # bounded: the newest value and the one before it
        # A value the readers were not sent (the reset updates w with no reader in its
        # step) is read as a Dask dependency: the tower sees -5, not a stale push.
        sess.run(reset)
        np.testing.assert_allclose(sess.run(y, {x: ones}), np.full((1, 2), -15.0))
        np.testing.assert_allclose(sess.run([y, step], {x: ones})[0], np.full((1, 2), -15.0))
        np.testing.assert_allclose(sess.run(y, {x: ones}), np.full((1, 2), -12.0))


def test_a_reader_whose_pushed_version_was_superseded_fetches_it_from_its_holder(cluster):
    g, w, x, y, step, _ = _tower_graph()
    ones = np.ones((1, 3), np.float32)
    with tf.Session(cluster, graph=g) as sess, Client(cluster.scheduler_address) as client:
        sess.run(w.initializer)
        sess.run([y, step], {x: ones})
        pushes = sess.runtime.table.pushed["w"]
        assert pushes.ident == sess.runtime.variables["w"].ident  # an item of its partition's values
        (key, index), (reader,) = pushes.ident, pushes.readers
        arg = Pushed(cache_name(sess.runtime.token, "w"), key[1], key, pushes.home, index)

        async def late_read(dask_worker):
            state_of(dask_worker).cache.put(arg.name, arg.version + 10, "newer", keep=1)  # supersedes it
            return await value_of(dask_worker, arg, 5, state_of(dask_worker).cache)

        got = client.run(late_read, workers=[reader])[reader]
        np.testing.assert_array_equal(got, sess.run(w))
        np.testing.assert_array_equal(got, np.ones((3, 2)))
        # The holder is not left waiting for the reader's acknowledgement (a transfer for ever).
        assert client.run(_sending, workers=[pushes.home]) == {pushes.home: 0}


def test_sessions_sharing_a_cluster_keep_their_own_values(cluster):
    g, w, x, y, step, reset = _tower_graph()
    ones = np.ones((1, 3), np.float32)
    with tf.Session(cluster, graph=g) as a, tf.Session(cluster, graph=g) as b:
        a.run(w.initializer)
        b.run(w.initializer)
        b.run(reset)
        for k in range(3):
            got_a, _ = a.run([y, step], {x: ones})
            got_b, _ = b.run([y, step], {x: ones})
            np.testing.assert_allclose(got_a, np.full((1, 2), 3.0 * k))
            np.testing.assert_allclose(got_b, np.full((1, 2), -15.0 + 3.0 * k))
        assert a.step_metrics()[0]["step"] == 0  # step numbers count from 0 for the user
