"""tf.train.Server and variables shared by a between-graph job's clients.

The servers run in this process (each hosts its Dask worker on a thread of
its own, the first task also the scheduler); the sessions are separate
clients, as separate worker scripts are. Scripts in separate processes are
in test_between_graph_processes.py.
"""

import threading
import time

import numpy as np
import pytest
from distributed.utils import open_port

import daskflow as tf


def _spec(workers=2):
    return tf.train.ClusterSpec(
        {"ps": [f"127.0.0.1:{open_port()}"], "worker": [f"127.0.0.1:{open_port()}" for _ in range(workers)]}
    )


@pytest.fixture(scope="module")
def job():
    """A job of one ps and two workers, its servers in this process."""
    spec = _spec()
    servers = [tf.train.Server(spec, "ps", 0)] + [tf.train.Server(spec, "worker", i) for i in range(2)]
    yield spec, servers
    for server in reversed(servers):
        server.stop()


def _model(spec, task, shape=(3, 1), name="w"):
    """A linear model on worker ``task``, its variables on the ps (a new graph)."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(
            tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}", cluster=spec)
        ):
            x = tf.placeholder(tf.float32, [None, shape[0]], name="x")
            w = tf.Variable(tf.zeros(shape), name=name)
            step = tf.train.get_or_create_global_step()
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    return graph, x, w, step, train, init


def test_server_hosts_a_worker_named_after_its_task(job):
    spec, (ps, w0, w1) = job
    assert (ps.worker_name, w1.worker_name) == ("ps-0", "worker-1")
    assert w0.target == "grpc://" + spec.task_address("worker", 0)
    assert ps.scheduler_address == "tcp://" + spec.task_address("ps", 0)  # ps 0 is the first task
    assert w0.worker_address == "tcp://" + spec.task_address("worker", 0)  # listening at its own address


def test_clients_of_a_job_share_its_variables(job):
    spec, (ps, w0, w1) = job
    g0, x0, w_0, step0, train0, init0 = _model(spec, 0)
    g1, x1, w_1, step1, train1, init1 = _model(spec, 1)
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=g0) as chief, tf.Session(w1.target, graph=g1) as other:
        chief.run(init0)
        feed = np.ones((4, 3), np.float32)
        for _ in range(3):
            chief.run(train0, {x0: feed})
        seen = other.run(w_1)
        # Three steps of w -= 0.1 * 2 (3 w - 1) * 1 per weight, from 0 (by hand: 0.2, 0.28, 0.312).
        np.testing.assert_allclose(seen.ravel(), [0.312] * 3, rtol=1e-5)
        other.run(train1, {x1: feed})
        assert chief.run(step0) == 4  # the other client's update counted in the one global step
        np.testing.assert_allclose(chief.run(w_0).ravel(), [0.312 - 0.2 * (3 * 0.312 - 1)] * 3, rtol=1e-5)


def test_a_new_client_reads_the_values_a_closed_one_left(job):
    spec, (ps, w0, w1) = job
    g, x, w, step, train, init = _model(spec, 0)
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: np.ones((2, 3), np.float32)})
        before = sess.run(w)
    with tf.Session(w1.target, graph=_model(spec, 1)[0]) as later:
        np.testing.assert_array_equal(later.run("w:0"), before)
        assert later.run("global_step:0") == 1


def test_reading_an_uninitialized_shared_variable_names_it(job):
    spec, (ps, w0, w1) = job
    g, x, w, step, train, init = _model(spec, 0, name="never_set")
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=g) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="never_set"):
            sess.run(train, {x: np.ones((2, 3), np.float32)})
        assert "never_set" in sess.uninitialized_variables()


def test_a_client_defining_a_variable_differently_is_refused_and_changes_nothing(job):
    spec, (ps, w0, w1) = job
    g, x, w, step, train, init = _model(spec, 0)
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=g) as sess:
        sess.run(init)
        good = sess.run(w)
        bad_graph, bad_x, _, _, bad_train, bad_init = _model(spec, 1, shape=(3, 2))
        with tf.Session(w1.target, graph=bad_graph) as other:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Variable w .*shape \(3, 2\)"):
                other.run(bad_init)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Variable w "):
                other.run(bad_train, {bad_x: np.ones((2, 3), np.float32)})
        np.testing.assert_array_equal(sess.run(w), good)


def test_two_jobs_on_one_dask_cluster_do_not_see_each_others_variables(monkeypatch):
    # A Dask cluster of its own (as `dask scheduler` / `dask worker --name ps-0` give), and
    # two jobs of different cluster specs on it: their servers only connect.
    cluster = tf.local_cluster(ps=1, workers=1, processes=False, dashboard_page=False)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
    specs = [_spec(workers=1), _spec(workers=1)]
    servers = [tf.train.Server(spec, "worker", 0) for spec in specs]
    try:
        assert [s.worker_address for s in servers] == [None, None]
        first, second = (_model(spec, 0) for spec in specs)
        with tf.Session(servers[0].target, graph=first[0]) as sess:
            sess.run(first[5])
            sess.run(first[4], {first[1]: np.ones((2, 3), np.float32)})
        with tf.Session(servers[1].target, graph=second[0]) as sess2:
            assert sorted(sess2.uninitialized_variables()) == ["global_step", "w"]
            sess2.run(second[5])
            assert sess2.run(second[3]) == 0 and not sess2.run(second[2]).any()
        with tf.Session(servers[0].target, graph=first[0]) as again:
            assert again.run(first[3]) == 1
            assert float(again.run(first[2])[0, 0]) == pytest.approx(0.2)
    finally:
        for server in servers:
            server.stop()
        cluster.close()


def test_a_script_given_another_cluster_spec_is_refused_naming_the_task(job, monkeypatch):
    spec, (ps, w0, w1) = job
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", ps.scheduler_address)
    other_spec = _spec(workers=1)  # not the spec the job's ps was started with
    other = tf.train.Server(other_spec, "worker", 0)
    try:
        graph, x, w, step, train, init = _model(other_spec, 0)
        with tf.Session(other.target, graph=graph) as sess:
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="task ps-0 was started by a tf.train.Server"
            ):
                sess.run(init)
    finally:
        other.stop()


def test_checkpoints_of_shared_variables_round_trip(job, tmp_path):
    spec, (ps, w0, w1) = job
    g, x, w, step, train, init = _model(spec, 0)
    tf.Session.reset(w0.target)
    with g.as_default():
        saver = tf.train.Saver()
    with tf.Session(w0.target, graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: np.ones((2, 3), np.float32)})
        saved = sess.run(w)
        path = saver.save(sess, str(tmp_path / "model"), global_step=step)
        sess.run(train, {x: np.ones((2, 3), np.float32)})
        assert not np.array_equal(sess.run(w), saved)
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), saved)
        assert sess.run(step) == 1


def test_a_worker_session_waits_for_the_chief_to_initialize(job):
    spec, (ps, w0, w1) = job
    tf.Session.reset(w0.target)
    chief_graph, _, _, _, _, chief_init = _model(spec, 0)
    worker_graph = _model(spec, 1)[0]
    ready = {}

    def non_chief():
        with worker_graph.as_default():
            creator = tf.train.WorkerSessionCreator(master=w1.target, max_wait_secs=60)
            sess = creator.create_session()
            ready["at"] = time.monotonic()
            ready["step"] = sess.run("global_step:0")
            sess.close()

    thread = threading.Thread(target=non_chief)
    thread.start()
    time.sleep(1.5)
    assert "at" not in ready  # still waiting: nothing is initialized
    with tf.Session(w0.target, graph=chief_graph) as chief:
        initialized = time.monotonic()
        chief.run(chief_init)
    thread.join(30)
    assert ready["at"] >= initialized and ready["step"] == 0


def test_a_worker_session_gives_up_waiting_with_deadline_exceeded(job):
    spec, (ps, w0, w1) = job
    tf.Session.reset(w0.target)
    with _model(spec, 1)[0].as_default():
        creator = tf.train.WorkerSessionCreator(master=w1.target, max_wait_secs=1)
        with pytest.raises(tf.errors.DeadlineExceededError, match="not ready after waiting 1 secs"):
            creator.create_session()


def test_a_second_server_for_a_taken_task_is_refused(job):
    spec, (ps, w0, w1) = job
    with pytest.raises(tf.errors.UnavailableError, match="worker-1"):
        tf.train.Server(
            tf.train.ClusterSpec({**spec.as_dict(), "worker": [*spec.job_tasks("worker")]}), "worker", 1
        )


def test_unknown_grpc_target_is_refused_naming_it():
    with pytest.raises(tf.errors.InvalidArgumentError, match="'grpc://127.0.0.1:1' names no task"):
        tf.Session("grpc://127.0.0.1:1")


def test_bad_job_or_task_is_refused_naming_it():
    spec = _spec()
    with pytest.raises(ValueError, match="job_name 'chief' is not a job"):
        tf.train.Server(spec, "chief", 0, start=False)
    with pytest.raises(ValueError, match="task_index 5 is not a task of job 'worker'"):
        tf.train.Server(spec, "worker", 5, start=False)
    with pytest.raises(ValueError, match="explicit `job_name`"):
        tf.train.Server(spec, start=False)
    with pytest.raises(ValueError, match="is not host:port"):
        tf.train.Server({"ps": ["nohost"]}, "ps", 0, start=False)


def test_a_task_gives_up_on_a_scheduler_that_never_comes(monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    spec = _spec(workers=1)
    config = tf.ConfigProto(operation_timeout_in_ms=800)
    started = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError, match=spec.task_address("ps", 0)):
        tf.train.Server(spec, "worker", 0, config=config)
    assert time.monotonic() - started < 10


def test_first_task_rule():
    from daskflow.train.server import first_task

    assert first_task(tf.train.ClusterSpec({"worker": ["a:1"], "chief": ["a:2"], "ps": ["a:3"]})) == (
        "chief",
        0,
    )
    assert first_task(tf.train.ClusterSpec({"worker": ["a:1", "a:2"], "ps": ["a:3"]})) == ("ps", 0)
    assert first_task(tf.train.ClusterSpec({"worker": ["a:1"]})) == ("worker", 0)


def test_create_local_server_runs_a_graph():
    server = tf.train.Server.create_local_server()
    try:
        graph = tf.Graph()
        with graph.as_default():
            v = tf.Variable(2.0, name="v")
            double = v.assign(v * 2.0)
        with tf.Session(server.target, graph=graph) as sess:
            sess.run(v.initializer)
            sess.run(double)
            assert sess.run(double) == 8.0
    finally:
        server.stop()


def test_supervisors_of_a_job_chief_initializes_the_other_waits(job):
    spec, (ps, w0, w1) = job
    tf.Session.reset(w0.target)
    chief_graph, x0, w_0, _, train0, _ = _model(spec, 0)
    worker_graph, x1, w_1, _, train1, _ = _model(spec, 1)
    with worker_graph.as_default():
        other = tf.train.Supervisor(is_chief=False, recovery_wait_secs=0.1)
    with chief_graph.as_default():
        chief = tf.train.Supervisor(is_chief=True)
    got = {}

    def non_chief():
        with other.managed_session(w1.target) as sess:
            got["w"] = sess.run(w_1)
            sess.run(train1, {x1: np.ones((2, 3), np.float32)})

    thread = threading.Thread(target=non_chief)
    thread.start()
    time.sleep(1.0)
    assert not got  # waiting for the chief
    with chief.managed_session(w0.target) as sess:
        thread.join(30)
        assert not got["w"].any()  # it read the chief's initial values
        assert sess.run("global_step:0") == 1  # and its update reached the chief


def _sync_model(spec, task, needed, total):
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(
            tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}", cluster=spec)
        ):
            x = tf.placeholder(tf.float32, [None, 3], name="x")
            w = tf.Variable(tf.zeros([3, 1]), name="w")
            step = tf.train.get_or_create_global_step()
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=needed, total_num_replicas=total
            )
            train = opt.minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    return graph, x, w, step, train, init, opt


def _run_together(steps_of):
    """Run each function in its own thread (one client each); re-raise the first error."""
    errors = []

    def guarded(fn):
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(fn,)) for fn in steps_of]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]


def test_sync_replicas_across_clients_applies_the_mean_once_per_round(job):
    spec, (ps, w0, w1) = job
    tf.Session.reset(w0.target)
    models = [_sync_model(spec, i, 2, 2) for i in range(2)]
    feeds = [np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)]
    sessions = [tf.Session(s.target, graph=m[0]) for s, m in zip((w0, w1), models)]
    try:
        sessions[0].run(models[0][5])  # the chief initializes
        metrics = [[], []]

        def worker(i):
            def steps():
                _, x, _, _, train, _, _ = models[i]
                for _ in range(3):
                    sessions[i].run(train, {x: feeds[i]})
                metrics[i] = sessions[i].step_metrics()

            return steps

        _run_together([worker(0), worker(1)])
        # By hand: per round, gradient of mean((x w - 1)^2) wrt each weight is 2 c (3 c w - 1)
        # for x filled with c; w -= 0.1 * mean over the two clients (c = 1, 2).
        w = 0.0
        for _ in range(3):
            w -= 0.1 * (2 * 1 * (3 * 1 * w - 1) + 2 * 2 * (3 * 2 * w - 1)) / 2
        np.testing.assert_allclose(sessions[1].run(models[1][2]).ravel(), [w] * 3, rtol=1e-5)
        assert sessions[0].run(models[0][3]) == 3  # one global step per round
        assert all(m["replicas_used"] == 1 and m["gradients_dropped"] == 0 for ms in metrics for m in ms)
    finally:
        for sess in sessions:
            sess.close()


def test_sync_replicas_with_a_backup_client_drops_the_late_gradients(job):
    spec, (ps, w0, w1) = job
    tf.Session.reset(w0.target)
    models = [_sync_model(spec, i, 1, 2) for i in range(2)]
    sessions = [tf.Session(s.target, graph=m[0]) for s, m in zip((w0, w1), models)]
    try:
        sessions[0].run(models[0][5])
        dropped = [0, 0]

        def worker(i):
            def steps():
                _, x, _, _, train, _, _ = models[i]
                for _ in range(6):
                    sessions[i].run(train, {x: np.ones((2, 3), np.float32)})
                dropped[i] = sum(m["gradients_dropped"] for m in sessions[i].step_metrics())

            return steps

        _run_together([worker(0), worker(1)])
        rounds = sessions[0].run(models[0][3])
        assert rounds + sum(dropped) == 12  # each of the 12 gradients applied or dropped
        assert rounds >= 6  # a round needs one gradient: each client's steps made at least its own
    finally:
        for sess in sessions:
            sess.close()


def test_sync_replicas_protocol_ops_exist_for_tf1_scripts(job):
    spec, (ps, w0, w1) = job
    graph = tf.Graph()
    with graph.as_default():
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 2)
        tf1_message = r"^get_init_tokens_op\(\) should be called after apply_gradients\(\)\.$"
        with pytest.raises(ValueError, match=tf1_message):
            opt.get_init_tokens_op()
    graph, x, w, step, train, init, opt = _sync_model(spec, 0, 2, 2)
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=graph) as sess:
        sess.run(init)
        sess.run([opt.chief_init_op, opt.local_step_init_op, opt.get_init_tokens_op()])
        assert list(sess.run(opt.ready_for_local_init_op)) == []
        assert opt.get_chief_queue_runner().create_threads(sess) == []


def test_a_job_over_tls():
    from distributed import Security

    security = Security.temporary()
    spec = _spec(workers=1)
    servers = [
        tf.train.Server(spec, "ps", 0, security=security),
        tf.train.Server(spec, "worker", 0, security=security),
    ]
    try:
        assert servers[0].scheduler_address.startswith("tls://")
        assert servers[1].worker_address.startswith("tls://")
        graph, x, w, step, train, init = _model(spec, 0)
        with tf.Session(servers[1].target, graph=graph) as sess:  # the Server's security is the session's
            sess.run(init)
            sess.run(train, {x: np.ones((2, 3), np.float32)})
            assert float(sess.run(w)[0, 0]) == pytest.approx(0.2)
    finally:
        for server in reversed(servers):
            server.stop()


def test_a_run_of_several_steps_counts_them_all_between_graph(job):
    spec, (ps, w0, w1) = job
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster=spec)):
            data = tf.data.Dataset.from_tensors(np.ones((4, 3), np.float32)).repeat()
            x = tf.data.make_one_shot_iterator(data).get_next()
            w = tf.Variable(tf.zeros((3, 1)), name="w_looped")
            step = tf.train.get_or_create_global_step()
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    tf.Session.reset(w0.target)
    with tf.Session(w0.target, graph=graph, config=tf.ConfigProto(steps_per_run=3)) as sess:
        sess.run(init)
        sess.run(train)
        sess.run(train)
        assert sess.run(step) == 6
        want = 0.0
        for _ in range(6):  # each step: w -= 0.1 * 2 (3 w - 1), by hand
            want -= 0.2 * (3 * want - 1)
        np.testing.assert_allclose(sess.run(w).ravel(), [want] * 3, rtol=1e-5)
