"""Time one training step of the embedded Session against hand-written numpy.

Models: (a) softmax regression 784->10, batch 100; (b) MLP 784->1024->10
(relu), batch 128; plain gradient descent on the mean softmax cross-entropy;
(c) the mnist_deep CNN written with ``tf.layers`` (conv 5x5x32, pool, conv
5x5x64, pool, dense 1024, dropout, dense 10), batch 50, Adam; (d) an LSTM
(``tf.nn.rnn_cell.BasicLSTMCell``, 128 units) over 28 steps of 28 inputs with
``tf.nn.dynamic_rnn``, batch 128, Adam; (e) the same with ``GRUCell``. (c) to (e)
have no hand-written numpy baseline: their ratio is to TF1 in the same run.
Each round times a block of steps of every contestant in turn (interleaved,
so machine noise hits all alike); the median over rounds is reported, with
the ratio to numpy measured in the same run. TensorFlow 1.x graph mode
(``tensorflow.compat.v1``) joins when it is importable.

Run: ``python benchmarks/embedded_step.py`` (one BLAS thread, as measured in
the issue; pass ``--threads N`` to change; ``--record`` writes the table into
RESULTS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import sys
import time

from mlp import dense_layers, drawn_from
from record import duration, machine, record


def _limit_threads(n):
    """``n`` BLAS threads for numpy and daskflow (TF1 gets ``n`` through its ConfigProto).
    The environment alone is too late once numpy is imported (``mlp`` imports it), so the
    loaded BLAS pools are limited too; returns the threads each pool then has."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(limits=n, user_api="blas")
    return sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})


def numpy_step(shapes, lr=0.1, xp=None):
    """The same step hand-written in numpy (or ``xp``, e.g. cupy): forward, backward,
    update in place; its inputs must be ``xp``'s arrays."""
    import numpy as np

    xp = xp or np
    rng = np.random.default_rng(0)
    sizes = list(zip(shapes, shapes[1:]))
    params = [xp.asarray((rng.standard_normal(size) * 0.01).astype(np.float32)) for size in sizes]
    biases = [xp.zeros(b, np.float32) for b in shapes[1:]]

    def step(x, y):
        acts = [x]
        for i, (w, b) in enumerate(zip(params, biases)):
            z = acts[-1] @ w + b
            acts.append(xp.maximum(z, 0) if i < len(params) - 1 else z)
        logits = acts[-1]
        e = xp.exp(logits - logits.max(axis=1, keepdims=True))
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
        h = dense_layers(tf, x, shapes, drawn_from(rng))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda xs, ys: sess.run(train, {x: xs, y: ys})


def cnn_step(tf, config=None):
    """mnist_deep's shape with tf.layers; inputs [batch, 784], one-hot labels."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        h = tf.reshape(x, [-1, 28, 28, 1])
        h = tf.layers.max_pooling2d(tf.layers.conv2d(h, 32, 5, padding="same", activation=tf.nn.relu), 2, 2)
        h = tf.layers.max_pooling2d(tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu), 2, 2)
        h = tf.layers.dense(tf.reshape(h, [-1, 7 * 7 * 64]), 1024, activation=tf.nn.relu)
        h = tf.layers.dropout(h, rate=0.5, training=True)
        logits = tf.layers.dense(h, 10)
        loss = tf.losses.softmax_cross_entropy(y, logits)
        train = tf.train.AdamOptimizer(1e-4).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda xs, ys: sess.run(train, {x: xs, y: ys})


def lstm_step(tf, config=None, cell="lstm"):
    """An LSTM (or a GRU) over the 28 rows of an image; inputs [batch, 784], one-hot labels."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.float32, [None, 10])
        cell = tf.nn.rnn_cell.BasicLSTMCell(128) if cell == "lstm" else tf.nn.rnn_cell.GRUCell(128)
        outputs, _ = tf.nn.dynamic_rnn(cell, tf.reshape(x, [-1, 28, 28]), dtype=tf.float32)
        logits = tf.layers.dense(outputs[:, -1], 10)
        loss = tf.losses.softmax_cross_entropy(y, logits)
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda xs, ys: sess.run(train, {x: xs, y: ys})


def daskflow_step(shapes):
    import daskflow as tf

    return graph_step(tf, shapes)


def tf1_step(shapes):
    tf, config = _tf1()
    return graph_step(tf, shapes, config=config)


def _tf1():
    """TF1's graph API, single-threaded as the others are (ImportError without tensorflow)."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers and rnn_cell on TF 2.16+
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    tf.disable_control_flow_v2()  # TF1's own while_loop for dynamic_rnn
    threads = int(os.environ.get("OMP_NUM_THREADS", "1"))  # as many as numpy's BLAS (--threads)
    return tf, tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)


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
    parser.add_argument("--models", default="abcde", help="which models to time (letters a-e)")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    import daskflow

    pools = _limit_threads(args.threads)  # after daskflow's imports, which may load another BLAS
    if pools != [args.threads]:
        sys.exit(f"BLAS pools have {pools} threads, not {args.threads}: the figures would not compare")

    mlps = {
        "a": ("(a) softmax 784->10, batch 100", [784, 10], 100),
        "b": ("(b) MLP 784->1024->10, batch 128", [784, 1024, 10], 128),
    }
    layered = {
        "c": ("(c) CNN (tf.layers), batch 50", cnn_step, 50),
        "d": ("(d) LSTM 128, 28 steps, batch 128", lstm_step, 128),
        "e": ("(e) GRU 128, 28 steps, batch 128", functools.partial(lstm_step, cell="gru"), 128),
    }
    print(f"embedded step time, median of interleaved rounds, {args.threads} BLAS thread(s)")
    print(f"on {machine()}")
    print(f"{'model':36s} {'contestant':10s} {'us/step':>10s} {'ratio':>8s}  baseline")
    results = {}
    for key in args.models:
        if key in mlps:
            title, shapes, batch = mlps[key]
            contestants = {"numpy": numpy_step(shapes), "daskflow": daskflow_step(shapes)}
            with _optional("tf1"):
                contestants["tf1"] = tf1_step(shapes)
            result = _report(
                title, contestants, batch, shapes[0], shapes[-1], args.rounds, args.steps, "numpy"
            )
            results[title] = result, "numpy"
        else:
            title, build, batch = layered[key]
            contestants = {"daskflow": build(daskflow)}
            with _optional("tf1"):
                tf, config = _tf1()
                contestants["tf1"] = build(tf, config)
            base = "tf1" if "tf1" in contestants else "daskflow"
            rounds, steps = layered_rounds(args)
            results[title] = _report(title, contestants, batch, 784, 10, rounds, steps, base), base
    if "tensorflow" not in sys.modules:
        print("(tensorflow not importable: TF1 column skipped)")
    if args.record:
        record_table(results, args)


def record_table(results, args):
    """RESULTS.md's table: each contestant's step as a ratio to the baseline's, in the same run."""
    rows = [["model", "daskflow", "TF1 graph mode", "baseline", "baseline's step"]]
    for title, (result, base) in results.items():
        ratios = [f"{result[n] / result[base]:.2f}" if n in result else "—" for n in ("daskflow", "tf1")]
        rows.append([title, *ratios, "TF1" if base == "tf1" else base, duration(result[base])])
    rounds, steps = layered_rounds(args)
    notes = [
        f"Step time ÷ the baseline's, median of {args.rounds} interleaved rounds of {args.steps} steps "
        f"((c) to (e): {rounds} rounds of {steps}), {args.threads} BLAS thread(s)."
    ]
    if "tensorflow" not in sys.modules:
        notes.append("TensorFlow was not importable: TF1 not measured.")
    record("embedded_step", "Embedded step: time per training step ÷ the baseline's", rows, notes)


def layered_rounds(args):
    """Rounds and steps per round for (c) to (e), whose steps take ms, not µs."""
    return max(3, args.rounds // 5), max(2, args.steps // 10)


@contextlib.contextmanager
def _optional(name):
    try:
        yield
    except ImportError:
        pass


def _report(title, contestants, batch, features, classes, rounds, steps, base):
    result = measure(contestants, batch, features, classes, rounds, steps)
    for name, t in result.items():
        print(f"{title:36s} {name:10s} {t * 1e6:10.1f} {t / result[base]:8.2f}  {base}")
    return result


if __name__ == "__main__":
    main()
