"""The usual TF1 between-graph script, its workers ending at different times.

One copy per task (``daskflow launch`` passes the flags): the ps serves its
variables with ``server.join()``; worker 0, the chief, opens
``tf.Session(server.target)`` (or ``MonitoredTrainingSession`` with
``--monitored``) and initializes the model; worker 1 opens a non-chief
``MonitoredTrainingSession``, which waits for the chief's initialization. The
task named by ``--longer`` trains three times as many steps as the other, so
that one ends while the other still trains.
"""

import daskflow as tf

flags = tf.app.flags
flags.DEFINE_string("job_name", None, "job name: worker or ps")
flags.DEFINE_integer("task_index", None, "worker task index; 0 is the chief")
flags.DEFINE_string("ps_hosts", "", "comma-separated hostname:port pairs")
flags.DEFINE_string("worker_hosts", "", "comma-separated hostname:port pairs")
flags.DEFINE_integer("steps", 10, "steps of the task that ends first")
flags.DEFINE_integer("longer", 1, "the worker task that trains three times as long")
flags.DEFINE_boolean("monitored", False, "the chief uses MonitoredTrainingSession too")
FLAGS = flags.FLAGS


def main(_):
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    is_chief = FLAGS.task_index == 0
    worker = f"/job:worker/task:{FLAGS.task_index}"
    device = tf.train.replica_device_setter(worker_device=worker, cluster=cluster)
    with tf.device(device):
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([4]), name="w")
        x = tf.placeholder(tf.float32, [4], name="x")
        loss = tf.reduce_sum(tf.square(w - x))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    steps = FLAGS.steps * (3 if FLAGS.task_index == FLAGS.longer else 1)
    feed = {x: [1.0, 2.0, 3.0, 4.0]}
    if is_chief and not FLAGS.monitored:
        with tf.Session(server.target) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train, feed)
    else:
        hooks = [tf.train.StopAtStepHook(num_steps=steps)]
        with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks) as sess:
            while not sess.should_stop():
                sess.run(train, feed)
    print(f"worker {FLAGS.task_index} done", flush=True)


if __name__ == "__main__":
    tf.app.run()
