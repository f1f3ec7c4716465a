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

**The link model** (:mod:`link_model`, recorded by ``scaling_sim.py``, whose
all-reduce mode measures N ranks on simulated accelerators) is printed after:
``scaling_sim.py``'s workload on machines with a ``--nic-gbps`` link each,
N = 2 to 64 workers.

Run: ``python benchmarks/allreduce.py [--steps N] [--rounds R] [--record]``
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sim_ranks  # noqa: E402
from data_parallel import BATCH, SHAPES, build, seconds_per_run, warm  # noqa: E402
from link_model import table as link_table  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402

WORKERS = 2
SIM_BATCH, SIM_TFLOPS = 7680, 3.0  # scaling_sim.py's defaults


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


def allreduce_mode(steps):
    """(seconds per step, bytes each rank moves per step) of two ranks under the launcher, on
    this CPU (:mod:`sim_ranks`' script without the simulated device)."""
    step, sent, _ = sim_ranks.measure(WORKERS, False, steps, None, 1, BATCH)
    return step, 2 * sent  # sent, and as much received


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each mode, alternating")
    parser.add_argument("--nic-gbps", type=float, default=10.0, help="each machine's link, for the model")
    parser.add_argument("--record", action="store_true", help="write the tables into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    runs = {"ps": [], "all-reduce": []}
    with tf.local_cluster(ps=1, workers=WORKERS) as cluster:
        for r in range(args.rounds):
            order = ("ps", "all-reduce") if r % 2 == 0 else ("all-reduce", "ps")
            for mode in order:
                got = ps_mode(cluster, args.steps) if mode == "ps" else allreduce_mode(args.steps)
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
    title, model_table, _ = link_table(args.nic_gbps, SIM_BATCH, SIM_TFLOPS)
    print(title)
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


if __name__ == "__main__":
    main()
