"""An elastic Horovod TF1 script (daskflow's own): softmax regression on scikit-learn's
digits, the ranks' shares of each batch averaged by ``DistributedOptimizer``.

``ELASTIC_BATCHES`` batches of 64 rows in all. ``ELASTIC_KILL_SLOT`` names a slot whose
first process kills itself (SIGKILL: no cleanup, as a lost machine) before batch
``ELASTIC_KILL_AT``; ``ELASTIC_MARKS`` is a folder for the marker that makes its
replacement train on. Each rank prints its size at
every (re)start and, at the end, its batch count and its copy of the weights' checksum;
rank 0 prints the test accuracy.
"""

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

import daskflow as tf
import daskflow.horovod as hvd

BATCHES = int(os.environ.get("ELASTIC_BATCHES", "60"))
BATCH = 64
KILL_SLOT = os.environ.get("ELASTIC_KILL_SLOT")
KILL_AT = int(os.environ.get("ELASTIC_KILL_AT", "20"))
PAUSE = float(os.environ.get("ELASTIC_PAUSE", "0"))  # seconds per batch: a slower model's step
MARKS = Path(os.environ.get("ELASTIC_MARKS", "."))
SLOT = os.environ.get("HOROVOD_RANK")

hvd.init()
digits = load_digits()
x_all = (digits.data / 16.0).astype(np.float32)
y_all = digits.target.astype(np.int64)
x_train, y_train, x_test, y_test = x_all[:1500], y_all[:1500], x_all[1500:], y_all[1500:]

images = tf.placeholder(tf.float32, [None, 64])
labels = tf.placeholder(tf.int64, [None])
weights = tf.Variable(tf.zeros([64, 10]))
bias = tf.Variable(tf.zeros([10]))
logits = tf.matmul(images, weights) + bias
loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
global_step = tf.train.get_or_create_global_step()
train_op = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.5)).minimize(loss, global_step)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))

sess = tf.Session()
sess.run(tf.global_variables_initializer())
state = hvd.elastic.TensorFlowState(session=sess, batch=0)
state.register_reset_callbacks([lambda: print(f"reset: rank {hvd.rank()} of {hvd.size()}", flush=True)])


def _kill_myself_once(batch):
    mark = MARKS / f"killed-{SLOT}"
    if SLOT == KILL_SLOT and batch == KILL_AT and not mark.exists():
        mark.touch()
        os.kill(os.getpid(), signal.SIGKILL)


@hvd.elastic.run
def train(state):
    print(f"start: rank {hvd.rank()} of {hvd.size()} at batch {state.batch}", flush=True)
    for state.batch in range(state.batch, BATCHES):  # noqa: B020 - Horovod's elastic idiom
        _kill_myself_once(state.batch)
        start = (state.batch * BATCH) % len(x_train)
        rows = np.arange(start, start + BATCH) % len(x_train)
        mine = rows[hvd.rank() :: hvd.size()]  # this rank's share of the batch
        sess.run(train_op, {images: x_train[mine], labels: y_train[mine]})
        time.sleep(PAUSE)
        state.commit()


train(state)
w = sess.run(weights)
print(
    f"done: rank {hvd.rank()} of {hvd.size()}, batches {state.batch + 1}, "
    f"global_step {sess.run(global_step)}, checksum {float(np.abs(w).sum()):.6f}",
    flush=True,
)
if hvd.rank() == 0:
    print(f"accuracy {sess.run(accuracy, {images: x_test, labels: y_test}):.4f}", flush=True)
sys.stdout.flush()
