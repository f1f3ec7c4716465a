"""More tf.nn, tf.train optimizers, summary hooks and TF1-on-TF2 switches.

Values and gradients are TF1's own (``tests/fixtures/make_nn_train_extras.py``
stored ``nn_train_extras.json``).
"""

import json
import pathlib
import sys
import types

import numpy as np
import pytest

import daskflow as tf
from daskflow import compat_v1
from daskflow.ops import candidate_sampling_ops, nn_impl
from daskflow.train import hooks as hooks_module
from daskflow.train import optimizer as optimizer_module

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_nn_train_extras as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "nn_train_extras.json").read_text())


def _namespace(module, *extras):
    """``module`` plus names not exported from it yet (found in ``extras``)."""

    class Namespace(types.ModuleType):
        def __getattr__(self, name):
            for source in (module, *extras):
                try:
                    return getattr(source, name)
                except AttributeError:
                    continue
            raise AttributeError(name)

    return Namespace(module.__name__)


# The names as `import daskflow as tf` will give them once they are exported.
TF = _namespace(tf, compat_v1, types.SimpleNamespace(log_sigmoid=nn_impl.log_sigmoid))
TF.nn = _namespace(tf.nn, nn_impl, candidate_sampling_ops)
TF.train = _namespace(tf.train, optimizer_module, hooks_module)

MINE_NN = sc.nn_values(TF)


@pytest.mark.parametrize("key", sorted(TF1["nn"]))
def test_nn_value_and_gradient_match_tf1(key):
    if key not in MINE_NN:
        # A gradient daskflow leaves unconnected (None) must be TF1's zeros: TF1's fused
        # batch norm connects its moments outputs to x but gives them no gradient.
        assert "/d_" in key and not np.any(TF1["nn"][key]), f"{key} has no gradient in daskflow"
        return
    np.testing.assert_allclose(MINE_NN[key], TF1["nn"][key], rtol=2e-5, atol=2e-5)


def test_no_gradient_beyond_tf1s():
    assert set(MINE_NN) <= set(TF1["nn"])


@pytest.mark.parametrize("key", sorted(sc.OPTIMIZERS))
def test_optimizer_matches_tf1_after_steps(key):
    mine, theirs = sc.optimizer_values(TF, key), TF1["optimizers"][key]
    assert mine["slot_names"] == theirs["slot_names"]
    assert mine["slot_variables"] == theirs["slot_variables"]
    for name in sorted(set(theirs) - {"slot_names", "slot_variables"}):
        np.testing.assert_allclose(mine[name], theirs[name], rtol=1e-5, atol=1e-6, err_msg=name)


MINE_SAMPLED = sc.sampled_loss_values(TF)


@pytest.mark.parametrize("key", sorted(TF1["sampled"]))
def test_sampled_losses_match_tf1_given_the_draws(key):
    np.testing.assert_allclose(MINE_SAMPLED[key], TF1["sampled"][key], rtol=2e-5, atol=2e-5)


def test_log_uniform_sampler_draws_follow_its_distribution():
    with tf.Graph().as_default():
        labels = tf.constant([[0], [4]], dtype=tf.int64)
        unique = TF.nn.log_uniform_candidate_sampler(labels, 1, 20, True, 30, seed=5)
        many, _, _ = TF.nn.log_uniform_candidate_sampler(labels, 1, 20000, False, 30, seed=6)
        with tf.Session() as sess:
            sampled, true_expected, sampled_expected = sess.run(unique)
            again = sess.run(unique[0])
            draws = sess.run(many)
        with tf.Session() as sess:  # a new session replays the seeded stream
            assert sess.run(unique[0]).tolist() == sampled.tolist()
    assert len(set(sampled.tolist())) == 20 and sampled.min() >= 0 and sampled.max() < 30
    assert again.tolist() != sampled.tolist()
    assert true_expected.shape == (2, 1) and np.all((sampled_expected > 0) & (sampled_expected <= 1))
    k = np.arange(30)
    zipf = np.log((k + 2) / (k + 1)) / np.log(31)
    np.testing.assert_allclose(np.bincount(draws, minlength=30) / draws.size, zipf, atol=0.01)


def test_sampler_and_sampled_loss_refuse_bad_input():
    with tf.Graph().as_default():
        labels = tf.constant([[0], [4]], dtype=tf.int64, name="classes")
        with pytest.raises(ValueError, match="range_max=5"):
            TF.nn.log_uniform_candidate_sampler(labels, 1, 6, True, 5)
        with pytest.raises(ValueError, match="classes"):
            TF.nn.log_uniform_candidate_sampler(labels, 2, 3, True, 10)
        flat = tf.constant([0, 4], dtype=tf.int64, name="flat_labels")
        with pytest.raises(ValueError, match="flat_labels"):
            TF.nn.sampled_softmax_loss(tf.zeros([10, 2]), tf.zeros([10]), flat, tf.zeros([2, 2]), 3, 10)


# -- bad input ---------------------------------------------------------------------------------------


def test_bad_nn_input_names_the_culprit():
    with tf.Graph().as_default():
        ints = tf.constant([1, 2], name="counts")
        with pytest.raises(TypeError, match="counts"):
            TF.nn.l2_normalize(ints, 0)
        flat = tf.zeros([3, 4], name="flat")
        with pytest.raises(ValueError, match="flat"):
            TF.nn.lrn(flat)
        with pytest.raises(ValueError, match="flat"):
            TF.nn.fused_batch_norm(flat, tf.ones([4]), tf.zeros([4]))
        image = tf.zeros([1, 3, 3, 4])
        with pytest.raises(ValueError, match="is_training=False"):
            TF.nn.fused_batch_norm(image, tf.ones([4]), tf.zeros([4]), is_training=False)
        with pytest.raises(ValueError, match="channels"):
            TF.nn.depthwise_conv2d(image, tf.zeros([2, 2, 3, 1]), [1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="axis 5"):
            TF.nn.sufficient_statistics(image, [5])
        with pytest.raises(ValueError, match="same shape"):
            TF.nn.weighted_cross_entropy_with_logits(
                labels=tf.zeros([2]), logits=tf.zeros([3]), pos_weight=2.0
            )


@pytest.mark.parametrize(
    "make, culprit",
    [
        (lambda: TF.train.FtrlOptimizer(0.1, learning_rate_power=0.5), "learning_rate_power"),
        (lambda: TF.train.FtrlOptimizer(0.1, initial_accumulator_value=-1.0), "initial_accumulator_value"),
        (lambda: TF.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0), "l1_regularization_strength"),
        (lambda: TF.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0), "initial_accum"),
        (lambda: TF.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=-1), "l2_reg"),
    ],
)
def test_bad_optimizer_settings_name_the_culprit(make, culprit):
    with pytest.raises(ValueError, match=culprit):
        make()


# -- summaries in training ---------------------------------------------------------------------------


def _events(logdir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(logdir))
    acc.Reload()
    return acc


def _training_graph():
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(2.0, name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
    return train


def test_monitored_training_session_writes_summaries_as_tf1(tmp_path):
    from daskflow.summary import FileWriterCache

    with tf.Graph().as_default():
        train = _training_graph()
        hooks = [tf.train.StopAtStepHook(last_step=7)]
        with tf.train.MonitoredTrainingSession(
            summary_dir=str(tmp_path),
            save_summaries_steps=3,
            log_step_count_steps=2,
            hooks=hooks,
            progress_bar=False,
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
    FileWriterCache.clear()
    acc = _events(tmp_path)
    # Written before each step's update: w was 2, then halves each step (w -= 0.25 * 2w).
    loss = {e.step: e.value for e in acc.Scalars("loss")}
    assert sorted(loss) == [1, 4, 7]
    np.testing.assert_allclose([loss[1], loss[4], loss[7]], [4.0, 4.0 / 4**3, 4.0 / 4**6], rtol=1e-6)
    rates = acc.Scalars("global_step/sec")
    assert [e.step for e in rates] == [3, 5, 7] and all(e.value > 0 for e in rates)
    assert acc.Graph() is not None


def test_summaries_default_to_every_100_steps_in_checkpoint_dir(tmp_path):
    from daskflow.summary import FileWriterCache

    with tf.Graph().as_default():
        train = _training_graph()
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), hooks=[tf.train.StopAtStepHook(last_step=3)], progress_bar=False
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
    FileWriterCache.clear()
    assert [e.step for e in _events(tmp_path).Scalars("loss")] == [1]


def test_no_summaries_when_both_frequencies_are_none(tmp_path):
    with tf.Graph().as_default():
        train = _training_graph()
        with tf.train.MonitoredTrainingSession(
            summary_dir=str(tmp_path),
            save_summaries_steps=None,
            save_summaries_secs=None,
            log_step_count_steps=None,
            hooks=[tf.train.StopAtStepHook(last_step=2)],
            progress_bar=False,
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
    assert not list(tmp_path.iterdir())


def test_summary_saver_hook_with_its_own_writer(tmp_path):
    with tf.Graph().as_default():
        train = _training_graph()
        extra = tf.summary.scalar("w_value", tf.get_default_graph().get_tensor_by_name("w:0"))
        with tf.summary.FileWriter(str(tmp_path)) as writer:
            hook = TF.train.SummarySaverHook(save_steps=2, summary_writer=writer, summary_op=extra)
            with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(last_step=4)]) as sess:
                while not sess.should_stop():
                    sess.run(train)
    values = {e.step: e.value for e in _events(tmp_path).Scalars("w_value")}
    assert values == pytest.approx({1: 2.0, 3: 0.5})


def test_summary_saver_hook_checks_its_arguments(tmp_path):
    op = tf.constant(b"")
    with pytest.raises(ValueError, match="scaffold or summary_op"):
        TF.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="every_secs or every_steps"):
        TF.train.SummarySaverHook(save_steps=1, save_secs=1, output_dir=str(tmp_path), summary_op=op)
    with pytest.raises(ValueError, match="output_dir or summary_writer"):
        TF.train.SummarySaverHook(save_steps=1, summary_op=op)
    with tf.Graph().as_default(), pytest.raises(RuntimeError, match="SummarySaverHook"):
        TF.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path), summary_op=op).begin()


# -- the smaller hooks ------------------------------------------------------------------------------


def test_final_ops_feed_fn_and_waiter_hooks():
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [], name="x")
        total = tf.Variable(0.0)
        train = tf.group(tf.assign_add(total, x), tf.assign_add(step, 1))
        feeds = iter([1.0, 2.0, 4.0])
        final = TF.train.FinalOpsHook(total * 10)
        hooks = [
            TF.train.FeedFnHook(lambda: {x: next(feeds)}),
            TF.train.GlobalStepWaiterHook(0),
            final,
            tf.train.StopAtStepHook(last_step=3),
        ]
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            while not sess.should_stop():
                sess.run(train)
    assert final.final_ops_values == pytest.approx(70.0)


def test_second_or_step_timer_needs_exactly_one():
    with pytest.raises(ValueError, match="every_secs or every_steps"):
        TF.train.SecondOrStepTimer()
    timer = TF.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(1)
    timer.update_last_triggered_step(1)
    assert timer.last_triggered_step() == 1
    assert [timer.should_trigger_for_step(s) for s in (2, 3, 4)] == [False, False, True]


# -- TF1-on-TF2 switches ----------------------------------------------------------------------------


def test_compat_switches_are_no_ops_and_eager_is_refused():
    for name in (
        "disable_v2_behavior",
        "disable_eager_execution",
        "disable_control_flow_v2",
        "disable_resource_variables",
        "disable_v2_tensorshape",
        "enable_resource_variables",
    ):
        assert getattr(TF, name)() is None
    assert TF.executing_eagerly() is False
    with pytest.raises(ValueError, match="enable_eager_execution"):
        TF.enable_eager_execution()


def test_session_run_accepts_run_options_and_metadata():
    with tf.Graph().as_default():
        y = tf.constant(3.0) * 2
        options = TF.RunOptions(trace_level=TF.RunOptions.FULL_TRACE)
        metadata = TF.RunMetadata()
        with tf.Session() as sess:
            assert sess.run(y, options=options, run_metadata=metadata) == 6.0
    # y is folded when the run is planned: no op runs, so none is traced (test_timeline.py traces ops).
    assert options.trace_level == 3 and list(metadata.step_stats.dev_stats) == []
    # As TF's protobuf: an open enum takes any number, but not an unknown label.
    assert TF.RunOptions(trace_level=9).trace_level == 9
    with pytest.raises(ValueError, match='trace_level: unknown enum label "FULL"'):
        TF.RunOptions(trace_level="FULL")
