"""Several sessions on one dashboard page, each with its own scalars; a cluster without the page."""

import json
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

import daskflow as tf
from daskflow.dashboard import publish
from tests.clusters import module_cluster
from tests.models import ps_linear_graph
from tests.waiting import poll_for

pytestmark = pytest.mark.process

BATCH = np.ones((4, 300), np.float32)


def _data(base):
    with urllib.request.urlopen(f"{base}/daskflow/data.json", timeout=30) as answer:
        return json.loads(answer.read())


def _scalars(base, token, tag, count, timeout=30):
    """Session ``token``'s values of ``tag`` once it has ``count`` of them."""

    def shown():
        session = next((s for s in _data(base)["sessions"] if s["session"] == token), None)
        values = (session or {}).get("scalars", {}).get(tag, [])
        return values if len(values) >= count else None

    return poll_for(shown, timeout, f"{count} values of {tag!r} on the page of session {token}", every=0.1)


def _trainer(logdir, rate):
    """A graph of its own with a loss summary, its writer, and one step of it."""
    g, w, x, train = ps_linear_graph()
    with g.as_default():
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w))) * rate  # two sessions, two loss curves
        summary = tf.summary.scalar("loss", loss)
        init = tf.variables_initializer([w])
    writer = tf.summary.FileWriter(logdir, g)

    def step(sess, i):
        _, value, proto = sess.run([train, loss, summary], {x: BATCH})
        writer.add_summary(proto, global_step=i)
        return float(value)

    return g, init, step, writer


cluster = module_cluster(ps=1, workers=1)


def test_each_sessions_page_shows_the_scalars_of_its_own_graph(cluster, tmp_path):
    base = cluster.dashboard_link.rsplit("/", 1)[0]
    first, second = _trainer(str(tmp_path / "a"), 1.0), _trainer(str(tmp_path / "b"), 1000.0)
    with tf.Session(cluster, graph=first[0]) as a, tf.Session(cluster, graph=second[0]) as b:
        a.run(first[1])
        b.run(second[1])
        losses = {"a": [], "b": []}
        for i in range(3):  # the two sessions take turns
            losses["a"].append(first[2](a, i))
            losses["b"].append(second[2](b, i))
        for name, sess in (("a", a), ("b", b)):
            shown = _scalars(base, sess.runtime.token, "loss", 3)
            assert shown == [[i, pytest.approx(v, rel=1e-6)] for i, v in enumerate(losses[name])]
        # Not merely equal curves: the second loss is a thousand times the first.
        assert losses["b"][0] > 100 * losses["a"][0] > 0
    first[3].close()
    second[3].close()


def test_a_writer_without_a_graph_shows_its_scalars_on_every_open_session(cluster, tmp_path):
    g, init, step, writer = _trainer(str(tmp_path / "a"), 1.0)
    writer.close()
    bare = tf.summary.FileWriter(str(tmp_path / "bare"))  # no graph: whose scalars they are is unknown
    base = cluster.dashboard_link.rsplit("/", 1)[0]
    with tf.Session(cluster, graph=g) as a, tf.Session(cluster, graph=g) as b:
        a.run(init)
        b.run(init)
        rate = tf.summary.Summary.Value(tag="rate", simple_value=0.5)
        bare.add_summary(tf.summary.Summary(value=[rate]), 7)
        for sess in (a, b):
            assert _scalars(base, sess.runtime.token, "rate", 1) == [[7, 0.5]]
    bare.close()


def test_a_cluster_without_the_page_serves_no_page_and_is_sent_nothing(tmp_path):
    g, init, step, writer = _trainer(str(tmp_path), 1.0)
    with tf.local_cluster(ps=1, workers=1, dashboard_page=False) as cluster:
        base = cluster.dashboard_link.rsplit("/", 1)[0]
        with urllib.request.urlopen(f"{base}/status", timeout=30) as answer:
            assert answer.status == 200  # Dask's own pages are there
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/daskflow", timeout=30)
        assert missing.value.code == 404
        with tf.Session(cluster, graph=g) as sess:
            sess.run(init)
            assert step(sess, 0) > 0
            publisher = publish.publisher_of(sess.runtime.token)
            assert publisher.active is False  # asked once, found no collector
            assert publisher not in publish.open_publishers()
    writer.close()


def test_a_steps_time_by_phase_is_where_its_tasks_spent_it(cluster):
    """worker-0 computes for 0.3 s (a py_func sleeping); the ps's update waits for its gradient."""
    nap = 0.3
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.ones(3, np.float32), name="w")
        with tf.device("/job:worker/task:0"):
            slow = tf.py_func(lambda s: (time.sleep(float(s)), np.float32(1.0))[1], [nap], tf.float32)
            loss = tf.reduce_sum(w * w) * slow
            grads = tf.gradients(loss, [w])
        with tf.device("/job:ps/task:0"):
            train = tf.assign_sub(w, 0.1 * grads[0])
    with tf.Session(cluster, graph=g) as sess:
        base = cluster.dashboard_link.rsplit("/", 1)[0]
        sess.run(w.initializer)
        for _ in range(2):
            sess.run(train)
        metrics = sess.step_metrics()[-1]
        token = sess.runtime.token

        def with_phases():  # the step's record comes within 0.2 s; the page asks the workers each second
            session = next(s for s in _data(base)["sessions"] if s["session"] == token)
            step = next((s for s in session["steps"] if s["step"] == metrics["step"]), {})
            return step if step.get("phases") else None

        step = poll_for(with_phases, 30, f"step {metrics['step']}'s phases on the page", every=0.2)
        shown = step["phases"]
    assert shown == metrics["phases"]
    # Its first task (worker-0's) started after the client submitted the step, and before the nap.
    # The submission is read off two processes' wall clocks, the wall time off the client's
    # monotonic one: on a loaded machine they have disagreed by a few ms.
    assert 0 <= step["submission"] < step["wall_time"] - nap + 0.01
    (update,) = [p for p in shown.values() if p["updates"]]
    (gradient,) = [p for p in shown.values() if not p["updates"]]
    assert gradient["computing"] >= nap
    assert update["waiting"] >= nap * 0.8  # it started with the step and waited for the gradient
    assert update["computing"] < nap / 3
    assert min(min(p["waiting"], p["computing"], p["sending"]) for p in shown.values()) >= 0
