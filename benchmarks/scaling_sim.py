"""Scaling past this machine, by simulation: data-parallel efficiency with simulated accelerators.

data_parallel.py's model, an MLP trained by in-graph replicas (one per worker,
``replica_device_setter`` with ``worker_device=/job:worker/device:GPU:0``),
runs on a local cluster of up to 8 (or 16) GPU worker processes and 4 ps processes.
The workers' GPU module is :mod:`sim_device`: a replica's matrix products
sleep for the time a device of ``--tflops`` would take on a batch of
``--batch`` examples, so the CPU is left to what is real: the ps's updates,
every transfer and its (de)serialization, the scheduler and the client.

For 1, 2, 4 and 8 workers (16 with ``--workers 1 2 4 8 16`` where memory allows:
20 processes of up to ~1.6 GB each), with 1, 2 and 4 ps shards (variables spread by
``GreedyLoadBalancingStrategy`` on their bytes, as TF1's was used), sync
(``SyncReplicasOptimizer``, all replicas aggregated) and async, uncompressed
and compressed (``gradient_compression="int8"``, ``variable_compression=
"fp16"``), it measures examples per second and prints the scaling efficiency:
examples/s ÷ (N × one worker's examples/s with the same ps, mode and
compression, measured in the same run). Goal: >= 90% at 8 workers.

Each row names the resource closest to its limit, from what each role used
over the timed steps: a ps process's busiest thread and the scheduler's event
loop and the client's thread (each of one core), the machine's cores (all
processes together), and the bytes moved against this machine's loopback
ceiling, measured at the start (a 64 MB array read by up to four workers at
once, through Dask). At 80% or more it is saturated; below, the row says so
and names the highest. "ps link" projects the busiest ps's bytes per step
onto a ``--nic-gbps`` link, a ps machine's share of a real cluster.

The sessions share one cluster, each seeing its own workers through
``ConfigProto(device_filters=...)``. The products' values are zeros (see
:mod:`sim_device`): the run measures time, not learning.

Run: ``python benchmarks/scaling_sim.py [--workers 1 2 4 8 16] [--ps 1 2 4] [--steps N] [--record]``
"""

from __future__ import annotations

import argparse
import collections
import logging
import os
import statistics
import threading
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import link_model  # noqa: E402
import numpy as np  # noqa: E402
import psutil  # noqa: E402
import sim_device  # noqa: E402
import sim_ranks  # noqa: E402
from data_parallel import SHAPES, train_op  # noqa: E402  (its MLP)
from distributed import Client  # noqa: E402
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402
from link_model import device_seconds, parameter_bytes  # noqa: E402
from record import record  # noqa: E402

import daskflow as tf  # noqa: E402
from daskflow.kernels import devices  # noqa: E402
from daskflow.runtime.cluster.devices import scheduler_identity  # noqa: E402

ROWS = 32  # rows a replica's batch holds on this CPU; each stands for batch / ROWS device examples
SATURATED = 0.8  # a resource this busy over a run is the one holding it back
COMPRESSION = {False: {}, True: {"gradient_compression": "int8", "variable_compression": "fp16"}}


class SimulatedAccelerator(WorkerPlugin):
    """Makes :mod:`sim_device` the GPU module of every worker process it is registered on."""

    name = "daskflow-simulated-accelerator"

    def __init__(self, rate, examples_per_row):
        self.rate, self.examples_per_row = rate, examples_per_row

    def setup(self, worker):
        sim_device.configure(self.rate, self.examples_per_row)
        if not _in_use[0]:  # workers sharing a process (threads) share one installation
            _in_use[1] = devices.gpu_module(sim_device.module)
            _in_use[1].__enter__()
        _in_use[0] += 1

    def teardown(self, worker):
        _in_use[0] -= 1
        if not _in_use[0]:
            _in_use[1].__exit__(None, None, None)


_in_use = [0, None]  # this process's workers with the plugin, and its gpu_module context


def build(workers, shards, sync):
    """The replicated program over ``workers`` GPU workers and ``shards`` ps: (graph, init, train)."""
    rng = np.random.default_rng(0)
    images = rng.random((ROWS * 4, SHAPES[0]), dtype=np.float32)
    labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], ROWS * 4)]
    spec = {"ps": [f"ps-{i}" for i in range(shards)], "worker": [f"worker-{i}" for i in range(workers)]}
    greedy = tf.contrib.training.GreedyLoadBalancingStrategy(shards, tf.contrib.training.byte_size_load_fn)
    graph = tf.Graph()
    with graph.as_default():
        ds = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(ROWS)
        x, y = ds.make_one_shot_iterator().get_next()
        setter = tf.train.replica_device_setter(
            cluster=spec, worker_device="/job:worker/device:GPU:0", ps_strategy=greedy
        )
        with tf.device(setter):
            train = train_op(x, y, rng, workers, sync)
        init = tf.global_variables_initializer()
    return graph, init, train


class Usage:
    """CPU seconds inside ``with usage:``, by thread for the serial roles (each ps process's
    threads, this process's: the client's main thread and the scheduler's event loop) and
    in all for the workers. ``used``: {(role, thread id or None): seconds}."""

    def __init__(self, client):
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
        self.processes = {psutil.Process(pid): names[a] for a, pid in pids.items()}
        self.processes[psutil.Process()] = "here"
        self.main = threading.main_thread().native_id
        self.used = collections.Counter()

    def __enter__(self):
        self.used.subtract(self._now())
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.used.update(self._now())
        self.wall = time.perf_counter() - self.start

    def _now(self):
        now = collections.Counter()
        for process, name in self.processes.items():
            try:
                self._add(now, process, name)
            except psutil.NoSuchProcess:  # a worker restarted (Dask's nanny): its CPU is lost
                pass
        return now

    def _add(self, now, process, name):
        if not name.startswith(("ps-", "here")):
            t = process.cpu_times()
            now["workers", None] += t.user + t.system
            return
        for thread in process.threads():
            role = name if name != "here" else "client" if thread.id == self.main else "scheduler"
            now[role, thread.id] += thread.user_time + thread.system_time

    def busiest(self, role):
        """The CPU seconds of ``role``'s busiest thread."""
        return max((s for (r, _), s in self.used.items() if r == role), default=0.0)

    def roles(self):
        return sorted({r for r, _ in self.used})


def loopback_ceiling(client, readers):
    """Bytes per second this machine moves between worker processes through Dask: one 64 MB
    array on ps-0 read by each of ``readers`` at once (the best of three, a fresh array each)."""
    best = 0.0
    for _ in range(3):
        data = client.submit(np.ones, 16 * 2**20, np.float32, workers=["ps-0"], pure=False)
        client.submit(_nbytes, data, workers=["ps-0"], pure=False).result()  # made, not moved
        start = time.perf_counter()
        reads = [client.submit(_nbytes, data, workers=[r], pure=False) for r in readers]
        moved = sum(client.gather(reads))
        best = max(best, moved / (time.perf_counter() - start))
        del data, reads
    return best


def _nbytes(x):
    return x.nbytes


def measure(
    cluster, client, workers, shards, sync, compressed, steps, bucket_mb=None, in_flight=0, staged=True
):
    """One setting: (seconds per step, bytes moved per step, the busiest ps's bytes in and out
    per step, Usage, the slowest replica's compute per step). ``in_flight``:
    ``ConfigProto(async_dispatch=...)``, steps submitted before the one before has ended;
    ``staged``: ``ConfigProto(stage_next_step=...)``."""
    graph, init, train = build(workers, shards, sync)
    # The cluster has the most workers of any setting; a session sees its own (TF1's device filters).
    filters = ["/job:ps"] + [f"/job:worker/task:{i}" for i in range(workers)]
    buckets = {} if bucket_mb is None else {"send_bucket_bytes": int(bucket_mb * 2**20)}
    config = tf.ConfigProto(
        device_filters=filters,
        async_dispatch=in_flight,
        stage_next_step=staged,
        **COMPRESSION[compressed],
        **buckets,
    )
    with tf.Session(cluster, graph=graph, config=config) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        usage = Usage(client)
        with usage:
            for _ in range(steps):
                sess.run(train)
            sess.sync()
        metrics = sess.step_metrics()[-steps:]
    moved = statistics.mean(m["bytes_between_workers"] for m in metrics)
    through = collections.Counter()  # (ps, direction) -> bytes per step: a link is full duplex
    for m in metrics:
        for (sender, receiver), n in m["bytes_by_pair"].items():
            for end, way in ((sender, "out"), (receiver, "in")):
                if end.startswith("ps-"):
                    through[end, way] += n / steps
    compute = statistics.mean(replica_compute(m["phases"]) for m in metrics)
    return usage.wall / steps, moved, max(through.values(), default=0.0), usage, compute


def replica_compute(phases):
    """A step's compute on its slowest replica: the seconds the programs of its partition
    instances ran (replica ``r``'s are named ``.../r``; a ps's have no ``/``), real kernels
    and simulated products alike."""
    per_replica = collections.Counter()
    for instance, times in phases.items():
        head, _, replica = instance.rpartition("/")
        if head:
            per_replica[replica] += times["computing"]
    return max(per_replica.values(), default=0.0)


def limits(usage, moved_per_s, ceiling, cores):
    """Each resource's use as a share of its limit over the measured seconds: a serial role's
    busiest thread (of one core), the machine's cores, and the bytes moved (of the ceiling)."""
    wall = usage.wall
    out = {
        f"{role} busiest thread": usage.busiest(role) / wall for role in usage.roles() if role != "workers"
    }
    out[f"machine CPU ({cores} cores)"] = sum(usage.used.values()) / wall / cores
    out["bytes (loopback)"] = moved_per_s / ceiling
    return out


Row = collections.namedtuple("Row", "mode compressed ps workers step per_s moved link efficiency limit share")


def run_setting(cluster, client, args, n, shards, mode, compressed, one, ceiling, cores):
    """Measure one setting and print its line: a :class:`Row` (``one``: one worker's examples/s
    in the same ps, mode and compression, None when this is that setting)."""
    if mode == "allreduce":
        rate = args.tflops * 1e12
        step, sent, cpu = sim_ranks.measure(n, compressed, args.steps, rate, args.batch // ROWS, ROWS)
        moved, busiest, use = n * 2 * sent, sent, {f"machine CPU ({cores} cores)": cpu}
    else:
        step, moved, busiest, usage, compute = measure(
            cluster,
            client,
            n,
            shards,
            mode == "sync",
            compressed,
            args.steps,
            args.bucket_mb,
            args.async_dispatch,
            args.stage_next_step == "on",
        )
        use = limits(usage, moved / step, ceiling, cores)
        if n == 1:  # the step's overhead: what one worker's step costs beyond its compute
            print(
                f"      one worker's step {step * 1e3:.1f} ms = {step / compute:.2f}x its compute "
                f"({compute * 1e3:.1f} ms)"
            )
    per_s = n * args.batch / step
    limit = max(use, key=use.get)
    share = use[limit]
    if share < SATURATED:  # nothing saturated: the step waits on the roles in turn
        limit = f"none saturated; highest: {limit}"
    link = busiest / (args.nic_gbps * 1e9 / 8)
    row = Row(
        mode, compressed, shards, n, step, per_s, moved, link, per_s / (n * (one or per_s)), limit, share
    )
    if args.shares:
        print("      " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(use.items())))
    print(
        f"{mode:5s} {'on' if compressed else 'off':5s} {shards:2d} {n:7d} {step * 1e3:6.0f}ms {per_s:10.0f} "
        f"{moved / 1e6:8.1f} {link * 1e3:7.0f}ms {row.efficiency:10.0%}  {limit} {share:.0%}"
    )
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 16 workers and 4 ps are 20 processes of up to ~1.6 GB each: more than this machine's 23 GB.
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--ps", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--modes", nargs="+", default=["sync", "async", "allreduce"], choices=["sync", "async", "allreduce"]
    )
    parser.add_argument("--compression", nargs="+", default=["off", "on"], choices=["off", "on"])
    parser.add_argument("--steps", type=int, default=6, help="timed steps per setting")
    parser.add_argument("--tflops", type=float, default=3.0, help="simulated device rate, TFLOP/s")
    parser.add_argument("--batch", type=int, default=7680, help="device examples per replica per step")
    parser.add_argument(
        "--nic-gbps", type=float, default=10.0, help="each machine's link, for the projection and the model"
    )
    parser.add_argument(
        "--bucket-mb",
        type=float,
        help="ConfigProto(send_bucket_bytes=...) in MiB: gradients leave in buckets this large "
        "as the backward pass makes them (0: all at its end; default: daskflow's)",
    )
    parser.add_argument(
        "--async-dispatch",
        type=int,
        default=0,
        help="ConfigProto(async_dispatch=N): N steps in flight (default 0: each run waits for its step)",
    )
    parser.add_argument(
        "--stage-next-step",
        choices=["on", "off"],
        default="on",
        help="ConfigProto(stage_next_step=...): the next step waits on the workers for its run",
    )
    parser.add_argument("--shares", action="store_true", help="print every resource's share per setting")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    if 1 not in args.workers:
        parser.error("--workers must include 1: efficiency is measured against one worker")
    args.workers = sorted(set(args.workers))
    logging.getLogger("distributed").setLevel(logging.ERROR)
    args.batch = max(1, args.batch // ROWS) * ROWS
    rate, cores = args.tflops * 1e12, len(os.sched_getaffinity(0))
    print(setting_line(args, rate, cores))
    rows = []
    # No memory limit: a ps receiving 16 replicas' gradients would pause at Dask's 80% of 2 GiB.
    cluster = tf.local_cluster(ps=max(args.ps), workers=0, gpu_workers=max(args.workers), memory_limit=0)
    with cluster, Client(cluster, set_as_default=False) as client:
        client.register_plugin(SimulatedAccelerator(rate, args.batch // ROWS))
        ceiling = loopback_ceiling(client, [f"worker-{i}" for i in range(min(4, max(args.workers)))])
        print(f"loopback ceiling: {ceiling / 1e9:.2f} GB/s (a 64 MB array read by up to 4 workers at once)")
        print(
            f"{'mode':5s} {'compr':5s} {'ps':>2s} {'workers':>7s} {'step':>8s} {'examples/s':>10s} "
            f"{'MB/step':>8s} {'link':>9s} {'efficiency':>10s}  closest to its limit"
        )
        for mode in args.modes:
            for compressed in (c == "on" for c in args.compression):
                for shards in args.ps if mode != "allreduce" else [0]:
                    one = None
                    for n in args.workers:
                        row = run_setting(
                            cluster, client, args, n, shards, mode, compressed, one, ceiling, cores
                        )
                        one = row.per_s if n == 1 else one
                        rows.append(row)
    summarize(rows)
    title, model, _ = link_model.table(args.nic_gbps, args.batch, args.tflops)
    print(title)
    for line in model:
        print(" | ".join(line))
    if args.record:
        record_table(rows, args, rate, ceiling, cores)
        about = link_model.__doc__.split("\n\n")[1].replace("\n", " ")
        record("scaling_sim_link_model", title, model, [about])


def setting_line(args, rate, cores):
    return (
        f"MLP {'->'.join(map(str, SHAPES))} ({parameter_bytes() / 1e6:.1f} MB of parameters), {args.batch} "
        f"examples per replica on a simulated {args.tflops:g} TFLOP/s device "
        f"({device_seconds(args.batch, rate) * 1e3:.0f} ms of compute per step); {args.steps} steps per "
        f"setting; {cores} cores here. link: the busiest link's bytes per step in one direction (a ps's, or "
        f"an all-reduce rank's) at {args.nic_gbps:g} Gb/s; "
        f"gradient buckets: {'default' if args.bucket_mb is None else f'{args.bucket_mb:g} MiB'}; "
        f"async_dispatch={args.async_dispatch}; stage_next_step {args.stage_next_step}"
    )


def summarize(rows):
    """The best efficiency at 8 workers, and what held back the settings that fell short."""
    at8 = [r for r in rows if r.workers == 8]
    if not at8:
        return
    best = max(at8, key=lambda r: r.efficiency)
    print(
        f"8 workers: best {best.efficiency:.0%} ({best.mode}, compression "
        f"{'on' if best.compressed else 'off'}, {best.ps} ps) against the goal of 90%"
    )
    short = collections.Counter(r.limit for r in at8 if r.efficiency < 0.9)
    for limit, count in short.most_common():
        print(f"  {count} setting(s) at 8 workers short of 90%: closest to its limit: {limit}")


def record_table(rows, args, rate, ceiling, cores):
    header = ["mode", "compression", "ps", "workers", "step", "examples/s", "MB moved/step"]
    table = [header + ["link", "efficiency", "closest to its limit"]]
    for r in rows:
        table.append(
            [
                r.mode,
                "on" if r.compressed else "off",
                r.ps,
                r.workers,
                f"{r.step * 1e3:.0f} ms",
                f"{r.per_s:.0f}",
            ]
            + [
                f"{r.moved / 1e6:.1f}",
                f"{r.link * 1e3:.0f} ms",
                f"{r.efficiency:.0%}",
                f"{r.limit} {r.share:.0%}",
            ]
        )
    notes = [
        setting_line(args, rate, cores) + f"; loopback ceiling {ceiling / 1e9:.2f} GB/s.",
        "Efficiency: examples/s ÷ (N × one worker's, same ps, mode and compression, same run). "
        "Goal: ≥ 90% at 8 workers. Compression on: gradient_compression='int8', variable_compression='fp16' "
        "(all-reduce: hvd.Compression.fp16). all-reduce: N Horovod ranks (daskflow launch --np N, "
        "sim_ranks.py), no ps; its CPU column is the whole machine's.",
    ]
    title = "Simulated scaling: data-parallel efficiency with simulated accelerators"
    record("scaling_sim", title, table, notes)


if __name__ == "__main__":
    main()
