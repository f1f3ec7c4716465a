"""Training that survives kill -9 of a worker, on a CLI-started cluster with Nannies."""

import asyncio
import os
import signal
import threading
import time

import pytest
from distributed import Client, get_worker

import daskflow as tf
from daskflow.runtime import transport
from daskflow.runtime.devices import scheduler_identity
from tests.cli_cluster import cli_cluster, start_worker
from tests.test_data_parallel import contract_program


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


class KillAt(tf.train.SessionRunHook):
    """kill -9 the process of worker ``name`` once the global step reaches ``step``."""

    def __init__(self, address, name, step, then_wait=0.0):
        self.address, self.name, self.step, self.done = address, name, step, False
        self.then_wait = then_wait

    def begin(self):
        self.global_step = tf.train.get_global_step()

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        if not self.done and run_values.results >= self.step:
            with Client(self.address, set_as_default=False) as client:
                pids = client.run(os.getpid)
                names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
            os.kill(next(pid for a, pid in pids.items() if names[a] == self.name), signal.SIGKILL)
            self.done = True
            time.sleep(self.then_wait)  # let the session notice between steps, not within one


@pytest.mark.parametrize("victim", ["ps-0", "worker-1"])
def test_training_goes_on_after_kill_minus_9_of_a_worker(victim):
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=True) as (address, _):
        config = tf.ConfigProto(backup_variables_every=1)
        kill = KillAt(address, victim, 100)
        accuracy, metrics = contract_program(address, sync=True, steps=250, config=config, extra_hooks=[kill])
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
    await transport.delivered(get_worker(), key, [delivery])
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
            deadline = time.time() + 60
            while self.newcomer not in {w["name"] for w in scheduler_identity(client)["workers"].values()}:
                assert time.time() < deadline, f"{self.newcomer} did not join"
                time.sleep(0.2)


def test_a_worker_joining_under_a_new_name_takes_a_lost_replicas_place():
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=False) as (address, procs):
        replace = ReplaceAt(address, "worker-1", 60, "worker-3", procs)
        accuracy, metrics = contract_program(address, sync=False, steps=240, extra_hooks=[replace])
    assert replace.done
    used = [m["replicas_used"] for m in metrics if m["replicas_used"]]  # the training steps
    assert used[-5:] == [3] * 5, used  # three replicas again: worker-3 works
    for recovered in contract_program.recoveries:  # a lost replica is not waited for
        assert recovered["lost"] == ["worker-1"] and not recovered["stand_ins"]
        assert recovered["seconds"] < 10
    assert max(m["wall_time"] for m in metrics) < 10
    assert accuracy >= 0.9


def test_a_ps_that_does_not_come_back_is_replaced_by_a_stand_in():
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=False) as (address, _):  # no Nanny: a killed worker stays dead
        config = tf.ConfigProto(backup_variables_every=1, recovery_wait_secs=3)
        kill = KillAt(address, "ps-0", 100, then_wait=3.0)  # gone before the next step is built
        accuracy, metrics = contract_program(address, sync=True, steps=250, config=config, extra_hooks=[kill])
    (recovered,) = contract_program.recoveries
    assert recovered["lost"] == ["ps-0"] and recovered["steps_lost"] == 0
    assert recovered["stand_ins"]["ps-0"] in {"worker-0", "worker-1", "worker-2"}
    assert accuracy >= 0.93
    assert max(m["wall_time"] for m in metrics) < 60


def _kill_when_writing(address, name):
    """kill -9 worker ``name`` once a checkpoint write is running on the cluster."""
    with Client(address, set_as_default=False) as client:
        for _ in range(400):
            running = client.run_on_scheduler(
                lambda dask_scheduler: [
                    str(k) for k, ts in dask_scheduler.tasks.items() if ts.state == "processing"
                ]
            )
            if any(k.startswith("checkpoint-write") for k in running):
                break
            time.sleep(0.01)
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
    time.sleep(0.05)
    os.kill(next(pid for a, pid in pids.items() if names[a] == name), signal.SIGKILL)


def test_a_save_killed_half_way_leaves_the_previous_checkpoint_latest(tmp_path):
    with cli_cluster(["ps-0", "worker-0"], nanny=True) as (address, _):
        with tf.device("/job:ps/task:0"):
            big = tf.Variable(tf.zeros([25_000_000]), name="big")  # 100 MB: its file takes a while
            small = tf.Variable(1.0, name="small")
        saver = tf.train.Saver()
        with tf.Session(address) as sess:
            sess.run(tf.global_variables_initializer())
            first = saver.save(sess, f"{tmp_path}/model", global_step=1)
            sess.run(tf.assign(small, 2.0))
            killer = threading.Thread(target=_kill_when_writing, args=(address, "ps-0"))
            killer.start()
            with pytest.raises(RuntimeError, match="checkpoint not written"):
                saver.save(sess, f"{tmp_path}/model", global_step=2)
            killer.join()
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
            assert sess._cluster.variables["a"].index is not None  # items of the ps's new values
            assert sorted(sess.variable_futures()) == ["a", "b"]
            with Client(address, set_as_default=False) as client:
                pids = client.run(os.getpid)
                names = {w: info["name"] for w, info in scheduler_identity(client)["workers"].items()}
            os.kill(next(pid for w, pid in pids.items() if names[w] == "ps-0"), signal.SIGKILL)
            with pytest.raises(RuntimeError, match=r"the values of \['a', 'b'\] were lost"):
                sess.variable_futures()


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


def test_without_copies_training_goes_on_from_the_latest_checkpoint(tmp_path):
    names = ["ps-0", "worker-0", "worker-1", "worker-2"]
    with cli_cluster(names, nanny=True) as (address, _):
        kill = KillAt(address, "ps-0", 110)
        accuracy, _ = contract_program(
            address,
            sync=True,
            steps=200,
            extra_hooks=[kill],
            checkpoint_dir=str(tmp_path),
            save_checkpoint_steps=25,
        )
    assert kill.done
    assert contract_program.from_checkpoints == [{"checkpoint": f"{tmp_path}/model.ckpt-100"}]
    assert accuracy >= 0.93
