"""GPU workers: what runs where when the machine has no GPU, and local_cluster(gpus=)."""

import numpy as np
import pytest

import daskflow as tf
from daskflow.kernels import devices


def test_without_a_gpu_a_gpu_partition_runs_with_numpy():
    assert devices.current_gpu_module() is None, "this test is for machines without a GPU"
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            y = tf.matmul(tf.ones([2, 3]), tf.ones([3, 2]))
        with tf.Session() as sess:
            out = sess.run(y)
    assert type(out) is np.ndarray
    np.testing.assert_allclose(out, np.full((2, 2), 3.0))


def test_asking_for_more_gpus_than_the_machine_has_is_refused_naming_the_count():
    with pytest.raises(ValueError, match=r"gpus=1.*has 0 GPU"):
        tf.local_cluster(ps=0, workers=1, gpus=1)
    with pytest.raises(ValueError, match=r"gpus='all'.*has 0 GPU"):
        tf.local_cluster(ps=0, workers=0, gpus="all")


def test_a_host_only_op_on_a_gpu_without_soft_placement_names_the_op_and_device():
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            text = tf.as_string(tf.constant([1, 2]), name="to_text")
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=False)) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"to_text.*/device:GPU:0"):
                sess.run(text)
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            assert list(sess.run(text)) == [b"1", b"2"]
            assert sess.placement(text)[text.op.name] == "/device:CPU:0"  # where it ran
