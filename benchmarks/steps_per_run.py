"""Steps per second with several steps per run, against TF1's ps/worker over gRPC.

``distributed_step.py``'s softmax model (784->10, batch 128 per worker, one
tower on each of two worker processes, gradients averaged on ``ps-0``), with
its input from a ``tf.data`` dataset on each worker (1,280 rows of random
data, repeated, in batches of 128) instead of a feed. Measured in the same
run, in alternating rounds:

* daskflow on ``tf.local_cluster(ps=1, workers=2)`` with
  ``ConfigProto(steps_per_run=K)`` for each K of ``--ks`` (K = 1 is one
  Dask submission a step, as before);
* TF1's ps/worker over gRPC on localhost, the same program and dataset
  (one step per ``run``: TF1 has no such setting outside TPUs), and the
  same program fed as ``distributed_step.py`` feeds it;
* Dask's floor, a ``client.submit(f, x).result()`` round trip.

Each figure is steps per second (a run of K steps counts K). The goal is
K's steps per second >= TF1's. Run: ``python benchmarks/steps_per_run.py``
(``--record`` writes the table into RESULTS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from distributed_step import build as build_fed  # noqa: E402
from distributed_step import dask_floor, tf1_cluster  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

SHAPES = [784, 10]
BATCH = 128
ROWS = 1280


def build(towers, tf=tf):
    """The softmax model, each tower reading its own dataset on its worker; (graph, init, train, step)."""
    graph = tf.Graph()
    rng = np.random.default_rng(0)
    xs = rng.random((ROWS, SHAPES[0]), dtype=np.float32)
    ys = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], ROWS)]
    with graph.as_default():
        with tf.device("/job:ps/task:0"):  # where replica_device_setter puts it
            step = tf.train.get_or_create_global_step()
            w = tf.Variable((rng.standard_normal(SHAPES) * 0.01).astype(np.float32))
            b = tf.Variable(tf.zeros([SHAPES[-1]]))
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads = []
        for i in range(towers):
            with tf.device(f"/job:worker/task:{i}"):
                data = tf.data.Dataset.from_tensor_slices((xs, ys)).repeat().batch(BATCH)
                x, y = tf.data.make_one_shot_iterator(data).get_next()
                logits = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
                grads.append(opt.compute_gradients(loss, [w, b]))
        with tf.device("/job:ps/task:0"):
            avg = [(tf.add_n([g[k][0] for g in grads]) / float(towers), grads[0][k][1]) for k in range(2)]
            train = opt.apply_gradients(avg, global_step=step)
            init = tf.global_variables_initializer()
    return graph, init, train, step


def steps_per_second(sess, train, feed, runs, steps):
    """Steps per second of ``runs`` blocking runs of ``steps`` steps each (after 2 warm-up runs)."""
    for _ in range(2):
        sess.run(train, feed)
    start = time.perf_counter()
    for _ in range(runs):
        sess.run(train, feed)
    return runs * steps / (time.perf_counter() - start)


def tf1_sessions(stack, spec):
    """TF1's two programs (dataset and fed) on its gRPC cluster: {name: (session, train, feed)}."""
    import tensorflow.compat.v1 as tf1

    tf1.disable_eager_execution()
    target = f"grpc://{spec['worker'][0]}"
    graph, init, train, _ = build(2, tf=tf1)
    data = stack.enter_context(tf1.Session(target, graph=graph))
    data.run(init)
    graph, init, fed_train, feed = build_fed(SHAPES, towers=2, batch=BATCH, tf=tf1)
    fed = stack.enter_context(tf1.Session(target, graph=graph))
    fed.run(init)
    return {"TF1, dataset": (data, train, None), "TF1, fed": (fed, fed_train, feed)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--steps", type=int, default=200, help="steps per setting per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    from distributed import Client

    have_tf1 = importlib.util.find_spec("tensorflow") is not None
    figures: dict = {}
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(tf.local_cluster(ps=1, workers=2))
        client = stack.enter_context(Client(cluster, set_as_default=False))
        settings = {}
        graph, init, train, _ = build(2)
        for k in args.ks:
            config = tf.ConfigProto(steps_per_run=k)
            sess = stack.enter_context(tf.Session(client, graph=graph, config=config))
            sess.run(init)
            settings[f"daskflow, steps_per_run={k}"] = (sess, train, None, k)
        if have_tf1:
            spec = stack.enter_context(tf1_cluster(2))
            for name, (sess, op, feed) in tf1_sessions(stack, spec).items():
                settings[name] = (sess, op, feed, 1)
        floor = dask_floor(client, 50)
        for r in range(args.rounds):
            names = list(settings) if r % 2 == 0 else list(reversed(settings))
            for name in names:
                sess, op, feed, k = settings[name]
                runs = max(1, args.steps // k)
                figures.setdefault(name, []).append(steps_per_second(sess, op, feed, runs, k))
                print(f"round {r + 1}, {name}: {figures[name][-1]:.1f} steps/s", flush=True)
    report(figures, floor, have_tf1, args)


def report(figures, floor, have_tf1, args):
    best = {name: statistics.median(v) for name, v in figures.items()}
    baseline = best.get("TF1, dataset")
    print(f"Dask floor (submit().result()): {floor * 1e3:.2f} ms")
    rows = [["setting", "steps/s (median of rounds)", "ms per step", "÷ TF1's (dataset)"]]
    for name, value in best.items():
        ratio = f"{value / baseline:.2f}×" if baseline else "—"
        rows.append([name, f"{value:.1f}", f"{1e3 / value:.2f}", ratio])
        print(f"{name:34s} {value:8.1f} steps/s  {1e3 / value:7.2f} ms/step  {ratio}")
    if args.record:
        notes = [
            f"Medians of {args.rounds} alternating rounds of about {args.steps} steps per setting, "
            f"after 2 warm-up runs; Dask's floor in the same run: {floor * 1e3:.2f} ms. "
            "Goal: steps_per_run's steps/s ≥ TF1's.",
        ]
        if not have_tf1:
            notes.append("TensorFlow was not installed: TF1 not measured.")
        title = "Several steps per run: steps per second against TF1's ps/worker"
        record("steps_per_run", title, rows, notes)


if __name__ == "__main__":
    main()
