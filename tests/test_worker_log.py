"""A step's TF1 error reaches the program and leaves one line in its worker's log, not Dask's
traceback; any other failing task keeps Dask's record. The workers are threads of this
process here, so their log records are this test's to read."""

import logging
import operator

import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from tests.clusters import module_cluster

cluster = module_cluster(ps=1, workers=1, processes=False)


def _records(caplog):
    return [r for r in caplog.records if r.name == "distributed.worker"]


def test_an_input_ending_in_a_step_is_one_warning_line_in_the_workers_log(cluster, caplog):
    caplog.set_level(logging.INFO, logger="distributed.worker")
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            batch = tf.data.Dataset.range(3).batch(2).make_one_shot_iterator().get_next()
        with tf.Session(cluster) as sess:
            assert list(sess.run(batch)) == [0, 1]
            assert list(sess.run(batch)) == [2]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(batch)
    records = _records(caplog)
    assert not [r for r in records if r.levelno >= logging.ERROR], [r.getMessage() for r in records]
    lines = [r.getMessage() for r in records if "OutOfRangeError" in r.getMessage()]
    assert lines and all(r.levelno == logging.WARNING for r in records if "OutOfRangeError" in r.getMessage())
    assert all("\n" not in line and "ended with OutOfRangeError" in line for line in lines), lines


def test_a_failing_update_and_its_variables_copies_are_warning_lines(cluster, caplog):
    caplog.set_level(logging.INFO, logger="distributed.worker")
    caplog.set_level(logging.DEBUG, logger="daskflow.worker.failures")
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [None])
        with tf.device("/job:ps/task:0"):
            v = tf.get_variable("v", initializer=tf.zeros([3]))
        with tf.device("/job:worker/task:0"):
            delta = tf.reshape(tf.ones([3]), n)
        with tf.device("/job:ps/task:0"):
            bump = tf.assign_add(v, delta).op
        with tf.Session(cluster) as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
                sess.run(bump, {n: [1, 2]})  # its first update: the step copies v to a second worker
            np.testing.assert_array_equal(sess.run(v), np.zeros(3))
    records = _records(caplog)
    assert not [r for r in records if r.levelno >= logging.ERROR], [r.getMessage() for r in records]
    copies = [r.getMessage() for r in records if "variable backup--v" in r.getMessage()]
    assert copies and all("ended with" in line and "\n" not in line for line in copies), copies
    kept = [r.getMessage() for r in caplog.records if r.name == "daskflow.worker.failures"]
    assert any("Traceback" in text and "cannot reshape" in text for text in kept), kept


def test_another_failing_task_keeps_dasks_error_with_its_traceback(cluster, caplog):
    with tf.Graph().as_default(), tf.Session(cluster) as sess:  # the worker's log rewrite is installed
        sess.run(tf.constant(np.float32(1.0)))
    caplog.set_level(logging.INFO, logger="distributed.worker")
    with Client(cluster, set_as_default=False) as client:
        with pytest.raises(ZeroDivisionError):
            client.submit(operator.truediv, 1, 0, pure=False).result()
    errors = [r for r in _records(caplog) if r.levelno == logging.ERROR]
    assert errors and errors[0].getMessage().startswith("Compute Failed")
    assert "ZeroDivisionError" in errors[0].getMessage() and "Traceback" in errors[0].getMessage()
