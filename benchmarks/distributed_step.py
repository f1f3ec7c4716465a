"""Per-step time of in-graph replicated training on a local Dask cluster.

A cluster with ``ps-0`` and two workers (processes, one thread each). Models:
softmax regression 784->10 and an MLP 784->1024->10, batch 128 per worker,
one tower per worker, gradients averaged on the ps. Measured in the same run:

* Dask's floor: a ``client.submit(f, x).result()`` round trip;
* the step's compute: the same program in an embedded session;
* the blocking cluster step;
* the cost of the in-memory variable copies that let a session survive the
  loss of its ps: the MLP's step with copies at the default setting
  (``backup_variables_secs=30``), with a copy every step, and with copies
  off, in alternating rounds of the same run (medians, and their ratio to
  copies off);
* the cost of daskflow's dashboard page: the MLP's step on a second cluster
  started with ``dashboard_page=False`` against this one, which serves the
  page while a reader fetches its data every second (someone watching), in
  alternating rounds.

The goals are step <= 1.3 x (floor + compute), copies at the default
costing <= 3% of the step, and the page <= 2%. Run: ``python benchmarks/distributed_step.py``
(``--record`` writes the table into RESULTS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
import multiprocessing
import os
import socket
import statistics
import threading
import time
import urllib.request

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from record import duration, record  # noqa: E402

import daskflow as tf  # noqa: E402


def build(shapes, towers, batch, tf=tf):
    """The in-graph replicated program, for daskflow or TF1; returns (graph, init, train, feed)."""
    graph = tf.Graph()
    rng = np.random.default_rng(0)
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            ws = [
                tf.Variable((rng.standard_normal((a, b)) * 0.01).astype(np.float32))
                for a, b in zip(shapes, shapes[1:])
            ]
            bs = [tf.Variable(tf.zeros([b])) for b in shapes[1:]]
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads, feeds = [], []
        for i in range(towers):
            with tf.device(f"/job:worker/task:{i}"):
                x = tf.placeholder(tf.float32, [None, shapes[0]])
                y = tf.placeholder(tf.float32, [None, shapes[-1]])
                h = x
                for k, (w, b) in enumerate(zip(ws, bs)):
                    h = tf.matmul(h, w) + b
                    if k < len(ws) - 1:
                        h = tf.nn.relu(h)
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
                grads.append(opt.compute_gradients(loss, ws + bs))
                feeds.append((x, y))
        with tf.device("/job:ps/task:0"):
            avg = [
                (tf.add_n([g[k][0] for g in grads]) / float(towers), grads[0][k][1])
                for k in range(len(ws + bs))
            ]
            train = opt.apply_gradients(avg)
            init = tf.global_variables_initializer()
    xs = rng.random((batch, shapes[0]), dtype=np.float32)
    ys = np.eye(shapes[-1], dtype=np.float32)[rng.integers(0, shapes[-1], batch)]
    feed = {t: v for x, y in feeds for t, v in ((x, xs), (y, ys))}
    return graph, init, train, feed


def step_times(sess, op, feed, steps):
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        sess.run(op, feed)
        times.append(time.perf_counter() - start)
    return times


def time_steps(sess, op, feed, steps):
    step_times(sess, op, feed, 3)
    return statistics.median(step_times(sess, op, feed, steps))


def time_pipelined(sess, op, feed, steps):
    """Mean time per step with asynchronous dispatch, including the final sync."""
    for _ in range(3):
        sess.run(op, feed)
    sess.sync()
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(op, feed)
    sess.sync()
    return (time.perf_counter() - start) / steps


BACKUP_CONFIGS = {
    "copies off": dict(backup_variables=False),
    "copies, default (30 s)": {},
    "a copy every step": dict(backup_variables_every=1),
}


STAGING_CONFIGS = {"staging off": dict(stage_next_step=False), "staging on (the default)": {}}


def time_sessions(client, shapes, steps, rounds, configs):
    """Per-step times of ``shapes`` under each of ``configs`` ({name: ConfigProto options}),
    and the copies each made.

    One session per configuration, all open on the same cluster; each round
    times ``steps`` steps of every session, in an order reversed every other
    round, so the machine's drift falls on all of them alike.
    """
    graph, init, train, feed = build(shapes, towers=2, batch=128)
    times = {name: [] for name in configs}
    with contextlib.ExitStack() as stack:
        sessions = {
            name: stack.enter_context(tf.Session(client, graph=graph, config=tf.ConfigProto(**options)))
            for name, options in configs.items()
        }
        for sess in sessions.values():
            sess.run(init)
            step_times(sess, train, feed, 3)
        taken = {name: sess.runtime.backup_schedule.taken for name, sess in sessions.items()}
        for r in range(rounds):
            for name in list(sessions) if r % 2 == 0 else reversed(list(sessions)):
                times[name].extend(step_times(sessions[name], train, feed, steps))
        taken = {name: sess.runtime.backup_schedule.taken - taken[name] for name, sess in sessions.items()}
    return times, taken


def time_dashboard(cluster, shapes, steps, rounds):
    """Per-step times of ``shapes`` on ``cluster`` (its page read every second meanwhile) and on
    a cluster of the same roles without the page, in alternating rounds: {"page on"/"page off":
    [seconds]}."""
    graph, init, train, feed = build(shapes, towers=2, batch=128)
    times = {"page off": [], "page on": []}
    with contextlib.ExitStack() as stack:
        bare = stack.enter_context(tf.local_cluster(ps=1, workers=2, dashboard_page=False))
        stack.enter_context(_watching(cluster.dashboard_link.rsplit("/", 1)[0] + "/daskflow/data.json"))
        sessions = {
            "page off": stack.enter_context(tf.Session(bare, graph=graph)),
            "page on": stack.enter_context(tf.Session(cluster, graph=graph)),
        }
        for sess in sessions.values():
            sess.run(init)
            step_times(sess, train, feed, 3)
        for r in range(rounds):
            for name in list(sessions) if r % 2 == 0 else reversed(list(sessions)):
                times[name].extend(step_times(sessions[name], train, feed, steps))
    return times


@contextlib.contextmanager
def _watching(url, every=1.0):
    """A reader fetching ``url`` every ``every`` seconds, as the page's browser does."""
    stop = threading.Event()

    def read():
        while not stop.wait(every):
            with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=10) as answer:
                answer.read()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield
    finally:
        stop.set()
        reader.join()


def print_dashboard(title, times):
    off = statistics.median(times["page off"])
    for name, ts in times.items():
        median = statistics.median(ts)
        ratio = median / off
        print(f"{title}, {name}: median {median * 1e3:.2f} ms ({ratio:.3f} x page off), {len(ts)} steps")


def staging_line(times):
    off, on = (statistics.median(ts) for ts in times.values())
    return f"off {duration(off)}, on {duration(on)} ({on / off:.3f}×)"


def print_staging(title, times):
    steps = len(next(iter(times.values())))
    print(f"{title}, the next step staged (median of {steps} steps each): {staging_line(times)}")


def print_backups(title, times, taken):
    off = statistics.median(times["copies off"])
    for name, ts in times.items():
        median, mean = statistics.median(ts), statistics.mean(ts)
        print(
            f"{title}, {name}: median {median * 1e3:.2f} ms ({median / off:.3f} x copies off), "
            f"mean {mean * 1e3:.2f} ms, {len(ts)} steps, {taken[name]} of them copying"
        )


def _serve(spec, job, task):
    """A TF1 gRPC server process (ps or worker task)."""
    import tensorflow.compat.v1 as tf1

    tf1.disable_eager_execution()
    config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    tf1.train.Server(tf1.train.ClusterSpec(spec), job_name=job, task_index=task, config=config).join()


@contextlib.contextmanager
def tf1_cluster(workers):
    """ps-0 and ``workers`` TF1 gRPC server processes on localhost; yields the cluster spec."""
    ports = []
    for _ in range(workers + 1):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    spec = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    ctx = multiprocessing.get_context("spawn")
    tasks = [("ps", 0)] + [("worker", i) for i in range(workers)]
    servers = [ctx.Process(target=_serve, args=(spec, job, i), daemon=True) for job, i in tasks]
    for p in servers:
        p.start()
    try:
        yield spec
    finally:
        for p in servers:
            p.terminate()


def tf1_steps(models, steps):
    """TF1's ps/worker over gRPC on localhost, same program; None without tensorflow."""
    if importlib.util.find_spec("tensorflow") is None:
        return None
    import tensorflow.compat.v1 as tf1

    tf1.disable_eager_execution()
    with tf1_cluster(2) as spec:
        out = {}
        for title, shapes in models.items():
            graph, init, train, feed = build(shapes, towers=2, batch=128, tf=tf1)
            with tf1.Session(f"grpc://{spec['worker'][0]}", graph=graph) as sess:
                sess.run(init)
                out[title] = time_steps(sess, train, feed, steps)
        return out


def dask_floor(client, n):
    x = np.ones(10)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        client.submit(np.sum, x, pure=False).result()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=6, help="rounds of the copies' measurement")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    from distributed import Client

    models = {"softmax 784->10": [784, 10], "MLP 784->1024->10": [784, 1024, 10]}
    tf1 = tf1_steps(models, args.steps)
    with tf.local_cluster(ps=1, workers=2) as cluster, Client(cluster, set_as_default=False) as client:
        floor = dask_floor(client, args.steps)
        print(f"Dask floor (submit().result()): {floor * 1e3:.2f} ms")
        header = ("model (batch 128/worker)", "compute", "step", "floor+compute", "ratio", "async step")
        print("{:28s} {:>9s} {:>9s} {:>14s} {:>6s} {:>11s}".format(*header))
        steps = {}
        for title, shapes in models.items():
            graph, init, train, feed = build(shapes, towers=2, batch=128)
            with tf.Session(graph=graph) as sess:
                sess.run(init)
                compute = time_steps(sess, train, feed, args.steps)
            with tf.Session(client, graph=graph) as sess:
                sess.run(init)
                step = time_steps(sess, train, feed, args.steps)
            with tf.Session(client, graph=graph, config=tf.ConfigProto(async_dispatch=2)) as sess:
                sess.run(init)
                pipelined = time_pipelined(sess, train, feed, args.steps)
            bound = floor + compute
            ms = [f"{t * 1e3:.2f}ms" for t in (compute, step, bound, pipelined)]
            print(f"{title:28s} {ms[0]:>9s} {ms[1]:>9s} {ms[2]:>14s} {step / bound:6.2f} {ms[3]:>11s}")
            steps[title] = compute, step, pipelined
        mlp = "MLP 784->1024->10"
        backups = time_sessions(client, models[mlp], args.steps, args.rounds, BACKUP_CONFIGS)
        print_backups(mlp, *backups)
        staging = {}
        for title, shapes in models.items():
            staging[title], _ = time_sessions(client, shapes, args.steps, args.rounds, STAGING_CONFIGS)
            print_staging(title, staging[title])
        dashboard = time_dashboard(cluster, models[mlp], args.steps, args.rounds)
        print_dashboard(mlp, dashboard)
        if tf1 is None:
            print("TF1 ps/worker over gRPC: tensorflow not installed here, not measured")
        else:
            for title, t in tf1.items():
                print(f"TF1 ps/worker over gRPC, {title}: {t * 1e3:.2f} ms per blocking step")
    if args.record:
        record_table(floor, steps, backups, dashboard, staging, tf1, args)


def record_table(floor, steps, backups, dashboard, staging, tf1, args):
    """RESULTS.md's table: each model's cluster step against Dask's floor plus its compute, and
    against TF1's step, all measured in this run; the copies' cost against copies off, and the
    dashboard page's against no page."""
    rows = [
        ["model (batch 128/worker)", "Dask floor", "compute", "cluster step", "step ÷ (floor + compute)"]
        + ["pipelined step (async_dispatch=2)", "TF1 ps/worker step", "cluster step ÷ TF1's"]
    ]
    for title, (compute, step, pipelined) in steps.items():
        theirs = [duration(tf1[title]), f"{step / tf1[title]:.2f}"] if tf1 else ["—", "—"]
        times = [duration(t) for t in (floor, compute, step)]
        rows.append([title, *times, f"{step / (floor + compute):.2f}", duration(pipelined), *theirs])
    times, taken = backups
    off = statistics.median(times["copies off"])
    copies = "; ".join(
        f"{name} {duration(statistics.median(ts))} ({statistics.median(ts) / off:.3f}×, "
        f"{taken[name]} of {len(ts)} steps copying)"
        for name, ts in times.items()
    )
    notes = [
        f"Blocking steps: medians of {args.steps}; pipelined: the mean of {args.steps} with the final "
        "sync. Goal: cluster step ≤ 1.3 × (floor + compute).",
        f"Variable copies, MLP, {args.rounds} alternating rounds of {args.steps} steps each, median "
        f"step and its ratio to copies off: {copies}. Goal: the default ≤ 1.03×.",
        f"Dashboard page, MLP, {args.rounds} alternating rounds of {args.steps} steps each on two "
        "clusters, median step: "
        + "; ".join(f"{name} {duration(statistics.median(ts))}" for name, ts in dashboard.items())
        + f" ({statistics.median(dashboard['page on']) / statistics.median(dashboard['page off']):.3f}×; "
        "page on: its data read every second meanwhile). Goal: ≤ 1.02×.",
    ]
    notes.append(
        f"The next step staged on the workers (ConfigProto(stage_next_step)), {args.rounds} alternating "
        f"rounds of {args.steps} steps each, median step: "
        + "; ".join(f"{title} {staging_line(times)}" for title, times in staging.items())
        + ". The cluster step above is with it on."
    )
    if tf1 is None:
        notes.append("TensorFlow was not installed: TF1 not measured.")
    record("distributed_step", "Cluster step: time per step ÷ Dask's floor plus compute", rows, notes)


if __name__ == "__main__":
    main()
