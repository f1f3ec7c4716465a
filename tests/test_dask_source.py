"""Datasets over dask arrays: data already on the cluster, read where it lies."""

import pickle

import dask.array as da
import numpy as np
import pytest
from distributed import Client

import daskflow as tf
from daskflow.data.cluster_source import DaskSlices
from daskflow.datasets import load_digits
from daskflow.runtime.cluster import sources
from tests.clusters import module_cluster
from tests.models import mlp_logits

cluster = module_cluster(ps=1, workers=3, processes=False)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _elements(ds, n):
    x = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return [sess.run(x) for _ in range(n)]


def test_embedded_a_dask_array_gives_the_numpy_elements():
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    y = np.arange(20)
    got = _elements(
        tf.data.Dataset.from_tensor_slices((da.from_array(x, chunks=7), da.from_array(y))).batch(6), 4
    )
    tf.reset_default_graph()
    want = _elements(tf.data.Dataset.from_tensor_slices((x, y)).batch(6), 4)
    for (gx, gy), (wx, wy) in zip(got, want, strict=True):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)


def test_bad_dask_components_are_named():
    with pytest.raises(TypeError, match=r"components \[1\] are not dask arrays"):
        tf.data.Dataset.from_tensor_slices((da.zeros((4, 2)), np.zeros(4)))
    with pytest.raises(ValueError, match="equal, known sizes"):
        tf.data.Dataset.from_tensor_slices((da.zeros((4, 2)), da.zeros(5)))
    unknown = da.zeros(6)[da.zeros(6) > 1]  # size nan until computed
    with pytest.raises(ValueError, match="known sizes"):
        tf.data.Dataset.from_tensor_slices(unknown)
    with pytest.raises(ValueError, match="scalars"):
        tf.data.Dataset.from_tensor_slices(da.zeros(()))


def test_the_arrays_never_travel_with_the_compiled_step():
    big = np.ones((5000, 64), np.float32)
    ds = tf.data.Dataset.from_tensor_slices(da.from_array(big, chunks=1000))
    assert len(pickle.dumps(ds)) < 2000
    with pytest.raises(RuntimeError, match="stay with the client"):
        pickle.loads(pickle.dumps(ds)).dask_arrays()


DATA = load_digits(one_hot=True)


def _replicated_training(target, images, labels, steps):
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1", "worker-2"]})
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(500, seed=0).repeat().batch(32)
    x, y_ = ds.make_one_shot_iterator().get_next()
    rng = np.random.default_rng(0)
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        gs = tf.train.get_or_create_global_step()
        ws = [tf.Variable((rng.standard_normal(s) * 0.1).astype(np.float32)) for s in ((64, 64), (64, 10))]
        bs = [tf.Variable(tf.zeros([64])), tf.Variable(tf.zeros([10]))]
        logits = mlp_logits(x, ws, bs)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
        opt = tf.train.SyncReplicasOptimizer(tf.train.AdamOptimizer(0.01), 3, total_num_replicas=3)
        train = opt.minimize(loss, global_step=gs)
    xt = tf.placeholder(tf.float32, [None, 64])
    predicted = tf.argmax(mlp_logits(xt, ws, bs), 1)
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        executable = sess.executable(train)
        accuracy = np.mean(sess.run(predicted, {xt: DATA.test.images}) == DATA.test.labels.argmax(1))
        return accuracy, sess.runtime.lowered[executable]


def _spread(client, array, block, workers):
    """``array`` as a dask array whose block i lies on ``workers[i % len(workers)]``."""
    parts = []
    for i, start in enumerate(range(0, len(array), block)):
        rows = array[start : start + block]
        future = client.scatter(rows, workers=[workers[i % len(workers)]])
        parts.append(da.from_delayed(future, rows.shape, rows.dtype))
    return client.persist(da.concatenate(parts))


def test_replicas_read_the_blocks_their_workers_hold_and_train(cluster):
    with Client(cluster.scheduler_address) as client:
        by_name = {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}
        replicas = [by_name[f"worker-{i}"] for i in range(3)]
        images = _spread(client, DATA.train.images, 150, replicas)
        labels = _spread(client, DATA.train.labels, 150, replicas)
        accuracy, lowered = _replicated_training(cluster, images, labels, steps=150)
        (shares,) = sources.place(client, lowered)[0].values()
        holders = client.who_has(images)
    assert accuracy >= 0.9
    assert len(shares) == 3
    keys = sorted(block[0][0] for share in shares for block in share)
    assert keys == sorted(holders)  # every block read, by one replica only
    for replica, share in enumerate(shares):  # ... the replica on the worker holding it
        assert share and all(replicas[replica] in holders[block[0][0]] for block in share)


def test_cluster_sources_are_found_under_transformations():
    ds = tf.data.Dataset.from_tensor_slices(da.zeros((10, 3), chunks=5))
    assert isinstance(ds, DaskSlices)
    assert ds.batch(4).repeat().shuffle(3).cluster_sources() == [ds]
    assert tf.data.Dataset.range(3).batch(2).cluster_sources() == []
