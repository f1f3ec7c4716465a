"""Data-parallel training: one replica per worker task, sync (backup workers) and async."""

import pickle
import time

import numpy as np
import pytest
from distributed import Client, WorkerPlugin

import daskflow as tf
from daskflow.datasets import load_digits
from tests.clusters import module_cluster
from tests.models import mlp_logits

cluster = module_cluster(ps=1, workers=3, processes=False)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _params(shapes, seed=0):
    rng = np.random.default_rng(seed)
    ws = [
        tf.Variable((rng.standard_normal((a, b)) * 0.1).astype(np.float32))
        for a, b in zip(shapes, shapes[1:])
    ]
    bs = [tf.Variable(tf.zeros([b])) for b in shapes[1:]]
    return ws, bs


def mlp(x, params):
    return mlp_logits(x, *params)


class _Evaluate(tf.train.SessionRunHook):
    """Test accuracy and the step metrics at the end of training (TF1's way: a hook's ``end``)."""

    def __init__(self, accuracy, feed):
        self.accuracy, self.feed, self.value, self.metrics = accuracy, feed, None, None

    def end(self, session):
        self.metrics = session.step_metrics()
        self.recoveries = session.recoveries
        self.value = session.run(self.accuracy, self.feed)


def contract_program(
    target, sync, steps=300, workers=3, aggregate=2, config=None, extra_hooks=(), **monitored_options
):
    """The issue's program, as written, plus an evaluation hook; returns (accuracy, metrics)."""
    data = load_digits(one_hot=True)
    X, Y = data.train.images, data.train.labels
    cluster = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]})
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(2000, seed=0).repeat().batch(64)
    x, y_ = ds.make_one_shot_iterator().get_next()
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        params = _params([64, 64, 10])
        logits = mlp(x, params)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
        opt = tf.train.AdamOptimizer(0.01)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(
                opt, replicas_to_aggregate=aggregate, total_num_replicas=workers
            )
        train_op = opt.minimize(loss, global_step=gs)
    xt = tf.placeholder(tf.float32, [None, 64])
    yt = tf.placeholder(tf.float32, [None, 10])
    correct = tf.equal(tf.argmax(mlp(xt, params), 1), tf.argmax(yt, 1))
    evaluate = _Evaluate(
        tf.reduce_mean(tf.cast(correct, tf.float32)), {xt: data.test.images, yt: data.test.labels}
    )
    hooks = [tf.train.StopAtStepHook(last_step=steps), evaluate, *extra_hooks]
    if sync:
        hooks.append(opt.make_session_run_hook(is_chief=True))
    with tf.train.MonitoredTrainingSession(
        master=target, hooks=hooks, config=config, progress_bar=False, **monitored_options
    ) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    contract_program.recoveries = evaluate.recoveries
    contract_program.from_checkpoints = sess.recoveries
    return evaluate.value, evaluate.metrics


@pytest.mark.slow
def test_sync_replicas_with_a_backup_worker_train_the_contract_program(cluster):
    accuracy, metrics = contract_program(cluster.scheduler_address, sync=True)
    assert accuracy >= 0.95
    train = [m for m in metrics if m["replicas_used"]]
    assert len(train) == 300  # one global step per run
    assert all(m["replicas_used"] == 2 and m["gradients_dropped"] == 1 for m in train)


def test_async_replicas_train_the_contract_program_within_the_staleness_bound(cluster):
    config = tf.ConfigProto(max_staleness=1)
    accuracy, metrics = contract_program(cluster.scheduler_address, sync=False, config=config)
    assert accuracy >= 0.93
    staleness = [s for m in metrics for s in m["staleness"]]
    assert staleness and max(staleness) <= 1
    assert 0 in staleness and 1 in staleness
    # Three replicas, a bound of one: each round's last arrival is over the bound;
    # the global step counts applied updates, two per round (StopAtStepHook, reading
    # the step as it was before each run, as TF1's does, may allow one round more).
    rounds = [m for m in metrics if m["replicas_used"]]
    assert all(m["replicas_used"] == 2 and m["gradients_dropped"] == 1 for m in rounds)
    assert len(rounds) in (150, 151)


def _replicated_sgd(target, batches, aggregate, workers, split_feed=True):
    """Softmax regression fed through placeholders; returns (losses, final weights)."""
    cluster = {"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]}
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            w = tf.Variable(np.zeros((64, 10), np.float32))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w)))
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.5),
                replicas_to_aggregate=aggregate,
                total_num_replicas=workers,
            )
            train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {x: bx, y: by})[0] for bx, by in batches]
            return losses, sess.run(w)


def _batches(steps, rows):
    data = load_digits(one_hot=True)
    return [data.train.next_batch(rows) for _ in range(steps)]


def test_sync_with_one_replica_gives_the_embedded_numbers():
    batches = _batches(6, 32)
    with tf.local_cluster(ps=1, workers=1, processes=False) as one:
        losses, final = _replicated_sgd(one, batches, aggregate=1, workers=1)
    ref_losses, ref_final = _replicated_sgd(None, batches, aggregate=1, workers=1)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    np.testing.assert_allclose(final, ref_final, rtol=1e-5, atol=1e-6)


def test_a_fed_batch_is_split_evenly_across_the_replicas(cluster):
    # The mean of three equal shards' mean gradients is the whole batch's mean gradient:
    # three replicas aggregating all three follow the embedded full-batch numbers.
    batches = _batches(5, 30)
    _, final = _replicated_sgd(cluster, batches, aggregate=3, workers=3)
    _, ref_final = _replicated_sgd(None, batches, aggregate=3, workers=3)
    np.testing.assert_allclose(final, ref_final, rtol=1e-4, atol=1e-6)


def test_replication_errors_name_the_culprit_and_change_nothing(cluster):
    with pytest.raises(ValueError, match="total_num_replicas=2.*3 replicas"):
        _replicated_sgd(cluster, _batches(1, 30), aggregate=2, workers=2)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Placeholder.*2 rows, fewer than the 3 replicas"
    ):
        _replicated_sgd(cluster, _batches(1, 2), aggregate=3, workers=3)
    with tf.device("/job:worker"):  # a variable of the replicas: each would write it
        v = tf.Variable(1.0, name="weights")
    with tf.Session(cluster) as sess:
        with pytest.raises(ValueError, match=r"\['weights'\] would be updated by every replica"):
            sess.run(v.initializer)
        assert sess.uninitialized_variables() == ["weights"]


def test_no_training_data_passes_through_the_client(cluster):
    data = load_digits(one_hot=True)
    ds = tf.data.Dataset.from_tensor_slices((data.train.images, data.train.labels)).repeat().batch(64)
    x, y_ = ds.make_one_shot_iterator().get_next()
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]}
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        logits = mlp(x, _params([64, 64, 10]))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        executable = sess.executable(train)
        lowered = sess.runtime.lowered[executable]
        step = lowered.graph(
            99, [], sess.runtime.variables, sess.runtime.addresses(), pushed=sess.runtime.table.pushed
        )
    sent = len(pickle.dumps(dict(step.graph))) + sum(post.value.nbytes for post in step.posts)
    one_batch = 64 * (64 + 10) * 4
    assert sent < one_batch / 4, f"the client sends {sent} bytes per step; one batch is {one_batch}"


def test_a_step_with_every_replica_worker_gone_waits_for_them_as_for_any_lost_worker(cluster):
    from daskflow.runtime.cluster.recovery import WorkerLost

    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]}
    x = tf.placeholder(tf.float32, [None, 64])
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        loss = tf.reduce_mean(tf.square(mlp(x, _params([64, 10]))))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: np.ones((6, 64), np.float32)}
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        executable = sess.executable(train, feed)
        lowered = sess.runtime.lowered[executable]
        only_the_ps = {k: v for k, v in sess.runtime.addresses().items() if k == "ps-0"}
        with pytest.raises(WorkerLost) as lost:  # the session's recovery waits, then fails clearly
            lowered.graph(99, [feed[x]], sess.runtime.variables, only_the_ps)
    assert lost.value.names == {"worker-0", "worker-1", "worker-2"}


class _SlowExecutor:
    """An executor that starts every job ``delay`` seconds late."""

    def __init__(self, inner, delay):
        self.inner, self.delay = inner, delay

    def submit(self, fn, *args, **kwargs):
        def late(*a, **k):
            time.sleep(self.delay)
            return fn(*a, **k)

        return self.inner.submit(late, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class Straggle(WorkerPlugin):
    """Slows one worker's computations: the straggler the test injects."""

    name = "test-straggle"

    def __init__(self, worker_name, delay):
        self.worker_name, self.delay = worker_name, delay

    def setup(self, worker):
        if worker.name == self.worker_name:
            worker.executors["default"] = _SlowExecutor(worker.executors["default"], self.delay)

    def teardown(self, worker):
        executor = worker.executors["default"]
        if isinstance(executor, _SlowExecutor):
            worker.executors["default"] = executor.inner


def _step_times(target, aggregate, steps=8):
    batches = _batches(steps + 2, 30)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]}
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            w = tf.Variable(np.zeros((64, 10), np.float32))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w)))
            sgd = tf.train.GradientDescentOptimizer(0.5)
            step = tf.train.get_or_create_global_step()
            train = tf.train.SyncReplicasOptimizer(sgd, aggregate, 3).minimize(loss, global_step=step)
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            times = []
            for bx, by in batches:
                start = time.perf_counter()
                sess.run(train, {x: bx, y: by})
                times.append(time.perf_counter() - start)
            return float(np.median(times[2:]))


def test_backup_workers_keep_a_straggler_from_setting_the_pace():
    delay = 0.4
    with tf.local_cluster(ps=1, workers=3, processes=False) as cluster, Client(cluster) as client:
        normal = _step_times(cluster, aggregate=2)
        client.register_plugin(Straggle("worker-2", delay))
        all_three = _step_times(cluster, aggregate=3)
        first_two = _step_times(cluster, aggregate=2)
    print(
        f"\nstep time: no straggler {normal * 1e3:.0f} ms; with worker-2 {delay * 1e3:.0f} ms late: "
        f"3 of 3 {all_three * 1e3:.0f} ms, 2 of 3 {first_two * 1e3:.0f} ms"
    )
    assert all_three >= delay  # waiting for every replica follows the straggler
    assert first_two < delay / 2  # a backup worker does not


def test_each_replica_reads_its_shard_and_draws_its_own_random_numbers():
    from daskflow.framework.replica import replica_context

    element = tf.data.Dataset.range(9).make_one_shot_iterator().get_next()
    noise = tf.random_uniform([4], seed=3)
    seen, draws = {}, {}
    for replica in (None, 0, 1, 2):
        with tf.Session() as sess:
            if replica is None:
                seen[replica], draws[replica] = [sess.run(element) for _ in range(3)], sess.run(noise)
                continue
            with replica_context(replica, 3):
                seen[replica], draws[replica] = [sess.run(element) for _ in range(3)], sess.run(noise)
    assert seen == {None: [0, 1, 2], 0: [0, 3, 6], 1: [1, 4, 7], 2: [2, 5, 8]}
    np.testing.assert_array_equal(draws[0], draws[None])  # replica 0 draws what a plain run draws
    assert not np.allclose(draws[1], draws[0]) and not np.allclose(draws[2], draws[1])


def test_only_gradients_that_came_from_another_process_are_marked_as_the_workers_own():
    """The mean may write into a replica's value only where it is this worker's copy:
    one from the same process is the producer's own array, perhaps held elsewhere."""
    import asyncio

    from daskflow.runtime.wire import bulk, rendezvous, trust
    from daskflow.runtime.worker import arrivals
    from daskflow.runtime.worker.state import WorkerState

    keys = [("own-test", 0, way, "ps") for way in ("bulk", "comm", "local")]
    sent = {way: np.full(3, i, np.float32) for i, (*_, way, _) in enumerate(keys)}
    state = WorkerState()  # a worker's, as its three ways of receiving file into it
    credentials = bulk.Credentials("s", b"secret")
    state.trusted.admit("own-test", credentials)  # as the plan's programs do
    rendezvous._arrived(state, {"kind": "mail", "key": list(keys[0])}, [sent["bulk"]])
    proof = trust.signed(credentials, rendezvous.HANDLER, list(keys[1]))
    refused = rendezvous._receive(state, "w", ("h", "h:1"), None, list(keys[1]), (sent["comm"],), **proof)
    assert refused is None
    state.mailbox.put(keys[2], (sent["local"],))
    args = [rendezvous.FromReplicas(tuple(keys))]
    (per_replica,) = asyncio.run(arrivals.first(state.mailbox, args, 3, 5.0, lambda **_: None))
    gradients = per_replica[0]
    own = {way: gradients.own[[v is a for v in gradients.values].index(True)] for way, a in sent.items()}
    # Dask's comms may hand over the producer's own arrays (inproc:// passes objects).
    assert own == {"bulk": True, "comm": False, "local": False}


def test_the_mean_leaves_a_fetched_replica_gradient_as_that_replica_computed_it():
    """Over Dask's inproc:// comms the ps receives the replica's own arrays, which the
    fetch returns too: the mean must not be summed into them."""
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    x = tf.placeholder(tf.float32, [None, 3])
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w = tf.Variable(np.ones((3, 2), np.float32))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 2)
        # Each replica's gradient is a new array (a matmul's): its row, in both columns.
        ((grad, _),) = opt.compute_gradients(tf.reduce_sum(tf.matmul(x, w)), [w])
        train = opt.apply_gradients([(grad, w)], global_step=tf.train.get_or_create_global_step())
    rows = np.array([[1.0] * 3, [100.0] * 3], np.float32)  # split: one row per replica
    with tf.local_cluster(ps=1, workers=2, processes=False, protocol="inproc://", host=None) as inproc:
        with tf.Session(inproc) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                _, fetched = sess.run([train, grad], {x: rows})
                np.testing.assert_array_equal(fetched, np.stack([rows[0]] * 2, axis=1))  # replica 0's
            mean = rows.mean(axis=0)[:, None]
            np.testing.assert_allclose(sess.run(w), np.ones((3, 2)) - 3 * 0.1 * mean, rtol=1e-6)


def _aggregate_donates(sess, fetches):
    """Whether the compiled step passes each mean ``donate``: its input read by nothing else."""
    from daskflow.ops.replica_ops import AggregateReplicas

    executable = sess.executable(fetches)
    flags = [
        k.keywords.get("donate", False)
        for p in executable.programs
        for k in p.fn.__globals__.values()
        if getattr(k, "func", None) is AggregateReplicas.kernel
    ]
    return flags


def test_the_mean_may_overwrite_the_replicas_gradients_only_when_nothing_else_here_reads_them():
    from daskflow.ops.replica_ops import aggregate_replicas

    cluster = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    x = tf.constant(np.ones((4, 3), np.float32))
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        w = tf.Variable(np.ones((3, 2), np.float32))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 2)
        ((grad, _),) = opt.compute_gradients(tf.reduce_sum(tf.square(tf.matmul(x, w))), [w])
        train = opt.apply_gradients([(grad, w)], global_step=tf.train.get_or_create_global_step())
    with tf.device("/job:ps/task:0"):
        other_mean = aggregate_replicas(grad, 2, 2)  # a second reader of the same values there
    with tf.Session() as sess:
        assert _aggregate_donates(sess, train) == [True]
        # The replica's gradient fetched too: the fetch reads the replica's own array.
        assert _aggregate_donates(sess, [train, grad]) == [True]
        assert _aggregate_donates(sess, [train, other_mean]) == [False, False]
