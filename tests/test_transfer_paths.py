"""Every way a value moves between worker processes, with real processes (not threads).

A value goes between two workers (or from the client to a worker) by bulk, its arrays
read straight out of the sender's memory where both are processes of this machine; by
bulk over TCP where ``daskflow.bulk-in-place`` is false; on Dask's comms where
``daskflow.bulk-transfers`` is false, and always for object arrays (strings). Each path
runs a model-parallel and a data-parallel training step and a string crossing workers,
checked against an embedded session of the same graph, and the workers' bulk receivers
say which path the values took.
"""

import dask
import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.runtime.cluster.devices import scheduler_identity
from daskflow.runtime.wire import bulk
from daskflow.runtime.wire.pushes import Pushed, cache_name, value_of
from daskflow.runtime.worker.state import find_state, state_of
from tests.test_bulk import _probe_read, _probe_target
from tests.waiting import poll_for, settled

pytestmark = pytest.mark.process

PATHS = {
    "in-place": {},  # the default
    "bulk-over-tcp": {"daskflow.bulk-in-place": False},
    "dask-comms": {"daskflow.bulk-transfers": False},
}
STEPS = 3


@pytest.fixture(scope="module", params=list(PATHS))
def path(request):
    """(path name, client) of a cluster of worker processes configured for that path."""
    name = request.param
    if name == "in-place" and not bulk.in_place_enabled():
        pytest.skip("Linux's process_vm_readv only")
    # A Nanny hands its copy of this configuration to its worker process.
    with dask.config.set(PATHS[name]):
        with tf.local_cluster(ps=1, workers=2, dashboard_address=None) as cluster, Client(cluster) as client:
            yield name, client


def _counts(dask_worker):
    state = find_state(dask_worker)
    receiver = None if state is None else state.receiver
    return None if receiver is None else (receiver.received, receiver.received_in_place)


def _received(client):
    """``{worker name: (messages received by bulk, of which read in place)}``; None: no receiver
    (none with bulk off, and none before a session's programs first reach the worker)."""
    names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
    return {names[a]: counts for a, counts in client.run(_counts).items()}


def _taken(counts):
    """A receiver's counts, no receiver counting as one that took nothing."""
    return (0, 0) if counts is None else counts


def _settled(client):
    """:func:`_received` once it has stayed the same for 0.3 s: the pushes of earlier steps,
    which are not waited for, have landed."""
    return settled(lambda: _received(client), 10, "the workers' received counts")


def _kernel_lets_workers_read_each_other(client):
    """Whether worker-1 may read worker-0's memory, asked of the kernel directly (Yama's
    ptrace_scope 1 or a seccomp profile may refuse: then every connection sends bytes)."""
    address = {w["name"]: a for a, w in scheduler_identity(client)["workers"].items()}
    first, second = address["worker-0"], address["worker-1"]
    pid, at = client.run(_probe_target, workers=[first])[first]
    return client.run(_probe_read, pid, at, workers=[second])[second]


def _assert_the_path_was_taken(name, client, before, workers):
    """Values reached each of ``workers`` since ``before`` (:func:`_received`) the way
    ``name`` says; a message is counted just after it is handed on, so wait for it."""
    if name == "dask-comms":
        now = _received(client)
        assert all(counts is None or counts[0] == 0 for counts in now.values()), now
        return
    in_place = name == "in-place" and _kernel_lets_workers_read_each_other(client)

    def arrived():
        now = _received(client)
        was = {w: before[w] or (0, 0) for w in workers}
        return now, {w: tuple(a - b for a, b in zip(now[w] or (0, 0), was[w])) for w in workers}

    def every_worker_received():
        now, moved = arrived()
        return (now, moved) if all(m[1 if in_place else 0] > 0 for m in moved.values()) else None

    # In place: each worker read its inputs in place; over TCP, or where the kernel refuses
    # the read: every connection sent bytes.
    how = "read in place" if in_place else "sent over a connection"
    now, _ = poll_for(every_worker_received, 10, lambda: f"bytes {how} to each of {arrived()[1]}")
    if not in_place:
        assert all(counts[1] == 0 for counts in now.values() if counts is not None), now


# -- model parallel: layer 1 on worker-0, layer 2 on worker-1, the variables on ps-0 ----------


def _model_parallel_graph():
    rng = np.random.default_rng(1)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w1 = tf.Variable((rng.standard_normal((300, 64)) * 0.05).astype(np.float32), name="w1")
            b1 = tf.Variable(tf.zeros([64]), name="b1")
            w2 = tf.Variable((rng.standard_normal((64, 10)) * 0.05).astype(np.float32), name="w2")
            b2 = tf.Variable(tf.zeros([10]), name="b2")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None, 300], name="x")
            hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.device("/job:worker/task:1"):
            y = tf.placeholder(tf.float32, [None, 10], name="y")
            loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) + b2 - y))
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return g, [w1, b1, w2, b2], x, y, loss, train


def _model_parallel_feeds(steps):
    rng = np.random.default_rng(2)
    return [  # x: 300 KiB, posted from the client to worker-0 directly
        (rng.random((256, 300), dtype=np.float32), rng.random((256, 10), dtype=np.float32))
        for _ in range(steps)
    ]


def _train_model_parallel(target, steps):
    """(each step's loss, the variables after ``steps`` steps)."""
    g, variables, x, y, loss, train = _model_parallel_graph()
    with tf.Session(target, graph=g) as sess:
        sess.run([v.initializer for v in variables])
        losses = [sess.run([loss, train], {x: bx, y: by})[0] for bx, by in _model_parallel_feeds(steps)]
        return losses, sess.run(variables)


def test_a_model_parallel_step(path):
    name, client = path
    want_losses, want = _train_model_parallel(None, STEPS)
    before = _settled(client)
    losses, got = _train_model_parallel(client, STEPS)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-7)
    # The batch to worker-0, layer 1's output to worker-1, what the gradients need to ps-0.
    _assert_the_path_was_taken(name, client, before, ["worker-0", "worker-1", "ps-0"])


# -- data parallel: one replica on each worker, the variables on ps-0 -------------------------


def _train_data_parallel(target, steps):
    """The weights after ``steps`` steps of two replicas, each fed half of each batch."""
    rng = np.random.default_rng(3)
    batches = [
        (rng.random((256, 64), dtype=np.float32), np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)])
        for _ in range(steps)
    ]
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            w = tf.Variable(np.zeros((64, 10), np.float32), name="w")
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w)))
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.5), replicas_to_aggregate=2, total_num_replicas=2
            )
            train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            for bx, by in batches:
                sess.run(train, {x: bx, y: by})
            return sess.run(w)


def test_a_data_parallel_step(path):
    # The mean of two equal shards' mean gradients is the whole batch's: the embedded
    # session's numbers.
    name, client = path
    want = _train_data_parallel(None, STEPS)
    before = _settled(client)
    np.testing.assert_allclose(_train_data_parallel(client, STEPS), want, rtol=1e-4, atol=1e-6)
    # Shards and new values to the replicas, their gradients to ps-0.
    _assert_the_path_was_taken(name, client, before, ["worker-0", "worker-1", "ps-0"])


# -- strings: object arrays never go by bulk -------------------------------------------------


def _strings(target, numbers):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:0"):
            n = tf.placeholder(tf.int64, [None])
            word = tf.as_string(n)
        with tf.device("/job:worker/task:1"):
            joined = tf.string_join([word, "!"])
        with tf.Session(target, graph=g) as sess:
            return sess.run(joined, {n: numbers})


def test_a_string_tensor_crosses_workers_on_dasks_comms(path):
    name, client = path
    numbers = np.arange(-500, 500, dtype=np.int64)
    expected = np.array([f"{k}!".encode() for k in numbers], dtype=object)
    np.testing.assert_array_equal(_strings(None, numbers), expected)
    before = _settled(client)
    got = _strings(client, numbers)
    np.testing.assert_array_equal(got, expected)
    # Only the strings went to worker-1: its bulk receiver, where it has one, took nothing (one
    # made by this run, where the last session's was taken down with it, took nothing either).
    after = _settled(client)
    assert _taken(after["worker-1"]) == _taken(before["worker-1"]), (before, after)
    assert (after["worker-1"] is None) == (name == "dask-comms")


# -- a reader whose pushed version was superseded fetches it from the variable's home ---------


async def _late_read(arg, dask_worker=None):
    """Read ``arg`` as a partition would after newer versions superseded it here."""
    state_of(dask_worker).cache.put(arg.name, arg.version + 10, "newer", keep=1)
    return await value_of(dask_worker, arg, 5, state_of(dask_worker).cache)


def _sending(dask_worker):
    return dask_worker.transfer_outgoing_count


def test_a_reader_whose_pushed_version_was_superseded_fetches_it_from_the_home(path):
    # Steps in flight cannot supersede a version a reader still needs (each reader keeps
    # as many as may be in flight): the newer version is put in its cache by hand.
    _, client = path
    _, (_, _, want, _) = _train_model_parallel(None, 1)
    g, variables, x, y, _, train = _model_parallel_graph()
    w2 = variables[2]
    ((bx, by),) = _model_parallel_feeds(1)
    with tf.Session(client, graph=g) as sess:
        sess.run([v.initializer for v in variables])
        sess.run(train, {x: bx, y: by})
        pushes = sess.runtime.table.pushed["w2"]
        (key, index), reader = pushes.ident, next(iter(pushes.readers))
        arg = Pushed(cache_name(sess.runtime.token, "w2"), key[1], key, pushes.home, index)
        got = client.run(_late_read, arg, workers=[reader])[reader]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
        np.testing.assert_array_equal(got, sess.run(w2))
        # The home is not left waiting for the reader's acknowledgement (a transfer for ever).
        assert client.run(_sending, workers=[pushes.home]) == {pushes.home: 0}
