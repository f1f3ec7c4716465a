"""The distributed engine on a real local Dask cluster (scheduler + named workers)."""

import contextlib
import logging
import threading
import time
import warnings

import dask
import numpy as np
import pytest
from distributed import Client, Scheduler, SpecCluster, Worker
from distributed.diagnostics.plugin import SchedulerPlugin

import daskflow as tf
from tests.clusters import module_cluster
from tests.models import assert_same_training, digits_batches, initial_weights, mlp_logits, xent
from tests.waiting import poll_for

SHAPES = [64, 32, 10]


cluster = module_cluster(ps=1, workers=2, processes=False)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _model_parallel(steps, target):
    """Layer 1 on worker-0, layer 2 on worker-1, variables on ps-0."""
    batches, test = digits_batches(steps, 32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        w0, w1 = initial_weights(SHAPES)
        with tf.device("/job:ps/task:0"):
            ws = [tf.Variable(w0, name="w0"), tf.Variable(w1, name="w1")]
            bs = [tf.Variable(tf.zeros([32]), name="b0"), tf.Variable(tf.zeros([10]), name="b1")]
        with tf.device("/job:worker/task:0"):
            h = tf.nn.relu(tf.matmul(x, ws[0]) + bs[0])
        with tf.device("/job:worker/task:1"):
            logits = tf.matmul(h, ws[1]) + bs[1]
            loss = xent(y, logits)
        with tf.device("/job:ps/task:0"):
            train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {x: bx, y: by})[0] for bx, by in batches]
            final = sess.run(ws + bs)
            where = sess.variable_futures() if target is not None else None
            placement = sess.placement(train, {x: batches[0][0], y: batches[0][1]})
            who = sess.runtime.client.who_has(list(where.values())) if where else None
    return losses, final, who, placement


def test_model_parallel_trains_to_the_embedded_numbers(cluster):
    losses, final, who, placement = _model_parallel(15, cluster)
    ref_losses, ref_final, _, _ = _model_parallel(15, None)
    assert_same_training(losses, final, ref_losses, ref_final)
    assert losses[-1] < losses[0]
    assert placement["MatMul"].worker == "worker-0" and placement["MatMul_1"].worker == "worker-1"
    ps_address = next(a for a, w in cluster.scheduler_info["workers"].items() if w["name"] == "ps-0")
    # Every variable (weights and momentum slots) is held on ps-0 and nowhere else.
    assert who and all(holders == (ps_address,) for holders in who.values())


def test_a_partitions_new_variable_values_are_one_task_a_step_and_still_a_future_each(cluster):
    with tf.device("/job:ps/task:0"):
        a = tf.Variable([1.0, 2.0], name="a")
        b = tf.Variable(3.0, name="b")
        c = tf.Variable([[4.0]], name="c")
        bump = tf.group(tf.assign_add(a, [1.0, 1.0]), tf.assign_add(b, 1.0), tf.assign_add(c, [[1.0]]))
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bump)
        executable = sess.executable(bump)
        lowered = sess.runtime.lowered[executable]
        wanted = lowered.graph(99, [], sess.runtime.variables, sess.runtime.addresses()).wanted
        # One task holds the three new values, instead of one task per variable.
        assert [k for k in wanted if k[0].endswith(" values")] == [("ps_0 values", 99, "ps-0-s0")]
        assert not [k for k in wanted if k[0].startswith("var-")]
        futures = sess.variable_futures()
        values = sess.runtime.client.gather(futures)
        assert sorted(values) == ["a", "b", "c"]
        np.testing.assert_array_equal(values["a"], [2.0, 3.0])
        assert values["b"] == 4.0
        np.testing.assert_array_equal(values["c"], [[5.0]])
        # Fetched twice and with the step updating them: their values as the step starts.
        a1, a2, b1, _ = sess.run([a, a, b, bump])
        np.testing.assert_array_equal(a1, [2.0, 3.0])
        np.testing.assert_array_equal(a2, [2.0, 3.0])
        assert b1 == 4.0
        fa, fc = sess.run([a, c])
        np.testing.assert_array_equal(fa, [3.0, 4.0])
        np.testing.assert_array_equal(fc, [[6.0]])


def _held_on_a_worker(dask_scheduler, key):
    ts = dask_scheduler.tasks.get(key)
    return ts is not None and bool(ts.who_has)


def test_a_value_left_in_a_tuple_whose_others_were_replaced_does_not_keep_the_tuple(cluster):
    with tf.device("/job:ps/task:0"):
        a = tf.Variable([1.0], name="a")
        b = tf.Variable(tf.zeros([1000]), name="b")  # never trained
        bump = tf.assign_add(a, [1.0])
    with tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        held = sess.runtime.variables
        initial = held["a"].future.key
        assert held["b"].future.key == initial  # the initializer made both in one task
        for _ in range(3):
            sess.run(bump)
        assert held["b"].index is None  # a future of its own now
        np.testing.assert_array_equal(sess.run(b), np.zeros(1000))
        np.testing.assert_array_equal(sess.run(a), [4.0])
        poll_for(  # so the initializer's tuple, with a's first value, is freed
            lambda: not sess.runtime.client.run_on_scheduler(_held_on_a_worker, key=initial),
            5,
            f"{initial} to be released",
            every=0.1,
        )


def _in_graph_replicated(steps, target, towers=2):
    """TF1 in-graph replication: a tower per worker, gradients averaged on the ps."""
    batches, _ = digits_batches(steps * towers, 16)
    g = tf.Graph()
    with g.as_default():
        w0, w1 = initial_weights(SHAPES, seed=1)
        with tf.device("/job:ps/task:0"):
            ws = [tf.Variable(w0), tf.Variable(w1)]
            bs = [tf.Variable(tf.zeros([32])), tf.Variable(tf.zeros([10]))]
        opt = tf.train.GradientDescentOptimizer(0.5)
        feeds, grads, losses = [], [], []
        for i in range(towers):
            with tf.device(f"/job:worker/task:{i}"):
                x = tf.placeholder(tf.float32, [None, 64])
                y = tf.placeholder(tf.float32, [None, 10])
                loss = xent(y, mlp_logits(x, ws, bs))
                grads.append(opt.compute_gradients(loss, ws + bs))
                feeds.append((x, y))
                losses.append(loss)
        with tf.device("/job:ps/task:0"):
            averaged = [
                (tf.add_n([tower[k][0] for tower in grads]) / float(towers), grads[0][k][1])
                for k in range(len(ws + bs))
            ]
            train = opt.apply_gradients(averaged)
            mean_loss = tf.add_n(losses) / float(towers)
        with tf.Session(target, graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for s in range(steps):
                feed = {}
                for i, (x, y) in enumerate(feeds):
                    feed[x], feed[y] = batches[s * towers + i]
                out.append(sess.run([mean_loss, train], feed)[0])
            return out, sess.run(ws + bs)


def test_in_graph_replication_trains_to_the_embedded_numbers(cluster):
    assert_same_training(*_in_graph_replicated(10, cluster), *_in_graph_replicated(10, None))


class _CountGraphs(SchedulerPlugin):
    name = "count-graphs"

    def __init__(self):
        self.graphs = 0

    def update_graph(self, scheduler, **kwargs):
        self.graphs += 1


@contextlib.contextmanager
def _counting_graphs(cluster):
    """A :class:`_CountGraphs` on the cluster's scheduler while the block runs."""
    counter = _CountGraphs()
    cluster.scheduler.add_plugin(counter)
    try:
        yield counter
    finally:
        cluster.scheduler.remove_plugin(name=counter.name)


def _submissions_reach(counter, expected):
    """The scheduler has had ``expected`` graphs, and no more: a run returns before the next
    step it staged has reached the scheduler."""
    poll_for(lambda: counter.graphs >= expected, 10, f"{expected} graphs (had {counter.graphs})")
    time.sleep(0.2)  # time for one more to show, were there one
    assert counter.graphs == expected


def _scheduler_tasks(client):
    return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


def test_one_submission_per_run_and_a_flat_task_count(cluster):
    with _counting_graphs(cluster) as counter:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([4]), name="counter")
        with tf.device("/job:worker/task:0"):
            delta = tf.ones([4]) * 2.0
        with tf.device("/job:ps/task:0"):
            bump = tf.assign_add(v, delta)
        with tf.Session(cluster) as sess:
            sess.run(v.initializer)
            for _ in range(2):  # a loop: its second run also stages the next step
                sess.run(bump.op)
            # The initializer's run, the loop's first, its second and the step it staged: a
            # submission reaches the scheduler after its run returns, so count them all first.
            _submissions_reach(counter, 4)
            for _ in range(10):
                sess.run(bump.op)  # starts the staged step and stages the next
            _submissions_reach(counter, 4 + 10)
            for _ in range(38):
                sess.run(bump.op)
            early = _scheduler_tasks(sess.runtime.client)
            for _ in range(250):
                sess.run(bump.op)
            late = _scheduler_tasks(sess.runtime.client)
            np.testing.assert_array_equal(sess.run(v), np.full(4, 600.0))
    # 300 steps of a chain v_{t+1} = v_t + delta: the lineage is cut, so the
    # scheduler holds about the same number of tasks after 300 steps as after 50.
    assert late <= early + 2, (early, late)


def test_a_run_fetching_a_variable_is_still_one_submission(cluster):
    # A training loop's hooks fetch the global step every run: taking its value out of the
    # task holding the step's new values must not cost a second graph submission.
    with _counting_graphs(cluster) as counter:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([4]), name="counter")
            w = tf.Variable(tf.ones([2]), name="other")
        with tf.device("/job:worker/task:0"):
            delta = tf.ones([4]) * 2.0
        with tf.device("/job:ps/task:0"):
            bump = tf.group(tf.assign_add(v, delta), tf.assign_add(w, tf.ones([2])))
        with tf.Session(cluster) as sess:
            sess.run([v.initializer, w.initializer])
            sess.run(bump)
            for _ in range(2):  # a loop: its second run also stages the next step
                sess.run([bump, v])
            _submissions_reach(counter, 5)  # the initializers', two loops' (one staged the next)
            for k in range(10):
                _, got = sess.run([bump, v])  # a staged step's fetched value too
                np.testing.assert_array_equal(got, np.full(4, 2.0 * (k + 3)))  # as the step starts
            _submissions_reach(counter, 5 + 10)
            assert sess.runtime.staged_step is not None


def test_daskflow_keeps_dasks_key_split_cache_bounded_on_long_runs(cluster, monkeypatch):
    # Every step's keys are new; Dask caches key_split for 100,000 keys per process:
    # that cache was what grew in long runs (tasks and workers share this process here).
    from dask.utils import key_split

    from daskflow.runtime.cluster import lineage

    monkeypatch.setattr(lineage, "KEY_SPLIT_LIMIT", 60)
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.zeros([4]), name="counter")
    with tf.device("/job:worker/task:0"):
        delta = tf.ones([4]) * 2.0
    with tf.device("/job:ps/task:0"):
        bump = tf.assign_add(v, delta)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        sizes = []
        for _ in range(60):
            sess.run(bump.op)
            sizes.append(key_split.cache_info().currsize)
        np.testing.assert_array_equal(sess.run(v), np.full(4, 120.0))
    assert max(sizes[10:]) <= 60 + 20, sizes  # the limit, plus at most a step's keys


def _consumers_waiting(dask_worker):
    from daskflow.runtime.worker.state import state_of

    return len(state_of(dask_worker).mailbox._waiting)


def test_a_failing_partition_tells_its_consumers_on_other_workers(cluster):
    with tf.device("/job:worker/task:0"):
        n = tf.placeholder(tf.int32, [None])
        bad = tf.reshape(n, [2, 2])
    with tf.device("/job:ps/task:0"):
        total = tf.reduce_sum(tf.cast(bad, tf.float32))
    with tf.Session(cluster) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.run(total, {n: [1, 2, 3]})
        client = sess.runtime.client
        poll_for(  # the consumer on ps-0 got the failure marker: nothing waits
            lambda: not any(client.run(_consumers_waiting).values()),
            5,
            lambda: f"no consumer waiting: {client.run(_consumers_waiting)}",
            every=0.1,
        )
        assert sess.run(total, {n: [1, 2, 3, 4]}) == 10.0


def test_uninitialised_variable_and_failing_ops_are_named_and_change_nothing(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="weights")
        n = tf.placeholder(tf.int32, [None])
        bump = tf.assign_add(v, 5.0)
    with tf.device("/job:worker/task:0"):
        with tf.control_dependencies([bump]):
            bad = tf.reshape(n, [2, 2])
    with tf.Session(cluster) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(v * 2.0)
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.run([bad, bump], {n: [1, 2, 3]})
        assert sess.run(v) == 1.0
        sess.run([bad, bump], {n: [1, 2, 3, 4]})
        assert sess.run(v) == 6.0


def test_a_failure_is_named_where_it_happened_not_where_it_starved_others(cluster):
    # worker-0 fails; the ps partition waiting for its result must not mask it.
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="weights")
    with tf.device("/job:worker/task:0"):
        n = tf.placeholder(tf.int32, [None])
        bad = tf.cast(tf.reduce_sum(tf.reshape(n, [2, 2])), tf.float32)
    with tf.device("/job:ps/task:0"):
        update = tf.assign_add(v, bad)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        for _ in range(2):  # and the session stays usable
            with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
                sess.run(update, {n: [1, 2, 3]})
            assert sess.run(v) == 1.0
        assert sess.run(update, {n: [1, 2, 3, 4]}) == 11.0


def test_a_failing_op_is_named_under_a_runs_deadline_too(cluster):
    # The deadline wraps the partition's program: its failing line was looked up in the wrapper.
    with tf.device("/job:worker/task:0"):
        n = tf.placeholder(tf.int32, [None])
        total = tf.reduce_sum(tf.reshape(n, [2, 2], name="the_reshape"))
    with tf.Session(cluster) as sess:
        for options in (None, tf.RunOptions(timeout_in_ms=60000)):
            with pytest.raises(tf.errors.InvalidArgumentError) as failed:
                sess.run(total, {n: [1, 2, 3]}, options=options)
            assert failed.value.op is not None and failed.value.op.name == "the_reshape"


def test_a_partition_waits_no_longer_than_the_operation_timeout(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="weights")
    with tf.device("/job:worker/task:0"):
        y = v * 2.0
    with tf.device("/job:ps/task:0"):
        z = y + 1.0
    config = tf.ConfigProto(operation_timeout_in_ms=300)
    with tf.Session(cluster, config=config) as sess:
        sess.run(v.initializer)
        assert sess.run(z) == 3.0
        executable = sess.executable(z)
        lowered = sess.runtime.lowered[executable]
        # Drop what the worker partition sends, as if its worker had vanished.
        for template in lowered._templates:
            template.sends.clear()
        with pytest.raises(
            tf.errors.DeadlineExceededError, match="waited 0.3 s for the results of partition worker-0"
        ):
            sess.run(z)


@pytest.mark.parametrize(
    "device, message",
    [
        ("/job:chief/task:0", "chief"),
        ("/job:worker/task:7", "task:7"),
        ("/job:worker/task:0/device:GPU:0", "GPU"),
    ],
)
def test_devices_the_cluster_lacks_are_refused_with_its_device_list(cluster, device, message):
    with tf.device(device):
        y = tf.constant(1.0) + 1.0
    with tf.Session(cluster) as sess:
        with pytest.raises(ValueError, match=message) as err:
            sess.run(y)
        assert "/job:ps/replica:0/task:0/device:CPU:0" in str(err.value)


def test_soft_placement_falls_back_with_a_warning(cluster):
    with tf.device("/job:worker/task:1/device:GPU:0"):
        y = tf.constant(1.0) + 1.0
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(cluster, config=config) as sess, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sess.run(y) == 2.0
        assert sess.placement(y)[y.op.name].worker == "worker-1"
    assert any("not in the cluster" in str(w.message) for w in caught)


def test_cluster_spec_is_read_off_the_cluster(cluster):
    with Client(cluster, set_as_default=False) as client:
        spec = tf.train.ClusterSpec.from_client(client)
    assert spec.as_dict() == {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    assert spec == tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})


def test_a_session_sees_its_workers_while_the_client_refreshes_its_cache(cluster):
    """Dask's client refreshes the cache that ``scheduler_info()`` returns in the background,
    with no per-worker entries; a session asking which workers are there must never read
    that, or it would think them gone (and recover from a loss that did not happen)."""
    import inspect

    from distributed import Client

    if "n_workers" not in inspect.signature(Client._update_scheduler_info).parameters:
        pytest.skip("this Dask's client refreshes its cache with every worker's entry")
    with tf.Session(cluster) as sess:
        client, stop, polls = sess.runtime.client, threading.Event(), []

        def poll():  # what the client's periodic poll does every 2 s, here without a pause
            while not stop.is_set():
                client.sync(client._update_scheduler_info, n_workers=0)
                polls.append(1)

        thread = threading.Thread(target=poll)
        thread.start()
        try:
            seen = {tuple(sorted(sess.runtime.workers_now())) for _ in range(200)}
            specs = {tuple(tf.train.ClusterSpec.from_client(client).jobs) for _ in range(50)}
        finally:
            stop.set()
            thread.join()
    assert len(polls) > 1  # the cache was refreshed meanwhile (the poll did not die at once)
    assert seen == {("ps-0", "worker-0", "worker-1")}
    assert specs == {("ps", "worker")}


def test_a_worker_name_off_the_convention_is_refused():
    spec = {"bad": {"cls": Worker, "options": {"nthreads": 1, "name": "trainer"}}}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": ":0"}}
    with SpecCluster(workers=spec, scheduler=scheduler) as odd:
        with pytest.raises(ValueError, match="named 'trainer'.*<job>-<task>"):
            with tf.Session(odd) as sess:
                sess.run(tf.constant(1.0) + 1.0)


@pytest.mark.parametrize("light", [True, False])
@pytest.mark.process
def test_local_cluster_turns_dasks_sampling_down_in_its_processes_unless_asked_not_to(light):
    before = dask.config.get("distributed")
    with tf.local_cluster(ps=1, workers=1, light_monitoring=light) as processes:
        with Client(processes, set_as_default=False) as client:
            profiled = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
            tick = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tick_interval)
            monitor = client.run(lambda dask_worker: dask_worker.periodic_callbacks["monitor"].callback_time)
            levels = client.run(lambda: [h.level for h in logging.getLogger("distributed").handlers])
    assert {level for found in levels.values() for level in found} == {logging.WARNING}  # no INFO lines
    assert len(profiled) == 2
    assert set(profiled.values()) == {not light}
    assert tick == (1.0 if light else 0.02)
    assert set(monitor.values()) == {1000 if light else 500}
    assert dask.config.get("distributed") == before  # this process's configuration is left as it was


def test_session_targets_and_dashboard(cluster):
    c = tf.constant(3.0) * 2.0
    with tf.Session(cluster.scheduler_address) as sess:
        assert sess.run(c) == 6.0
        assert sess.dashboard_link
    with Client(cluster, set_as_default=False) as client:
        with tf.Session(client) as sess:
            assert sess.run(c) == 6.0
        assert client.status == "running"  # the session does not close a client it was given
    with tf.Session(cluster.scheduler_address.removeprefix("tcp://")) as sess:  # as Client takes it
        assert sess.run(c) == 6.0
    with pytest.raises(ValueError, match="scheduler address"):
        tf.Session("localhost")
    with pytest.raises(TypeError, match="Session target"):
        tf.Session(42)


def test_asynchronous_dispatch_pipelines_op_only_steps(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.zeros([3]), name="v")
        bump = tf.assign_add(v, tf.ones([3]))
        n = tf.placeholder(tf.int32, [None])
    with tf.device("/job:worker/task:0"):
        with tf.control_dependencies([bump]):
            bad = tf.reshape(n, [2, 2]).op
    config = tf.ConfigProto(async_dispatch=3)
    with tf.Session(cluster, config=config) as sess:
        sess.run(v.initializer)
        for _ in range(20):
            assert sess.run(bump.op) is None  # returns once submitted
        np.testing.assert_array_equal(sess.run(v), np.full(3, 20.0))  # a fetch synchronises
        sess.run(bump.op)
        sess.run(bad, {n: [1, 2, 3]})  # fails on the worker, later
        sess.run(bump.op)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.sync()
        # Back to the values before the failing step: only the first bump counts.
        np.testing.assert_array_equal(sess.run(v), np.full(3, 21.0))


def test_gpu_devices_run_on_the_workers_offering_them():
    from dask.utils import key_split

    with tf.local_cluster(ps=1, workers=1, gpu_workers=1, processes=False) as gpu_cluster:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.ones([3]), name="v")
        with tf.device("/job:worker/device:GPU:0"):
            y = v * 2.0
        with tf.Session(gpu_cluster) as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(y), np.full(3, 2.0))
            where = sess.placement(y)[y.op.name]
            assert (where.device, where.worker) == ("/job:worker/device:GPU:0", "worker-1")
            executable = sess.executable(y)
            lowered = sess.runtime.lowered[executable]
            graph = lowered.graph(0, [], sess.runtime.variables, sess.runtime.addresses()).graph
            # /job:worker/device:GPU:0: one replica per worker task with a GPU, here one.
            assert list(graph.layers) == ["worker-gpu0-s0/0", "worker-gpu0-s0/0-out"]
            layer = graph.layers["worker-gpu0-s0/0"]
            # Restricted to its worker, holding no Dask resource while it waits for inputs.
            assert layer.annotations["workers"] == [sess.runtime.addresses()["worker-1"]]
            assert "resources" not in layer.annotations
            # The dashboard names a task by key_split: the worker, its GPU and what the task does.
            assert {key_split(k) for k in layer} == {"worker_1_gpu0 step"}


def _slowly(value):
    time.sleep(1.0)
    return value


def test_pipelined_steps_on_a_gpu_never_wait_on_each_other_for_the_device():
    # With steps in flight, the second step's GPU task can be ready first: the first one
    # waits for the initializer's values through Dask (a slow initializer, still running),
    # the second for the first one's pushed values. Holding the GPU as a Dask resource
    # while it waited, the second step starved the first (the run hung).
    with tf.local_cluster(ps=1, workers=0, gpu_workers=1, processes=False) as gpu_cluster:
        with tf.device("/job:ps/task:0"):
            start = tf.py_func(_slowly, [tf.ones([4, 2])], tf.float32)
            w = tf.Variable(tf.reshape(start, [4, 2]), name="w")
        x = tf.constant(np.ones((3, 4), np.float32))
        with tf.device("/job:worker/device:GPU:0"):
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))  # its gradient reads the GPU's product
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        config = tf.ConfigProto(async_dispatch=2, operation_timeout_in_ms=10_000)
        with tf.Session(gpu_cluster, config=config) as sess:
            sess.run(w.initializer)  # returns before it has run
            for _ in range(6):
                sess.run(train)
            # Weights all c: x @ w is 4c everywhere, the gradient 3 rows * 2 * 4c = 24c, so each
            # step multiplies the weights by 1 - 0.01 * 24.
            np.testing.assert_allclose(sess.run(w), np.full((4, 2), 0.76**6), rtol=1e-5)


def test_a_cluster_step_past_its_deadline_is_tf1s_error_and_changes_nothing(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="weights")
    with tf.device("/job:worker/task:0"):  # a loop that never ends, checked on its worker
        forever = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)])
    with tf.device("/job:worker/task:1"):  # a kernel that checks no deadline: the session ends it
        slow = tf.py_func(lambda: (time.sleep(3.0), np.float32(0))[1], [], tf.float32)
    with tf.device("/job:ps/task:0"):
        bump = tf.assign_add(v, 1.0)
    with tf.Session(cluster) as sess:
        sess.run(v.initializer)
        for fetches in ([forever, bump], [slow, bump]):
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
                sess.run(fetches, options=tf.RunOptions(timeout_in_ms=300))
            assert time.monotonic() - start < 2.5  # not the 3 s of the slow kernel
            assert sess.run(v) == 1.0  # the step's update was not kept
        assert sess.run(bump, options=tf.RunOptions(timeout_in_ms=60_000)) == 2.0  # in time: runs
    with tf.Session(cluster, config=tf.ConfigProto(operation_timeout_in_ms=300)) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(forever)
