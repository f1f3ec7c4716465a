"""tf.train.Supervisor: the session it prepares, its services, stopping."""

import os
import time

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import daskflow as tf
from tests.waiting import poll_for

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _counter():
    w = tf.Variable(0.0, name="w")
    step = tf.train.get_or_create_global_step()
    tf.summary.scalar("w_value", w)
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
    return w, step, train


def test_chief_writes_summaries_and_checkpoints_and_restores_them(tmp_path):
    w, step, train = _counter()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_summaries_secs=0.05, save_model_secs=3600)
    with sv.managed_session() as sess:
        while not sv.should_stop() and sess.run(step) < 30:
            sess.run(train)
            time.sleep(0.005)
    # One checkpoint, at stop (the timer's hour never came), of the last step.
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-30")
    summaries = EventAccumulator(str(tmp_path)).Reload()
    values = [(e.step, e.value) for e in summaries.Scalars("w_value")]
    assert len(values) >= 2 and all(v == s for s, v in values)  # w counts the steps
    assert "global_step/sec" in summaries.Tags()["scalars"]
    tf.reset_default_graph()
    w, step, train = _counter()
    sv = tf.train.Supervisor(logdir=str(tmp_path))
    with sv.managed_session() as sess:
        assert sess.run([w, step]) == [30.0, 30]


def test_without_logdir_nothing_is_written_and_init_runs(tmp_path):
    w, step, train = _counter()
    sv = tf.train.Supervisor()
    assert sv.saver is None and sv.summary_writer is None
    with sv.managed_session() as sess:
        sess.run(train)
        assert sess.run(w) == 1.0
    assert os.listdir(tmp_path) == []


def test_an_error_in_the_loop_stops_the_supervisor_and_is_raised():
    w, step, train = _counter()
    sv = tf.train.Supervisor()
    with pytest.raises(ValueError, match="bad batch"):
        with sv.managed_session():
            raise ValueError("bad batch")
    assert sv.should_stop()


def test_out_of_range_is_a_clean_stop():
    w, step, train = _counter()
    sv = tf.train.Supervisor()
    with sv.managed_session():
        raise tf.errors.OutOfRangeError(None, None, "end of input")
    assert sv.should_stop()


def test_summary_computed_and_loop(tmp_path):
    w, step, train = _counter()
    calls = []
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_summaries_secs=0, save_model_secs=0)
    sv.loop(0.01, calls.append, args=("tick",))
    with sv.managed_session() as sess:
        sess.run(train)
        sv.summary_computed(sess, sess.run(sv.summary_op))
        poll_for(lambda: (sv.should_stop(), calls)[1], 5, "the looper's first tick", every=0.02)
    assert calls[0] == "tick"
    assert [(e.step, e.value) for e in EventAccumulator(str(tmp_path)).Reload().Scalars("w_value")] == [
        (1, 1.0)
    ]
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # save_model_secs=0: none


def test_a_non_chief_cannot_start_services():
    _counter()
    sv = tf.train.Supervisor(is_chief=False)
    with pytest.raises(RuntimeError, match="Only chief"):
        sv.start_standard_services(None)


def test_session_manager_is_refused_by_name():
    _counter()
    with pytest.raises(NotImplementedError, match="session_manager"):
        tf.train.Supervisor(session_manager=object())
