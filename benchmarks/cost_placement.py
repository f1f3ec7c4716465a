"""Cost-based placement on a model-parallel graph: step time against one worker and round-robin.

A graph with two wide branches and a head, no device given to any op: the
input (batch ``--batch``, ``--dim`` features) goes through two branches of
``dim -> width -> dim`` products with a ReLU between, and the head adds the
branches and reduces. On ``tf.local_cluster(ps=0, workers=2)`` (processes,
one thread each), in alternating rounds of the same run:

* **one worker**: the default, every op on ``/job:worker/task:0``;
* **round-robin**: each op (variables too) on the next worker in turn, as a
  device function placing ops by creation order would;
* **cost**: ``ConfigProto(placement="cost")``.

It prints each setting's median step (a blocking ``run`` fetching the head)
and its ratio to one worker's and to round-robin's, and where cost
placement put the branches and why. Goal: cost < both. Run:
``python benchmarks/cost_placement.py`` (``--record`` writes RESULTS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import os
import statistics

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from distributed_step import step_times  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

DEVICES = ["/job:worker/task:0", "/job:worker/task:1"]


def build(dim, width, round_robin=False):
    """The two-branch graph; returns (graph, init, input placeholder, head)."""
    graph = tf.Graph()
    rng = np.random.default_rng(1)  # the same weights in every graph: the same head
    turns = itertools.cycle(DEVICES)
    scope = tf.device(lambda op: next(turns)) if round_robin else contextlib.nullcontext()
    with graph.as_default(), scope:
        x = tf.placeholder(tf.float32, [None, dim], name="x")
        branches = []
        for name in ("left", "right"):
            with tf.name_scope(name):
                w1 = tf.Variable(rng.standard_normal((dim, width), dtype=np.float32) * 0.01, name="w1")
                w2 = tf.Variable(rng.standard_normal((width, dim), dtype=np.float32) * 0.01, name="w2")
                branches.append(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
        head = tf.reduce_mean(tf.tanh(branches[0] + branches[1]), name="head")
        init = tf.global_variables_initializer()
    return graph, init, x, head


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=10, help="steps per setting per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    feed_value = np.random.default_rng(0).random((args.batch, args.dim), dtype=np.float32)
    times: dict = {}
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(tf.local_cluster(ps=0, workers=2))
        settings = {}
        for name, round_robin, placement in [
            ("one worker", False, None),
            ("round-robin", True, None),
            ("cost", False, "cost"),
        ]:
            graph, init, x, head = build(args.dim, args.width, round_robin)
            config = tf.ConfigProto(placement=placement)
            sess = stack.enter_context(tf.Session(cluster, graph=graph, config=config))
            sess.run(init)
            feed = {x: feed_value}
            step_times(sess, head, feed, 2)
            settings[name] = (sess, head, feed)
        values = {name: sess.run(head, feed) for name, (sess, head, feed) in settings.items()}
        for r in range(args.rounds):
            for name in list(settings) if r % 2 == 0 else reversed(list(settings)):
                times.setdefault(name, []).extend(step_times(*settings[name], args.steps))
        sess, head, feed = settings["cost"]
        where = sess.placement(head, feed)
    report(times, where, values, args)


def report(times, where, values, args):
    median = {name: statistics.median(ts) for name, ts in times.items()}
    rows = [["placement", "median step", "÷ one worker", "÷ round-robin"]]
    for name, t in median.items():
        rows.append(
            [name, f"{t * 1e3:.1f} ms", f"{t / median['one worker']:.2f}", f"{t / median['round-robin']:.2f}"]
        )
        print(f"{name:12s} {t * 1e3:8.1f} ms  {rows[-1][2]} x one worker  {rows[-1][3]} x round-robin")
    branches = {op: v for op, v in where.items() if op.split("/")[0] in ("left", "right") and "MatMul" in op}
    for op, (_, worker, why) in sorted(branches.items()):
        print(f"  {op}: {worker} ({why})")
    print("head values (the same computation wherever it runs):", {k: float(v) for k, v in values.items()})
    if args.record:
        notes = [
            f"Batch {args.batch}, {args.dim} -> {args.width} -> {args.dim} per branch; medians of "
            f"{args.rounds} alternating rounds of {args.steps} steps. Cost placement put "
            + "; ".join(f"{op} on {worker}" for op, (_, worker, _) in sorted(branches.items()))
            + ". Goal: cost-based below both.",
        ]
        title = "Cost-based placement: a two-branch graph's step on 2 workers"
        record("cost_placement", title, rows, notes)


if __name__ == "__main__":
    main()
