"""GPU workers: what runs where when the machine has no GPU, and local_cluster(gpus=)."""

import types
from pathlib import Path

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
            assert sess.placement(text)[text.op.name].device == "/device:CPU:0"  # where it ran


# -- the GPU path on a cluster, with the strict stand-in for cupy ----------------------------------


def test_variables_on_a_gpu_worker_train_fetch_and_checkpoint_through_the_standin(tmp_path):
    """Variables placed on a worker's GPU live there as device arrays (the stand-in's); a
    fetch and a checkpoint bring them to the host, and a restore puts them back."""
    from tests.strict_device import cupy as standin

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 4)).astype(np.float32)
    ys = (xs @ np.array([1.0, -2.0, 0.5, 3.0], np.float32))[:, None]
    with devices.gpu_module(standin), tf.Graph().as_default():
        with tf.device("/job:worker/task:0/device:GPU:0"):
            w = tf.Variable(tf.zeros([4, 1]), name="w")
            loss = tf.reduce_mean(tf.square(tf.matmul(xs, w) - ys))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        saver = tf.train.Saver()
        with tf.local_cluster(ps=0, workers=0, gpu_workers=1, processes=False) as cluster:
            with tf.Session(cluster) as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([train, loss])[1] for _ in range(30)]
                trained = sess.run(w)
                path = saver.save(sess, str(tmp_path / "model"))
                held = sess.runtime.client.run(_kinds_of_shared_values)
                sess.run(w.assign(tf.zeros([4, 1])))
                saver.restore(sess, path)
                restored = sess.run(w)
    assert type(trained) is np.ndarray and losses[-1] < losses[0] / 10
    np.testing.assert_array_equal(restored, trained)
    assert "DeviceArray" in {kind for kinds in held.values() for kind in kinds}


def _kinds_of_shared_values(dask_worker=None):
    """The types of the values Dask holds on this worker (a variable's is the stand-in's)."""
    return sorted({type(v).__name__ for v in dask_worker.data.values()})


def test_the_gpu_check_runs_its_speed_checks_on_the_standin(capsys, monkeypatch):
    """benchmarks/gpu_check.py can only measure on a GPU; on the stand-in it must at least run
    every speed check end to end and print one line each."""
    from tests.strict_device import cupy as standin

    monkeypatch.syspath_prepend(str(Path(__file__).parent.parent / "benchmarks"))
    import gpu_check

    args = types.SimpleNamespace(standin=True, steps=1, rounds=1, batch=8)
    with devices.gpu_module(standin):
        rows = gpu_check.speed_checks(tf, standin, args)
    printed = capsys.readouterr().out.splitlines()
    assert [row[0] for row in rows] == ["mlp-embedded", "cnn-embedded", "mlp-cluster", "tf1"]
    assert [line.split(":")[0] for line in printed] == ["mlp-embedded", "cnn-embedded", "mlp-cluster", "tf1"]


def test_data_parallel_replicas_on_gpu_workers_train_through_the_standin():
    """In-graph replicas on /job:worker/device:GPU:0 (one per GPU worker), variables on a CPU
    ps, sync with SyncReplicasOptimizer: gradients leave each GPU as host arrays, once."""
    from daskflow.datasets import load_digits
    from tests.strict_device import cupy as standin

    data = load_digits(one_hot=True, seed=0)
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    with devices.gpu_module(standin), tf.Graph().as_default():
        x, y_ = tf.placeholder(tf.float32, [None, 64]), tf.placeholder(tf.float32, [None, 10])
        setter = tf.train.replica_device_setter(cluster=spec, worker_device="/job:worker/device:GPU:0")
        with tf.device(setter):
            step = tf.train.get_or_create_global_step()
            logits = tf.matmul(x, tf.Variable(tf.zeros([64, 10]))) + tf.Variable(tf.zeros([10]))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
            sync = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.5), 2, 2)
            train = sync.minimize(loss, global_step=step)
            accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)), tf.float32))
        with tf.local_cluster(ps=1, workers=0, gpu_workers=2, processes=False) as cluster:
            with tf.Session(cluster) as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(100):
                    bx, by = data.train.next_batch(64)
                    sess.run(train, {x: bx, y_: by})
                got = sess.run(accuracy, {x: data.test.images, y_: data.test.labels})
                assert sess.run(step) == 100
                replicas = [m["replicas_used"] for m in sess.step_metrics() if m["replicas_used"]][-5:]
    assert replicas == [2] * 5
    assert got > 0.9


def test_a_folded_value_on_a_gpu_is_never_written_into_by_a_later_step():
    """A folded constant is uploaded once and kept on the device (the stand-in's arrays, like
    cupy's, cannot be made read-only): a kernel given it must not take it over, or the next
    step reads what the last one wrote."""
    from tests.strict_device import cupy as standin

    with devices.gpu_module(standin), tf.Graph().as_default(), tf.device("/device:GPU:0"):
        v = tf.Variable(np.zeros(3, np.float32))
        add = tf.assign_add(v, tf.constant(np.arange(3, dtype=np.float32)) * 2.0)
        i = tf.placeholder(tf.int32, [])
        start = tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(0, tf.constant([1.0, 2.0]))
        rows = start.write(i, tf.constant([5.0, 5.0])).stack()
        with tf.Session() as sess:
            sess.run(v.initializer)
            sums = [sess.run(add) for _ in range(3)]
            written = [sess.run(rows, {i: k}) for k in (1, 2)]
    np.testing.assert_array_equal(sums, [[0, 2, 4], [0, 4, 8], [0, 6, 12]])
    np.testing.assert_array_equal(written[1], [[1, 2], [0, 0], [5, 5]])
