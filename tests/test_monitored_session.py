"""MonitoredTrainingSession and the session-run hooks, on a softmax model of the digits.

Every test builds its graph fresh; each hook's observable effect (a stop at
an exact step, log lines, rates, an error) is checked against the count of
runs the test made itself.
"""

import io
import json
import logging
import pathlib
from types import SimpleNamespace

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from daskflow.train import monitored_session

pytestmark = pytest.mark.usefixtures("fresh_graph")


def softmax_model(lr=0.5):
    """Softmax regression on the 8x8 digits, with a global step."""
    data = load_digits(one_hot=True, seed=0)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    w = tf.Variable(tf.zeros([64, 10]), name="w")
    b = tf.Variable(tf.zeros([10]), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)
    return SimpleNamespace(
        data=data, x=x, y=y, w=w, b=b, loss=loss, accuracy=accuracy, step=step, train=train
    )


def batch(m, n=64):
    xs, ys = m.data.train.next_batch(n)
    return {m.x: xs, m.y: ys}


class Recorder(tf.train.SessionRunHook):
    """Fetches ``fetches`` every run, keeps what it got, and runs ``at_end(session)`` at the end."""

    def __init__(self, fetches=None, feed_dict=None, at_end=None):
        self.fetches, self.feed_dict, self.at_end = fetches, feed_dict, at_end
        self.calls, self.results, self.final = [], [], None

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        if self.fetches is None and self.feed_dict is None:
            return None
        return tf.train.SessionRunArgs(self.fetches, feed_dict=self.feed_dict)

    def after_run(self, run_context, run_values):
        self.results.append(run_values.results)

    def end(self, session):
        self.calls.append("end")
        if self.at_end is not None:
            self.final = self.at_end(session)


def train_loop(sess, m, n=64):
    runs = 0
    while not sess.should_stop():
        sess.run(m.train, feed_dict=batch(m, n))
        runs += 1
    return runs


def mts(hooks=(), **kwargs):
    return tf.train.MonitoredTrainingSession(hooks=list(hooks), progress_bar=False, **kwargs)


# -- stopping and the global step ------------------------------------------------------------------


def test_stop_at_last_step_trains_digits():
    m = softmax_model()
    test = {m.x: m.data.test.images, m.y: m.data.test.labels}
    final = Recorder(at_end=lambda s: s.run([m.step, m.accuracy], test))
    with mts([tf.train.StopAtStepHook(last_step=40), final]) as sess:
        runs = train_loop(sess, m)
    step, accuracy = final.final
    assert runs == 40 and step == 40
    assert accuracy > 0.85


def test_num_steps_counts_from_the_global_step_at_session_creation():
    m = softmax_model()
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: sess.load_variable(m.step, 7))
    stop = tf.train.StopAtStepHook(num_steps=4)
    final = Recorder(at_end=lambda s: s.run(m.step))
    with mts([stop, final], scaffold=scaffold) as sess:
        runs = train_loop(sess, m)
    assert (runs, stop.last_step, final.final) == (4, 11, 11)


def test_global_step_advances_once_per_run():
    m = softmax_model()
    seen = Recorder(fetches=m.step, at_end=lambda s: s.run(m.step))
    with mts([tf.train.StopAtStepHook(last_step=6), seen]) as sess:
        train_loop(sess, m)
    # A hook's fetch reads the step as the run starts.
    assert [int(v) for v in seen.results] == [0, 1, 2, 3, 4, 5]
    assert seen.final == 6


def test_stop_hook_needs_exactly_one_bound_and_a_global_step():
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)
    tf.Variable(1.0)
    with pytest.raises(RuntimeError, match="get_or_create_global_step"):
        mts([tf.train.StopAtStepHook(last_step=1)])


def test_run_after_a_stop_raises_and_a_closed_session_should_stop():
    m = softmax_model()
    sess = mts([tf.train.StopAtStepHook(last_step=1)])
    sess.run(m.train, batch(m))
    with pytest.raises(RuntimeError, match="should_stop"):
        sess.run(m.train, batch(m))
    sess.close()
    sess.close()  # idempotent
    assert sess.should_stop()


# -- what hooks fetch and feed ---------------------------------------------------------------------


def test_hook_fetches_go_to_the_hook_and_not_to_the_caller():
    m = softmax_model()
    spy = Recorder(fetches={"w": m.w, "loss": "loss:0"})
    with mts([spy]) as sess:
        out = sess.run(m.loss, feed_dict=batch(m))
    assert np.ndim(out) == 0
    assert set(spy.results[0]) == {"w", "loss"}
    assert spy.results[0]["w"].shape == (64, 10)
    assert spy.results[0]["loss"] == pytest.approx(float(out))
    assert spy.calls == ["begin", "after_create_session", "end"]


def test_a_hook_may_feed_and_a_conflicting_feed_is_an_error():
    scale = tf.placeholder(tf.float32, [], name="scale")
    doubled = scale * 2.0
    feeder = Recorder(feed_dict={scale: 4.0})
    with mts([feeder]) as sess:
        assert float(sess.run(doubled)) == 8.0
        with pytest.raises(RuntimeError, match="scale:0 is fed by the caller and by hook Recorder"):
            sess.run(doubled, feed_dict={"scale:0": 1.0})


def test_hooks_without_requests_cost_nothing_and_see_none():
    c = tf.constant(3.0)
    quiet = Recorder()
    with mts([quiet]) as sess:
        assert float(sess.run(c)) == 3.0
    assert quiet.results == [None]


# -- the logging, counting and NaN hooks -----------------------------------------------------------


def test_logging_tensor_hook_logs_every_n_iter_and_at_end(caplog):
    m = softmax_model()
    # at_end runs the tensors once more without feeds, so they must not need one.
    tensors = {"step": m.step, "bias": tf.reduce_sum(m.b)}
    log = tf.train.LoggingTensorHook(tensors, every_n_iter=3, at_end=True)
    caplog.set_level(logging.INFO, logger="daskflow")
    with mts([tf.train.StopAtStepHook(last_step=10), log]) as sess:
        train_loop(sess, m)
    lines = [r.getMessage() for r in caplog.records if r.name == "daskflow" and "bias = " in r.getMessage()]
    # Runs 0, 3, 6, 9 and the end; tags in sorted order.
    assert len(lines) == 5
    assert lines[1].startswith("bias = ") and ", step = 3 (" in lines[1]
    assert ", step = 10 (" in lines[-1]
    assert int(log.last_values["step"]) == 10  # at_end reads after the last step


def test_logging_tensor_hook_names_and_formatter(caplog):
    m = softmax_model()
    log = tf.train.LoggingTensorHook(["loss:0"], every_n_iter=1, formatter=lambda v: f"L={v['loss:0']:.2f}")
    caplog.set_level(logging.INFO, logger="daskflow")
    with mts([tf.train.StopAtStepHook(last_step=2), log]) as sess:
        train_loop(sess, m)
    assert [r.getMessage()[:2] for r in caplog.records if r.getMessage().startswith("L=")] == ["L=", "L="]
    assert set(log.last_values) == {"loss:0"}
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.LoggingTensorHook(["loss:0"])


def test_step_counter_hook_records_rates(caplog):
    m = softmax_model()
    counter = tf.train.StepCounterHook(every_n_steps=2)
    caplog.set_level(logging.INFO, logger="daskflow")
    with mts([tf.train.StopAtStepHook(last_step=9), counter]) as sess:
        train_loop(sess, m)
    # The first measurement is the baseline; then every two steps.
    assert len(counter.steps_per_sec) == 4
    assert all(rate > 0 for rate in counter.steps_per_sec)
    assert sum("global_step/sec" in r.getMessage() for r in caplog.records) == 4


def nan_model():
    v = tf.placeholder(tf.float32, [], name="v")
    w = tf.Variable(1.0, name="w")
    loss = tf.multiply(tf.log(v), w, name="nan_loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return v, loss, train


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_nan_tensor_hook_raises_naming_the_loss():
    v, loss, train = nan_model()
    nan = tf.train.NanTensorHook(loss)
    with pytest.raises(tf.train.NanLossDuringTrainingError, match="nan_loss"):
        with mts([nan]) as sess:
            sess.run(train, {v: 2.0})  # a finite loss passes
            sess.run(train, {v: -1.0})


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_nan_tensor_hook_may_stop_instead():
    v, loss, train = nan_model()
    with mts([tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(train, {v: 2.0})
        assert not sess.should_stop()
        sess.run(train, {v: -1.0})
        assert sess.should_stop()


# -- the progress bar ------------------------------------------------------------------------------


def test_progress_bar_ends_at_the_stop_hooks_last_step():
    m = softmax_model()
    stop = tf.train.StopAtStepHook(num_steps=5)
    bar = tf.train.ProgressBarHook(last_step=stop, file=io.StringIO())
    with mts([bar, stop]) as sess:  # the bar before the stop hook still learns its total
        train_loop(sess, m)
    assert (bar.bar.total, bar.bar.n) == (5, 5)
    assert "5/5" in bar.bar.fp.getvalue()


def test_progress_bar_never_passes_its_total_when_a_run_adds_several_steps():
    gs = tf.train.get_or_create_global_step()
    three_replicas = tf.assign_add(gs, 3)  # as an asynchronous run of three replicas does
    stop = tf.train.StopAtStepHook(last_step=10)
    bar = tf.train.ProgressBarHook(last_step=stop, file=io.StringIO())
    with mts([bar, stop]) as sess:
        while not sess.should_stop():
            last = sess.run(three_replicas)
    assert last == 12  # past the last step, as TF1's would be
    assert (bar.bar.total, bar.bar.n) == (10, 10)
    assert "10/10" in bar.bar.fp.getvalue() and "12/10" not in bar.bar.fp.getvalue()


def test_progress_bar_by_request_and_by_default_when_interactive(capsys, monkeypatch):
    m = softmax_model()
    stop = tf.train.StopAtStepHook
    with tf.train.MonitoredTrainingSession(hooks=[stop(last_step=3)], progress_bar=True) as s:
        train_loop(s, m)
    assert "3/3" in capsys.readouterr().err
    monkeypatch.setattr(monitored_session, "_interactive", lambda: True)
    with tf.train.MonitoredTrainingSession(hooks=[stop(last_step=2)]) as s:
        train_loop(s, m)
    assert "2/2" in capsys.readouterr().err
    with tf.train.MonitoredTrainingSession(hooks=[stop(last_step=1)], progress_bar=False) as s:
        train_loop(s, m)
    assert "1/1" not in capsys.readouterr().err


# -- chief, graph, exits, unbuilt parts ------------------------------------------------------------


def test_chief_only_hooks_and_initialisation_are_skipped_off_the_chief():
    m = softmax_model()
    everyone, chief = Recorder(), Recorder()
    with tf.train.MonitoredTrainingSession(
        is_chief=False, hooks=[everyone], chief_only_hooks=[chief], progress_bar=False
    ) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(m.w)  # nobody initialised it
    assert "begin" in everyone.calls and chief.calls == []
    with mts([everyone], chief_only_hooks=[chief]) as sess:
        assert sess.run(m.w).shape == (64, 10)
    assert chief.calls == ["begin", "after_create_session", "end"]


def test_the_graph_is_finalized_while_the_session_is_open():
    softmax_model()
    with mts() as sess:
        assert sess.graph.finalized
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(1.0)
    tf.constant(1.0)  # open again afterwards, as in TF1


def test_out_of_range_ends_the_block_quietly_and_runs_end():
    m = softmax_model()
    hook = Recorder()
    with mts([hook]) as sess:
        sess.run(m.train, batch(m))
        raise tf.errors.OutOfRangeError(None, None, "End of sequence")
    assert hook.calls[-1] == "end"
    assert sess.should_stop()


def test_other_errors_propagate_without_end():
    hook = Recorder()
    with pytest.raises(KeyError):
        with mts([hook]):
            raise KeyError("boom")
    assert "end" not in hook.calls


def test_checkpoint_dir_saves_and_a_new_session_resumes_from_it(tmp_path):
    m = softmax_model()
    with mts(checkpoint_dir=str(tmp_path), save_checkpoint_steps=5) as sess:
        for _ in range(12):
            sess.run(m.train, batch(m))
    assert tf.train.latest_checkpoint(str(tmp_path)) == f"{tmp_path}/model.ckpt-12"  # saved at the end
    assert sorted(p.name for p in tmp_path.glob("*.index")) == [
        "model.ckpt-0.index",  # TF1 saves the state the session starts from
        "model.ckpt-10.index",
        "model.ckpt-12.index",
        "model.ckpt-5.index",
    ]
    with mts(checkpoint_dir=str(tmp_path)) as sess:  # restores: the global step goes on from 12
        assert sess.run(tf.train.get_global_step()) == 12


TF1_LISTENER = json.loads(
    (pathlib.Path(__file__).parent / "fixtures" / "tf1_checkpoint_listener.json").read_text()
)


class SaveRecorder(tf.train.CheckpointSaverListener):
    """Records each call (method, global step); stops training after the save at ``stop_at``."""

    def __init__(self, stop_at=None):
        self.calls, self._stop_at = [], stop_at

    def begin(self):
        self.calls.append(["begin", None])

    def before_save(self, session, global_step_value):
        self.calls.append(["before_save", int(global_step_value)])

    def after_save(self, session, global_step_value):
        self.calls.append(["after_save", int(global_step_value)])
        return global_step_value == self._stop_at

    def end(self, session, global_step_value):
        self.calls.append(["end", int(global_step_value)])


def _saved(folder):
    """What a checkpoint folder holds, in the terms TF1's and daskflow's files share."""
    steps = sorted(int(p.name.split("-")[1].split(".")[0]) for p in folder.glob("model.ckpt-*.index*"))
    metas = sorted(int(p.name.split("-")[1].split(".")[0]) for p in folder.glob("model.ckpt-*.meta"))
    return {"steps": steps, "metas": metas, "graph.pbtxt": (folder / "graph.pbtxt").exists()}


def _tf1_saved(files):
    steps = sorted({int(f.split("-")[1].split(".")[0]) for f in files if ".index" in f})
    metas = sorted(int(f.split("-")[1].split(".")[0]) for f in files if f.endswith(".meta"))
    return {"steps": steps, "metas": metas, "graph.pbtxt": "graph.pbtxt" in files}


@pytest.mark.parametrize(
    ("case", "kwargs", "stop_at"),
    [
        ("save_steps_5", {}, None),
        ("no_graph_def", {"save_graph_def": False}, None),
        ("stop_after_save_at_5", {}, 5),
    ],
)
def test_checkpoint_saver_hook_calls_listeners_as_tf1(tmp_path, case, kwargs, stop_at):
    # The same loop as fixtures/make_checkpoint_listener.py: up to 12 steps, save_steps=5.
    expected = TF1_LISTENER["cases"][case]
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=step)
    listener = SaveRecorder(stop_at)
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=5, listeners=[listener], **kwargs)
    steps = 0
    with mts(chief_only_hooks=[hook]) as sess:
        while not sess.should_stop() and steps < 12:
            sess.run(train)
            steps += 1
    assert listener.calls == expected["calls"]
    assert steps == expected["steps_run"]
    assert _saved(tmp_path) == _tf1_saved(expected["files"])


def test_checkpoint_saver_hook_writes_the_graph_it_trains(tmp_path):
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="weight")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=step)
    with mts(checkpoint_dir=str(tmp_path), save_checkpoint_steps=100) as sess:
        sess.run(train)
    text = (tmp_path / "graph.pbtxt").read_text()
    assert 'name: "weight"' in text and 'op: "VariableV2"' in text


def test_checkpoint_saver_hook_refuses_saver_and_scaffold_and_needs_one_period():
    tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match="both saver and scaffold"):
        tf.train.CheckpointSaverHook("memory://x", save_steps=1, saver=object(), scaffold=tf.train.Scaffold())
    with pytest.raises(ValueError, match="every_secs or every_steps"):
        tf.train.CheckpointSaverHook("memory://x")


def test_monitored_training_session_passes_save_graph_def(tmp_path):
    step = tf.train.get_or_create_global_step()
    train = tf.assign_add(step, 1)
    with mts(checkpoint_dir=str(tmp_path), save_checkpoint_steps=100, save_graph_def=False) as sess:
        sess.run(train)
    assert _saved(tmp_path) == {"steps": [0, 1], "metas": [], "graph.pbtxt": False}


def test_scaffold_feeds_local_init_feed_dict_to_local_init_op():
    seed = tf.placeholder(tf.float32, [], name="seed")
    local = tf.Variable(0.0, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="local")
    scaffold = tf.train.Scaffold(
        local_init_op=tf.assign(local, seed * 2).op, local_init_feed_dict={seed: 4.0}
    )
    with mts(scaffold=scaffold) as sess:
        assert float(sess.run(local)) == 8.0


def test_monitored_and_singular_monitored_sessions():
    c = tf.constant(2.0)
    with tf.train.MonitoredSession(hooks=[Recorder()]) as sess:
        assert float(sess.run(c)) == 2.0
    with tf.train.SingularMonitoredSession() as sess:
        assert float(sess.raw_session().run(c)) == 2.0


# -- on a cluster ----------------------------------------------------------------------------------


def test_training_on_a_cluster_stops_at_the_last_step():
    data = load_digits(one_hot=True, seed=0)
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.float32, [None, 10])
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(tf.zeros([64, 10]), name="w")
        b = tf.Variable(tf.zeros([10]), name="b")
        step = tf.train.get_or_create_global_step()
    with tf.device("/job:worker/task:0"):
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w) + b))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    seen = Recorder(fetches=step, at_end=lambda s: s.run(step))
    with tf.local_cluster(ps=1, workers=1, processes=False) as cluster:
        with tf.train.MonitoredTrainingSession(
            master=cluster.scheduler_address,
            hooks=[tf.train.StopAtStepHook(last_step=5), seen],
            progress_bar=False,
        ) as sess:
            losses = []
            while not sess.should_stop():
                xs, ys = data.train.next_batch(64)
                losses.append(sess.run([loss, train], {x: xs, y: ys})[0])
    assert len(losses) == 5 and seen.final == 5
    assert [int(v) for v in seen.results] == [0, 1, 2, 3, 4]
    assert losses[-1] < losses[0]


def test_a_hook_may_stop_through_the_coordinator():
    class StopAtOnce(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            coord.request_stop(ValueError("from a hook's thread"))

    tf.constant(1.0)
    with pytest.raises(ValueError, match="hook's thread"):
        with mts([StopAtOnce()]) as sess:
            sess.should_stop()
