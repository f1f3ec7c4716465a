"""Long runs stay flat: the scheduler's task count and the workers' memory over many steps.

Data-parallel training (the digits MLP, SyncReplicasOptimizer 2 of 2, copies
of the variables on a second worker every step) on a local cluster of ps-0
and two worker processes. After the first ``--first`` steps, after a
``--warmup``, half-way through the rest and after all ``--steps`` it prints
the scheduler's task records, the workers' process memory and the bytes Dask
manages, with last/first and last/after-warm-up ratios: flat means ~1.

The warm-up is when bounded logs fill: Dask keeps the last 1,000 entries of
each worker's stimuli, transitions and messages
(``distributed.admin.low-level-log-length``), and daskflow the last 1,000
steps of its per-step accounting; past it, memory that still grows with the
steps would be a leak.

Run: ``python benchmarks/long_run.py [--steps 2000] [--record]`` (``--record``
writes the table into RESULTS.md).
"""

from __future__ import annotations

import argparse
import logging
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from distributed import Client  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402
from daskflow.datasets import load_digits  # noqa: E402


def build():
    data = load_digits(one_hot=True)
    ds = tf.data.Dataset.from_tensor_slices((data.train.images, data.train.labels)).shuffle(2000, seed=0)
    x, y = ds.repeat().batch(64).make_one_shot_iterator().get_next()
    spec = {"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}
    rng = np.random.default_rng(0)
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        w0 = tf.Variable((rng.standard_normal((64, 64)) * 0.1).astype(np.float32))
        w1 = tf.Variable((rng.standard_normal((64, 10)) * 0.1).astype(np.float32))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w0)), w1)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        opt = tf.train.SyncReplicasOptimizer(tf.train.AdamOptimizer(0.01), 2, 2)
        train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return train, loss


def snapshot(client):
    tasks = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
    memory = client.run(lambda dask_worker: dask_worker.monitor.get_process_memory())
    managed = client.run(lambda dask_worker: sum(ts.nbytes or 0 for ts in dask_worker.state.tasks.values()))
    return tasks, sum(memory.values()), sum(managed.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--first", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    train, loss = build()
    config = tf.ConfigProto(backup_variables_every=1)
    with tf.local_cluster(ps=1, workers=2) as cluster, Client(cluster, set_as_default=False) as client:
        with tf.Session(cluster, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            marks = sorted({args.first, args.warmup, (args.warmup + args.steps) // 2, args.steps})
            done, shots = 0, []
            for mark in marks:
                for _ in range(mark - done):
                    sess.run(train)
                done = mark
                shots.append(snapshot(client))
            final_loss = sess.run(loss)
    print(f"{args.steps} data-parallel steps (2 replicas, variable copies each step), loss {final_loss:.3f}")
    header = "".join(f"{'after ' + str(n):>13s}" for n in marks)
    print(f"{'':26s}{header} {'last/first':>11s} {'last/warm':>10s}")
    labels = ("scheduler task records", "workers' process memory", "bytes Dask manages")
    warm = marks.index(args.warmup)
    for i, (label, unit) in enumerate(zip(labels, ("", "MB", "MB"))):
        values = [shot[i] / (1e6 if unit else 1) for shot in shots]
        cells = "".join(f"{v:11.1f}{unit:2s}" for v in values)
        print(f"{label:26s}{cells} {values[-1] / values[0]:11.3f} {values[-1] / values[warm]:10.3f}")
    grown = (shots[-1][1] - shots[warm][1]) / (args.steps - args.warmup)
    print(f"workers' memory after the warm-up: {grown / 1e3:+.2f} KB per step (all workers together)")
    if args.record:
        record_table(marks, shots, warm, grown, final_loss, args)


def record_table(marks, shots, warm, grown, final_loss, args):
    """RESULTS.md's table: each figure after each mark, and the last as a ratio to the first
    and to the one after the warm-up."""
    rows = [[f"{args.steps:,} steps", *(f"after {n:,}" for n in marks), "last/first", "last/warm-up"]]
    labels = ("scheduler task records", "workers' process memory", "bytes Dask manages")
    for i, (label, scale) in enumerate(zip(labels, (1, 1e6, 1e6))):
        values = [shot[i] for shot in shots]
        cells = [f"{v:,}" if scale == 1 else f"{v / scale:.1f} MB" for v in values]
        rows.append([label, *cells, f"{values[-1] / values[0]:.3f}", f"{values[-1] / values[warm]:.3f}"])
    notes = [
        f"Workers' memory after the warm-up: {grown / 1e3:+.2f} KB per step (all workers together). "
        f"Final loss {final_loss:.3f}. Flat means ratios near 1.",
    ]
    record(
        "long_run",
        "Long run: task records and memory over the steps, ÷ the first and the warm-up's",
        rows,
        notes,
    )


if __name__ == "__main__":
    main()
