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
import collections
import contextlib
import logging
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import psutil  # noqa: E402
from distributed import Client  # noqa: E402

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


def seconds_per_run(sess, train, steps, around=contextlib.nullcontext):
    """Mean seconds of ``sess.run(train)`` after three warm-up runs (daskflow or TF1);
    the timed runs happen inside the context manager ``around()``."""
    for _ in range(3):
        sess.run(train)
    with around():
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(train)
        return (time.perf_counter() - start) / steps


class CpuMeter:
    """CPU seconds each role's processes use inside ``with meter:`` (psutil, a Dask dependency):
    the replicas' workers, the ps, and this process (the client and, on a local cluster,
    the scheduler)."""

    def __init__(self, client):
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
        self.roles = {psutil.Process(pid): _role(names[a]) for a, pid in pids.items()}
        self.roles[psutil.Process()] = "client and scheduler"
        self.used = collections.Counter()

    def __enter__(self):
        self.used.subtract(self._now())
        return self

    def __exit__(self, *exc):
        self.used.update(self._now())

    def _now(self):
        now = collections.Counter()
        for process, role in self.roles.items():
            times = process.cpu_times()
            now[role] += times.user + times.system
        return now


def _role(name):
    return "ps" if name.startswith("ps-") else "replicas"


def examples_per_second(cluster, client, workers, sync, steps):
    """(seconds per run, examples per second, bytes moved, CPU seconds per run by role):
    each run is one global step (sync) or one update per replica (async); either way
    ``workers * BATCH`` examples."""
    graph, init, train = build(workers, sync)
    meter = CpuMeter(client)
    with tf.Session(cluster, graph=graph) as sess:
        sess.run(init)
        elapsed = seconds_per_run(sess, train, steps, around=lambda: meter)
        moved = np.mean([m["bytes_between_workers"] for m in sess.step_metrics()[-steps:]])
    cpu = {role: seconds / steps for role, seconds in meter.used.items()}
    return elapsed, workers * BATCH / elapsed, moved, cpu


def print_cpu_bound(results, sync):
    """Why two workers' scaling is bounded on this machine: the CPU all processes use per
    two-worker step, spread over every core, is the shortest that step can be."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    one_step = results[1, sync][0]
    cpu = results[2, sync][3]
    total = sum(cpu.values())
    parts = ", ".join(f"{role} {seconds * 1e3:.0f} ms" for role, seconds in sorted(cpu.items()))
    mode = "sync" if sync else "async"
    print(
        f"{mode}, 2 workers: CPU per step {parts} = {total * 1e3:.0f} ms on {cores} cores: a step of "
        f">= {total / cores * 1e3:.0f} ms, so at most {2 * one_step / (total / cores):.2f}x one worker"
    )


def tf1_sync(workers, steps):
    """TF1's in-graph replication of the same MLP over gRPC on localhost: ps-0 plus
    ``workers`` server processes (one thread each), each tower's batch in a variable on
    its worker, gradients averaged and applied on the ps; None without tensorflow."""
    import importlib.util

    if importlib.util.find_spec("tensorflow") is None:
        return None
    import tensorflow.compat.v1 as tf1
    from distributed_step import tf1_cluster

    tf1.disable_eager_execution()
    with tf1_cluster(workers) as spec:
        graph, train = _tf1_graph(tf1, workers)
        with tf1.Session(f"grpc://{spec['worker'][0]}", graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            elapsed = seconds_per_run(sess, train, steps)
        return elapsed, workers * BATCH / elapsed


def _tf1_graph(tf1, workers):
    rng = np.random.default_rng(0)
    graph = tf1.Graph()
    with graph.as_default():
        with tf1.device("/job:ps/task:0"):
            params = []
            for a, b in zip(SHAPES, SHAPES[1:]):
                params += [
                    tf1.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32)),
                    tf1.Variable(tf1.zeros([b])),
                ]
        opt = tf1.train.GradientDescentOptimizer(0.01)
        grads = []
        for i in range(workers):
            with tf1.device(f"/job:worker/task:{i}"):
                images = rng.random((BATCH, SHAPES[0]), dtype=np.float32)
                x = tf1.Variable(images, trainable=False)  # the batch lives on its worker
                y = tf1.Variable(np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH)])
                h = x
                for k in range(0, len(params), 2):
                    h = tf1.matmul(h, params[k]) + params[k + 1]
                    if k < len(params) - 2:
                        h = tf1.nn.relu(h)
                loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
                grads.append(opt.compute_gradients(loss, params))
        with tf1.device("/job:ps/task:0"):
            mean = [(tf1.add_n([g[k][0] for g in grads]) / float(workers), p) for k, p in enumerate(params)]
            train = opt.apply_gradients(mean)
    return graph, train


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    results = {}
    for workers in (1, 2):
        with tf.local_cluster(ps=1, workers=workers) as cluster:
            with Client(cluster, set_as_default=False) as client:
                for sync in (True, False):
                    results[workers, sync] = examples_per_second(cluster, client, workers, sync, args.steps)
    print(f"MLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps-0 + N worker processes")
    header = ("mode", "workers", "step", "examples/s", "MB sent/step", "vs 1 worker", "efficiency")
    print("{:6s} {:>7s} {:>9s} {:>11s} {:>13s} {:>12s} {:>11s}".format(*header))
    for sync in (True, False):
        base = results[1, sync][1]
        for workers in (1, 2):
            step, rate, moved, _ = results[workers, sync]
            scale = rate / base
            mode = "sync" if sync else "async"
            print(
                f"{mode:6s} {workers:7d} {step * 1e3:7.1f}ms {rate:11.0f} {moved / 1e6:13.1f} "
                f"{scale:11.2f}x {scale / workers:10.0%}"
            )
    print("goal: two workers >= 1.80x one worker")
    for sync in (True, False):
        print_cpu_bound(results, sync)
    tf1 = {workers: tf1_sync(workers, args.steps) for workers in (1, 2)}
    if tf1[1] is None:
        print("TF1 (in-graph replication over gRPC): tensorflow not installed here, not measured")
        return
    for workers in (1, 2):
        step, rate = tf1[workers]
        scale = rate / tf1[1][1]
        cells = f"{step * 1e3:7.1f}ms {rate:11.0f} {'':>13s} {scale:11.2f}x {scale / workers:10.0%}"
        print(f"{'TF1':6s} {workers:7d} {cells}")


if __name__ == "__main__":
    main()
