"""Checkpoints of a 100M-parameter model: TF's format, one shard per worker, against
daskflow's first format (one ``.npy`` per variable), on the same cluster in the same run.

A local cluster of ``ps-0`` and two worker processes holds 100M float32 parameters
(400 MB) in eight variables, placed round-robin on the three tasks (so each writes a
shard). Each round saves and restores with ``tf.train.Saver`` (TF's V2 bundle: every
task writes its data shard, the session writes the index) and with the first format's
writer (each variable's ``np.save`` and SHA-256 on its worker, then the manifest; restored
by the same ``Saver.restore``, which still reads it); the order alternates between rounds.
The machine's ceiling is measured in the same run: writing and reading back the same
bytes with plain ``numpy.ndarray.tofile`` / ``numpy.fromfile`` in one process.

Run: ``python benchmarks/checkpoint.py [--params 100e6] [--rounds 3] [--record]``
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import statistics
import tempfile
import time
import uuid

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import fsspec  # noqa: E402
import numpy as np  # noqa: E402
from distributed import Client  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

TASKS = ["/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"]
VARIABLES = 8


def _npy_write(value, url):
    """The first format's writer, as daskflow ran it on each variable's worker."""
    array = np.asarray(value)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    data = buffer.getvalue()
    with fsspec.open(url, "wb") as f:
        f.write(data)
    return {
        "shape": list(array.shape),
        "dtype": array.dtype.name,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def save_first_format(sess, client, prefix):
    futures = sess.variable_futures()
    names = sorted(futures)
    data = f"{os.path.basename(prefix)}.data-{uuid.uuid4().hex[:8]}"
    folder = os.path.join(os.path.dirname(prefix), data)
    os.makedirs(folder)
    holders = client.who_has(list(futures.values()))
    writes = [
        client.submit(
            _npy_write,
            futures[n],
            f"{folder}/{i:05d}.npy",
            workers=list(holders[futures[n].key]) or None,
            pure=False,
        )
        for i, n in enumerate(names)
    ]
    records = client.gather(writes)
    manifest = {
        "format": "daskflow-checkpoint-1",
        "global_step": None,
        "data": data,
        "variables": {n: {"file": f"{i:05d}.npy", **r} for i, (n, r) in enumerate(zip(names, records))},
    }
    with open(prefix + ".index.json", "w") as f:
        json.dump(manifest, f)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ceiling(nbytes, folder):
    """Seconds to write and to read back ``nbytes`` with plain numpy in this process."""
    array = np.ones(nbytes // 4, np.float32)
    path = os.path.join(folder, "ceiling.bin")
    write = timed(lambda: (array.tofile(path), os.sync()))
    read = timed(lambda: np.fromfile(path, np.float32).sum())
    os.remove(path)
    return write, read


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", type=float, default=100e6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    size = int(args.params) // VARIABLES
    variables = []
    for i in range(VARIABLES):
        with tf.device(TASKS[i % len(TASKS)]):
            variables.append(tf.Variable(tf.random_normal([size], seed=i), name=f"layer{i}/kernel"))
    saver = tf.train.Saver()
    times = {"tf": {"save": [], "restore": []}, "npy": {"save": [], "restore": []}}
    folder = tempfile.mkdtemp(prefix="daskflow-ckpt-bench-", dir=os.environ.get("BENCH_DIR"))
    with tf.local_cluster(ps=1, workers=2) as cluster, Client(cluster) as client, tf.Session(cluster) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(variables[0][:4])
        for r in range(args.rounds):
            order = ["tf", "npy"] if r % 2 == 0 else ["npy", "tf"]
            for kind in order:
                prefix = f"{folder}/{kind}-{r}"
                save = (
                    (lambda p=prefix: saver.save(sess, p, write_meta_graph=False, write_state=False))
                    if kind == "tf"
                    else (lambda p=prefix: save_first_format(sess, client, p))
                )
                times[kind]["save"].append(timed(lambda save=save: (save(), os.sync())))
                times[kind]["restore"].append(timed(lambda p=prefix: saver.restore(sess, p)))
                np.testing.assert_array_equal(sess.run(variables[0][:4]), first)
                shards = len([n for n in os.listdir(folder) if n.startswith(f"tf-{r}.data-")])
    nbytes = size * VARIABLES * 4
    try:
        write_ceiling, read_ceiling = ceiling(nbytes, folder)
    finally:
        shutil.rmtree(folder)
    rows = [["", "TF format (s)", "first format (s)", "ratio", "machine ceiling (s)", "share of ceiling"]]
    for what, limit in (("save", write_ceiling), ("restore", read_ceiling)):
        new, old = statistics.median(times["tf"][what]), statistics.median(times["npy"][what])
        rows.append(
            [what, f"{new:.2f}", f"{old:.2f}", f"{old / new:.2f}x", f"{limit:.2f}", f"{limit / new:.0%}"]
        )
    for row in rows:
        print(" | ".join(row))
    print(f"{nbytes / 1e6:.0f} MB in {VARIABLES} variables, {shards} data shards; rounds: {args.rounds}")
    if args.record:
        record(
            "checkpoint",
            f"Saving and restoring {args.params / 1e6:.0f}M float32 parameters on ps-0 + 2 worker processes",
            rows,
            notes=[
                f"Median of {args.rounds} rounds, orders alternating. Ratio: first format's time / TF "
                "format's (above 1: TF's format is faster). The ceiling: plain numpy writing (with sync) "
                "and reading the same bytes in one process, measured in the same run.",
                f"TF format: {shards} data shards, one per task holding variables, written in parallel.",
            ],
        )


if __name__ == "__main__":
    main()
