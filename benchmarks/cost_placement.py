"""Cost-based placement on model-parallel graphs: step time against one worker and round-robin.

Two graphs of two branches and a head, no device given to any op:

* **matmul**: the input (batch ``--batch``, ``--dim`` features) goes through
  two branches of ``dim -> width -> dim`` products with a ReLU between, and
  the head adds the branches and reduces. The shapes tell the placer what
  each op costs.
* **inverse**: each branch inverts ``--matrices`` fed ``--size``-square
  matrices (``tf.matrix_inverse``; the second branch, twice them) and sums
  them. To the shapes an inverse is an op moving a few MB, so before the
  first profiled run the placer keeps both branches on one worker; the
  measured times then split them.

On ``tf.local_cluster(ps=0, workers=2)`` (processes, one thread each), in
alternating rounds of the same run:

* **one worker**: the default, every op on ``/job:worker/task:0``;
* **round-robin**: each op (variables too) on the next worker in turn, as a
  device function placing ops by creation order would;
* **cost**: ``ConfigProto(placement="cost")``.

It prints each setting's median step (a blocking ``run`` fetching the head)
and its ratio to one worker's and to round-robin's, and where cost
placement put the branches (for ``inverse``, before and after its measured
times) and why. Goal: cost < both. Run:
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


def build(args, model, round_robin=False):
    """A two-branch graph; returns (graph, init, input placeholder, head)."""
    graph = tf.Graph()
    turns = itertools.cycle(DEVICES)
    scope = tf.device(lambda op: next(turns)) if round_robin else contextlib.nullcontext()
    with graph.as_default(), scope:
        if model == "inverse":
            x = tf.placeholder(tf.float32, [None, args.size, args.size], name="x")
            left = tf.reduce_sum(tf.matrix_inverse(x), name="left")
            right = tf.reduce_sum(tf.matrix_inverse(2.0 * x), name="right")
            return graph, tf.no_op(), x, tf.add(left, right, name="head")
        dim, width = args.dim, args.width
        rng = np.random.default_rng(1)  # the same weights in every graph: the same head
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
    parser.add_argument("--matrices", type=int, default=4, help="inverse: matrices per step")
    parser.add_argument("--size", type=int, default=512, help="inverse: their size")
    parser.add_argument("--steps", type=int, default=10, help="steps per setting per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    rng = np.random.default_rng(0)
    inputs = {
        "matmul": rng.random((args.batch, args.dim), dtype=np.float32),
        # diagonally dominant: well conditioned, the same inverse on every worker
        "inverse": rng.random((args.matrices, args.size, args.size), dtype=np.float32)
        + args.size * np.eye(args.size, dtype=np.float32),
    }
    times, where, values = {}, {}, {}
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(tf.local_cluster(ps=0, workers=2))
        settings = {}
        for model, (name, round_robin, placement) in itertools.product(inputs, SETTINGS):
            graph, init, x, head = build(args, model, round_robin)
            config = tf.ConfigProto(placement=placement)
            sess = stack.enter_context(tf.Session(cluster, graph=graph, config=config))
            sess.run(init)
            feed = {x: inputs[model]}
            sess.run(head, feed)  # planned for this batch
            if placement == "cost":
                where[model, "estimated"] = sess.placement(head, feed)
            step_times(sess, head, feed, 3)  # the second run is profiled, with cost placement
            settings[model, name] = (sess, head, feed)
        for key, (sess, head, feed) in settings.items():
            values[key] = float(sess.run(head, feed))
        for r in range(args.rounds):
            for key in list(settings) if r % 2 == 0 else reversed(list(settings)):
                times.setdefault(key, []).extend(step_times(*settings[key], args.steps))
        for model in inputs:
            sess, head, feed = settings[model, "cost"]
            where[model, "measured"] = sess.placement(head, feed)
    report(times, where, values, args)


SETTINGS = [("one worker", False, None), ("round-robin", True, None), ("cost", False, "cost")]


def report(times, where, values, args):
    median = {key: statistics.median(ts) for key, ts in times.items()}
    rows = [["graph", "placement", "median step", "÷ one worker", "÷ round-robin"]]
    for (model, name), t in median.items():
        one, rr = t / median[model, "one worker"], t / median[model, "round-robin"]
        rows.append([model, name, f"{t * 1e3:.1f} ms", f"{one:.2f}", f"{rr:.2f}"])
        print(f"{model:8s} {name:12s} {t * 1e3:8.1f} ms  {one:.2f} x one worker  {rr:.2f} x round-robin")
    placed = {}
    for (model, when), found in where.items():
        ops = {op: v for op, v in found.items() if _branch_op(model, op)}
        placed[model, when] = "; ".join(f"{op} on {w.worker}" for op, w in sorted(ops.items()))
        print(f"  {model}, cost placement {when}:")
        for op, w in sorted(ops.items()):
            print(f"    {op}: {w.worker} ({w.reason})")
    print("head values (the same computation wherever it runs):", values)
    if args.record:
        notes = [
            f"matmul: batch {args.batch}, {args.dim} -> {args.width} -> {args.dim} per branch. "
            f"inverse: {args.matrices} matrices of {args.size}x{args.size} inverted per branch. "
            f"Medians of {args.rounds} alternating rounds of {args.steps} steps, after each session's "
            "first four runs (the second profiled, under cost placement).",
            f"Cost placement put, matmul: {placed['matmul', 'measured']}. "
            f"inverse, by the estimates: {placed['inverse', 'estimated']}; "
            f"by the measured times: {placed['inverse', 'measured']}. Goal: cost-based below both.",
        ]
        title = "Cost-based placement: two-branch graphs' steps on 2 workers"
        record("cost_placement", title, rows, notes)


def _branch_op(model, op):
    if model == "inverse":
        return op in ("MatrixInverse", "MatrixInverse_1")
    return op.split("/")[0] in ("left", "right") and "MatMul" in op


if __name__ == "__main__":
    main()
