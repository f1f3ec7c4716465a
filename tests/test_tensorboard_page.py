"""TensorBoard itself, served over what daskflow's FileWriter wrote: the loss values, its chart, the graph."""

import contextlib
import json
import urllib.request

import numpy as np
import pytest

import daskflow as tf
from tests.browser import CHROMIUM, WITHIN, chromium, scalar_line_points, tensorboard

pytestmark = pytest.mark.process
# beside the clusters: no timings checked and no fixed port bound (free ports only)

STEPS = 5
LEARNING_RATE = 0.1
RNG = np.random.default_rng(0)
FEATURES = RNG.standard_normal((16, 3)).astype(np.float32)
NOISE = 0.1 * RNG.standard_normal((16, 1))
TARGETS = (FEATURES @ np.array([[1.0], [-2.0], [0.5]]) + NOISE).astype(np.float32)


def _expected_losses():
    """Gradient descent on the mean squared error, in float64 numpy: the loss before each step."""
    x, y, w = FEATURES.astype(np.float64), TARGETS.astype(np.float64), np.zeros((3, 1))
    losses = []
    for _ in range(STEPS):
        error = x @ w - y
        losses.append(float(np.mean(error**2)))
        w -= LEARNING_RATE * 2 * x.T @ error / len(x)
    return losses


def _write_events(logdir):
    """A linear regression trained STEPS steps in an embedded session, its loss summarised each step."""
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="features")
        y = tf.placeholder(tf.float32, [None, 1], name="targets")
        w = tf.Variable(np.zeros((3, 1), np.float32), name="weights")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        tf.summary.scalar("loss", loss)
        summaries = tf.summary.merge_all()
        train = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
        feed = {x: FEATURES, y: TARGETS}
        with tf.Session() as sess, tf.summary.FileWriter(logdir, graph) as writer:
            sess.run(tf.global_variables_initializer())
            for step in range(STEPS):
                writer.add_summary(sess.run(summaries, feed), step)
                sess.run(train, feed)


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()


def _tags(base):
    with contextlib.suppress(OSError, ValueError):
        return json.loads(_get(f"{base}/data/plugin/scalars/tags"))
    return None


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("logdir"))
    _write_events(logdir)
    with tensorboard(logdir, ready=lambda base: "loss" in ((_tags(base) or {}).get(".") or {})) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium to draw TensorBoard's pages")
    with chromium() as page:
        yield page


# -- TensorBoard's HTTP API --------------------------------------------------------------------


def test_tensorboard_lists_the_loss_tag_of_the_run(board):
    assert set(_tags(board)) == {"."}
    assert set(_tags(board)["."]) == {"loss"}


def test_tensorboard_serves_the_losses_the_session_computed(board):
    points = json.loads(_get(f"{board}/data/plugin/scalars/scalars?run=.&tag=loss"))
    assert [step for _, step, _ in points] == list(range(STEPS))
    np.testing.assert_allclose([value for _, _, value in points], _expected_losses(), rtol=1e-5)
    assert all(wall > 0 for wall, _, _ in points)


def test_tensorboard_serves_the_graph(board):
    assert json.loads(_get(f"{board}/data/plugin/graphs/info"))["."]["run_graph"] is True
    graph = _get(f"{board}/data/plugin/graphs/graph?run=.")
    for node in ("features", "targets", "weights", "MatMul", "Mean", "GradientDescent"):
        assert f'name: "{node}"' in graph, node


# -- TensorBoard's pages in Chromium -----------------------------------------------------------

LOSS_LINE_POINTS = scalar_line_points("loss")

# The names of the graph's nodes drawn in the graph dashboard's SVG scene.
DRAWN_NODES = (
    "(() => {"
    + WITHIN
    + """
  return within(document)
    .filter((el) => el.tagName === "g" && el.classList.contains("node") && el.getAttribute("data-name"))
    .map((el) => el.getAttribute("data-name"));
})()"""
)


@pytest.mark.browser
def test_the_scalars_dashboard_draws_every_loss_point(board, browser):
    browser.navigate(f"{board}/#scalars")
    drawn = browser.wait_for(f"{LOSS_LINE_POINTS} >= {STEPS}", timeout=30)
    assert drawn, browser.evaluate(LOSS_LINE_POINTS)
    assert browser.evaluate(LOSS_LINE_POINTS) == STEPS  # one vertex a step, none invented


@pytest.mark.browser
def test_the_graph_dashboard_draws_the_graph(board, browser):
    browser.navigate(f"{board}/#graphs")
    wanted = {"features", "targets", "weights", "MatMul", "Mean", "GradientDescent"}
    predicate = f"(names => {json.dumps(sorted(wanted))}.every((n) => names.includes(n)))({DRAWN_NODES})"
    drawn = browser.wait_for(predicate, timeout=30)
    assert drawn, browser.evaluate(DRAWN_NODES)
