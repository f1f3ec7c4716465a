"""One task of :mod:`between_graph`'s benchmark: a ps, or a worker that times its steps.

Run by ``benchmarks/between_graph.py``, one process per task, as TF1's
between-graph scripts ran (``mnist_replica.py``): a ``Server`` for the task,
ps tasks ``join()``, each worker builds data_parallel.py's MLP with
``replica_device_setter``, an in-graph dataset of random data of its own,
and trains in a ``MonitoredTrainingSession`` (worker 0, the chief,
initializes; the others open theirs once the chief's is up). The same
program runs on daskflow (``--framework daskflow``) or on TF1 over gRPC
(``--framework tf1``).

A worker talks to the driver through files in ``--barrier``: after its
warm-up steps it writes ``ready-<i>``; the driver then writes ``go`` with a
wall-clock time. The worker's window begins at its first step ending after
that time and ends at its first step ending ``--seconds`` later; it prints
``{"task": i, "steps": ..., "seconds": ..., "global_steps": ...}`` on one line
(the job's global steps during its window, read by the window's first and
last steps). Workers never stop
stepping (a synchronous replica that stopped would leave the others waiting
for its gradients): they train until the driver kills them.

    python between_graph_task.py --framework tf1 --job worker --task 0 \
        --ps 127.0.0.1:2222 --workers 127.0.0.1:2223,127.0.0.1:2224 --sync --barrier /tmp/x
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from mlp import dense_layers

SHAPES = [784, 2048, 2048, 10]  # data_parallel.py's
BATCH = 256
POLL_S = 0.02


def load(framework):
    """The framework's TF1 API: ``daskflow`` or ``tensorflow.compat.v1`` in graph mode."""
    if framework == "daskflow":
        import daskflow as tf

        return tf
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    return tf


def build(tf, spec, task, sync):
    """data_parallel.py's MLP on worker ``task``, its variables on the ps: (train op, optimizer,
    global step)."""
    workers = len(spec["worker"])
    rng = np.random.default_rng(task)  # each worker its own data
    images = rng.random((BATCH * 8, SHAPES[0]), dtype=np.float32)
    labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH * 8)]
    setter = tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}", cluster=spec)
    with tf.device(setter):
        ds = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(BATCH)
        x, y = ds.make_one_shot_iterator().get_next()
        # Initial values drawn in the graph: numpy ones would ship 20 MB of constants per worker.
        h = dense_layers(tf, x, SHAPES, lambda k, a, b: tf.random_normal([a, b], stddev=0.01, seed=k + 1))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        opt = tf.train.GradientDescentOptimizer(0.01)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(opt, workers, workers)
        global_step = tf.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=global_step)
    return train, opt, global_step


def one_thread(tf):
    """Each process one thread, as daskflow's workers."""
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def wait_for(path):
    while not path.exists():
        time.sleep(POLL_S)


def timed_window(sess, train, global_step, barrier, task, warmup, seconds):
    """Warm up, tell the driver, step on until its start time, then time ``seconds`` of steps;
    returns (steps, seconds, global steps the job made meanwhile) and never stops stepping on its
    own. The steps opening and closing the window also read the global step."""
    for _ in range(warmup):
        sess.run(train)
    (barrier / f"ready-{task}").touch()
    go = barrier / "go"
    while not go.exists():  # a synchronous replica must go on stepping: the others wait for it
        sess.run(train)
    start_at = float(go.read_text())
    while True:
        _, first = sess.run([train, global_step])
        if time.time() >= start_at:
            break
    begin = time.perf_counter()
    steps = 0
    while time.perf_counter() - begin < seconds:
        sess.run(train)
        steps += 1
    _, last = sess.run([train, global_step])  # the window's last step
    return steps + 1, time.perf_counter() - begin, int(last) - int(first)


def work(tf, spec, args):
    server = tf.train.Server(spec, job_name="worker", task_index=args.task, config=one_thread(tf))
    train, opt, global_step = build(tf, spec, args.task, args.sync)
    is_chief = args.task == 0
    hooks = [opt.make_session_run_hook(is_chief)] if args.sync else []
    barrier = Path(args.barrier)
    chief_up = barrier / "chief-session"
    if not is_chief:
        # TF1's waiting workers ask again only every 30 s: ask once the chief has initialized.
        wait_for(chief_up)
    with tf.train.MonitoredTrainingSession(
        master=server.target, is_chief=is_chief, hooks=hooks, config=one_thread(tf)
    ) as sess:
        if is_chief:
            chief_up.touch()
        window = timed_window(sess, train, global_step, barrier, args.task, args.warmup, args.seconds)
        steps, seconds, global_steps = window
        figures = {"task": args.task, "steps": steps, "seconds": seconds, "global_steps": global_steps}
        print(json.dumps(figures), flush=True)
        while True:  # until killed
            sess.run(train)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", choices=("daskflow", "tf1"), required=True)
    parser.add_argument("--job", choices=("ps", "worker"), required=True)
    parser.add_argument("--task", type=int, default=0)
    parser.add_argument("--ps", required=True, help="the ps task's host:port")
    parser.add_argument("--workers", required=True, help="the workers' host:port, comma-separated")
    parser.add_argument("--sync", action="store_true", help="SyncReplicasOptimizer over all workers")
    parser.add_argument("--barrier", help="the folder of the ready and go files (workers)")
    parser.add_argument("--warmup", type=int, default=3, help="steps before the barrier")
    parser.add_argument("--seconds", type=float, default=6.0, help="the timed window")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    tf = load(args.framework)
    spec = {"ps": [args.ps], "worker": args.workers.split(",")}
    if args.job == "ps":
        tf.train.Server(spec, job_name="ps", task_index=0, config=one_thread(tf)).join()
    else:
        work(tf, spec, args)


if __name__ == "__main__":
    main()
