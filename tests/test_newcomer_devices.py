"""A newcomer's first runs: a plain Dask cluster, devices it lacks, a script without a main guard."""

import os
import subprocess
import sys
import textwrap
import types
import warnings

import numpy as np
import pytest
from distributed import Client, LocalCluster

import daskflow as tf
from daskflow import local_dask_cluster as local_cluster_module
from daskflow.errors import InvalidArgumentError
from daskflow.runtime.cluster.devices import cluster_workers, job_of, warn_ignored_devices

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 1.0]], np.float32)
Y = X @ np.array([[2.0], [-1.0]], np.float32)


@pytest.fixture(scope="module")
def plain():
    """Dask's own LocalCluster: workers named 0 and 1."""
    with LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            yield client


pytestmark = pytest.mark.usefixtures("fresh_graph")
# beside the clusters: no timings checked and no fixed port bound (free ports only)


def _gradient_descent_losses(steps, lr=0.1):
    """Mean squared error of x @ w, w from zeros, by hand."""
    w, losses = np.zeros((2, 1)), []
    for _ in range(steps):
        err = X @ w - Y
        losses.append(np.mean(err**2))
        w = w - lr * 2 * X.T @ err / len(X)
    return losses


def _regression(device=None):
    with tf.device(device):
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, y, loss, train


# -- 1. workers named by integers -----------------------------------------------------------


def test_workers_named_by_integers_are_worker_tasks():
    info = {"workers": {"tcp://b": {"name": "1"}, "tcp://a": {"name": 0}, "tcp://p": {"name": "ps-0"}}}
    found = [(w.name, w.job, w.task, w.address) for w in cluster_workers(info)]
    assert found == [
        ("ps-0", "ps", 0, "tcp://p"),
        ("0", "worker", 0, "tcp://a"),
        ("1", "worker", 1, "tcp://b"),
    ]
    assert job_of("3") == "worker" and job_of("trainer") is None


def test_two_workers_that_are_the_same_task_are_refused_by_name():
    info = {"workers": {"tcp://a": {"name": "worker-0"}, "tcp://b": {"name": 0}}}
    with pytest.raises(ValueError, match=r"'worker-0' and '0' are both /job:worker/task:0"):
        cluster_workers(info)


@pytest.mark.parametrize("device, worker", [(None, "0"), ("/job:worker/task:1", "1")])
def test_a_plain_dask_cluster_trains_and_names_its_workers(plain, device, worker):
    x, y, loss, train = _regression(device)
    with tf.Session(plain) as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {x: X, y: Y})[0] for _ in range(5)]
        where = sess.placement([loss, train], {x: X, y: Y})
    np.testing.assert_allclose(losses, _gradient_descent_losses(5), rtol=1e-5)
    assert (where[loss.op.name].device, where[loss.op.name].worker) == (device or "", worker)


# -- 2. devices the cluster lacks ------------------------------------------------------------


def test_a_device_the_cluster_lacks_is_an_invalid_argument_naming_it_and_listing_the_devices(plain):
    with tf.device("/job:ps/task:0"):
        z = tf.constant(1.0) + 1.0
    with tf.Session(plain) as sess:
        with pytest.raises(InvalidArgumentError, match=r"'/job:ps/task:0' is not in the cluster") as err:
            sess.run(z)
    assert isinstance(err.value, ValueError)  # old `except ValueError` still catches it
    assert "/job:worker/replica:0/task:1/device:CPU:0" in str(err.value)


def test_the_soft_placement_warning_points_at_the_callers_line(plain):
    with tf.device("/job:worker/task:1/device:GPU:0"):
        z = tf.constant(1.0) + 1.0
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(plain, config=config) as sess:
        lacked = r"'/job:worker/task:1/device:GPU:0' is not in the cluster"
        with pytest.warns(UserWarning, match=lacked) as caught:
            assert sess.run(z) == 2.0
    assert [w.filename for w in caught] == [__file__]


class _Session:
    """Stands for a Session: anything a weak reference can name."""


def test_ignored_devices_are_warned_about_once_per_session():
    with tf.device("/job:nope/task:7"):
        a = tf.constant(1.0) + 1.0
    plan, session, other = types.SimpleNamespace(ops=[a.op]), _Session(), _Session()
    with pytest.warns(UserWarning, match=r"'/job:nope/task:7' are ignored") as caught:
        assert warn_ignored_devices(plan, session)
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_ignored_devices(plan, session)
    with pytest.warns(UserWarning, match="/job:nope/task:7"):
        assert warn_ignored_devices(plan, other)


@pytest.mark.parametrize("device", ["/cpu:0", "/job:localhost/replica:0/task:0/device:CPU:0", ""])
def test_devices_an_embedded_session_has_are_not_warned_about(device):
    with tf.device(device):
        a = tf.constant(1.0) + 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_ignored_devices(types.SimpleNamespace(ops=[a.op]), _Session())


# -- 3. local_cluster in a script without `if __name__ == "__main__":` -----------------------


def _run_script(tmp_path, body):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(body))
    env = {**os.environ, "PYTHONPATH": REPO}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.process
def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path):
    done = _run_script(
        tmp_path,
        """
        import daskflow as tf
        cluster = tf.local_cluster(ps=0, workers=1, dashboard_address=None)
        print("started")
        """,
    )
    assert done.returncode != 0 and "started" not in done.stdout
    assert "RuntimeError: tf.local_cluster() ran again in its own worker processes" in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr
    assert done.stderr.count("Traceback") == 1, done.stderr


@pytest.mark.process
def test_a_guarded_script_runs(tmp_path):
    done = _run_script(
        tmp_path,
        """
        import daskflow as tf

        if __name__ == "__main__":
            with tf.local_cluster(ps=0, workers=1, dashboard_address=None) as cluster:
                with tf.Session(cluster) as sess:
                    print("result", sess.run(tf.constant(2.0) + 1.0))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "result 3.0" in done.stdout


def test_a_worker_process_reimporting_the_script_stops(monkeypatch, tmp_path):
    """What each worker process does: tell the parent and end quietly, or with no parent
    listening, raise the clear error itself."""
    process = local_cluster_module.multiprocessing.current_process()
    monkeypatch.setattr(process, "_inheriting", True, raising=False)
    monkeypatch.delenv(local_cluster_module._MARKER, raising=False)
    with pytest.raises(RuntimeError, match='if __name__ == "__main__":'):
        tf.local_cluster(ps=0, workers=1)
    marker = tmp_path / "reimported"
    monkeypatch.setenv(local_cluster_module._MARKER, str(marker))
    with pytest.raises(SystemExit):
        tf.local_cluster(ps=0, workers=1)
    assert marker.exists()


def test_an_embedded_session_warns_once_that_it_ignores_devices():
    with tf.device("/job:nope/task:7"):
        a = tf.constant(1.0) + 1.0
    with tf.Session() as sess:
        with pytest.warns(UserWarning, match="'/job:nope/task:7' are ignored") as caught:
            assert sess.run(a) == 2.0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert sess.run(a * 2) == 4.0
    assert [w.filename for w in caught] == [__file__]
