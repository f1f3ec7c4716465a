"""All-reduce among ranks (``daskflow.horovod``) against a parameter server: bytes and step time.

**On this machine.** ``data_parallel.py``'s MLP (784->2048->2048->10, 23.3 MB
of parameters, batch 256 per worker, SGD), two workers, synchronous:

- *ps*: one program, in-graph replicas placed by ``replica_device_setter``,
  ``SyncReplicasOptimizer`` (2 of 2), on ``tf.local_cluster(ps=1, workers=2)``;
- *all-reduce*: the same model in a Horovod script (``hvd.DistributedOptimizer``)
  run as two ranks by ``daskflow launch --np 2``, each timing its own steps.

Each round runs both, in alternating order; printed: the median step time,
examples/s, the bytes each worker moves per step (sent and received), and
all-reduce's throughput over the ps mode's, round by round.

**The link model.** ``scaling_sim.py``'s workload (the same MLP, 7680 examples
per replica on a simulated 3 TFLOP/s device: 81 ms of compute) on machines
with a ``--nic-gbps`` link each, N = 2 to 64 workers: the ps mode's busiest
link carries ``2 N M / k`` bytes per step (k ps shards), all-reduce's every
worker's ``2 (N - 1) / N M``. Efficiency: compute / (compute + link time),
transfers not overlapped with compute, as both modes run here.

Run: ``python benchmarks/allreduce.py [--steps N] [--rounds R] [--record]``
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from data_parallel import BATCH, SHAPES, build, seconds_per_run, warm  # noqa: E402
from record import record  # noqa: E402
from scaling_sim import device_seconds, parameter_bytes  # noqa: E402

import daskflow as tf  # noqa: E402

HERE = Path(__file__).resolve().parent
WORKERS = 2
SIM_BATCH, SIM_TFLOPS = 7680, 3.0  # scaling_sim.py's defaults

RANK_SCRIPT = """
import json, os, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import daskflow as tf
import daskflow.horovod as hvd
from data_parallel import BATCH, SHAPES
from mlp import dense_layers, drawn_from
from daskflow.ops import collective_ops

hvd.init()
rng = np.random.default_rng(0)
images = rng.random((BATCH * 8, SHAPES[0]), dtype=np.float32)
labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH * 8)]
ds = tf.data.Dataset.from_tensor_slices((images, labels)).shard(hvd.size(), hvd.rank()).repeat().batch(BATCH)
x, y = ds.make_one_shot_iterator().get_next()
h = dense_layers(tf, x, SHAPES, drawn_from(rng))
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
train = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.01)).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(hvd.broadcast_global_variables(0))
    for _ in range(3):
        sess.run(train)
    transport = collective_ops.communicator().transport
    sent = transport.sent_bytes
    start = time.perf_counter()
    for _ in range({steps}):
        sess.run(train)
    seconds = (time.perf_counter() - start) / {steps}
    moved = 2 * (transport.sent_bytes - sent) / {steps}  # sent, and as much received
if hvd.rank() == 0:
    print("RESULT", json.dumps({{"step": seconds, "moved": moved}}), flush=True)
"""


def ps_mode(client_cluster, steps):
    """(seconds per step, bytes each worker moves per step) of the ps mode."""
    graph, init, train = build(WORKERS, True)
    with tf.Session(client_cluster, graph=graph) as sess:
        sess.run(init)
        warm(sess, train)
        seconds = seconds_per_run(sess, train, steps)
        metrics = sess.step_metrics()[-steps:]
    per_worker = {}
    for m in metrics:
        for pair, n in m["bytes_by_pair"].items():
            for end in (w for w in pair if w.startswith("worker-")):
                per_worker[end] = per_worker.get(end, 0) + n / steps
    return seconds, statistics.mean(per_worker.values())


def allreduce_mode(steps, workdir):
    """(seconds per step, bytes each rank moves per step) of two ranks under the launcher."""
    script = Path(workdir) / "ranks.py"
    script.write_text(textwrap.dedent(RANK_SCRIPT.format(here=str(HERE), steps=steps)))
    command = [sys.executable, "-m", "daskflow.cli", "launch", "--np", str(WORKERS), str(script)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=workdir)
    line = next((ln for ln in done.stdout.splitlines() if "RESULT" in ln), None)
    if done.returncode != 0 or line is None:
        tail = done.stdout[-3000:] + done.stderr[-3000:]
        raise RuntimeError(f"the ranks failed ({done.returncode}):\n{tail}")
    result = json.loads(line.split("RESULT", 1)[1])
    return result["step"], result["moved"]


def link_model(nic_gbps, workers=(2, 4, 8, 16, 32, 64), shards=(1, 4)):
    """Rows of the link model: N, each mode's link time per step (ms) and efficiency."""
    model, compute = parameter_bytes(), device_seconds(SIM_BATCH, SIM_TFLOPS * 1e12)
    rate = nic_gbps * 1e9 / 8
    rows = []
    for n in workers:
        links = {f"ps ({k} shard{'s' if k > 1 else ''})": 2 * n * model / k / rate for k in shards}
        links["all-reduce"] = 2 * (n - 1) / n * model / rate
        rows.append((n, {mode: (t, compute / (compute + t)) for mode, t in links.items()}))
        exposed = exposed_ring(n, rate)
        rows[-1][1]["all-reduce, buckets overlapped"] = (exposed, compute / (compute + exposed))
    return compute, rows


def exposed_ring(n, rate, device_rate=SIM_TFLOPS * 1e12):
    """Seconds of ring all-reduce left after the backward pass ends, with hvd's buckets
    (``BUCKET_BYTES``, the last layers' first) each starting once the backward pass has made it
    and the ring free: the MLP's layers' products timed at the device rate, last layer first."""
    from daskflow.horovod.optimizer import BUCKET_BYTES

    layers = list(zip(SHAPES, SHAPES[1:]))
    clock = SIM_BATCH * sum(2 * a * b for a, b in layers) / device_rate  # the forward pass
    ready, filled = [], 0
    for k in reversed(range(len(layers))):
        a, b = layers[k]
        clock += SIM_BATCH * 2 * a * b / device_rate  # the weights' gradient
        filled += 4 * (a * b + b)
        if filled >= BUCKET_BYTES or k == 0:
            ready.append((clock, filled))
            filled = 0
        if k > 0:
            clock += SIM_BATCH * 2 * a * b / device_rate  # the gradient on to the layer below
    ring_free = 0.0
    for at, size in ready:
        ring_free = max(ring_free, at) + 2 * (n - 1) / n * size / rate
    return max(0.0, ring_free - clock)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each mode, alternating")
    parser.add_argument("--nic-gbps", type=float, default=10.0, help="each machine's link, for the model")
    parser.add_argument("--record", action="store_true", help="write the tables into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    runs = {"ps": [], "all-reduce": []}
    with tf.local_cluster(ps=1, workers=WORKERS) as cluster, tempfile.TemporaryDirectory() as workdir:
        for r in range(args.rounds):
            order = ("ps", "all-reduce") if r % 2 == 0 else ("all-reduce", "ps")
            for mode in order:
                got = ps_mode(cluster, args.steps) if mode == "ps" else allreduce_mode(args.steps, workdir)
                runs[mode].append(got)
                step, moved = got
                print(f"round {r + 1} {mode:10s} step {step * 1e3:7.1f} ms, {moved / 1e6:6.1f} MB per worker")
    ratios = [ps[0] / ar[0] for ps, ar in zip(runs["ps"], runs["all-reduce"])]
    table = [["mode", "step (median)", "examples/s", "MB per worker per step", "throughput ÷ ps"]]
    for mode, got in runs.items():
        step = statistics.median(s for s, _ in got)
        moved = statistics.median(m for _, m in got)
        spread = f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
        ratio = "1.00" if mode == "ps" else spread
        per_s = f"{WORKERS * BATCH / step:.0f}"
        table.append([mode, f"{step * 1e3:.1f} ms", per_s, f"{moved / 1e6:.1f}", ratio])
    compute, rows = link_model(args.nic_gbps)
    modes = list(rows[0][1])
    model_table = [["workers", *[f"{m}: link, efficiency" for m in modes]]]
    for n, links in rows:
        model_table.append([str(n), *[f"{t * 1e3:.0f} ms, {e:.0%}" for t, e in (links[m] for m in modes)]])
    for t in (table, model_table):
        for row in t:
            print(" | ".join(row))
    if args.record:
        record(
            "allreduce",
            f"All-reduce among {WORKERS} ranks against a parameter server, this machine",
            table,
            [
                f"data_parallel.py's MLP ({'->'.join(map(str, SHAPES))}), batch {BATCH} per worker, SGD, "
                f"synchronous; {args.rounds} rounds of {args.steps} steps, alternating. Bytes: what each "
                "worker sends and receives per step.",
            ],
        )
        record(
            "allreduce_link_model",
            f"Link model: scaling_sim.py's workload ({compute * 1e3:.0f} ms of compute), "
            f"{args.nic_gbps:g} Gb/s links",
            model_table,
            [
                "Efficiency: compute / (compute + the busiest link's time per step), transfers not "
                "overlapped; the last column: the ring's time left after the backward pass when each "
                "bucket of gradients starts as the backward pass makes it (hvd.DistributedOptimizer)."
            ],
        )


if __name__ == "__main__":
    main()
