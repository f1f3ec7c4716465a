"""Screenshots of what a user sees while training: daskflow's dashboard page and TensorBoard.

Trains the digits MLP on ``tf.local_cluster(ps=1, workers=2)``, placed with
``replica_device_setter`` (variables on ``ps-0``, one asynchronous replica
on each worker), with loss and accuracy summaries written by a ``FileWriter``. While it trains, a
headless Chromium opens the cluster's ``/daskflow`` page and, once the loss
curve has points, takes ``daskflow-page.png``; then TensorBoard serves the
event files and Chromium takes ``tensorboard-scalars.png`` and
``tensorboard-graph.png``.

Run from the repository root: ``python benchmarks/screenshots.py [--out docs/images]``.
Needs the test extra (``websocket-client``, ``tensorboard``) and Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests.browser

import daskflow as tf  # noqa: E402
from daskflow.datasets import load_digits  # noqa: E402
from tests.browser import chromium, until  # noqa: E402

HIDDEN = 64
BATCH = 64
STEPS = 600
LOSS_POINTS = """(() => {
  if (typeof Bokeh === "undefined" || !Bokeh.documents.length) return -1;
  const source = Bokeh.documents[0].get_model_by_name("scalar:loss");
  return source ? source.get_length() : -2;
})()"""

# TensorBoard's dashboards are Polymer: their elements live in nested shadow roots.
EVERY_ELEMENT = """
  const seen = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      seen.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
"""
SHOWN_TEXT = "(() => {" + EVERY_ELEMENT + "return seen.map((el) => el.innerText || '').join(' ');})()"
COLOR_BY_DEVICE = (
    """(() => {"""
    + EVERY_ELEMENT
    + """
  const radio = (el) => el.tagName === "PAPER-RADIO-BUTTON" && (el.innerText || "").trim() === "Device";
  const button = seen.find(radio);
  if (!button) return false;
  button.click();
  return true;
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


def train(cluster, logdir, done):
    """Train STEPS steps on ``cluster``, writing summaries into ``logdir``; set ``done`` at the end."""
    graph, init, train_op, x, y, summaries = build()
    data = load_digits(one_hot=True)
    config = tf.ConfigProto(max_staleness=2)
    try:
        with tf.Session(cluster, graph=graph, config=config) as sess:
            writer = tf.summary.FileWriter(logdir, graph)
            sess.run(init)
            for step in range(STEPS):
                images, labels = data.train.next_batch(2 * BATCH)  # split between the two replicas
                _, summary = sess.run([train_op, summaries], {x: images, y: labels})
                writer.add_summary(summary, step)
            writer.close()
    finally:
        done.set()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def tensorboard(logdir):
    """TensorBoard serving ``logdir`` on 127.0.0.1: yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1"]
    proc = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        if not until(lambda: _answers(base), timeout=60, every=0.5):
            raise RuntimeError("TensorBoard did not answer in 60 s")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _answers(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


def page_shot(browser, link, path):
    """The dashboard page, all its plots down to the placement, once its loss curve has 50 points."""
    browser.viewport(1400, 1700)
    browser.navigate(link)
    points = until(lambda: (browser.evaluate(LOSS_POINTS) or -3) >= 50, timeout=120, every=0.5)
    if not points:
        raise RuntimeError(f"the page drew no loss curve: {browser.evaluate(LOSS_POINTS)}")
    until(lambda: False, timeout=2.5)  # the next redraw, so every plot has its data
    browser.screenshot(path)
    browser.viewport(1400, 900)


def tensorboard_shots(browser, base, out):
    """TensorBoard's scalars (the loss chart drawn) and graph (coloured by device) dashboards."""
    browser.navigate(f"{base}/#scalars")
    if not until(lambda: "loss" in (browser.evaluate(SHOWN_TEXT) or ""), timeout=60, every=0.5):
        raise RuntimeError("TensorBoard's scalars show no loss tag")
    until(lambda: False, timeout=5)  # the charts draw after their tags are listed
    browser.screenshot(os.path.join(out, "tensorboard-scalars.png"))
    browser.navigate(f"{base}/#graphs")
    nodes = "document.querySelector('tf-graph-dashboard') !== null"
    if not until(lambda: browser.evaluate(nodes), timeout=60, every=0.5):
        raise RuntimeError("TensorBoard's graph dashboard did not load")
    until(lambda: False, timeout=8)  # the graph is laid out after the dashboard loads
    if not browser.evaluate(COLOR_BY_DEVICE):
        raise RuntimeError("TensorBoard's graph dashboard has no 'Color by: Device'")
    until(lambda: False, timeout=3)
    browser.screenshot(os.path.join(out, "tensorboard-graph.png"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", help="folder the PNG files go to")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as logdir, tf.local_cluster(ps=1, workers=2) as cluster:
        done = threading.Event()
        trainer = threading.Thread(target=train, args=(cluster, logdir, done))
        trainer.start()
        with chromium() as browser:
            link = cluster.dashboard_link.rsplit("/", 1)[0] + "/daskflow"
            page_shot(browser, link, os.path.join(args.out, "daskflow-page.png"))
            trainer.join()
            with tensorboard(logdir) as base:
                tensorboard_shots(browser, base, args.out)
    print(f"screenshots in {args.out}: daskflow-page.png, tensorboard-scalars.png, tensorboard-graph.png")


if __name__ == "__main__":
    main()
