"""Between-graph training in the style of TensorFlow's ``mnist_replica.py``.

Our own program, written as a TF1 user writes one (only ``import daskflow as
tf`` differs): one copy runs per task with ``--job_name``/``--task_index``
and the cluster's hosts; the ps tasks serve their variables with
``server.join()``; each worker trains the same model, placed with
``replica_device_setter``, and worker 0 (the chief) initializes it. The data
are scikit-learn's digits (or MNIST's IDX files under ``--data_dir``).

    python digits_replica.py --job_name=ps --task_index=0 --ps_hosts=... --worker_hosts=...
"""

import json
import sys
import time

import daskflow as tf
from daskflow.datasets import load_digits

flags = tf.app.flags
flags.DEFINE_string("job_name", None, "job name: worker or ps")
flags.DEFINE_integer("task_index", None, "worker task index; 0 is the chief")
flags.DEFINE_string("ps_hosts", "localhost:2222", "comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "localhost:2223,localhost:2224", "comma-separated list of hostname:port")
flags.DEFINE_boolean("sync_replicas", False, "aggregate the workers' gradients before applying them")
flags.DEFINE_integer("replicas_to_aggregate", None, "gradients aggregated per update (default: all workers)")
flags.DEFINE_integer("hidden_units", 64, "hidden units of the one hidden layer")
flags.DEFINE_integer("train_steps", 300, "global steps to train for")
flags.DEFINE_integer("batch_size", 32, "training batch size")
flags.DEFINE_float("learning_rate", 0.05, "learning rate")
flags.DEFINE_float("step_delay", 0.0, "seconds this worker sleeps before each step (a straggler)")
flags.DEFINE_integer("max_staleness", None, "drop updates computed from values older than this")
flags.DEFINE_float("backup_secs", 30.0, "the ps copies its variables to another worker this often")
flags.DEFINE_string("report", "", "write this worker's figures to this JSON file")
flags.DEFINE_integer("print_every", 0, "print 'Worker N: step S' every this many local steps (0: never)")
FLAGS = flags.FLAGS

IMAGE_PIXELS = 8


def build(num_workers, is_chief):
    """The model on this worker, its variables on the ps tasks."""
    global_step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [None, IMAGE_PIXELS * IMAGE_PIXELS], name="x")
    y_ = tf.placeholder(tf.float32, [None, 10], name="y_")
    hid_w = tf.Variable(
        tf.truncated_normal([IMAGE_PIXELS * IMAGE_PIXELS, FLAGS.hidden_units], stddev=0.1, seed=1),
        name="hid_w",
    )
    hid_b = tf.Variable(tf.zeros([FLAGS.hidden_units]), name="hid_b")
    sm_w = tf.Variable(tf.truncated_normal([FLAGS.hidden_units, 10], stddev=0.1, seed=2), name="sm_w")
    sm_b = tf.Variable(tf.zeros([10]), name="sm_b")
    hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
    logits = tf.nn.xw_plus_b(hid, sm_w, sm_b)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    opt = tf.train.GradientDescentOptimizer(FLAGS.learning_rate)
    if FLAGS.sync_replicas:
        opt = tf.train.SyncReplicasOptimizer(
            opt,
            replicas_to_aggregate=FLAGS.replicas_to_aggregate or num_workers,
            total_num_replicas=num_workers,
            name="digits_sync_replicas",
        )
    train_op = opt.minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)), tf.float32))
    return x, y_, global_step, train_op, loss, accuracy, opt


class StalenessHook(tf.train.SessionRunHook):
    """Keeps the staleness of this worker's updates, from its session's step metrics."""

    def __init__(self):
        self.staleness = []
        self.dropped = 0
        self.recoveries = []

    def end(self, session):
        for step in session.step_metrics():
            self.staleness.extend(step["staleness"])
            self.dropped += step["gradients_dropped"]
        self.recoveries = session.recoveries


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    is_chief = FLAGS.task_index == 0
    data = load_digits(one_hot=True, seed=FLAGS.task_index)
    worker_device = "/job:worker/task:%d" % FLAGS.task_index
    with tf.device(
        tf.train.replica_device_setter(worker_device=worker_device, ps_device="/job:ps", cluster=cluster)
    ):
        x, y_, global_step, train_op, loss, accuracy, opt = build(len(worker_hosts), is_chief)
    staleness = StalenessHook()
    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.train_steps), staleness]
    config = tf.ConfigProto(max_staleness=FLAGS.max_staleness, backup_variables_secs=FLAGS.backup_secs)
    if FLAGS.sync_replicas:
        hooks.append(opt.make_session_run_hook(is_chief))
    steps, started = 0, time.time()
    with tf.train.MonitoredTrainingSession(
        master=server.target, is_chief=is_chief, hooks=hooks, config=config
    ) as sess:
        print("Worker %d: session ready" % FLAGS.task_index, flush=True)
        while not sess.should_stop():
            if FLAGS.step_delay:
                time.sleep(FLAGS.step_delay)
            xs, ys = data.train.next_batch(FLAGS.batch_size)
            _, step = sess.run([train_op, global_step], {x: xs, y_: ys})
            steps += 1
            if FLAGS.print_every and steps % FLAGS.print_every == 0:
                print("Worker %d: step %d" % (FLAGS.task_index, steps), flush=True)
        elapsed = time.time() - started
    # A fresh session on the same target reads the job's final values.
    with tf.Session(server.target) as sess:
        acc = sess.run(accuracy, {x: data.test.images, y_: data.test.labels})
        final = sess.run(global_step)
    print(
        "Worker %d: %d local steps, global step %d, test accuracy %.4f"
        % (FLAGS.task_index, steps, final, acc)
    )
    if FLAGS.report:
        with open(FLAGS.report, "w") as f:
            figures = {"steps": steps, "seconds": elapsed, "global_step": int(final), "accuracy": float(acc)}
            figures.update(
                staleness=staleness.staleness, dropped=staleness.dropped, recoveries=staleness.recoveries
            )
            json.dump(figures, f)
    sys.stdout.flush()


if __name__ == "__main__":
    tf.app.run()
