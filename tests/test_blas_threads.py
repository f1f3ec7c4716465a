"""ConfigProto(intra_op_parallelism_threads=n) sets numpy's BLAS pool to n threads
while the session is open, embedded and on a cluster's workers, and puts it back."""

import numpy as np
import pytest
from distributed import Client
from threadpoolctl import threadpool_info

import daskflow as tf


def blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_an_embedded_session_holds_blas_at_its_threads_and_restores_them():
    before = blas_threads()
    assert before, "numpy has no BLAS pool threadpoolctl can see"
    wanted = 1 if before[0] != 1 else 2
    with tf.Graph().as_default():
        y = tf.matmul(tf.ones([4, 4]), tf.ones([4, 4]))
        with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=wanted)) as sess:
            during = blas_threads()
            np.testing.assert_allclose(sess.run(y), np.full((4, 4), 4.0))
    assert during == [wanted] * len(before)
    assert blas_threads() == before


@pytest.mark.process
def test_a_cluster_session_sets_its_workers_blas_threads_and_restores_them():
    with tf.local_cluster(workers=1, ps=0, processes=True) as cluster, Client(cluster) as client:
        before = list(client.run(blas_threads).values())
        assert before == [[1]], "Dask's Nanny starts workers with OMP_NUM_THREADS=1"
        with tf.Graph().as_default():
            with tf.device("/job:worker/task:0"):
                y = tf.reduce_sum(tf.ones([3]))
            with tf.Session(client, config=tf.ConfigProto(intra_op_parallelism_threads=2)) as sess:
                assert sess.run(y) == 3.0
                during = list(client.run(blas_threads).values())
        after = list(client.run(blas_threads).values())
    assert during == [[2]]
    assert after == [[1]]


def test_a_negative_thread_count_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="intra_op_parallelism_threads"):
        tf.ConfigProto(intra_op_parallelism_threads=-1)
