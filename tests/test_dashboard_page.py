"""daskflow's page in Dask's dashboard: served, fed by training, bounded, drawn in a browser."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

import daskflow as tf
from daskflow.dashboard import publish
from daskflow.dashboard.collector import ASKED_AFTER_CLOSE, LIMIT, Collector
from tests.browser import CHROMIUM, WITHIN, chromium, until
from tests.clusters import module_cluster
from tests.models import digits_batches, initial_weights, mlp_logits, ps_linear_graph, xent

pytestmark = pytest.mark.process

BATCHES = [np.random.default_rng(i).standard_normal((8, 300)).astype(np.float32) for i in range(6)]


def _get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status, answer.read().decode()


def _status(url):
    try:
        return _get(url)[0]
    except urllib.error.HTTPError as e:
        return e.code


def _data(base):
    status, body = _get(f"{base}/daskflow/data.json")
    assert status == 200
    return json.loads(body)


def _session(base, token):
    return next((s for s in _data(base)["sessions"] if s["session"] == token), None)


# -- the collector alone -----------------------------------------------------------------------


def test_the_collector_keeps_the_newest_n_steps_and_scalars():
    n = LIMIT
    assert n == 2_000
    c = Collector()
    c.receive(session="s1", records=[{"kind": "open", "first_step": 1000}])
    c.receive(
        session="s1",
        records=[{"kind": "step", "plan": "p", "n": 1000 + i, "wall": 0.01} for i in range(n + 10)],
    )
    c.receive(
        session="s1",
        records=[{"kind": "scalars", "step": i, "values": {"loss": 1.0 / (i + 1)}} for i in range(n + 10)],
    )
    (session,) = c.data()["sessions"]
    assert [s["step"] for s in session["steps"]] == list(range(10, n + 10))
    assert [p[0] for p in session["scalars"]["loss"]] == list(range(10, n + 10))
    assert len(c.sessions["s1"].by_n) == n  # the index of steps shrinks with them


def test_the_collector_bounds_tasks_whose_step_never_comes_and_ignores_bad_records():
    c = Collector(limit=5)
    c.receive(session="s1", records=[{"kind": "open", "first_step": 0}])
    c.receive(
        session="s1", records=[{"kind": "plan", "placement": {"plan": "p", "instances": [], "edges": []}}]
    )
    c.receive(session="s1", records=[{"kind": "step"}])  # no step number: dropped, not raised
    record = c.sessions["s1"]
    for i in range(20):
        record.add_task(i, "worker-0-s0", "worker-0", 0.0, 0.1)
    assert list(record.tasks) == list(range(15, 20))
    c.receive(session="unknown", records=[{"kind": "step", "n": 1}])  # a session never opened: ignored
    assert [s["session"] for s in c.data()["sessions"]] == ["s1"] and not record.steps


def test_the_page_draws_a_step_once_its_workers_detail_is_in():
    c = Collector()
    c.receive(session="s", records=[{"kind": "open", "first_step": 10}])
    steps = [{"kind": "step", "plan": "p", "n": 10 + i, "wall": 0.01} for i in range(5)]
    c.receive(session="s", records=steps)
    record = c.sessions["s"]
    assert record.detailed() == [] and c.data()["sessions"][0]["detailed_to"] is None  # not asked yet
    record.detailed_to = 12  # the workers answered when step 12 was the newest
    assert [s["step"] for s in record.summary(detailed=True)["steps"]] == [0, 1, 2]
    assert [s["step"] for s in record.summary()["steps"]] == [0, 1, 2, 3, 4]  # the data endpoint's
    assert c.data()["sessions"][0]["detailed_to"] == 2
    c.receive(session="s", records=[{"kind": "closed"}])
    record.closed -= ASKED_AFTER_CLOSE  # closed long ago: its workers are no longer asked
    assert [s["step"] for s in record.detailed()] == [0, 1, 2, 3, 4]


def test_the_page_follows_the_newest_open_session_until_the_user_picks_one():
    from daskflow.dashboard.page import Page

    c = Collector()
    page = Page(c)
    c.receive(session="old", records=[{"kind": "open", "first_step": 0}])
    assert page._chosen().session == "old"
    c.receive(session="old", records=[{"kind": "closed"}])
    c.receive(session="new", records=[{"kind": "open", "first_step": 0}])  # after the page opened
    assert page._chosen().session == "new"
    page.select.value = "old"  # the user's choice stays, though "new" is open
    c.receive(session="newer", records=[{"kind": "open", "first_step": 0}])
    assert page._chosen().session == "old"


def test_scalars_go_nowhere_without_a_cluster_session(tmp_path):
    with tf.Graph().as_default():
        summary = tf.summary.scalar("loss", tf.constant(0.5))
        with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as writer:
            writer.add_summary(sess.run(summary), global_step=3)
    assert publish.open_publishers() == []
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path))


# -- a local cluster while training ------------------------------------------------------------


cluster = module_cluster(ps=1, workers=1)


@pytest.fixture(scope="module")
def base(cluster):
    link = cluster.dashboard_link
    assert link.startswith("http://127.0.0.1:"), link
    return link.rsplit("/", 1)[0]


def _training(g, w, x, train, logdir):
    """A session on the cluster, a loss summary, and a function running one step of it."""
    with g.as_default():
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
        merged = tf.summary.scalar("loss", loss)
    writer = tf.summary.FileWriter(logdir)
    losses = []

    def step(sess, i):
        _, value, summary = sess.run([train, loss, merged], {x: BATCHES[i % len(BATCHES)]})
        writer.add_summary(summary, global_step=i)
        losses.append(float(value))

    return step, losses, writer


def test_the_page_answers_and_its_data_follow_training(cluster, base, tmp_path):
    g, w, x, train = ps_linear_graph()
    step, losses, writer = _training(g, w, x, train, str(tmp_path))
    with writer, tf.Session(cluster, graph=g) as sess:
        token = sess.runtime.token
        sess.run(tf.variables_initializer([w]))
        for i in range(3):
            step(sess, i)
        status, html = _get(f"{base}/daskflow")
        assert status == 200 and "Bokeh" in html, html[:300]
        first = until(lambda: (s := _session(base, token)) and len(s["scalars"].get("loss", ())) == 3 and s)
        assert first, _data(base)
        for i in range(3, 6):
            step(sess, i)
        later = until(lambda: (s := _session(base, token)) and len(s["scalars"].get("loss", ())) == 6 and s)
        assert later and later["open"], _data(base)
        # Every run was a step (the initializer too); the newest steps are the training's.
        assert len(first["steps"]) < len(later["steps"]) == 7
        assert [s["step"] for s in later["steps"]] == list(range(7))
        assert all(s["wall_time"] > 0 for s in later["steps"])
        assert later["scalars"]["loss"] == [[i, pytest.approx(v, rel=1e-6)] for i, v in enumerate(losses)]
        placement = later["placement"]
        assert {i["worker"] for i in placement["instances"]} == {"ps-0", "worker-0"}
        assert later["destinations"] == {"ps-0": ["worker-0"], "worker-0": ["ps-0"]}

        # The scheduler timed the partitions of each step run since the page was first asked
        # for (it starts listening then: a step finishing meanwhile may show some of them).
        after = later["steps"][len(first["steps"]) :]
        assert after and all(
            {t["worker"] for t in s["tasks"].values()} == {"ps-0", "worker-0"} for s in after
        )

        # Asked of the workers: ps-0 pushes the new weights (300 x 300 float32) to worker-0 each step.
        # Every training step's, those before the page was first asked for included.
        def pushed():
            return [s["bytes_sent"].get("ps-0", 0) for s in _session(base, token)["steps"][1:]]

        assert until(lambda: all(b >= 300 * 300 * 4 for b in pushed()), timeout=10), pushed()
    closed = until(lambda: not _session(base, token)["open"], timeout=10)
    assert closed, _session(base, token)


def test_the_page_is_in_the_dashboard_menu(base):
    # (Dask's /sitemap.json would list it too, but answers 500 in distributed 2026.8 with or without it.)
    for page in ("status", "daskflow"):
        status, html = _get(f"{base}/{page}")
        assert status == 200 and '<a href="daskflow">Daskflow</a>' in html, page


def test_the_data_endpoint_refuses_a_bad_count(base):
    with pytest.raises(urllib.error.HTTPError) as raised:
        _get(f"{base}/daskflow/data.json?last=many")
    assert raised.value.code == 400


def _replicated_training():
    """An MLP on the digits, variables on ps-0, one replica per worker task: (train, x, y)."""
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w0, w1 = initial_weights([64, 32, 10])
        weights = [tf.Variable(w0), tf.Variable(w1)]
        biases = [tf.Variable(tf.zeros([32])), tf.Variable(tf.zeros([10]))]
        loss = xent(y, mlp_logits(x, weights, biases))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return train, x, y


def test_replicas_staleness_and_bytes_are_those_the_session_measures():
    batches, _ = digits_batches(8, 32)
    with tf.Graph().as_default(), tf.local_cluster(ps=1, workers=2) as cluster:
        base = cluster.dashboard_link.rsplit("/", 1)[0]
        train, x, y = _replicated_training()
        with tf.Session(cluster) as sess:
            token = sess.runtime.token
            sess.run(tf.global_variables_initializer())
            for bx, by in batches:
                sess.run(train, {x: bx, y: by})
            measured = sess.step_metrics()  # asked of the workers by the client, not the scheduler

            def shown():  # the session's records reach the scheduler within FLUSH_SECS
                steps = (_session(base, token) or {"steps": []})["steps"]
                return [
                    {
                        "step": s["step"],
                        "replicas_used": s["replicas_used"],
                        "gradients_dropped": s["gradients_dropped"],
                        "staleness": s["staleness"],
                        "bytes_between_workers": sum(s["bytes_sent"].values()),
                        "bytes_by_pair": {(a, b): n for a, b, n in s["bytes_by_pair"]},
                        "phases": s["phases"],
                    }
                    for s in steps
                ]

            # The page has no wall times (the client's) nor GPU memory (read when collected).
            unshown = ("wall_time", "device_memory_bytes")
            expected = [{k: v for k, v in m.items() if k not in unshown} for m in measured]
            assert until(lambda: shown() == expected, timeout=10), (shown(), expected)
            destinations = _session(base, token)["destinations"]
    assert [m["replicas_used"] for m in measured[1:]] == [2] * len(batches)  # the data-parallel steps
    assert destinations == {"ps-0": ["worker-0", "worker-1"], "worker-0": ["ps-0"], "worker-1": ["ps-0"]}
    # Counted by pair: each replica's gradients to the ps, the ps's new values to each replica.
    pairs = {("worker-0", "ps-0"), ("worker-1", "ps-0"), ("ps-0", "worker-0"), ("ps-0", "worker-1")}
    assert all(set(m["bytes_by_pair"]) == pairs for m in measured[1:]), measured


# -- dask scheduler --preload daskflow.dashboard ----------------------------------------------


@contextlib.contextmanager
def _cli_scheduler():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "scheduler.json")
        args = ["scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0"]
        command = [
            sys.executable,
            "-m",
            "dask",
            *args,
            "--scheduler-file",
            path,
            "--preload",
            "daskflow.dashboard",
        ]
        proc = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            info = until(lambda: os.path.exists(path) and _read_json(path), timeout=60)
            assert info, "the scheduler wrote no scheduler file"
            yield f"http://127.0.0.1:{info['services']['dashboard']}"
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)


def _read_json(path):
    with contextlib.suppress(ValueError), open(path) as f:
        return json.load(f)


def test_a_scheduler_started_with_the_preload_serves_the_page():
    with _cli_scheduler() as base:
        assert until(lambda: _status(f"{base}/daskflow") == 200, timeout=30)
        assert _data(base)["sessions"] == []


# -- in a browser: Chromium's DevTools protocol ------------------------------------------------


LOSS_POINTS = """(() => {
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return -1;
  const source = Bokeh.documents[0].get_model_by_name("scalar:loss");
  return source ? source.get_length() : -2;
})()"""

# JavaScript defining ``drawn(title)``: the data of the bars of the figure drawn now (in the
# page's tree of views: a figure replaced by another may stay in the document a while) whose
# title starts with ``title``.
DRAWN = """const drawn = (title) => {
  const found = [];
  const walk = (v) => {
    if (v.model.type === "Figure" && v.model.title.text.startsWith(title)) found.push(v.model);
    for (const c of v.child_views || []) walk(c);
  };
  Object.values(Bokeh.index).forEach(walk);
  const bars = found.length && found[0].renderers.find((r) => r.data_source && r.data_source.get_length());
  return bars ? bars.data_source.data : null;
};"""

# The page's status line (its text; null: not drawn yet).
STATUS = """(() => {
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return null;
  const status = Bokeh.documents[0].get_model_by_name("status");
  return status ? status.text : null;
})()"""

# Steps drawn in the "Step time by phase" chart (-1: not drawn yet).
PHASE_STEPS = (
    "(() => {"
    + DRAWN
    + """
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return -1;
  const phases = drawn("Step time by phase");
  return phases ? phases.step.length : -1;
})()"""
)


# Axes whose quantities are whole numbers: no tick between two of them.
INTEGER_AXES = ("step", "global step", "stage", "staleness", "replicas", "updates")

# Every problem of the drawn page, as text (an empty list: none). Read from BokehJS's views of
# the document (Bokeh.index) and the DOM they drew, shadow roots included.
PAGE_PROBLEMS = (
    "(() => {"
    + WITHIN
    + f"const INTEGER_AXES = {json.dumps(INTEGER_AXES)};"
    + """
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return ["no Bokeh document"];
  const problems = new Set();
  const views = [];
  const walk = (v, parent) => {
    views.push([v, parent]);
    for (const c of v.child_views || []) walk(c, v);
  };
  Object.values(Bokeh.index).forEach((v) => walk(v, null));
  const title = (m) => (m.title && m.title.text) || "";
  const label = (v) => `${v.model.type} "${v.model.name || title(v.model)}"`;
  const text = (b) => [b.left, b.top, b.right, b.bottom].map(Math.round).join(", ");
  const inside = (a, b) =>
    a.left >= b.left - 1 && a.top >= b.top - 1 && a.right <= b.right + 1 && a.bottom <= b.bottom + 1;
  const meets = (a, b) =>
    a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const shown = (v) => v.model.visible !== false && v.el && v.el.isConnected && v.el.getClientRects().length;
  for (const [v, parent] of views) {
    if (!shown(v) || (parent && !shown(parent))) continue;
    const box = v.el.getBoundingClientRect();
    const outer = parent && parent.el.getBoundingClientRect();
    if (parent && !inside(box, outer))
      problems.add(`${label(v)} [${text(box)}] is not inside ${label(parent)} [${text(outer)}]`);
    const root = v.shadow_el || v.el.shadowRoot;
    if (!root || (v.child_views || []).length || v.frame) continue;  // figures: below
    // Text wider than its box: cut off, scrolled, or spilling over its neighbours.
    for (const el of within(root)) {
      const [need, has] = [el.scrollWidth, el.clientWidth];
      const inline = [...el.children].every((c) => getComputedStyle(c).display.startsWith("inline"));
      const leaf = inline && el.textContent.trim();
      if (leaf && has > 0 && need > has + 1)
        problems.add(`${label(v)}: ${el.tagName} "${el.textContent.slice(0, 30)}" ${need} px in ${has}`);
    }
    // A table taller than its rows: a blank gap.
    const viewport = root.querySelector(".slick-viewport");
    const bottoms = [...root.querySelectorAll(".slick-row")].map((r) => r.getBoundingClientRect().bottom);
    const blank = viewport && viewport.getBoundingClientRect().bottom - Math.max(box.top, ...bottoms);
    if (blank > 30) problems.add(`${label(v)}: ${Math.round(blank)} px blank below its rows`);
  }
  for (const [v, parent] of views) {
    if (!shown(v) || (parent && !shown(parent))) continue;
    const box = v.el.getBoundingClientRect();
    if (!v.frame) continue;
    // A figure: legends beside its data area, labels and ticks within it.
    const frame = v.frame.bbox;
    const canvas = {left: 0, top: 0, right: box.width, bottom: box.height};
    for (const [model, rv] of v.renderer_views) {
      if (model.visible === false) continue;
      if (model.type === "Legend" && model.items.length) {
        const where = `${label(v)}: its legend [${text(rv.bbox)}]`;
        if (meets(rv.bbox, frame)) problems.add(`${where} covers its data area [${text(frame)}]`);
        if (!inside(rv.bbox, canvas)) problems.add(`${where} is cut off [${text(canvas)}]`);
      }
      const glyph = rv.glyph;
      if (glyph && glyph.model.type === "Text" && glyph.swidth) {
        for (let i = 0; i < glyph.swidth.length; i++) {
          const anchor = glyph.anchor_.get(i);
          const left = glyph.sx[i] + glyph.x_offset.get(i) - anchor.x * glyph.swidth[i];
          const top = glyph.sy[i] + glyph.y_offset.get(i) - anchor.y * glyph.sheight[i];
          const b = {left, top, right: left + glyph.swidth[i], bottom: top + glyph.sheight[i]};
          if (!inside(b, frame))
            problems.add(`${label(v)}: label ${i} [${text(b)}] is cut off by its data area [${text(frame)}]`);
        }
      }
      if (model.type === "LinearAxis" && INTEGER_AXES.includes(model.axis_label) && rv.tick_coords) {
        const ticks = rv.tick_coords.major[rv.dimension];
        const off = ticks.filter((t) => Math.abs(t - Math.round(t)) > 1e-9);
        if (off.length) problems.add(`${label(v)}: ticks ${off.join(", ")} on "${model.axis_label}"`);
      }
    }
  }
  return [...problems];
})()"""
)

# What the page says of the panels that do not apply (name -> its text; null: not shown).
NOTES = """(() => {
  const notes = {};
  const walk = (v) => {
    if (v.model.name && v.model.name.endsWith("-note"))
      notes[v.model.name] = v.model.visible && v.el.getClientRects().length ? v.model.text : null;
    for (const c of v.child_views || []) walk(c);
  };
  Object.values(Bokeh.index).forEach(walk);
  return notes;
})()"""

# The steps each per-step chart draws, and whether the workers' detail of each is in:
# its phases (besides submission, the client's and the scheduler's) and its bytes.
STEP_DETAIL = (
    "(() => {"
    + DRAWN
    + """
  const phases = drawn("Step time by phase") || {step: []}, bytes = drawn("Bytes sent") || {step: []};
  const fields = (d) => Object.keys(d).filter((k) => k !== "step" && k !== "line");
  const worked = (d, j) => fields(d).slice(1).reduce((sum, k) => sum + d[k][j], 0);
  return {
    phases: Array.from(phases.step),
    bytes: Array.from(bytes.step),
    phases_without_workers: Array.from(phases.step).filter((_, j) => !(worked(phases, j) > 0)),
    bytes_missing: Array.from(bytes.step).filter((_, j) => fields(bytes).some((k) => !isFinite(bytes[k][j]))),
  };
})()"""
)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium to draw the page")
@pytest.mark.browser
def test_the_page_draws_training_in_a_browser_with_nothing_out_of_its_box(cluster, base, tmp_path):
    g, w, x, train = ps_linear_graph()  # not data-parallel: one instance per partition
    step, losses, writer = _training(g, w, x, train, str(tmp_path))
    stop, failed = threading.Event(), []

    def training(sess):
        try:
            for i in range(3, 20_000):
                if stop.is_set():
                    return
                step(sess, i)
        except Exception as e:  # noqa: BLE001 - the test reports it
            failed.append(e)
            raise

    def why():
        """What the page and the collector had when a wait ran out."""
        own = _session(base, sess.runtime.token) or {}
        return {
            "trained": len(losses),
            "training failed": failed,
            "page status": browser.evaluate(STATUS),
            "collector": {k: own.get(k) for k in ("open", "detailed_to")},
            "collector's steps": len(own.get("steps", ())),
        }

    with writer, tf.Session(cluster, graph=g) as sess, chromium(1400, 1700) as browser:
        sess.run(tf.variables_initializer([w]))
        for i in range(3):
            step(sess, i)
        trainer = threading.Thread(target=training, args=(sess,))
        trainer.start()
        try:
            browser.navigate(f"{base}/daskflow")
            drawn = until(lambda: (browser.evaluate(LOSS_POINTS) or -3) >= 3, timeout=60, every=0.5)
            assert drawn, (browser.evaluate(LOSS_POINTS), why())
            # Some steps in the per-step charts, then two more redraws while it still trains.
            drawn = until(lambda: (browser.evaluate(PHASE_STEPS) or -1) >= 10, timeout=60, every=0.5)
            assert drawn, (browser.evaluate(PHASE_STEPS), why())
            until(lambda: False, timeout=2.5)
            shot = tmp_path / "daskflow-page.png"
            browser.screenshot(str(shot), 1400, 2400)
            problems = browser.evaluate(PAGE_PROBLEMS)
            notes = browser.evaluate(NOTES)
            detail = browser.evaluate(STEP_DETAIL)
        finally:
            stop.set()
            trainer.join()
    assert len(losses) > 13, losses  # it trained while the page drew
    # The panels that do not apply say why.
    for panel in ("replicas-note", "staleness-note"):
        if "not data-parallel" not in (notes.get(panel) or "").lower():
            problems.append(f"{panel} does not say the session is not data-parallel: {notes}")
    # Each step a per-step chart draws has its workers' detail: no step half drawn.
    if not detail["phases"] or detail["phases_without_workers"]:
        problems.append(f"steps drawn without their workers' phases: {detail['phases_without_workers']}")
    if detail["bytes"] != detail["phases"] or detail["bytes_missing"]:
        problems.append(f"the bytes chart's steps are not the phases chart's: {detail}")
    assert problems == [], f"{problems} (screenshot: {shot})"
