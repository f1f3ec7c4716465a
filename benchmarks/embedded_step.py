"""Time one training step of the embedded Session against hand-written numpy.

Models: (a) softmax regression 784->10, batch 100; (b) MLP 784->1024->10
(relu), batch 128; plain gradient descent on the mean softmax cross-entropy.
Each round times a block of steps of every contestant in turn (interleaved,
so machine noise hits all alike); the median over rounds is reported, with
the ratio to numpy measured in the same run. TensorFlow 1.x graph mode
(``tensorflow.compat.v1``) joins when it is importable.

Run: ``python benchmarks/embedded_step.py`` (one BLAS thread, as measured in
the issue; pass ``--threads N`` to change).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _limit_threads(n):
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def numpy_step(shapes, lr=0.1):
    """The same step hand-written in numpy: forward, backward, update in place."""
    import numpy as np

    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((a, b)) * 0.01).astype(np.float32) for a, b in zip(shapes, shapes[1:])]
    biases = [np.zeros(b, np.float32) for b in shapes[1:]]

    def step(x, y):
        acts = [x]
        for i, (w, b) in enumerate(zip(params, biases)):
            z = acts[-1] @ w + b
            acts.append(np.maximum(z, 0) if i < len(params) - 1 else z)
        logits = acts[-1]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        g = (e / e.sum(axis=1, keepdims=True) - y) / np.float32(len(x))
        for i in reversed(range(len(params))):
            gw, gb = acts[i].T @ g, g.sum(axis=0)
            if i:
                g = (g @ params[i].T) * (acts[i] > 0)
            params[i] -= lr * gw
            biases[i] -= lr * gb

    return step


def graph_step(tf, shapes, lr=0.1, config=None):
    """The step as a TF1 program, for any module with TF1's API (daskflow or TF1)."""
    import numpy as np

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, shapes[0]])
        y = tf.placeholder(tf.float32, [None, shapes[-1]])
        rng = np.random.default_rng(0)
        h = x
        for i, (a, b) in enumerate(zip(shapes, shapes[1:])):
            w = tf.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32))
            h = tf.matmul(h, w) + tf.Variable(tf.zeros([b]))
            if i < len(shapes) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda xs, ys: sess.run(train, {x: xs, y: ys})


def daskflow_step(shapes):
    import daskflow as tf

    return graph_step(tf, shapes)


def tf1_step(shapes):
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    return graph_step(tf, shapes, config=config)


def measure(contestants, batch, features, classes, rounds, steps):
    import numpy as np

    rng = np.random.default_rng(1)
    xs = rng.random((batch, features), dtype=np.float32)
    ys = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    times = {name: [] for name in contestants}
    for fn in contestants.values():
        for _ in range(steps):  # warm up: plans, caches, BLAS buffers
            fn(xs, ys)
    for _ in range(rounds):
        for name, fn in contestants.items():
            start = time.perf_counter()
            for _ in range(steps):
                fn(xs, ys)
            times[name].append((time.perf_counter() - start) / steps)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=51)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    _limit_threads(args.threads)

    models = {
        "(a) softmax 784->10, batch 100": ([784, 10], 100),
        "(b) MLP 784->1024->10, batch 128": ([784, 1024, 10], 128),
    }
    print(f"embedded step time, median of {args.rounds} interleaved rounds, {args.threads} BLAS thread(s)")
    print(f"{'model':36s} {'contestant':10s} {'us/step':>10s} {'x numpy':>8s}")
    for title, (shapes, batch) in models.items():
        contestants = {"numpy": numpy_step(shapes), "daskflow": daskflow_step(shapes)}
        try:
            contestants["tf1"] = tf1_step(shapes)
        except ImportError:
            pass
        result = measure(contestants, batch, shapes[0], shapes[-1], args.rounds, args.steps)
        for name, t in result.items():
            print(f"{title:36s} {name:10s} {t * 1e6:10.1f} {t / result['numpy']:8.2f}")
    if "tensorflow" not in sys.modules:
        print("(tensorflow not importable: TF1 column skipped)")


if __name__ == "__main__":
    main()
