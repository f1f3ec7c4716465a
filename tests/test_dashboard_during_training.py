"""Dask's dashboard while daskflow trains: every page answers, and step keys fit JavaScript."""

import contextlib
import logging
import threading
import urllib.error
import urllib.request
import uuid
import warnings
from types import SimpleNamespace

import dask
import numpy as np
import pytest
from distributed.diagnostics.plugin import SchedulerPlugin

import daskflow as tf
from tests.models import digits_batches, initial_weights, mlp_logits, xent

MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's (Bokeh's): larger integers lose precision
OUT_OF_RANGE = "out of range integer"
# The pages the issue names, besides those the dashboard links to itself.
REQUIRED_PAGES = {
    "status",
    "tasks",
    "groups",
    "graph",
    "workers",
    "system",
    "profile",
    "individual-plots.json",
}


pytestmark = pytest.mark.usefixtures("fresh_graph")
# beside the clusters: no timings checked and no fixed port bound (free ports only)


class _Keys(SchedulerPlugin):
    """Every key the scheduler is told of, as it comes (not one released as it goes: a
    session's older copies of its variables go while another session runs)."""

    name = "test-every-key"

    def __init__(self):
        self.keys = set()

    def transition(self, key, start, finish, *args, **kwargs):
        if start == "released" and finish != "forgotten":
            self.keys.add(key)


@contextlib.contextmanager
def _recording_keys(cluster):
    keys = _Keys()
    cluster.scheduler.add_plugin(keys)
    try:
        yield keys.keys
    finally:
        cluster.scheduler.remove_plugin(name=keys.name)


def _integers(key):
    if isinstance(key, int):
        yield key
    elif isinstance(key, tuple):
        for part in key:
            yield from _integers(part)


def _ps_worker_training(batches):
    """A small MLP, variables on ps-0, one replica per worker task: (train op, x, y)."""
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w0, w1 = initial_weights([64, 32, 10])
        weights = [tf.Variable(w0, name="w0"), tf.Variable(w1, name="w1")]
        biases = [tf.Variable(tf.zeros([32]), name="b0"), tf.Variable(tf.zeros([10]), name="b1")]
        loss = xent(y, mlp_logits(x, weights, biases))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return train, loss, x, y


# -- step keys ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def threads_cluster():
    with tf.local_cluster(ps=1, workers=2, processes=False) as cluster:
        yield cluster


def _steps(sess, train, x, y, batches):
    sess.run(tf.global_variables_initializer())
    for bx, by in batches:
        sess.run(train, {x: bx, y: by})


def test_step_keys_fit_javascript_even_in_the_last_sessions_slot(threads_cluster, monkeypatch):
    # The highest token (the session's first uuid) gives the highest step numbers there can be.
    from daskflow.runtime.cluster import runtime as cluster

    tokens = iter([uuid.UUID(int=2**128 - 1)])
    monkeypatch.setattr(cluster, "uuid", SimpleNamespace(uuid4=lambda: next(tokens, None) or uuid.uuid4()))
    batches, _ = digits_batches(4, 16)
    train, _, x, y = _ps_worker_training(batches)
    with _recording_keys(threads_cluster) as keys:
        with tf.Session(threads_cluster) as sess:
            _steps(sess, train, x, y, batches)
            held = sess.runtime.client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks))
    step_keys = [k for k in keys if isinstance(k, tuple) and any(True for _ in _integers(k))]
    assert len(step_keys) >= 4 * 3, sorted(keys, key=str)  # a few steps' tasks, each of its partitions
    numbers = [n for k in [*keys, *held] for n in _integers(k)]
    assert max(numbers) > 2**52, max(numbers)  # the top slot's numbers: high, yet...
    too_big = [k for k in [*keys, *held] if max(_integers(k), default=0) > MAX_SAFE_INTEGER]
    assert min(numbers) >= 0 and not too_big, too_big[:5]


def test_two_sessions_on_one_cluster_share_no_key(threads_cluster):
    batches, _ = digits_batches(3, 16)
    train, _, x, y = _ps_worker_training(batches)
    with tf.Session(threads_cluster) as first, tf.Session(threads_cluster) as second:
        with _recording_keys(threads_cluster) as first_keys:
            _steps(first, train, x, y, batches)
        with _recording_keys(threads_cluster) as second_keys:
            _steps(second, train, x, y, batches)
    assert len(first_keys) >= 3 * 3 and len(second_keys) >= 3 * 3
    assert not first_keys & second_keys, sorted(first_keys & second_keys, key=str)[:5]
    assert all(0 <= n <= MAX_SAFE_INTEGER for k in first_keys | second_keys for n in _integers(k))


# -- the dashboard -----------------------------------------------------------------------------


def _dashboard_pages(dask_scheduler):
    """The pages the dashboard links to (its menu and its plots), and its HTTP port."""
    from distributed.dashboard.scheduler import template_variables

    links = template_variables(dask_scheduler)
    pages = [*links["pages"], *(plot["url"] for plot in links["plots"])]
    return pages, dask_scheduler.http_server.port


def _serialized_dashboards(dask_scheduler):
    """Serialize every open dashboard document as Bokeh sends it to a browser.

    A page fetched over HTTP opens a session whose document the dashboard
    keeps updating; a browser then receives it serialized, which is where
    Bokeh checks integers. Returns the number of documents serialized.
    """
    count = 0
    for app in dask_scheduler.http_application.applications:
        for context in getattr(app, "_applications", {}).values():
            for session in context.sessions:
                session.document.to_json()
                count += 1
    return count


def _fetch_all(base, pages, statuses):
    for page in pages:
        try:
            with urllib.request.urlopen(f"{base}/{page}", timeout=60) as answer:
                statuses[page] = answer.status
        except urllib.error.HTTPError as error:
            statuses[page] = error.code


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


BOKEH_APPLICATION = "distributed.scheduler.dashboard.bokeh-application"


@pytest.mark.process
@pytest.mark.slow
def test_every_dashboard_page_answers_while_training_and_no_integer_is_out_of_range():
    batches, _ = digits_batches(400, 16)
    train, loss, x, y = _ps_worker_training(batches)
    bokeh_log, records = logging.getLogger("bokeh"), _Records()
    bokeh_log.addHandler(records)
    try:
        with (
            warnings.catch_warnings(record=True) as caught,
            # The pages' sessions are opened by plain fetches (no browser keeps them in use):
            # Bokeh would close them after 15 s, before a loaded machine reaches the check.
            dask.config.set({f"{BOKEH_APPLICATION}.unused_session_lifetime_milliseconds": 600_000}),
            tf.local_cluster(ps=1, workers=2, dashboard_address="127.0.0.1:0") as cluster,
            tf.Session(cluster) as sess,
        ):
            warnings.simplefilter("always")
            pages, port = sess.runtime.client.run_on_scheduler(_dashboard_pages)
            pages = sorted({*pages, "individual-plots.json"})
            assert REQUIRED_PAGES <= set(pages), pages
            sess.run(tf.global_variables_initializer())
            statuses = {}
            fetching = threading.Thread(target=_fetch_all, args=(f"http://127.0.0.1:{port}", pages, statuses))
            steps, losses = 0, []
            for bx, by in batches:
                losses.append(sess.run([loss, train], {x: bx, y: by})[0])
                steps += 1
                if steps == 5:
                    fetching.start()  # the pages open on a scheduler holding training's tasks
                if steps > 5 and not fetching.is_alive():
                    break
            fetching.join()
            for bx, by in batches[steps : steps + 20]:  # the open dashboards update meanwhile
                sess.run(train, {x: bx, y: by})
            serialized = sess.runtime.client.run_on_scheduler(_serialized_dashboards)
    finally:
        bokeh_log.removeHandler(records)
    assert statuses == {page: 200 for page in pages}, {p: s for p, s in statuses.items() if s != 200}
    assert serialized >= len(REQUIRED_PAGES) - 1  # each Bokeh page (all but the .json) is checked
    assert np.isfinite(losses).all() and steps > 5
    out_of_range = [str(w.message) for w in caught if OUT_OF_RANGE in str(w.message)]
    out_of_range += [m for m in records.messages if OUT_OF_RANGE in m]
    assert not out_of_range, (len(out_of_range), out_of_range[0])
