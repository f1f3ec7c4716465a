"""Sparse gradients: bytes an embedding's gradient sends to the ps as rows, against dense.

An embedding table (``--vocab`` × 64 floats) lives on ``ps-0``; two worker processes each
look up a batch of 256 ids per step (from a ``tf.data`` pipeline on the worker) and train
a small model on them with SGD, asynchronously. The table's gradient is an
``IndexedSlices`` (the looked-up rows): SGD subtracts them from the table's rows on the
ps (TF1's sparse update), so only the rows cross. The baseline is the same program with the gradient made
dense on the worker first (``tf.convert_to_tensor``), as daskflow did before ``IndexedSlices``.
Both runs start from the same weights and read the same ids; ``--rounds`` rounds run each
once, alternating which goes first.

* bytes the workers sent to the ps per step (``step_metrics()``), median: the cut;
* wall time per step, median over the rounds: the ratio;
* the final loss of each (the same program: the same numbers).

Run: ``python benchmarks/sparse_gradients.py [--vocab V] [--steps N] [--rounds R] [--record]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from record import duration, report  # noqa: E402

import daskflow as tf  # noqa: E402

DIM, BATCH = 64, 256


def build(vocab, dense):
    """The program: (init op, train op, loss)."""
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    rng = np.random.default_rng(0)
    ids = rng.integers(0, vocab, (BATCH * 64,)).astype(np.int32)
    targets = rng.standard_normal(BATCH * 64).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((ids, targets)).repeat().batch(BATCH)
    batch_ids, batch_targets = ds.make_one_shot_iterator().get_next()
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        table = tf.Variable((rng.standard_normal((vocab, DIM)) * 0.1).astype(np.float32), name="table")
        w = tf.Variable(np.full((DIM, 1), 0.1, np.float32), name="w")
        predicted = tf.squeeze(tf.matmul(tf.nn.embedding_lookup(table, batch_ids), w), 1)
        loss = tf.reduce_mean(tf.square(predicted - batch_targets))
        opt = tf.train.GradientDescentOptimizer(0.05)
        pairs = opt.compute_gradients(loss)
        if dense:  # the baseline: the table's gradient made dense in the replica
            pairs = [(tf.convert_to_tensor(g), v) for g, v in pairs]
        train = opt.apply_gradients(pairs)
    return tf.global_variables_initializer(), train, loss


def run(address, vocab, dense, steps):
    """One run: (bytes to the ps per step, seconds per step, final loss)."""
    tf.reset_default_graph()
    init, train, loss = build(vocab, dense)
    with tf.Session(address) as sess:
        sess.run(init)
        sess.run(train)  # plans and warms: not timed
        start = time.perf_counter()
        for _ in range(steps - 1):
            sess.run(train)
        per_step = (time.perf_counter() - start) / (steps - 1)
        metrics = [m for m in sess.step_metrics() if m["bytes_by_pair"]]
        to_ps = [sum(n for (_, to), n in m["bytes_by_pair"].items() if to.startswith("ps")) for m in metrics]
        return statistics.median(to_ps), per_step, float(sess.run(loss))


def measure(vocab, steps, rounds):
    results = {True: [], False: []}
    with tf.local_cluster(ps=1, workers=2) as cluster:
        for r in range(rounds):
            for dense in (r % 2 == 0, r % 2 == 1):
                results[dense].append(run(cluster.scheduler_address, vocab, dense, steps))
                print(f"round {r + 1}: {'dense' if dense else 'rows'}: {results[dense][-1]}", flush=True)
    return results


def table(results, vocab, steps, rounds):
    base_bytes = statistics.median(b for b, _, _ in results[True])
    base_step = statistics.median(s for _, s, _ in results[True])
    rows = [["table's gradient", "bytes to ps/step", "cut", "step", "step ÷ dense", "final loss"]]
    for dense in (True, False):
        sent = statistics.median(b for b, _, _ in results[dense])
        step = statistics.median(s for _, s, _ in results[dense])
        losses = sorted({f"{loss:.4f}" for _, _, loss in results[dense]})
        rows.append(
            [
                "dense on the worker" if dense else "rows (IndexedSlices)",
                f"{sent:.0f}",
                f"{base_bytes / sent:.1f}×",
                duration(step),
                f"{step / base_step:.2f}×",
                ", ".join(losses),
            ]
        )
    dense_bytes, row_bytes = vocab * DIM * 4, BATCH * (DIM + 1) * 4
    notes = [
        f"Embedding {vocab}×{DIM} float32 on ps-0, 2 worker processes, batch {BATCH} ids per replica, "
        f"async SGD; {rounds} rounds of {steps} steps each. Per replica and step the dense gradient is "
        f"{dense_bytes} bytes, the rows and their indices {row_bytes}; the byte counts also hold the small "
        "dense layer's gradient and each message's framing. Goal (#39): the embedding's gradient reaches "
        "the ps as rows, not dense."
    ]
    return rows, notes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=50_000, help="rows of the embedding table")
    parser.add_argument("--steps", type=int, default=30, help="steps per run")
    parser.add_argument("--rounds", type=int, default=4, help="runs of each setting")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    rows, notes = table(measure(args.vocab, args.steps, args.rounds), args.vocab, args.steps, args.rounds)
    report(
        rows,
        notes,
        "sparse_gradients",
        "Sparse gradients: an embedding's gradient to the ps as rows, against dense",
        args.record,
    )


if __name__ == "__main__":
    main()
