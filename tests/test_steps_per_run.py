"""ConfigProto(steps_per_run=K): K training steps over a dataset in one run.

The reference is always the same program run one step per ``run`` (K = 1)
embedded: a run of K steps must leave the same variables, bit for bit, on a
cluster as well as embedded.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.datasets import load_digits
from tests.clusters import module_cluster

BATCH = 32


cluster = module_cluster(ps=1, workers=2, processes=False)


def _digits(poison_batch=None, rows=None):
    """Digits as float32 (x, one-hot y); with ``poison_batch``, a NaN in that batch's first row."""
    data = load_digits(one_hot=True)
    x = data.train.images[:rows].astype(np.float32).copy()
    y = data.train.labels[:rows].astype(np.float32)
    if poison_batch is not None:
        x[poison_batch * BATCH, 0] = np.nan
    return x, y


def _model(towers=1, repeat=True, **data):
    """Softmax regression on digits, one dataset per tower; returns a dict of graph parts."""
    graph = tf.Graph()
    x_all, y_all = _digits(**data)
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(np.zeros((64, 10), np.float32), name="w")
            b = tf.Variable(np.zeros(10, np.float32), name="b")
        opt = tf.train.GradientDescentOptimizer(0.5)
        grads, losses = [], []
        for i in range(towers):
            with tf.device(f"/job:worker/task:{i}"):
                data = tf.data.Dataset.from_tensor_slices((x_all[i::towers], y_all[i::towers]))
                data = (data.repeat() if repeat else data).batch(BATCH)
                x, y = tf.data.make_one_shot_iterator(data).get_next()
                x = tf.debugging.check_numerics(x, "input batch")
                logits = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
                losses.append(loss)
                grads.append(opt.compute_gradients(loss, [w, b]))
        with tf.device("/job:ps/task:0"):
            avg = [(tf.add_n([g[k][0] for g in grads]) / float(towers), grads[0][k][1]) for k in range(2)]
            train = opt.apply_gradients(avg, global_step=step)
            init = tf.global_variables_initializer()
    return dict(graph=graph, init=init, train=train, loss=losses[0], step=step, w=w, b=b)


def _session(m, target, steps):
    sess = tf.Session(target, graph=m["graph"], config=tf.ConfigProto(steps_per_run=steps))
    sess.run(m["init"])
    return sess


def _reference(runs, **model):
    """(losses of each run, w, b, global step) of ``runs`` one-step runs, embedded."""
    m = _model(**model)
    with _session(m, "", 1) as sess:
        losses = [sess.run([m["train"], m["loss"]])[1] for _ in range(runs)]
        return losses, sess.run(m["w"]), sess.run(m["b"]), sess.run(m["step"])


@pytest.mark.parametrize("value", [0, -2, 1.5, True, "4"])
def test_bad_steps_per_run_is_a_value_error_naming_the_field(value):
    with pytest.raises(ValueError, match="steps_per_run"):
        tf.ConfigProto(steps_per_run=value)


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_runs_of_k_steps_train_as_k_runs_of_one(where, request):
    target = request.getfixturevalue("cluster") if where == "cluster" else ""
    towers = 2 if where == "cluster" else 1
    losses, w, b, step = _reference(12, towers=towers)
    m = _model(towers=towers)
    with _session(m, target, 4) as sess:
        fetched = [sess.run([m["train"], m["loss"], m["step"]]) for _ in range(3)]
        np.testing.assert_array_equal(sess.run(m["w"]), w)
        np.testing.assert_array_equal(sess.run(m["b"]), b)
        assert sess.run(m["step"]) == step == 12
    # Fetches are the last step's: its loss, and the global step as that step started.
    assert [f[1] for f in fetched] == [losses[3], losses[7], losses[11]]
    assert [int(f[2]) for f in fetched] == [3, 7, 11]


def test_a_cluster_run_of_k_steps_is_one_submission_with_k_steps_of_metrics(cluster):
    m = _model(towers=2)
    with _session(m, cluster, 5) as sess:
        sess.step_metrics()  # the initializer's step
        before = len(sess.step_metrics())
        sess.run(m["train"])
        metrics = sess.step_metrics()[before:]
    assert [e["step"] for e in metrics] == list(range(metrics[0]["step"], metrics[0]["step"] + 5))
    assert all(e["bytes_between_workers"] > 0 for e in metrics)  # each step's gradients went to the ps


def test_runs_without_a_dataset_take_one_step(cluster):
    m = _model()
    with m["graph"].as_default():
        bump = m["step"].assign_add(1)
    for target in ("", cluster):
        with _session(m, target, 5) as sess:
            sess.run(bump)
            assert sess.run(m["step"]) == 1  # updates variables, reads no dataset: one step
            assert sess.run(m["loss"]) > 0  # reads the dataset, updates nothing: one step
            sess.run(m["train"])
            assert sess.run(m["step"]) == 6


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_a_failing_step_is_named_and_the_steps_before_it_are_kept(where, request):
    target = request.getfixturevalue("cluster") if where == "cluster" else ""
    _, w, b, _ = _reference(3)  # the steps before the poisoned batch (the 4th)
    m = _model(poison_batch=3)
    with _session(m, target, 5) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="input batch") as info:
            sess.run(m["train"])
        assert "step 4 of the 5 of this run" in str(info.value)
        assert "keep the 3 steps before it" in str(info.value)
        np.testing.assert_array_equal(sess.run(m["w"]), w)
        np.testing.assert_array_equal(sess.run(m["b"]), b)
        assert sess.run(m["step"]) == 3


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_a_failing_first_step_leaves_the_variables_as_they_were(where, request):
    target = request.getfixturevalue("cluster") if where == "cluster" else ""
    m = _model(poison_batch=0)
    with _session(m, target, 5) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="CheckNumerics|input batch") as info:
            sess.run(m["train"])
        assert "step 1 of the 5" in str(info.value) and "as they were before this run" in str(info.value)
        assert not sess.run(m["w"]).any() and sess.run(m["step"]) == 0


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_the_end_of_the_data_keeps_the_steps_it_fed(where, request):
    target = request.getfixturevalue("cluster") if where == "cluster" else ""
    _, w, _, _ = _reference(7, rows=7 * BATCH)
    m = _model(repeat=False, rows=7 * BATCH)
    with _session(m, target, 5) as sess:
        sess.run(m["train"])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(m["train"])
        assert sess.run(m["step"]) == 7
        np.testing.assert_array_equal(sess.run(m["w"]), w)


class _Runs(tf.train.SessionRunHook):
    def __init__(self):
        self.steps = []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.train.get_global_step())

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))

    def end(self, session):
        self.final = int(session.run(tf.train.get_global_step()))


@pytest.mark.parametrize("where", ["embedded", "cluster"])
def test_monitored_training_stops_exactly_at_the_last_step(where, request):
    target = request.getfixturevalue("cluster") if where == "cluster" else ""
    m = _model()
    runs = _Runs()
    with m["graph"].as_default():
        hooks = [tf.train.StopAtStepHook(last_step=12), runs]
        config = tf.ConfigProto(steps_per_run=5)
        with tf.train.MonitoredTrainingSession(
            master=target, hooks=hooks, config=config, progress_bar=False
        ) as sess:
            while not sess.should_stop():
                sess.run(m["train"])
    assert runs.final == 12
    assert runs.steps == [4, 9, 11]  # hooks see every 5th step; the last run takes the 2 left


def test_asynchronous_dispatch_runs_k_steps_per_run(cluster):
    _, w, _, _ = _reference(9)
    m = _model()
    config = tf.ConfigProto(steps_per_run=3, async_dispatch=2)
    with tf.Session(cluster, graph=m["graph"], config=config) as sess:
        sess.run(m["init"])
        for _ in range(3):
            sess.run(m["train"])
        np.testing.assert_array_equal(sess.run(m["w"]), w)
        assert sess.run(m["step"]) == 9


def _replicated(workers, aggregate):
    """The README's data-parallel softmax: replica_device_setter, SyncReplicasOptimizer."""
    graph = tf.Graph()
    x_all, y_all = _digits()
    with graph.as_default():
        data = tf.data.Dataset.from_tensor_slices((x_all, y_all)).repeat().batch(BATCH)
        x, y = tf.data.make_one_shot_iterator(data).get_next()
        spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]})
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(np.zeros((64, 10), np.float32))
            logits = tf.matmul(x, w)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.5),
                replicas_to_aggregate=aggregate,
                total_num_replicas=workers,
            )
            train = opt.minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    return dict(graph=graph, init=init, train=train, loss=loss, step=step, w=w)


def test_replicated_sync_training_runs_k_steps_as_k_runs_of_one(cluster):
    m = _replicated(workers=2, aggregate=2)
    with _session(m, cluster, 1) as sess:
        for _ in range(12):
            sess.run(m["train"])
        w = sess.run(m["w"])
    with _session(m, cluster, 4) as sess:
        for _ in range(3):
            sess.run(m["train"])
        np.testing.assert_allclose(sess.run(m["w"]), w, rtol=1e-5, atol=1e-7)  # sums in arrival order
        assert sess.run(m["step"]) == 12


def test_backup_workers_do_not_hold_up_a_run_of_k_steps():
    m = _replicated(workers=3, aggregate=2)
    with tf.local_cluster(ps=1, workers=3, processes=False) as three, _session(m, three, 10) as sess:
        first = sess.run([m["train"], m["loss"]])[1]
        for _ in range(3):
            last = sess.run([m["train"], m["loss"]])[1]
        assert sess.run(m["step"]) == 40
        assert last < first / 2
        used = [e["replicas_used"] for e in sess.step_metrics() if e["replicas_used"]]
        assert used and set(used) == {2}  # each step took the first 2 of 3


def _fed_model():
    """A step with a feed (the learning rate) and a variable the run reads but never updates."""
    graph = tf.Graph()
    x_all, y_all = _digits()
    with graph.as_default():
        rate = tf.placeholder(tf.float32, [])
        with tf.device("/job:ps/task:0"):
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(np.zeros((64, 10), np.float32), name="w")
            frozen = tf.Variable(np.full(10, 0.5, np.float32), name="frozen", trainable=False)
        with tf.device("/job:worker/task:0"):
            data = tf.data.Dataset.from_tensor_slices((x_all, y_all)).repeat().batch(BATCH)
            x, y = tf.data.make_one_shot_iterator(data).get_next()
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w) + frozen)
            )
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(rate).minimize(loss, global_step=step, var_list=[w])
            init = tf.global_variables_initializer()
    return dict(graph=graph, init=init, train=train, step=step, w=w, rate=rate)


def test_feeds_and_variables_the_run_does_not_update_are_read_in_every_step(cluster):
    m = _fed_model()
    with _session(m, "", 1) as sess:
        for _ in range(8):
            sess.run(m["train"], {m["rate"]: 0.5})
        w = sess.run(m["w"])
    with _session(m, cluster, 4) as sess:
        for _ in range(2):
            sess.run(m["train"], {m["rate"]: 0.5})
        np.testing.assert_array_equal(sess.run(m["w"]), w)
        assert sess.run(m["step"]) == 8


def test_a_run_before_initialisation_raises_failed_precondition(cluster):
    m = _model()
    with tf.Session(cluster, graph=m["graph"], config=tf.ConfigProto(steps_per_run=4)) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
            sess.run(m["train"])


def test_an_evaluation_updating_local_metrics_takes_one_step():
    graph = tf.Graph()
    x_all, y_all = _digits()
    with graph.as_default():
        data = tf.data.Dataset.from_tensor_slices((x_all, y_all)).batch(BATCH)
        x, y = tf.data.make_one_shot_iterator(data).get_next()
        mean, update = tf.metrics.mean(tf.reduce_sum(y, axis=1))
        with tf.Session(graph=graph, config=tf.ConfigProto(steps_per_run=5)) as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(update)
            sess.run(update)
            count = sess.run(graph.get_collection("local_variables")[1])
    assert count == 2 * BATCH  # two batches read: one step a run
