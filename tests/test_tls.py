"""Sessions on a TLS cluster: certificates made for the test; a client without them is refused."""

import cryptography  # noqa: F401  (the test extra Security.temporary() makes certificates with)
import numpy as np
import pytest
from distributed import Client
from distributed.security import Security

import daskflow as tf

# beside the clusters: no timings checked and no fixed port bound (free ports only)


def test_training_on_a_tls_cluster_and_a_client_without_certificates_is_refused():
    security = Security.temporary()
    with tf.local_cluster(ps=1, workers=1, processes=False, security=security) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(0.0)
        with tf.device("/job:worker/task:0"):
            loss = tf.square(w - 3.0)
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
        with tf.Session(address, security=security) as sess:
            sess.run(w.initializer)
            for _ in range(20):
                sess.run(train)
            np.testing.assert_allclose(sess.run(w), 3.0, atol=1e-3)
        with pytest.raises((OSError, TimeoutError, TypeError)):
            Client(address, timeout="3s", set_as_default=False)  # no certificate: no connection
