"""Time daskflow's conv/pool kernels against TF1's, one thread each, same run.

Shapes are mnist_deep's: a ``[batch, 28, 28, 1]`` image, conv 5x5x32 SAME,
max_pool 2x2/2, conv 5x5x64 SAME, max_pool 2x2/2 (batch 50 by default).
Each kernel is called directly with numpy arrays (``daskflow.kernels.conv``)
and TF1's op is run in a ``Session`` whose inputs sit in variables (so that
grappler cannot fold them away). Each round times a block of calls of every
contestant in turn (interleaved, so machine noise hits all alike); the table
reports per-call medians over the rounds and the ratio daskflow / TF1.
``step`` sums the kernels one mnist_deep training step runs (two convs,
their filter gradients, the second conv's input gradient, two max-pools and
their gradients); avg-pool rows are listed but not part of the step.

``--baseline FILE`` times a second copy of the kernels module (e.g. an older
``conv.py``) in the same rounds, as an extra column.

Run: ``/work/tfenv/bin/python benchmarks/conv_kernels.py [--batch 50]
[--rounds 7] [--baseline old_conv.py]`` (TensorFlow must be importable).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402  (after the thread limits, which BLAS reads at load)

STEP = {"conv1", "conv2", "bp_filter1", "bp_filter2", "bp_input2", "max_pool1", "max_pool2"}
STEP |= {"max_pool_grad1", "max_pool_grad2"}


def make_inputs(batch, seed=0):
    """Return the named float32 arrays every case reads."""
    rng = np.random.default_rng(seed)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return {
        "x1": normal(batch, 28, 28, 1),
        "w1": normal(5, 5, 1, 32) * 0.1,
        "g1": normal(batch, 28, 28, 32),
        "x2": normal(batch, 14, 14, 32),
        "w2": normal(5, 5, 32, 64) * 0.1,
        "g2": normal(batch, 14, 14, 64),
        "p1": normal(batch, 14, 14, 32),
        "p2": normal(batch, 7, 7, 64),
    }


def with_pool_outputs(a):
    """Add the 2x2/2 max-pool outputs ``y1``, ``y2`` that the pool gradients read."""

    def pool(x):
        n, h, w, c = x.shape
        return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))

    return {**a, "y1": pool(a["g1"]), "y2": pool(a["g2"])}


POOL = ((2, 2), (2, 2), "SAME")
CONV = ((1, 1), "SAME")


def daskflow_cases(conv, a):
    """Return ``{name: thunk}`` calling the kernels module ``conv`` on ``a``."""
    x3, y1, y2 = a["g2"], a["y1"], a["y2"]  # second pool's input: the second conv's output
    return {
        "conv1": lambda: conv.conv2d(np, a["x1"], a["w1"], *CONV),
        "conv2": lambda: conv.conv2d(np, a["x2"], a["w2"], *CONV),
        "bp_filter1": lambda: conv.conv2d_backprop_filter(np, a["x1"], a["w1"].shape, a["g1"], *CONV),
        "bp_filter2": lambda: conv.conv2d_backprop_filter(np, a["x2"], a["w2"].shape, a["g2"], *CONV),
        "bp_input2": lambda: conv.conv2d_backprop_input(np, a["x2"].shape, a["w2"], a["g2"], *CONV),
        "max_pool1": lambda: conv.max_pool(np, a["g1"], *POOL),
        "max_pool2": lambda: conv.max_pool(np, x3, *POOL),
        "max_pool_grad1": lambda: conv.max_pool_grad(np, a["g1"], y1, a["p1"], *POOL),
        "max_pool_grad2": lambda: conv.max_pool_grad(np, x3, y2, a["p2"], *POOL),
        "avg_pool1": lambda: conv.avg_pool(np, a["g1"], *POOL),
        "avg_pool2": lambda: conv.avg_pool(np, x3, *POOL),
        "avg_pool_grad1": lambda: conv.avg_pool_grad(np, a["g1"].shape, a["p1"], *POOL),
        "avg_pool_grad2": lambda: conv.avg_pool_grad(np, x3.shape, a["p2"], *POOL),
    }


def tf_cases(a):
    """Return ``{name: thunk}`` running the same kernels in a one-thread TF1 Session."""
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        v = {k: tf.Variable(val, name=k) for k, val in a.items()}
        raw = tf.raw_ops
        s, pad = [1, 1, 1, 1], "SAME"
        ks = [1, 2, 2, 1]
        x3, y1, y2 = v["g2"], v["y1"], v["y2"]
        ops = {
            "conv1": tf.nn.conv2d(v["x1"], v["w1"], s, pad),
            "conv2": tf.nn.conv2d(v["x2"], v["w2"], s, pad),
            "bp_filter1": tf.nn.conv2d_backprop_filter(v["x1"], a["w1"].shape, v["g1"], s, pad),
            "bp_filter2": tf.nn.conv2d_backprop_filter(v["x2"], a["w2"].shape, v["g2"], s, pad),
            "bp_input2": tf.nn.conv2d_backprop_input(a["x2"].shape, v["w2"], v["g2"], s, pad),
            "max_pool1": tf.nn.max_pool(v["g1"], ks, ks, pad),
            "max_pool2": tf.nn.max_pool(x3, ks, ks, pad),
            "max_pool_grad1": raw.MaxPoolGrad(
                orig_input=v["g1"], orig_output=y1, grad=v["p1"], ksize=ks, strides=ks, padding=pad
            ),
            "max_pool_grad2": raw.MaxPoolGrad(
                orig_input=x3, orig_output=y2, grad=v["p2"], ksize=ks, strides=ks, padding=pad
            ),
            "avg_pool1": tf.nn.avg_pool(v["g1"], ks, ks, pad),
            "avg_pool2": tf.nn.avg_pool(x3, ks, ks, pad),
            "avg_pool_grad1": raw.AvgPoolGrad(
                orig_input_shape=a["g1"].shape, grad=v["p1"], ksize=ks, strides=ks, padding=pad
            ),
            "avg_pool_grad2": raw.AvgPoolGrad(
                orig_input_shape=x3.shape, grad=v["p2"], ksize=ks, strides=ks, padding=pad
            ),
        }
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    sess = tf.Session(graph=graph, config=config)
    sess.run(init)
    return {name: (lambda t=t: sess.run(t)) for name, t in ops.items()}


def load_module(path):
    """Import a kernels module from a file path (for ``--baseline``)."""
    spec = importlib.util.spec_from_file_location("conv_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_block(fn, reps):
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def measure(contestants, rounds, min_block_s):
    """Return ``{contestant: {case: median seconds per call}}``, interleaved by round."""
    names = list(next(iter(contestants.values())))
    reps = {}
    for case in names:  # warm up and size each block to about min_block_s
        per = max(time_block(c[case], 3) for c in contestants.values())
        reps[case] = max(1, int(min_block_s / per))
    samples = {who: {case: [] for case in names} for who in contestants}
    for _ in range(rounds):
        for case in names:
            for who, cases in contestants.items():
                samples[who][case].append(time_block(cases[case], reps[case]))
    return {who: {c: statistics.median(t) for c, t in by.items()} for who, by in samples.items()}


def print_table(med, batch):
    who = list(med)
    cols = [w for w in who if w != "tf1"]
    head = f"{'kernel (batch ' + str(batch) + ')':<22}{'tf1 ms':>9}" + "".join(
        f"{w + ' ms':>14}{w + '/tf1':>12}" for w in cols
    )
    print(head)
    print("-" * len(head))
    rows = list(med["tf1"]) + ["step"]
    for w in who:
        med[w]["step"] = sum(t for c, t in med[w].items() if c in STEP)
    for case in rows:
        tf_t = med["tf1"][case]
        line = f"{case:<22}{tf_t * 1e3:>9.3f}"
        for w in cols:
            line += f"{med[w][case] * 1e3:>14.3f}{med[w][case] / tf_t:>12.2f}"
        print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--block", type=float, default=0.05, help="seconds per timed block")
    parser.add_argument("--baseline", help="path of another conv.py to time in the same run")
    args = parser.parse_args(argv)

    from threadpoolctl import threadpool_limits

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from daskflow.kernels import conv

    a = with_pool_outputs(make_inputs(args.batch))
    contestants = {"tf1": tf_cases(a), "daskflow": daskflow_cases(conv, a)}
    if args.baseline:
        contestants["baseline"] = daskflow_cases(load_module(args.baseline), a)
    with threadpool_limits(limits=1):
        med = measure(contestants, args.rounds, args.block)
    print_table(med, args.batch)


if __name__ == "__main__":
    main()
