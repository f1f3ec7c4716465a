"""Screenshots of what a user sees while training: daskflow's dashboard page and TensorBoard.

Trains the digits MLP on ``tf.local_cluster(ps=1, workers=2)``, placed with
``replica_device_setter`` (variables on ``ps-0``, one asynchronous replica
on each worker), with loss and accuracy summaries written by a ``FileWriter``. While it trains, a
headless Chromium opens the cluster's ``/daskflow`` page and takes
``daskflow-page.png`` once the loss curve has SHOT_AT points; the training
waits for that shot, so that the per-step charts, which draw a step once the
workers' counts of it are in (asked at most once a second), reach its newest
step too. Then TensorBoard serves the event
files and Chromium takes ``tensorboard-scalars.png`` (the charts drawn) and
``tensorboard-graph.png`` (coloured by device, one op's device shown).

Run from the repository root: ``python benchmarks/screenshots.py [--out docs/images]``.
Needs the test extra (``websocket-client``, ``tensorboard``) and Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests.browser

import daskflow as tf  # noqa: E402
from daskflow.datasets import load_digits  # noqa: E402
from tests.browser import WITHIN, chromium, scalar_line_points, tensorboard, until  # noqa: E402

HIDDEN = 64
BATCH = 64
STEPS = 600
SHOT_AT = 200  # steps trained when the dashboard page's screenshot is taken
LOSS_POINTS = """(() => {
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return -1;
  const source = Bokeh.documents[0].get_model_by_name("scalar:loss");
  return source ? source.get_length() : -2;
})()"""

TB_LOSS_POINTS = scalar_line_points("loss")
# Graph dashboard: nodes drawn; then "Color by: Device", and one op selected so its card names a device.
TB_GRAPH_DRAWN = (
    "(() => {"
    + WITHIN
    + """
  return within(document).some((el) => el.tagName === "g" && el.getAttribute("data-name") === "MatMul");
})()"""
)
TB_COLOR_BY_DEVICE_AND_SELECT = (
    "(() => {"
    + WITHIN
    + """
  const seen = within(document);
  const radio = (el) => el.tagName === "PAPER-RADIO-BUTTON" && (el.innerText || "").trim() === "Device";
  const button = seen.find(radio);
  const board = seen.find((el) => el.tagName === "TF-GRAPH-BOARD");
  if (!button || !board) return false;
  button.click();
  board.selectedNode = "MatMul";
  return true;
})()"""
)
TB_DEVICE_SHOWN = (
    "(() => {"
    + WITHIN
    + """
  const info = within(document).find((el) => el.tagName === "TF-NODE-INFO");
  const texts = info ? within(info.shadowRoot || info).map((el) => (el.innerText || "").trim()) : [];
  return texts.includes("/job:worker");
})()"""
)


def build():
    """The digits MLP, one replica per worker task, asynchronous: (graph, init, train, x, y, summaries)."""
    rng = np.random.default_rng(0)
    graph = tf.Graph()
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    with graph.as_default(), tf.device(tf.train.replica_device_setter(cluster=spec)):
        global_step = tf.train.get_or_create_global_step()
        w1 = tf.Variable(rng.normal(0, 0.1, (64, HIDDEN)).astype(np.float32), name="w1")
        w2 = tf.Variable(rng.normal(0, 0.1, (HIDDEN, 10)).astype(np.float32), name="w2")
        x = tf.placeholder(tf.float32, [None, 64], name="images")
        y = tf.placeholder(tf.float32, [None, 10], name="labels")
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        hit = tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("accuracy", tf.reduce_mean(hit))
        summaries = tf.summary.merge_all()
        init = tf.global_variables_initializer()
    return graph, init, train, x, y, summaries


def train(cluster, logdir, shot_taken):
    """Train STEPS steps on ``cluster``, writing summaries into ``logdir``; wait for ``shot_taken``
    after SHOT_AT of them (two minutes at most)."""
    graph, init, train_op, x, y, summaries = build()
    data = load_digits(one_hot=True)
    config = tf.ConfigProto(max_staleness=2)
    with tf.Session(cluster, graph=graph, config=config) as sess:
        writer = tf.summary.FileWriter(logdir, graph)
        sess.run(init)
        for step in range(STEPS):
            if step == SHOT_AT:
                shot_taken.wait(timeout=120)
            images, labels = data.train.next_batch(2 * BATCH)  # split between the two replicas
            _, summary = sess.run([train_op, summaries], {x: images, y: labels})
            writer.add_summary(summary, step)
        writer.close()


def _newest_step_counted(link):
    """Whether the workers' counts (bytes, replicas) of the newest step have reached the page."""
    with urllib.request.urlopen(f"{link}/data.json?last=1", timeout=10) as answer:
        sessions = json.loads(answer.read())["sessions"]
    steps = sessions[-1]["steps"] if sessions else []
    return bool(steps) and bool(steps[-1]["bytes_by_pair"]) and steps[-1]["replicas_used"] is not None


def page_shot(browser, link, path):
    """The whole dashboard page at SHOT_AT steps, every step counted."""
    browser.viewport(1400, 1700)
    browser.navigate(link)
    if not browser.wait_for(f"{LOSS_POINTS} >= {SHOT_AT}", timeout=180, every=0.5):
        raise RuntimeError(f"the page drew no loss curve: {browser.evaluate(LOSS_POINTS)}")
    if not until(lambda: _newest_step_counted(link), timeout=30, every=0.5):
        raise RuntimeError("the workers' counts of the newest step did not reach the page in 30 s")
    until(lambda: False, timeout=2.5)  # the next redraw, so every plot has them
    height = browser.evaluate("document.documentElement.scrollHeight") or 1700
    browser.screenshot(path, 1400, min(height, 2400))  # the whole page, down to the devices' table
    browser.viewport(1400, 900)


def tensorboard_shots(browser, base, out):
    """TensorBoard's scalars (the loss chart drawn) and graph (coloured by device) dashboards."""
    browser.navigate(f"{base}/#scalars")
    if not browser.wait_for(f"{TB_LOSS_POINTS} >= 2", timeout=60, every=0.5):
        raise RuntimeError(f"TensorBoard drew no loss chart: {browser.evaluate(TB_LOSS_POINTS)}")
    until(lambda: False, timeout=2)  # the accuracy chart, drawn beside it
    browser.screenshot(os.path.join(out, "tensorboard-scalars.png"))
    browser.navigate(f"{base}/#graphs")
    if not browser.wait_for(TB_GRAPH_DRAWN, timeout=60, every=0.5):
        raise RuntimeError("TensorBoard's graph dashboard drew no graph")
    if not browser.evaluate(TB_COLOR_BY_DEVICE_AND_SELECT):
        raise RuntimeError("TensorBoard's graph dashboard has no 'Color by: Device'")
    if not browser.wait_for(TB_DEVICE_SHOWN, timeout=30, every=0.5):
        raise RuntimeError("TensorBoard's graph dashboard did not show MatMul's device")
    until(lambda: False, timeout=2)  # the colours change after the radio button does
    browser.screenshot(os.path.join(out, "tensorboard-graph.png"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", help="folder the PNG files go to")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as logdir, tf.local_cluster(ps=1, workers=2) as cluster:
        shot_taken = threading.Event()
        trainer = threading.Thread(target=train, args=(cluster, logdir, shot_taken))
        trainer.start()
        with chromium() as browser:
            link = cluster.dashboard_link.rsplit("/", 1)[0] + "/daskflow"
            try:
                page_shot(browser, link, os.path.join(args.out, "daskflow-page.png"))
            finally:
                shot_taken.set()
                trainer.join()
            with tensorboard(logdir) as base:
                tensorboard_shots(browser, base, args.out)
    print(f"screenshots in {args.out}: daskflow-page.png, tensorboard-scalars.png, tensorboard-graph.png")


if __name__ == "__main__":
    main()
