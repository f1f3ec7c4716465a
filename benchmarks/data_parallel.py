"""Data-parallel scaling: examples per second against the number of worker processes.

A compute-bound MLP (784->2048->2048->10, batch 256 per replica, plain SGD)
written once with ``replica_device_setter``, run on local clusters of
``ps-0`` plus 1 and 2 worker processes (one thread each), synchronously
(``SyncReplicasOptimizer``, all replicas aggregated) and asynchronously.
Each replica reads its own shard of an in-graph dataset on its worker. The
baseline is the one-worker run of the same mode, measured in the same run;
the goal on a 2-core machine is two workers >= 1.8x one worker.

Run: ``python benchmarks/data_parallel.py [--steps N]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import daskflow as tf  # noqa: E402

SHAPES = [784, 2048, 2048, 10]
BATCH = 256


def build(workers, sync):
    """The single-replica program; returns (graph, init, train)."""
    rng = np.random.default_rng(0)
    images = rng.random((BATCH * 8, SHAPES[0]), dtype=np.float32)
    labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH * 8)]
    graph = tf.Graph()
    with graph.as_default():
        ds = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(BATCH)
        x, y = ds.make_one_shot_iterator().get_next()
        spec = {"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]}
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            h = x
            for k, (a, b) in enumerate(zip(SHAPES, SHAPES[1:])):
                w = tf.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32))
                h = tf.matmul(h, w) + tf.Variable(tf.zeros([b]))
                if k < len(SHAPES) - 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
            opt = tf.train.GradientDescentOptimizer(0.01)
            if sync:
                opt = tf.train.SyncReplicasOptimizer(opt, workers, workers)
            train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        init = tf.global_variables_initializer()
    return graph, init, train


def examples_per_second(cluster, workers, sync, steps):
    """(seconds per run, examples per second): each run is one global step (sync) or
    one update per replica (async); either way ``workers * BATCH`` examples."""
    graph, init, train = build(workers, sync)
    with tf.Session(cluster, graph=graph) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(train)
        elapsed = (time.perf_counter() - start) / steps
        moved = np.mean([m["bytes_between_workers"] for m in sess.step_metrics()[-steps:]])
    return elapsed, workers * BATCH / elapsed, moved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    results = {}
    for workers in (1, 2):
        with tf.local_cluster(ps=1, workers=workers) as cluster:
            for sync in (True, False):
                results[workers, sync] = examples_per_second(cluster, workers, sync, args.steps)
    print(f"MLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps-0 + N worker processes")
    header = ("mode", "workers", "step", "examples/s", "MB sent/step", "vs 1 worker", "efficiency")
    print("{:6s} {:>7s} {:>9s} {:>11s} {:>13s} {:>12s} {:>11s}".format(*header))
    for sync in (True, False):
        base = results[1, sync][1]
        for workers in (1, 2):
            step, rate, moved = results[workers, sync]
            scale = rate / base
            mode = "sync" if sync else "async"
            print(
                f"{mode:6s} {workers:7d} {step * 1e3:7.1f}ms {rate:11.0f} {moved / 1e6:13.1f} "
                f"{scale:11.2f}x {scale / workers:10.0%}"
            )
    print("goal: two workers >= 1.80x one worker")


if __name__ == "__main__":
    main()
