"""Elastic Horovod jobs: generations of ranks, a lost rank's ring ended, training that goes on.

The driver and the rings run against a real (in-process) Dask scheduler, members as
threads with their own clients and bulk receivers; the end-to-end tests start real rank
processes with ``daskflow launch --np N --min-np M`` and kill one with SIGKILL.
"""

import concurrent.futures
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import daskflow as tf
import daskflow.horovod as hvd
from daskflow.launcher import launch
from daskflow.runtime.collectives import RanksChangedError, membership
from daskflow.runtime.collectives.driver import Driver, TooFewRanksError

REPO = Path(__file__).resolve().parent.parent
PROGRAM = Path(__file__).resolve().parent / "horovod_programs" / "elastic_digits.py"
SECRET = b"s" * 32


def _add(into, other):
    np.add(into, other, out=into)


@pytest.fixture(scope="module")
def scheduler():
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def clients(scheduler):
    from distributed import Client

    made = [Client(scheduler, set_as_default=False) for _ in range(4)]
    yield made
    for c in made:
        c.close()


def test_a_generation_places_each_member_by_host():
    g = membership.Generation(3, ("a", "b", "c", "d", "e"), ("h1", "h1", "h2", "h2", "h1"))
    got = {m: g.place(m) for m in g.members}
    assert [got[m]["rank"] for m in "abcde"] == [0, 1, 2, 3, 4]
    assert [got[m]["local_rank"] for m in "abcde"] == [0, 1, 0, 1, 2]
    assert [got[m]["local_size"] for m in "abcde"] == [3, 3, 2, 2, 3]
    # cross rank: the host's index among hosts with a member of that local rank
    assert [(got[m]["cross_rank"], got[m]["cross_size"]) for m in "abcde"] == [
        (0, 2),
        (0, 2),
        (1, 2),
        (1, 2),
        (0, 1),
    ]
    assert g.drops_any_of(("a", "z")) and not g.drops_any_of(("a", "e"))


def test_the_driver_keeps_survivors_first_appends_joiners_and_waits_below_min_np(clients):
    driver_client, member_client = clients[:2]
    job = "driver-test"
    driver = Driver(driver_client, job, expected=3, min_np=2, timeout=0.5)
    for slot in (2, 0):
        membership.register(member_client, job, f"{slot}.aa", slot, "h")
    assert driver.step() is None  # the first generation waits for the third process
    membership.register(member_client, job, "1.aa", 1, "h")
    first = driver.step()
    assert (first.number, first.members, first.ready) == (1, ("0.aa", "1.aa", "2.aa"), True)
    assert membership.current(member_client, job) == first and driver.step() is None
    driver.lost(0)  # rank 0's process died: rank 0 of the next ring is the oldest survivor
    second = driver.step()
    assert (second.number, second.members, second.ready) == (2, ("1.aa", "2.aa"), True)
    membership.register(member_client, job, "0.bb", 0, "h")  # slot 0 started again: a new member
    third = driver.step()
    assert third.members == ("1.aa", "2.aa", "0.bb") and driver.slots() == [1, 2, 0]
    driver.lost(1)
    driver.lost(2)
    fourth = driver.step()
    assert fourth.members == ("0.bb",) and not fourth.ready  # below min_np: its member waits
    with pytest.raises(TooFewRanksError, match="1 rank.*fewer than --min-np 2"):
        for _ in range(40):
            driver.step()
            __import__("time").sleep(0.05)
    membership.forget(driver_client, job)
    assert membership.current(member_client, job) is None


def _join_all(clients, job, idents, after):
    with concurrent.futures.ThreadPoolExecutor(len(idents)) as pool:
        futures = [
            pool.submit(membership.join_generation, c, job, i, "127.0.0.1", SECRET, after, 30)
            for c, i in zip(clients, idents)
        ]
        return [f.result() for f in futures]


def test_an_abandoned_ring_fails_at_once_and_the_survivors_form_the_next(clients):
    job = "ring-test"
    driver = Driver(clients[3], job, expected=3, min_np=2)
    idents = ["0.a", "1.a", "2.a"]
    for slot, ident in enumerate(idents):
        membership.register(clients[slot], job, ident, slot, "127.0.0.1")
    driver.step()
    formed = _join_all(clients[:3], job, idents, after=0)
    comms = [c for _, c in formed]
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        sums = list(pool.map(lambda c: c.allreduce([np.full(4, c.rank + 1.0)], _add, "g")[0], comms))
    for got in sums:
        np.testing.assert_array_equal(got, np.full(4, 6.0))
    # rank 1 is lost mid-collective: the others wait on it until their ring is abandoned
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        waiting = [pool.submit(comms[r].allreduce, [np.ones(4)], _add, "h") for r in (0, 2)]
        comms[1].close()
        for r in (0, 2):
            comms[r].transport.abandon("slot 1 lost")
        for w in waiting:
            lost = r"h \(float64\[\[4\]\]\): (slot 1 lost|rank \d cannot reach rank 1)"
            with pytest.raises(RanksChangedError, match=lost):
                w.result(timeout=10)
    driver.lost(1)
    assert driver.step().members == ("0.a", "2.a")
    survivors = _join_all([clients[0], clients[2]], job, ["0.a", "2.a"], after=1)
    assert [(g.number, c.rank, c.size) for g, c in survivors] == [(2, 0, 2), (2, 1, 2)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        sums = list(pool.map(lambda gc: gc[1].allreduce([np.full(2, 5.0)], _add, "g2")[0], survivors))
    for got in sums:
        np.testing.assert_array_equal(got, np.full(2, 10.0))
    for c in [c for _, c in survivors] + [comms[0], comms[2]]:
        c.close()
    membership.forget(clients[3], job)


def test_one_rank_state_rolls_back_a_failed_attempt_and_runs_again():
    """``hvd.elastic.run`` restores the last commit (variables and values) after an internal
    error and calls the function again; a commit keeps what came before it."""
    hvd.shutdown()
    hvd.init()
    try:
        with tf.Graph().as_default(), tf.Session() as sess:
            w = tf.Variable([1.0, 2.0])
            sess.run(w.initializer)
            state = hvd.elastic.TensorFlowState([w], sess, batch=0)
            attempts, resets = [], []
            state.register_reset_callbacks([lambda: resets.append(hvd.size())])

            @hvd.elastic.run
            def train(state):
                attempts.append((state.batch, list(sess.run(w))))
                sess.run(w.assign_add([10.0, 10.0]))
                state.batch += 1
                state.commit()
                if len(attempts) == 1:
                    sess.run(w.assign([-5.0, -5.0]))  # uncommitted: rolled back
                    state.batch = 99
                    raise hvd.HorovodInternalError("a rank was lost")
                return state.batch

            assert train(state) == 2
            assert attempts == [(0, [1.0, 2.0]), (1, [11.0, 12.0])]
            assert resets == [1]
            np.testing.assert_array_equal(sess.run(w), [21.0, 22.0])
    finally:
        hvd.shutdown()


def _launch_elastic(tmp_path, args, env, timeout=240):
    run_env = {**os.environ, **env, "ELASTIC_MARKS": str(tmp_path)}
    run_env["PYTHONPATH"] = os.pathsep.join([str(REPO), run_env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "daskflow.cli", "launch", *args, str(PROGRAM)]
    done = subprocess.run(command, cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.process
def test_a_rank_killed_mid_training_is_dropped_and_its_restarted_slot_joins(tmp_path):
    """Three ranks; slot 1's process is SIGKILLed at batch 20: the other two go on as a ring of
    two from the last commit, the restarted slot joins at their next commit with rank 0's
    state, and all three finish with the same weights."""
    env = {
        "ELASTIC_BATCHES": "300",
        "ELASTIC_PAUSE": "0.02",
        "ELASTIC_KILL_SLOT": "1",
        "ELASTIC_KILL_AT": "20",
    }
    code, output = _launch_elastic(tmp_path, ["--np", "3", "--min-np", "2"], env)
    assert code == 0, output
    assert "worker-1 exited with code 137" in output, output
    sizes = [int(n) for n in re.findall(r"elastic generation \d+: (\d+) rank", output)]
    assert sizes == [3, 2, 3], output
    assert re.search(r"\[worker-0\] start: rank 0 of 2 at batch (19|20)\b", output), output
    done = re.findall(r"\[worker-(\d)\] done: rank \d of 3, batches 300, .*, checksum ([\d.]+)", output)
    assert sorted(slot for slot, _ in done) == ["0", "1", "2"], output
    assert len({checksum for _, checksum in done}) == 1, output  # the joiner got rank 0's state
    accuracy = float(re.search(r"accuracy ([\d.]+)", output).group(1))
    assert accuracy > 0.85, output


@pytest.mark.process
def test_too_few_ranks_for_longer_than_the_timeout_stops_the_job(tmp_path):
    env = {
        "ELASTIC_BATCHES": "200",
        "ELASTIC_PAUSE": "0.02",
        "ELASTIC_KILL_SLOT": "1",
        "ELASTIC_KILL_AT": "5",
    }
    args = ["--np", "2", "--min-np", "2", "--reset-limit", "0", "--elastic-timeout", "2"]
    code, output = _launch_elastic(tmp_path, args, env)
    assert code == 1, output
    assert "fewer than --min-np: waiting for more" in output
    assert "1 rank(s) for 2 s, fewer than --min-np 2; stopping every rank" in output, output


def test_elastic_limits_are_checked_before_anything_starts():
    with pytest.raises(ValueError, match="min_np <= np <= max_np, got 3, 2, 2"):
        launch("train.py", np=2, min_np=3)
    with pytest.raises(ValueError, match="give np too"):
        launch("train.py", max_np=4)


@pytest.mark.process
def test_an_elastic_job_whose_every_rank_failed_ends_at_once(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import sys\nsys.exit(3)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [
        sys.executable,
        "-m",
        "daskflow.cli",
        "launch",
        "--np",
        "2",
        "--min-np",
        "1",
        "--reset-limit",
        "1",
    ]
    done = subprocess.run(
        [*command, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert output.count("exited with code 3") == 3, output  # two ranks, one restart
    assert "every rank exited and none is started again" in output
