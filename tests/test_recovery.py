"""Training that survives kill -9 of a worker, on a CLI-started cluster with Nannies."""

import asyncio
import os
import signal
import threading
import time

import numpy as np
import pytest
from distributed import Client, get_worker

import daskflow as tf
from daskflow.runtime.cluster import scope
from daskflow.runtime.cluster.devices import scheduler_identity
from daskflow.runtime.wire import rendezvous
from tests.cli_cluster import cli_cluster, start_worker
from tests.test_data_parallel import contract_program
from tests.waiting import poll_for

pytestmark = [pytest.mark.usefixtures("fresh_graph"), pytest.mark.process]


def _worker_pids(address):
    """``{worker name: pid}`` of the cluster at ``address``."""
    with Client(address, set_as_default=False) as client:
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
    return {names[a]: pid for a, pid in pids.items()}


def _kill(address, name):
    """kill -9 the process of worker ``name``."""
    os.kill(_worker_pids(address)[name], signal.SIGKILL)


class KillAt(tf.train.SessionRunHook):
    """kill -9 the process of worker ``name`` once the global step reaches ``step``;
    ``wait_gone``: return only once the session has seen it leave the scheduler."""

    def __init__(self, address, name, step, wait_gone=False):
        self.address, self.name, self.step, self.done = address, name, step, False
        self.wait_gone = wait_gone

    def begin(self):
        self.global_step = tf.train.get_global_step()

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        if not self.done and run_values.results >= self.step:
            if self.wait_gone:  # noticed between steps, not within one
                _kill_minus_9(self.address, self.name, run_context.session)
            else:
                _kill(self.address, self.name)
            self.done = True


@pytest.mark.parametrize("victim", ["ps-0", "worker-1"])
@pytest.mark.slow
def test_training_goes_on_after_kill_minus_9_of_a_worker(victim):
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=True) as (address, _):
        config = tf.ConfigProto(backup_variables_every=1)
        kill = KillAt(address, victim, 100)
        accuracy, metrics = contract_program(address, sync=True, steps=170, config=config, extra_hooks=[kill])
    recoveries = contract_program.recoveries
    print(
        f"\nkilled {victim}: recoveries {recoveries}, accuracy {accuracy:.3f}, "
        f"longest step {max(m['wall_time'] for m in metrics):.1f} s"
    )
    assert kill.done
    assert accuracy >= 0.93
    # Noticed within 2 s, the Nanny's restart awaited: no step waits out Dask's 30 s connect
    # timeout behind a task still delivering to the dead worker (see the test below).
    assert max(m["wall_time"] for m in metrics) < 25
    if victim == "ps-0":  # its variables were lost: restored from the copies, nothing lost
        assert len(recoveries) == 1 and recoveries[0]["steps_lost"] == 0
        assert max(m["wall_time"] for m in metrics) >= 1  # the pause shows in its step
        assert recoveries[0]["lost"] == ["ps-0"]


async def _delivering(key, seconds):
    """Task ``key``, whose results are still on their way (to a worker that died, say)."""
    delivery = asyncio.ensure_future(asyncio.sleep(seconds))
    await rendezvous.delivered(get_worker(), key, [delivery])
    return "delivered"


def test_a_task_still_delivering_its_results_lets_the_next_task_run():
    with tf.local_cluster(ps=0, workers=1, processes=False) as cluster, Client(cluster) as client:
        slow = client.submit(_delivering, "delivering", 3.0, key="delivering")
        after = client.submit(lambda: "ran", pure=False)
        assert after.result(timeout=1.5) == "ran"  # one thread: it waited 3 s behind `slow`
        assert slow.result(timeout=10) == "delivered"


def test_with_no_worker_left_a_run_fails_clearly_within_the_bound():
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0)
    with tf.device("/job:worker/task:0"):
        y = v * 2.0
    config = tf.ConfigProto(recovery_wait_secs=1, recovery_timeout_secs=3)
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster:
        with tf.Session(cluster, config=config) as sess:
            sess.run(v.initializer)
            assert sess.run(y) == 2.0
            cluster.scale(0)
            with pytest.raises(RuntimeError, match="left the cluster|no workers|no worker to continue"):
                sess.run(y)


class ReplaceAt(KillAt):
    """kill -9 a replica's worker, then start a worker under a new name in its place."""

    def __init__(self, address, name, step, newcomer, procs):
        super().__init__(address, name, step)
        self.newcomer, self.procs = newcomer, procs

    def after_run(self, run_context, run_values):
        if self.done or run_values.results < self.step:
            return
        super().after_run(run_context, run_values)
        self.procs.append(start_worker(self.address, self.newcomer, nanny=False))
        with Client(self.address, set_as_default=False) as client:
            poll_for(
                lambda: self.newcomer in {w["name"] for w in scheduler_identity(client)["workers"].values()},
                60,
                f"{self.newcomer} to join",
                every=0.2,
            )


class PlansOnTheWorkers(tf.train.SessionRunHook):
    """At the end: the session's plans in use, and the program plugins installed for it."""

    def end(self, session):
        runtime = session.runtime
        prefix = scope.programs_prefix(runtime.token)
        self.in_use = {prefix + lowered.plan_id for lowered in runtime.lowered.values()}

        def installed(dask_scheduler):
            return [name for name in dask_scheduler.worker_plugins if name.startswith(prefix)]

        self.installed = set(runtime.client.run_on_scheduler(installed))


@pytest.mark.slow
def test_a_worker_joining_under_a_new_name_takes_a_lost_replicas_place():
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=False) as (address, procs):
        replace = ReplaceAt(address, "worker-1", 60, "worker-3", procs)
        plans = PlansOnTheWorkers()
        accuracy, metrics = contract_program(address, sync=False, steps=160, extra_hooks=[replace, plans])
    assert replace.done
    assert plans.installed == plans.in_use  # the plan made before the replacement is gone
    used = [m["replicas_used"] for m in metrics if m["replicas_used"]]  # the training steps
    assert used[-5:] == [3] * 5, used  # three replicas again: worker-3 works
    for recovered in contract_program.recoveries:  # a lost replica is not waited for
        assert recovered["lost"] == ["worker-1"] and not recovered["stand_ins"]
        assert recovered["seconds"] < 10
    assert max(m["wall_time"] for m in metrics) < 10
    assert accuracy >= 0.9


@pytest.mark.slow
def test_a_ps_that_does_not_come_back_is_replaced_by_a_stand_in():
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=False) as (address, _):  # no Nanny: a killed worker stays dead
        config = tf.ConfigProto(backup_variables_every=1, recovery_wait_secs=3)
        kill = KillAt(address, "ps-0", 100, wait_gone=True)  # gone before the next step is built
        accuracy, metrics = contract_program(address, sync=True, steps=170, config=config, extra_hooks=[kill])
    (recovered,) = contract_program.recoveries
    assert recovered["lost"] == ["ps-0"] and recovered["steps_lost"] == 0
    assert recovered["stand_ins"]["ps-0"] in {"worker-0", "worker-1", "worker-2"}
    assert accuracy >= 0.93
    assert max(m["wall_time"] for m in metrics) < 60


PART = 1 << 18  # bytes of the file read before the kill


def _pipe_capacity():
    """The most a pipe may buffer here: what a writer may be ahead of its reader by."""
    with open("/proc/sys/fs/pipe-max-size") as f:
        return int(f.read())


def _writer_of(fifo, pids):
    """The name of the worker among ``pids`` (name -> pid) that has ``fifo`` open, or None."""
    for name, pid in pids.items():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == fifo:
                    return name
            except OSError:
                continue
    return None


def _read_part_then_kill(fifo, address, report):
    """Read the first ``PART`` bytes a worker writes into the named pipe ``fifo``, then kill -9
    that worker: the pipe holds the rest back, so the write is certainly half way.
    ``report``: what was seen (bytes read, the writer); nothing killed if the write never came."""
    pids = _worker_pids(address)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # at once, whether or not a writer is there

    def read_part():  # what the pipe holds now, until PART bytes are read
        while report["read"] < PART:
            try:
                chunk = os.read(fd, PART - report["read"])
            except BlockingIOError:  # the writer is there, between writes
                return False
            if not chunk:  # no writer yet
                return False
            report["read"] += len(chunk)
        return True

    try:
        try:
            poll_for(read_part, 60, f"{PART} bytes written into {fifo}", every=0.01)
        except AssertionError:  # the write never came: the caller sees report["read"] short
            return
        report["writer"] = _writer_of(fifo, pids)
        if report["writer"] is not None:
            os.kill(pids[report["writer"]], signal.SIGKILL)
            report["killed"] = True
    finally:
        os.close(fd)  # a writer still there (the kill did not happen) fails on the closed pipe


def test_a_save_killed_half_way_leaves_the_previous_checkpoint_latest(tmp_path):
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.device("/job:ps/task:0"):
            big = tf.Variable(tf.zeros([4_000_000]), name="big")  # 16 MB: far more than a pipe holds
            small = tf.Variable(1.0, name="small")
        saver = tf.train.Saver()
        with tf.Session(address) as sess:
            sess.run(tf.global_variables_initializer())
            first = saver.save(sess, f"{tmp_path}/model", global_step=1)
            sess.run(tf.assign(small, 2.0))
            report = {"read": 0, "writer": None, "killed": False}
            write = sess.write_checkpoint
            killer = None

            def write_into_a_pipe(names, shard_url):
                # ps-0's data shard (it holds both variables) is a named pipe: its writer waits
                # on this test's reads.
                nonlocal killer
                os.mkfifo(shard_url(0, 1))
                killer = threading.Thread(
                    target=_read_part_then_kill, args=(shard_url(0, 1), address, report)
                )
                killer.start()
                return write(names, shard_url)

            sess.write_checkpoint = write_into_a_pipe
            try:
                interrupted = r"checkpoint not written: worker\(s\) \['ps-0'\] left"
                with pytest.raises(RuntimeError, match=interrupted):
                    saver.save(sess, f"{tmp_path}/model", global_step=2)
            finally:
                sess.write_checkpoint = write
                if killer is not None:
                    killer.join()
            # The kill landed mid-write: part of the file was read, the pipe held the rest back.
            assert report["killed"] and report["writer"] == "ps-0", report
            assert PART <= report["read"] and report["read"] + _pipe_capacity() < 4_000_000 * 4
            assert not os.path.exists(f"{tmp_path}/model-2.index")  # no index: no checkpoint
            assert tf.train.latest_checkpoint(str(tmp_path)) == first
            saver.restore(sess, first)  # the values died with ps-0; the checkpoint brings them back
            assert sess.run(small) == 1.0 and sess.run(tf.reduce_sum(big)) == 0.0


def test_variable_futures_after_their_worker_died_say_so_instead_of_waiting():
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.device("/job:ps/task:0"):
            a = tf.Variable([1.0], name="a")
            b = tf.Variable([2.0], name="b")
            bump = tf.group(tf.assign_add(a, [1.0]), tf.assign_add(b, [1.0]))
        with tf.Session(address) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(bump)
            assert sess.runtime.variables["a"].index is not None  # items of the ps's new values
            assert sorted(sess.variable_futures()) == ["a", "b"]
            with Client(address, set_as_default=False) as client:
                pids = client.run(os.getpid)
                names = {w: info["name"] for w, info in scheduler_identity(client)["workers"].items()}
            os.kill(next(pid for w, pid in pids.items() if names[w] == "ps-0"), signal.SIGKILL)
            with pytest.raises(RuntimeError, match=r"the values of \['a', 'b'\] were lost"):
                sess.variable_futures()


@pytest.mark.slow
def test_steps_dispatched_asynchronously_are_submitted_again_after_a_loss():
    from daskflow.datasets import load_digits
    from tests.test_data_parallel import _params, mlp

    data = load_digits(one_hot=True)
    names = ["ps-0", "worker-0", "worker-1"]
    with cli_cluster(names, nanny=True) as (address, _):
        ds = tf.data.Dataset.from_tensor_slices((data.train.images, data.train.labels)).shuffle(2000, seed=0)
        x, y_ = ds.repeat().batch(64).make_one_shot_iterator().get_next()
        with tf.device(tf.train.replica_device_setter(cluster={"ps": ["ps-0"], "worker": names[1:]})):
            params = _params([64, 64, 10])
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=mlp(x, params)))
            opt = tf.train.SyncReplicasOptimizer(tf.train.AdamOptimizer(0.01), 2, 2)
            train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        xt = tf.placeholder(tf.float32, [None, 64])
        yt = tf.placeholder(tf.float32, [None, 10])
        correct = tf.equal(tf.argmax(mlp(xt, params), 1), tf.argmax(yt, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        config = tf.ConfigProto(async_dispatch=2, backup_variables_every=1)
        with tf.Session(address, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(250):
                if i == 100:
                    KillAt(address, "ps-0", 0).after_run(None, tf.train.SessionRunValues(1, None, None))
                sess.run(train)
            sess.sync()
            assert sess.run(tf.train.get_global_step()) == 250  # every step ran, once
            value = sess.run(accuracy, {xt: data.test.images, yt: data.test.labels})
            (recovered,) = sess.recoveries
    assert recovered["lost"] == ["ps-0"] and recovered["steps_lost"] == 0
    assert value >= 0.93


def test_a_loss_met_by_the_sessions_thread_and_another_at_once_loses_no_run():
    """The session's thread dispatches updates of one variable (``async_dispatch``) while
    another thread runs updates of a second, both on the ps that is killed: each thread
    meets the loss and recovers (one recovery at a time), and every run counts once."""
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.device("/job:ps/task:0"):
            a = tf.get_variable("a", initializer=tf.zeros([3]))
            b = tf.get_variable("b", initializer=tf.zeros([3]))
        with tf.device("/job:worker/task:0"):
            one = tf.ones([3]) * 1.0
        with tf.device("/job:ps/task:0"):
            bump_a, bump_b = tf.assign_add(a, one).op, tf.assign_add(b, one).op
        config = tf.ConfigProto(async_dispatch=2, backup_variables_every=1)
        with tf.Session(address, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            errors = []

            def other():
                try:
                    for _ in range(40):
                        sess.run(bump_b)
                except Exception as e:  # noqa: BLE001 - asserted below
                    errors.append(e)

            thread = threading.Thread(target=other)
            thread.start()
            for i in range(40):
                if i == 10:
                    _kill(address, "ps-0")
                sess.run(bump_a)
            thread.join()
            assert errors == []
            np.testing.assert_array_equal(sess.run(a), np.full(3, 40.0))
            np.testing.assert_array_equal(sess.run(b), np.full(3, 40.0))
            assert sess.recoveries and all(r["lost"] == ["ps-0"] for r in sess.recoveries)


@pytest.mark.slow
def test_without_copies_training_goes_on_from_the_latest_checkpoint(tmp_path):
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=True) as (address, _):
        kill = KillAt(address, "ps-0", 110)
        accuracy, _ = contract_program(
            address,
            sync=True,
            steps=200,
            config=tf.ConfigProto(backup_variables=False),
            extra_hooks=[kill],
            checkpoint_dir=str(tmp_path),
            save_checkpoint_steps=25,
        )
    assert kill.done
    assert contract_program.from_checkpoints == [{"checkpoint": f"{tmp_path}/model.ckpt-100"}]
    assert accuracy >= 0.93


# -- copies by default: a lost ps loses at most the copy window ---------------------------------

LEARNING_RATE = 0.05


def _batches(count):
    """Distinct (x, y) batches: each step moves the weights somewhere new."""
    rng = np.random.default_rng(7)
    return [
        (rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32))
        for _ in range(count)
    ]


def _numpy_step(w, batch):
    """One gradient descent step on 0.5 * sum((x @ w - y)^2), as in numpy."""
    x, y = batch
    return w - LEARNING_RATE * (x.T @ (x @ w - y))


def _trajectory(batches):
    """The weights after 0, 1, ... len(batches) steps, from zeros."""
    out = [np.zeros(3, np.float32)]
    for batch in batches:
        out.append(_numpy_step(out[-1], batch).astype(np.float32))
    return out


def _regression():
    """Weights on the ps, their gradient on worker-0; returns (w, train op, x, y)."""
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.zeros(3, np.float32), name="w")
    opt = tf.train.GradientDescentOptimizer(LEARNING_RATE)
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None])
        loss = 0.5 * tf.reduce_sum(tf.square(tf.reduce_sum(x * w, axis=1) - y))
        grads = opt.compute_gradients(loss, [w])
    with tf.device("/job:ps/task:0"):
        train = opt.apply_gradients(grads)
    return w, train, x, y


def _kill_minus_9(address, name, sess):
    """kill -9 worker ``name``; return once ``sess`` has seen it leave (a step built before
    would send to the dead worker's address and fail instead of recovering)."""
    _kill(address, name)
    poll_for(lambda: name not in sess.runtime.workers_now(), 30, f"{name} to leave after kill -9", every=0.1)


def _train(sess, train, x, y, batches):
    for bx, by in batches:
        sess.run(train, {x: bx, y: by})


def _slow_step(seconds):
    """A step on worker-0 that runs for ``seconds`` and updates no variable: the copies'
    window counts time spent in steps, not between them."""
    with tf.device("/job:worker/task:0"):
        return tf.py_func(lambda s: (time.sleep(float(s)), np.float32(s))[1], [seconds], tf.float32)


def test_a_killed_ps_loses_at_most_the_steps_since_the_last_timed_copy():
    window = 2.0
    batches = _batches(10)
    expected = _trajectory(batches)
    w, train, x, y = _regression()
    slow = _slow_step(window)
    config = tf.ConfigProto(backup_variables_secs=window, recovery_wait_secs=1)
    with cli_cluster(["ps-0", "worker-0"], nanny=False) as (address, _):
        with tf.Session(address, config=config) as sess:
            sess.run(w.initializer)
            _train(sess, train, x, y, batches[:5])
            sess.run(slow)  # the window has passed in steps: step 6 also copies w to worker-0
            assert sess.runtime.backup_schedule.busy >= window
            _train(sess, train, x, y, batches[5:9])
            _kill_minus_9(address, "ps-0", sess)
            _train(sess, train, x, y, batches[9:])  # recovers, on worker-0 standing in
            value = sess.run(w)
            (recovered,) = sess.recoveries
    # Steps 7-9 came within the window of step 6 (or one of them started a new window).
    assert recovered["lost"] == ["ps-0"] and recovered["stand_ins"] == {"ps-0": "worker-0"}
    assert 0 <= recovered["steps_lost"] <= 3
    went_on_from = 9 - recovered["steps_lost"]
    np.testing.assert_allclose(value, _numpy_step(expected[went_on_from], batches[9]), rtol=1e-5)


def test_the_default_config_survives_kill_minus_9_of_the_ps():
    batches = _batches(6)
    expected = _trajectory(batches)
    w, train, x, y = _regression()
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.Session(address) as sess:  # no ConfigProto: copies are on
            sess.run(w.initializer)  # the first copy: the initial values
            _train(sess, train, x, y, batches[:5])
            _kill_minus_9(address, "ps-0", sess)
            _train(sess, train, x, y, batches[5:])  # waits for the Nanny's new ps-0
            value = sess.run(w)
            (recovered,) = sess.recoveries
    assert recovered["lost"] == ["ps-0"] and not recovered["stand_ins"]
    # The window (30 s) has not passed, but the 1st, 2nd and 4th updating steps copied
    # (the initializer, training steps 1 and 3): of the 5 steps, at most 2 are lost.
    assert 0 <= recovered["steps_lost"] <= 2
    went_on_from = 5 - recovered["steps_lost"]
    np.testing.assert_allclose(value, _numpy_step(expected[went_on_from], batches[5]), rtol=1e-5)


@pytest.mark.parametrize(
    "names, first",
    [
        (["ps-0", "worker-0", "worker-1"], "worker-0"),  # runs the gradients: the step recovers
        (["ps-0", "ps-1", "worker-0"], "ps-1"),  # in no step: none notices, the copies go anyway
    ],
)
def test_two_workers_lost_one_after_the_other_never_abort_training(names, first):
    # ps-0's copies are on the next name: kill it, then ps-0. The first loss takes the copies
    # with it; they are made again at once, and the second loss restores them.
    batches = _batches(14)
    expected = _trajectory(batches)
    w, train, x, y = _regression()
    config = tf.ConfigProto(recovery_wait_secs=20)
    with cli_cluster(names, nanny=True) as (address, _):
        with tf.Session(address, config=config) as sess:
            sess.run(w.initializer)
            _train(sess, train, x, y, batches[:8])  # the initializer and 8 steps: 9 updates
            _kill_minus_9(address, first, sess)
            # Updates 10-13, none a doubling's (16): the first copies again as a copy left.
            _train(sess, train, x, y, batches[8:12])
            _kill_minus_9(address, "ps-0", sess)
            _train(sess, train, x, y, batches[12:])
            value = sess.run(w)
            recoveries = sess.recoveries
    *before, second = recoveries
    assert [r["lost"] for r in before] == ([[first]] if first == "worker-0" else [])
    assert all(r["steps_lost"] == 0 for r in before)
    assert second["lost"] == ["ps-0"]
    # Step 9, the first after the copies left, copied again: at most steps 10-12 are lost.
    assert 0 <= second["steps_lost"] <= 3
    went_on_from = 12 - second["steps_lost"]
    np.testing.assert_allclose(value, _replay_from(expected[went_on_from], batches[12:]), rtol=1e-5)


def _replay_from(w, batches):
    for batch in batches:
        w = _numpy_step(w, batch)
    return w


def test_a_variable_other_steps_changed_is_copied_after_the_next_timed_copy():
    window = 2.0  # longer than the six steps before the slow one take, even on a busy machine
    batches = _batches(7)
    w, train, x, y = _regression()
    with tf.device("/job:ps/task:0"):
        rate = tf.Variable(1.0, name="rate")  # not trained: only a one-off assign changes it
        set_rate = tf.assign(rate, 0.25)
    slow = _slow_step(window)
    config = tf.ConfigProto(backup_variables_secs=window, recovery_wait_secs=1)
    with cli_cluster(["ps-0", "worker-0"], nanny=False) as (address, _):
        with tf.Session(address, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            _train(sess, train, x, y, batches[:4])  # updating steps 2-5: past the early copies' 4th
            sess.run(set_rate)  # the 6th: no copy is due (its window has not passed)
            sess.run(slow)
            _train(sess, train, x, y, batches[4:5])  # a timed copy (7th): rate's is refreshed after it
            flushing = sess.runtime.backup_schedule.flushing
            assert list(flushing) == ["rate"]
            for future, _, _ in flushing.values():
                future.result(timeout=30)  # the copy is made
            held = sess.runtime.variables["rate"]
            # Only the value crossed: the variable's own key (its tuple) is held at home alone.
            assert len(sess.runtime.client.who_has([held.future])[held.future.key]) == 1
            _train(sess, train, x, y, batches[5:6])  # takes the refreshed copy in
            _kill_minus_9(address, "ps-0", sess)
            _train(sess, train, x, y, batches[6:])
            assert sess.run(rate) == 0.25
            (recovered,) = sess.recoveries
    assert recovered["lost"] == ["ps-0"]


def test_with_copies_off_a_lost_ps_aborts_naming_its_variables():
    w, train, x, y = _regression()
    config = tf.ConfigProto(backup_variables=False, recovery_wait_secs=1)
    with cli_cluster(["ps-0", "worker-0"], nanny=False) as (address, _):
        with tf.Session(address, config=config) as sess:
            sess.run(w.initializer)
            _train(sess, train, x, y, _batches(2))
            assert not sess.runtime.table.copies  # no copy was made
            _kill_minus_9(address, "ps-0", sess)
            with pytest.raises(
                tf.errors.AbortedError, match=r"values of \['w'\] were lost.*backup_variables=False"
            ):
                _train(sess, train, x, y, _batches(1))


@pytest.mark.parametrize(
    "options, field",
    [
        ({"backup_variables_secs": -1.0}, "backup_variables_secs"),
        ({"backup_variables_every": -2}, "backup_variables_every"),
        ({"backup_variables": False, "backup_variables_every": 5}, "backup_variables_every"),
        ({"backup_variable_secs": 5.0}, "backup_variable_secs"),  # a typo
    ],
)
def test_bad_backup_options_are_refused_naming_the_field(options, field):
    with pytest.raises(ValueError, match=field):
        tf.ConfigProto(**options)


def test_copies_are_on_by_default_and_off_by_either_switch():
    from daskflow.runtime.cluster.recovery import BackupSchedule

    assert BackupSchedule(tf.ConfigProto()).on
    assert BackupSchedule(tf.ConfigProto()).secs == 30.0
    assert not BackupSchedule(tf.ConfigProto(backup_variables=False)).on
    assert not BackupSchedule(tf.ConfigProto(backup_variables_secs=0)).on
    assert BackupSchedule(tf.ConfigProto(backup_variables_secs=0, backup_variables_every=3)).on


def test_the_early_steps_copy_at_doubling_counts_so_a_loss_costs_under_half_the_work():
    from daskflow.runtime.cluster import recovery

    schedule = recovery.BackupSchedule(tf.ConfigProto())  # the default: a 30 s window
    copies = {"w": ("future", 0)}
    due = [n for n in range(1, 40) if schedule.due(n, ["w"], copies)]
    assert due == [1, 2, 4, 8, 16, 32]  # the window never passed: no step ran
    assert not schedule.due(40, [], copies)  # a step updating nothing does not count
    assert schedule.due(41, ["w"], copies) is False and schedule.updating == 40
    assert schedule.due(64, ["w"], copies) is False  # counted in updating steps, not step numbers
    assert not recovery.BackupSchedule(tf.ConfigProto(backup_variables_secs=0, backup_variables_every=5)).due(
        2, ["w"], copies
    )  # with the window off, only the steps asked for


def test_a_step_copies_when_a_variable_has_none_or_its_steps_ran_for_the_window():
    from daskflow.runtime.cluster import recovery

    schedule = recovery.BackupSchedule(tf.ConfigProto(backup_variables_secs=30.0, backup_variables_every=4))
    copies = {"w": ("future", 1)}
    assert [n for n in range(1, 9) if schedule.due(n, ["w"], copies)] == [1, 2, 4, 8]  # the doubling
    schedule.ran(100.0, 101.0)
    schedule.ran(500.0, 528.0)  # 29 s in steps; the 399 s between them do not count
    assert schedule.busy == 29.0
    assert not schedule.due(9, ["w"], copies)
    assert schedule.due(12, ["w"], copies)  # every 4th step
    schedule.ran(600.0, 620.0)
    schedule.ran(610.0, 629.0)  # in flight with the one before: its 10 s overlap count once
    assert schedule.busy == 29.0
    assert not schedule.due(13, ["w"], copies)
    assert schedule.due(14, ["w", "b"], copies)  # b has none
    schedule.ran(700.0, 730.0)
    assert schedule.due(15, [], copies)  # the window: other variables' copies are refreshed after it
    assert schedule.busy == 0.0 and schedule.taken == 7


def test_a_run_that_only_fetches_a_variable_recovers_when_its_ps_was_lost():
    # The first run after the ps died reads w and runs no step: it restores w from its copy
    # instead of waiting for ever on the dead worker's value. The deadline only makes a
    # regression fail instead of hang.
    batches = _batches(8)
    expected = _trajectory(batches)
    w, train, x, y = _regression()
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.Session(address, config=tf.ConfigProto(recovery_wait_secs=20)) as sess:
            sess.run(w.initializer)
            _train(sess, train, x, y, batches)  # updating steps 2-9: copies after 2, 4 and 8
            _kill_minus_9(address, "ps-0", sess)
            value = sess.run(w, options=tf.RunOptions(timeout_in_ms=60_000))
            (recovery,) = sess.recoveries
    assert recovery["lost"] == ["ps-0"]
    # The copy of updating step 8 (7 training steps) at the latest, step 4's at the earliest.
    assert 1 <= recovery["steps_lost"] <= 4
    np.testing.assert_allclose(value, expected[8 - recovery["steps_lost"]], rtol=1e-5)
