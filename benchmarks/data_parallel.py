"""Data-parallel scaling: examples per second against the number of worker processes.

A compute-bound MLP (784->2048->2048->10, batch 256 per replica, plain SGD)
written once with ``replica_device_setter``, run on local clusters of
``ps-0`` plus 1 and 2 worker processes (one thread each), synchronously
(``SyncReplicasOptimizer``, all replicas aggregated) and asynchronously.
Each replica reads its own shard of an in-graph dataset on its worker. The
baseline is the one-worker run of the same mode, measured in the same run;
the goal on a 2-core machine is two workers >= 1.8x one worker.

Both clusters stay up, and the one- and two-worker sessions take turns:
``--rounds`` bursts of ``--steps`` steps each, in alternating order. Each
round gives one ratio from two bursts measured back to back, and the median
over the rounds is printed with its range. A shared, noisy machine then
slows both sides of a ratio alike, rather than whichever cluster ran in
the slow minute.

The same rounds also time the MLP's step in plain numpy, in one and in two
processes at once (:mod:`plain_numpy`: no framework, no ps, no transfers).
Their ratio is what this machine allows any runtime: two processes computing
at once share its caches, memory bandwidth and host. daskflow's ratio is
printed as a share of it, round by round.

Run: ``python benchmarks/data_parallel.py [--steps N] [--rounds R] [--record]``
(``--record`` writes the table into RESULTS.md).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import logging
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import psutil  # noqa: E402
from distributed import Client  # noqa: E402
from mlp import dense_layers, drawn_from  # noqa: E402
from plain_numpy import PlainReplicas  # noqa: E402
from record import duration, record  # noqa: E402

import daskflow as tf  # noqa: E402
from daskflow.runtime.cluster.devices import scheduler_identity  # noqa: E402

SHAPES = [784, 2048, 2048, 10]
BATCH = 256


def build(workers, sync):
    """The single-replica program; returns (graph, init, train)."""
    rng = np.random.default_rng(0)
    images = rng.random((BATCH * 8, SHAPES[0]), dtype=np.float32)
    labels = np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH * 8)]
    graph = tf.Graph()
    with graph.as_default():
        ds = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(BATCH)
        x, y = ds.make_one_shot_iterator().get_next()
        spec = {"ps": ["ps-0"], "worker": [f"worker-{i}" for i in range(workers)]}
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            train = train_op(x, y, rng, workers, sync)
        init = tf.global_variables_initializer()
    return graph, init, train


def train_op(x, y, rng, workers, sync):
    """The MLP on inputs ``x`` and one-hot labels ``y``, its variables drawn from ``rng``, and
    its SGD step (``SyncReplicasOptimizer`` over ``workers`` replicas if ``sync``)."""
    h = dense_layers(tf, x, SHAPES, drawn_from(rng))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
    opt = tf.train.GradientDescentOptimizer(0.01)
    if sync:
        opt = tf.train.SyncReplicasOptimizer(opt, workers, workers)
    return opt.minimize(loss, global_step=tf.train.get_or_create_global_step())


def seconds_per_run(sess, train, steps, around=contextlib.nullcontext):
    """Mean seconds of ``sess.run(train)`` over ``steps`` runs (daskflow or TF1), timed
    inside the context manager ``around()``."""
    with around():
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(train)
        if hasattr(sess, "sync"):  # daskflow with async_dispatch: steps still in flight
            sess.sync()
        return (time.perf_counter() - start) / steps


def warm(sess, train):
    """Three runs before any timing: plans made, caches filled."""
    for _ in range(3):
        sess.run(train)


def take_turns(bursts, rounds):
    """Run the ``bursts`` (callables returning seconds per step) in turn, ``rounds`` times,
    in their order in even rounds and in reverse in odd ones: a tuple of seconds per round."""
    out = []
    for r in range(rounds):
        order = range(len(bursts)) if r % 2 == 0 else reversed(range(len(bursts)))
        seconds = {i: bursts[i]() for i in order}
        out.append(tuple(seconds[i] for i in range(len(bursts))))
    return out


def scaling(pairs):
    """(median one-worker step, median two-worker step, median ratio, lowest, highest):
    each round's ratio is two workers' examples per second over one worker's."""
    ratios = sorted(2 * one / two for one, two in pairs)
    ones, twos = zip(*pairs)
    return statistics.median(ones), statistics.median(twos), statistics.median(ratios), ratios[0], ratios[-1]


class CpuMeter:
    """CPU seconds each role's processes use inside ``with meter:`` (psutil, a Dask dependency):
    the replicas' workers, the ps, and this process (the client and, on a local cluster,
    the scheduler)."""

    def __init__(self, client):
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in scheduler_identity(client)["workers"].items()}
        self.roles = {psutil.Process(pid): _role(names[a]) for a, pid in pids.items()}
        self.roles[psutil.Process()] = "client and scheduler"
        self.used = collections.Counter()

    def __enter__(self):
        self.used.subtract(self._now())
        return self

    def __exit__(self, *exc):
        self.used.update(self._now())

    def _now(self):
        now = collections.Counter()
        for process, role in self.roles.items():
            times = process.cpu_times()
            now[role] += times.user + times.system
        return now


def _role(name):
    return "ps" if name.startswith("ps-") else "replicas"


@contextlib.contextmanager
def daskflow_sessions(workers, dispatch=0):
    """A local cluster of ps-0 and ``workers`` worker processes (one thread each), and a
    warmed-up session for each mode on it (``ConfigProto(async_dispatch=dispatch)``):
    yields {sync: (session, train op)} and the client."""
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(tf.local_cluster(ps=1, workers=workers))
        client = stack.enter_context(Client(cluster, set_as_default=False))
        sessions = {}
        for sync in (True, False):
            graph, init, train = build(workers, sync)
            config = tf.ConfigProto(async_dispatch=dispatch)
            sess = stack.enter_context(tf.Session(cluster, graph=graph, config=config))
            sess.run(init)
            warm(sess, train)
            sessions[sync] = sess, train
        yield sessions, client


def daskflow_scaling(steps, rounds, dispatch=0):
    """{sync: (scaling(...), CPU seconds per two-worker run by role, bytes moved per two-worker
    run, plain numpy's scaling(...), daskflow's ratio over plain numpy's (median, lowest,
    highest over the rounds))}; a run is one global step (sync) or one update per replica
    (async), either way ``workers * BATCH`` examples."""
    with contextlib.ExitStack() as stack:
        one, _ = stack.enter_context(daskflow_sessions(1, dispatch))
        two, client = stack.enter_context(daskflow_sessions(2, dispatch))
        plain = [stack.enter_context(PlainReplicas(n, SHAPES, BATCH)) for n in (1, 2)]
        meter = CpuMeter(client)
        out = {}
        for sync in (True, False):
            meter.used.clear()
            bursts = (
                lambda run=one[sync]: seconds_per_run(*run, steps),
                lambda run=two[sync]: seconds_per_run(*run, steps, around=lambda: meter),
                lambda s=sync: plain[0].seconds_per_step(steps, s),
                lambda s=sync: plain[1].seconds_per_step(steps, s),
            )
            rounds_seconds = take_turns(bursts, rounds)
            sess = two[sync][0]
            moved = np.mean([m["bytes_between_workers"] for m in sess.step_metrics()[-steps:]])
            cpu = {role: seconds / (steps * rounds) for role, seconds in meter.used.items()}
            ours, machine = [t[:2] for t in rounds_seconds], [t[2:] for t in rounds_seconds]
            out[sync] = scaling(ours), cpu, moved, scaling(machine), share(ours, machine)
        return out


def share(ours, machine):
    """(median, lowest, highest) over the rounds of daskflow's ratio over plain numpy's."""
    shares = sorted((one / two) / (np_one / np_two) for (one, two), (np_one, np_two) in zip(ours, machine))
    return statistics.median(shares), shares[0], shares[-1]


def cpu_bound(one_step, cpu):
    """Why two workers' scaling is bounded on this machine: the CPU all processes use per
    two-worker step, spread over every core, is the shortest that step can be. Returns
    (CPU seconds per step, cores, the most two workers can scale to)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    total = sum(cpu.values())
    return total, cores, 2 * one_step / (total / cores)


def print_cpu_bound(sync, one_step, cpu):
    total, cores, most = cpu_bound(one_step, cpu)
    parts = ", ".join(f"{role} {seconds * 1e3:.0f} ms" for role, seconds in sorted(cpu.items()))
    mode = "sync" if sync else "async"
    print(
        f"{mode}, 2 workers: CPU per step {parts} = {total * 1e3:.0f} ms on {cores} cores: a step of "
        f">= {total / cores * 1e3:.0f} ms, so at most {most:.2f}x one worker"
    )


def tf1_scaling(steps, rounds):
    """scaling(...) of TF1's in-graph replication of the same MLP over gRPC on localhost,
    sync: ps-0 plus 1 or 2 server processes (one thread each), each tower's batch in a
    variable on its worker, gradients averaged and applied on the ps; taking turns as
    daskflow's sessions do. None without tensorflow."""
    import importlib.util

    if importlib.util.find_spec("tensorflow") is None:
        return None
    import tensorflow.compat.v1 as tf1
    from distributed_step import tf1_cluster

    tf1.disable_eager_execution()
    with contextlib.ExitStack() as stack:
        bursts = []
        for workers in (1, 2):
            spec = stack.enter_context(tf1_cluster(workers))
            graph, init, train = _tf1_graph(tf1, workers)
            sess = stack.enter_context(tf1.Session(f"grpc://{spec['worker'][0]}", graph=graph))
            sess.run(init)
            warm(sess, train)
            bursts.append(lambda sess=sess, train=train: seconds_per_run(sess, train, steps))
        return scaling(take_turns(bursts, rounds))


def _tf1_graph(tf1, workers):
    rng = np.random.default_rng(0)
    graph = tf1.Graph()
    with graph.as_default():
        with tf1.device("/job:ps/task:0"):
            params = []
            for a, b in zip(SHAPES, SHAPES[1:]):
                params += [
                    tf1.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32)),
                    tf1.Variable(tf1.zeros([b])),
                ]
        opt = tf1.train.GradientDescentOptimizer(0.01)
        grads = []
        for i in range(workers):
            with tf1.device(f"/job:worker/task:{i}"):
                images = rng.random((BATCH, SHAPES[0]), dtype=np.float32)
                x = tf1.Variable(images, trainable=False)  # the batch lives on its worker
                y = tf1.Variable(np.eye(SHAPES[-1], dtype=np.float32)[rng.integers(0, SHAPES[-1], BATCH)])
                h = x
                for k in range(0, len(params), 2):
                    h = tf1.matmul(h, params[k]) + params[k + 1]
                    if k < len(params) - 2:
                        h = tf1.nn.relu(h)
                loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
                grads.append(opt.compute_gradients(loss, params))
        with tf1.device("/job:ps/task:0"):
            mean = [(tf1.add_n([g[k][0] for g in grads]) / float(workers), p) for k, p in enumerate(params)]
            train = opt.apply_gradients(mean)
        init = tf1.global_variables_initializer()
    return graph, init, train


def print_row(mode, workers, step, moved, scale):
    """One table row; ``scale``: None for the baseline, else (median, lowest, highest)."""
    moved = f"{moved / 1e6:13.1f}" if moved is not None else f"{'':>13s}"
    if scale is None:
        scale = f"{1:11.2f}x {'':>11s} {1:10.0%}"
    else:
        scale = f"{scale[0]:11.2f}x {f'{scale[1]:.2f}-{scale[2]:.2f}':>11s} {scale[0] / workers:10.0%}"
    print(f"{mode:6s} {workers:7d} {step * 1e3:7.1f}ms {workers * BATCH / step:11.0f} {moved} {scale}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="steps per burst")
    parser.add_argument("--rounds", type=int, default=5, help="bursts of each session")
    parser.add_argument(
        "--async-dispatch",
        type=int,
        default=0,
        help="daskflow's ConfigProto(async_dispatch=N) for both sessions: N steps in flight",
    )
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    results = daskflow_scaling(args.steps, args.rounds, args.async_dispatch)
    print(
        f"MLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps-0 + N worker processes; "
        f"{args.rounds} rounds of {args.steps} steps, taking turns"
        + (f"; daskflow with async_dispatch={args.async_dispatch}" if args.async_dispatch else "")
    )
    header = ("mode", "workers", "step", "examples/s", "MB sent/step", "vs 1 worker", "range", "efficiency")
    print("{:6s} {:>7s} {:>9s} {:>11s} {:>13s} {:>12s} {:>11s} {:>10s}".format(*header))
    for sync in (True, False):
        (one, two, *scale), _, moved, (np_one, np_two, *np_scale), _ = results[sync]
        mode = "sync" if sync else "async"
        print_row(mode, 1, one, None, None)
        print_row(mode, 2, two, moved, scale)
        print_row("numpy", 1, np_one, None, None)
        print_row("numpy", 2, np_two, None, np_scale)
    print("goal: two workers >= 1.80x one worker (the median over the rounds)")
    print("numpy: the MLP's step in plain numpy, 1 or 2 processes at once, no ps (the machine's ceiling)")
    for sync in (True, False):
        (_, _, ratio, *_), _, _, (_, _, ceiling, *_), (mid, low, high) = results[sync]
        print(
            f"{'sync' if sync else 'async'}: daskflow {ratio:.2f}x where plain numpy scales {ceiling:.2f}x; "
            f"round by round daskflow reaches {mid:.0%} of numpy's ratio ({low:.0%}-{high:.0%})"
        )
    for sync in (True, False):
        print_cpu_bound(sync, results[sync][0][0], results[sync][1])
    tf1 = tf1_scaling(args.steps, args.rounds)
    if tf1 is None:
        print("TF1 (in-graph replication over gRPC): tensorflow not installed here, not measured")
    else:
        one, two, *scale = tf1
        print_row("TF1", 1, one, None, None)
        print_row("TF1", 2, two, None, scale)
    if args.record:
        record_table(results, tf1, args)


def record_table(results, tf1, args):
    """RESULTS.md's table: two workers' examples per second over one worker's, each mode against
    plain numpy's ratio in the same rounds (the machine's ceiling) and its CPU bound."""
    rows = [
        ["mode", "1 worker's step", "2 workers' step", "examples/s, 2 workers", "2 workers ÷ 1 (range)"]
        + ["numpy, same rounds (range)", "share of numpy's (range)", "CPU bound", "MB sent/step"]
    ]
    for sync in (True, False):
        (one, two, *scale), cpu, moved, (_, _, *np_scale), shares = results[sync]
        rows.append(
            ["sync" if sync else "async", duration(one), duration(two), f"{2 * BATCH / two:.0f}"]
            + [_ratio(scale), _ratio(np_scale), _ratio(shares, percent=True)]
            + [f"{cpu_bound(one, cpu)[2]:.2f}×", f"{moved / 1e6:.1f}"]
        )
    if tf1 is not None:
        one, two, *scale = tf1
        rows.append(["TF1 sync", duration(one), duration(two), f"{2 * BATCH / two:.0f}", _ratio(scale)])
        rows[-1] += ["—"] * 4
    dispatch = f"; daskflow with async_dispatch={args.async_dispatch}" if args.async_dispatch else ""
    notes = [
        f"MLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps-0 + 1 or 2 worker processes; "
        f"{args.rounds} rounds of {args.steps} steps per session, taking turns{dispatch}. Ratios: the "
        "median over the rounds (lowest–highest). numpy: the MLP's step in plain numpy, 1 or 2 processes "
        "at once, with a barrier (sync) or without (async). CPU bound: two workers' most on this "
        "machine's cores, given the CPU every process used per two-worker step. "
        "Goal: two workers ≥ 1.80× one worker."
    ]
    if tf1 is None:
        notes.append("TensorFlow was not installed: TF1 not measured.")
    record(
        "data_parallel", "Data-parallel scaling: two workers' examples per second ÷ one worker's", rows, notes
    )


def _ratio(scale, percent=False):
    """'median× (lowest–highest)' of a (median, lowest, highest) triple, or in percent."""
    mid, low, high = (f"{v:.0%}" if percent else f"{v:.2f}" for v in scale)
    return f"{mid} ({low}–{high})" if percent else f"{mid}× ({low}–{high})"


if __name__ == "__main__":
    main()
