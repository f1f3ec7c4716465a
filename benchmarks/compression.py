"""Compressed transfers: bytes to the ps, accuracy and CPU cost, against uncompressed.

A data-parallel MLP (64->256->10 on scikit-learn's digits, batch 64 per
replica, SGD) runs on a local cluster of ``ps-0`` and two worker processes,
synchronously (``SyncReplicasOptimizer``, both replicas aggregated) and
asynchronously, with ``ConfigProto(gradient_compression=...)`` None, fp16,
bf16 and int8 (and ``variable_compression`` the same 16-bit encoding, or
fp16 with int8). Every run starts from the same weights and reads the same
batches; ``--rounds`` rounds run every setting once each, in a rotated
order. The baseline is the uncompressed run of the same mode, in the same
rounds:

* bytes the workers sent to the ps per step (``step_metrics()``): the cut;
* test accuracy after ``--steps`` steps, the mean over the rounds: the
  difference in points;
* wall time per step, median over the rounds: the ratio;
* CPU time to encode and decode one step's gradients, in this process.

``--buckets`` measures the int8 bucket sizes instead: bytes per value,
error and encoding time for each, on the MLP's gradients.

Run: ``python benchmarks/compression.py [--steps N] [--rounds R] [--buckets] [--record]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from record import duration, record, report  # noqa: E402

import daskflow as tf  # noqa: E402
from daskflow.datasets import load_digits  # noqa: E402
from daskflow.kernels import codecs  # noqa: E402

SHAPES = [64, 256, 10]
BATCH = 64
CODECS = [None, "fp16", "bf16", "int8"]
VARIABLES = {None: None, "fp16": "fp16", "bf16": "bf16", "int8": "fp16"}  # variable_compression with each


def build(sync):
    """The program; returns (init ops, train op, accuracy, test feed)."""
    data = load_digits(one_hot=True)
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    rng = np.random.default_rng(0)
    ds = tf.data.Dataset.from_tensor_slices((data.train.images, data.train.labels))
    x, y = ds.shuffle(2000, seed=0).repeat().batch(BATCH).make_one_shot_iterator().get_next()
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        params = [
            tf.Variable((rng.standard_normal((a, b)) * 0.1).astype(np.float32))
            for a, b in zip(SHAPES, SHAPES[1:])
        ]
        biases = [tf.Variable(tf.zeros([b])) for b in SHAPES[1:]]
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=_mlp(x, params, biases))
        )
        opt = tf.train.GradientDescentOptimizer(0.1)
        if sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=2)
        train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    xt, yt = tf.placeholder(tf.float32, [None, 64]), tf.placeholder(tf.float32, [None, 10])
    hits = tf.equal(tf.argmax(_mlp(xt, params, biases), 1), tf.argmax(yt, 1))
    accuracy = tf.reduce_mean(tf.cast(hits, tf.float32))
    init = [tf.global_variables_initializer()] + ([opt.get_init_tokens_op()] if sync else [])
    return init, train, accuracy, {xt: data.test.images, yt: data.test.labels}


def _mlp(x, params, biases):
    for i, (w, b) in enumerate(zip(params, biases)):
        x = tf.matmul(x, w) + b
        x = tf.nn.relu(x) if i < len(params) - 1 else x
    return x


def train(address, sync, codec, steps):
    """One run: (bytes to the ps per step, test accuracy, seconds per step)."""
    tf.reset_default_graph()
    init, op, accuracy, test = build(sync)
    config = tf.ConfigProto(gradient_compression=codec, variable_compression=VARIABLES[codec])
    with tf.Session(address, config=config) as sess:
        sess.run(init)
        sess.run(op)  # the first step plans and warms: not timed
        start = time.perf_counter()
        for _ in range(steps - 1):
            sess.run(op)
        per_step = (time.perf_counter() - start) / (steps - 1)
        metrics = [m for m in sess.step_metrics() if m["bytes_by_pair"]]
        to_ps = [sum(n for (_, to), n in m["bytes_by_pair"].items() if to.startswith("ps")) for m in metrics]
        return statistics.median(to_ps), float(sess.run(accuracy, test)), per_step


def gradients():
    """The MLP's gradient shapes, filled as a real step's are (normal, a few large values)."""
    rng = np.random.default_rng(1)
    shapes = [(a, b) for a, b in zip(SHAPES, SHAPES[1:])] + [(b,) for b in SHAPES[1:]]
    return [
        (rng.standard_normal(s) * rng.choice([1e-3, 1e-2, 1.0], s, p=[0.5, 0.49, 0.01])).astype(np.float32)
        for s in shapes
    ]


def codec_seconds(codec, grads, repeats=200):
    """CPU seconds to encode and decode ``grads`` (one step's, one replica's), in this process."""
    residuals = [np.zeros(g.size, np.float32) for g in grads]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for g, r in zip(grads, residuals):
            if g.size >= 64:
                codecs.decode(codecs.encode(codec, g, r), g.shape, np.float32)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(steps, rounds):
    results = {}  # (sync, codec) -> [(bytes, accuracy, seconds)]
    with tf.local_cluster(ps=1, workers=2) as cluster:
        for r in range(rounds):
            order = CODECS[r % len(CODECS) :] + CODECS[: r % len(CODECS)]
            for sync in (True, False):
                for codec in order:
                    run = train(cluster.scheduler_address, sync, codec, steps)
                    results.setdefault((sync, codec), []).append(run)
                    print(f"round {r + 1}: {'sync' if sync else 'async'} {codec}: {run}", flush=True)
    return results


def table(results, steps, rounds):
    grads = gradients()
    rows = [
        [
            "mode",
            "gradients",
            "variables",
            "bytes to ps/step",
            "cut",
            "accuracy",
            "Δ accuracy",
            "step",
            "step ÷ none",
        ]
        + ["(de)coding CPU/step"]
    ]
    for sync in (True, False):
        base = results[(sync, None)]
        base_acc = statistics.mean(a for _, a, _ in base)
        base_step = statistics.median(s for _, _, s in base)
        for codec in CODECS:
            runs = results[(sync, codec)]
            sent = statistics.median(b for b, _, _ in runs)
            acc = statistics.mean(a for _, a, _ in runs)
            step = statistics.median(s for _, _, s in runs)
            cpu = codec_seconds(codec, grads) if codec else 0.0
            rows.append(
                ["sync" if sync else "async", codec or "—", VARIABLES[codec] or "—", f"{sent:.0f}"]
                + [f"{statistics.median(b for b, _, _ in base) / sent:.2f}×", f"{acc:.2%}"]
                + [
                    f"{(acc - base_acc) * 100:+.2f} pt",
                    duration(step),
                    f"{step / base_step:.2f}×",
                    duration(cpu),
                ]
            )
    big = [np.random.default_rng(2).standard_normal((3136, 1024)).astype(np.float32)]
    notes = [
        f"MLP {'->'.join(map(str, SHAPES))} on digits, batch {BATCH} per replica, SGD 0.1, ps-0 + 2 worker "
        f"processes; {rounds} rounds of {steps} steps per setting. Accuracy: the mean over the rounds on the "
        "360 test images (one image = 0.28 pt). Goals: int8 cuts the bytes to the ps ≥ 3.7×, fp16 ≥ 1.9×, "
        "accuracy within 0.5 pt of uncompressed.",
        "(De)coding CPU per step: one replica's gradients encoded and decoded in one process. For a "
        "3136×1024 layer (mnist_deep's fc1): "
        + ", ".join(f"{c} {duration(codec_seconds(c, big, 20))}" for c in CODECS[1:])
        + ".",
    ]
    return rows, notes


def buckets():
    rows = [["bucket", "bytes/value", "relative error", "encode + decode, 1M values"]]
    grads = gradients()
    big = np.random.default_rng(3).standard_normal(1 << 20).astype(np.float32)
    chosen = codecs.BUCKET
    try:
        for size in (64, 128, 256, 512, 1024, 2048, 4096):
            codecs.BUCKET = size
            sent = sum(codecs.encode("int8", g, np.zeros(g.size, np.float32)).nbytes for g in grads)
            values = sum(g.size for g in grads)
            error = [
                np.linalg.norm(
                    codecs.decode(codecs.encode("int8", g, np.zeros(g.size, np.float32)), g.shape, np.float32)
                    - g
                )
                / np.linalg.norm(g)
                for g in grads[:1]
            ][0]
            rows.append(
                [
                    str(size),
                    f"{sent / values:.3f}",
                    f"{error:.4f}",
                    duration(codec_seconds("int8", [big], 10)),
                ]
            )
    finally:
        codecs.BUCKET = chosen
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150, help="steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each setting")
    parser.add_argument("--buckets", action="store_true", help="measure int8 bucket sizes instead")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    if args.buckets:
        rows = buckets()
        for row in rows:
            print(" | ".join(row))
        if args.record:
            record(
                "compression_buckets", "int8 bucket size: bytes, error and time on the MLP's gradients", rows
            )
        return
    rows, notes = table(measure(args.steps, args.rounds), args.steps, args.rounds)
    report(
        rows,
        notes,
        "compression",
        "Compressed transfers: bytes to the ps, accuracy and step time against none",
        args.record,
    )


if __name__ == "__main__":
    main()
