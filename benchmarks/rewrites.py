"""What the plan-time rewrites save: embedded step time with each pass off, against all on.

Three graphs, each run in one process on one BLAS thread:

* **chain**: ``square(tanh(x * w + 1) - 0.5) / w`` on a fed ``--rows`` × 1024
  float32 batch, ``w`` a fed row: one chain of six elementwise ops, which the
  remapping pass runs as one kernel writing into its own intermediates;
* **mlp**: a training step of ``784 -> 1024 -> 10`` (ReLU, softmax
  cross-entropy, Adam), batch 128: bias and ReLU fused, the gradients'
  elementwise chains fused, common subexpressions shared;
* **tanh mlp**: the same with ``tanh`` hidden units, whose gradient is an
  elementwise chain (``g * (1 - y * y)``).

For each graph, alternating rounds of: every rewrite on (the default), the
remapping pass off, common-subexpression elimination off, the arithmetic pass
off, and every pass off (constant folding too). It prints each setting's
median step and its ratio to all on. Run: ``python benchmarks/rewrites.py``
(``--record`` writes RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

SETTINGS = {
    "all on": {},
    "remapping off": {"remapping": False},
    "CSE off": {"cse": False},
    "arithmetic off": {"arithmetic": False},
    "all off": {"cse": False, "arithmetic": False, "remapping": False, "folding": False},
}


def config(cse=True, arithmetic=True, remapping=True, folding=True):
    """TF1's options switching the passes: ``OptimizerOptions`` and ``RewriterConfig``."""
    optimizer = tf.OptimizerOptions(
        opt_level=tf.OptimizerOptions.L1 if cse and folding else tf.OptimizerOptions.L0,
        do_common_subexpression_elimination=cse,
        do_constant_folding=folding,
    )
    on_off = {True: tf.RewriterConfig.DEFAULT, False: tf.RewriterConfig.OFF}
    rewrites = tf.RewriterConfig(arithmetic_optimization=on_off[arithmetic], remapping=on_off[remapping])
    return tf.ConfigProto(
        graph_options=tf.GraphOptions(optimizer_options=optimizer, rewrite_options=rewrites)
    )


def chain(args, rng):
    x = tf.placeholder(tf.float32, [None, 1024])
    w = tf.placeholder(tf.float32, [1024])
    out = tf.square(tf.tanh(x * w + 1.0) - 0.5) / w
    feed = {
        x: rng.standard_normal((args.rows, 1024)).astype(np.float32),
        w: rng.random(1024, np.float32) + 0.5,
    }
    return None, out, feed


def mlp(activation):
    def build(args, rng):
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        hidden = tf.layers.dense(x, 1024, activation=activation)
        loss = tf.losses.softmax_cross_entropy(y, tf.layers.dense(hidden, 10))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        feed = {
            x: rng.random((128, 784), np.float32),
            y: np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)],
        }
        return tf.global_variables_initializer(), train, feed

    return build


GRAPHS = {"chain": chain, "mlp": mlp(tf.nn.relu), "tanh mlp": mlp(tf.tanh)}


def sessions(build, args):
    """One session per setting on one graph: ``{setting: (session, fetch, feed)}``."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        init, fetch, feed = build(args, np.random.default_rng(0))
    out = {}
    for name, switches in SETTINGS.items():
        sess = tf.Session(graph=graph, config=config(**switches))
        if init is not None:
            sess.run(init)
        for _ in range(3):  # planned, compiled, warm
            sess.run(fetch, feed)
        out[name] = (sess, fetch, feed)
    return out


def step_time(sess, fetch, feed, steps):
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(fetch, feed)
    return (time.perf_counter() - start) / steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=512, help="chain: rows of the fed batch")
    parser.add_argument("--steps", type=int, default=20, help="steps per setting per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    rows = [["graph", *(f"{name} (÷ all on)" for name in SETTINGS)]]
    for graph, build in GRAPHS.items():
        runs = sessions(build, args)
        times: dict = {name: [] for name in runs}
        for r in range(args.rounds):
            for name in list(runs) if r % 2 == 0 else reversed(list(runs)):
                times[name].append(step_time(*runs[name], args.steps))
        median = {name: statistics.median(ts) for name, ts in times.items()}
        cells = [f"{median[n] * 1e3:.2f} ms ({median[n] / median['all on']:.2f})" for n in SETTINGS]
        rows.append([graph, *cells])
        print(f"{graph:9s} " + "  ".join(f"{n}: {c}" for n, c in zip(SETTINGS, cells)))
        for sess, _, _ in runs.values():
            sess.close()
    if args.record:
        notes = [
            f"Embedded, one BLAS thread; medians of {args.rounds} alternating rounds of {args.steps} steps. "
            f"chain: {args.rows} x 1024 float32. A ratio above 1 is what the pass saves."
        ]
        record("rewrites", "Plan-time rewrites: embedded step time with a pass off ÷ all on", rows, notes)


if __name__ == "__main__":
    main()
