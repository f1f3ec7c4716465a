"""Feeding from TFRecords: an MLP on two workers fed by a ``TFRecordDataset`` of
``tf.train.Example``s parsed with ``tf.parse_example``, against the same MLP fed from
in-memory arrays (``Dataset.from_tensor_slices``), on the same cluster in the same run.

A local cluster of ``ps-0`` and two worker processes (one thread each) trains a
784->512->512->10 MLP asynchronously (plain SGD, ``replica_device_setter``), batch 256
per replica. The records (784 float32 features and an int64 label per ``Example``, in
four files) are written first with ``tf.python_io.TFRecordWriter``; each replica reads
its own shard of the file dataset on its worker, batches the records and parses each
batch in one ``parse_example``. The two sessions take turns: ``--rounds`` bursts of
``--steps`` steps each, order alternating; the ratio is examples/s from records over
examples/s from memory, the median over the rounds (the goal: at least 0.9).

Run: ``python benchmarks/tfrecord_input.py [--steps N] [--rounds R] [--record]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from mlp import dense_layers, drawn_from  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

SHAPES = [784, 512, 512, 10]
BATCH = 256
EXAMPLES = BATCH * 16
FILES = 4


def write_records(folder, images, labels):
    """The examples as ``FILES`` TFRecord files of ``tf.train.Example``s; their paths."""
    paths = [os.path.join(folder, f"train-{i}.tfrecord") for i in range(FILES)]
    for i, path in enumerate(paths):
        with tf.python_io.TFRecordWriter(path) as writer:
            for image, label in zip(images[i::FILES], labels[i::FILES]):
                feature = {
                    "image": tf.train.Feature(float_list=tf.train.FloatList(value=image)),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
                }
                writer.write(
                    tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()
                )
    return paths


def inputs_from_memory(images, labels):
    x, y = (
        tf.data.Dataset.from_tensor_slices((images, labels))
        .repeat()
        .batch(BATCH)
        .make_one_shot_iterator()
        .get_next()
    )
    return x, y


def inputs_from_records(paths):
    spec = {"image": tf.FixedLenFeature([SHAPES[0]], tf.float32), "label": tf.FixedLenFeature([], tf.int64)}
    parsed = (
        tf.data.TFRecordDataset(paths)
        .repeat()
        .batch(BATCH)
        .map(lambda records: tf.parse_example(records, spec))
        .make_one_shot_iterator()
        .get_next()
    )
    return parsed["image"], parsed["label"]


def build(inputs):
    """The program on ``inputs()`` (features, int64 labels); returns (graph, init, train)."""
    graph = tf.Graph()
    with graph.as_default():
        x, y = inputs()
        spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            logits = dense_layers(tf, x, SHAPES, drawn_from(np.random.default_rng(0)))
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return graph, init, train


def examples_per_second(sess, train, steps):
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(train)
    return steps * BATCH * 2 / (time.perf_counter() - start)  # two replicas per run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    images = rng.random((EXAMPLES, SHAPES[0]), dtype=np.float32)
    labels = rng.integers(0, SHAPES[-1], EXAMPLES).astype(np.int64)
    folder = tempfile.mkdtemp(prefix="daskflow-tfrecord-bench-")
    try:
        paths = write_records(folder, images, labels)
        programs = {
            "memory": build(lambda: inputs_from_memory(images, labels)),
            "records": build(lambda: inputs_from_records(paths)),
        }
        rates = {"memory": [], "records": []}
        with tf.local_cluster(ps=1, workers=2) as cluster:
            sessions = {}
            for kind, (graph, init, train) in programs.items():
                sessions[kind] = tf.Session(cluster, graph=graph)
                sessions[kind].run(init)
                for _ in range(3):
                    sessions[kind].run(train)
            for r in range(args.rounds):
                for kind in ("memory", "records") if r % 2 == 0 else ("records", "memory"):
                    rates[kind].append(examples_per_second(sessions[kind], programs[kind][2], args.steps))
            for sess in sessions.values():
                sess.close()
    finally:
        shutil.rmtree(folder)
    ratios = [b / a for a, b in zip(rates["memory"], rates["records"])]
    rows = [
        ["input", "examples/s (median)", "ratio to in-memory"],
        ["in-memory arrays", f"{statistics.median(rates['memory']):.0f}", "1.00"],
        [
            "TFRecordDataset + parse_example",
            f"{statistics.median(rates['records']):.0f}",
            f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
        ],
    ]
    for row in rows:
        print(" | ".join(row))
    print("ratios by round:", " ".join(f"{r:.2f}" for r in ratios))
    if args.record:
        record(
            "tfrecord_input",
            "An MLP on ps-0 + 2 worker processes fed from TFRecords of Examples, against in-memory arrays",
            rows,
            notes=[
                f"784->512->512->10, batch {BATCH} per replica, async SGD; {args.rounds} rounds of "
                f"{args.steps} steps, order alternating; the ratio's median over the rounds (range).",
            ],
        )


if __name__ == "__main__":
    main()
