"""Between-graph training: examples per second, against in-graph replication and TF1's.

data_parallel.py's MLP (784->2048->2048->10, batch 256 per replica, plain
SGD) as TF1's between-graph scripts ran it: one process per task
(:mod:`between_graph_task`), a ps and N = 1 or 2 workers, each with a
``Server`` and its own graph (``replica_device_setter``, an in-graph dataset
of random data), trained in a ``MonitoredTrainingSession`` on
``server.target``, synchronously (``SyncReplicasOptimizer(opt, N, N)`` and
its hook) or asynchronously (each update applied as it comes). Every process
has one thread. Each worker warms up, then all time their steps in windows
that begin at one wall-clock time (``--seconds`` long), so two workers are
measured while both train. A configuration's examples per second is the sum
over its workers of ``BATCH * steps / seconds``.

The same configurations run on daskflow and, when TensorFlow is installed,
on TF1 over gRPC (the same task script with ``tensorflow.compat.v1``;
``intra_op``/``inter_op_parallelism_threads=1`` on servers and sessions).
The same run also measures daskflow's in-graph replication of the model
(data_parallel.py's sessions on ``tf.local_cluster(ps=1, workers=N)``), and
prints between-graph ÷ in-graph and daskflow ÷ TF1 for each mode and N.

The machine is shared and noisy: every configuration is measured
``--rounds`` times, in alternating order (forward in even rounds, backward
in odd ones); each figure is the median over the rounds with its range, and
each ratio the median of the rounds' ratios (the two sides of a ratio
measured in the same round). A job's processes start fresh for each
measurement and are killed after it (their process group).

Run: ``python benchmarks/between_graph.py [--seconds S] [--rounds R] [--steps N] [--record]``
(``--record`` writes the table into RESULTS.md; ``DASKFLOW_RESULTS`` names
another file).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from between_graph_task import BATCH, SHAPES  # noqa: E402
from data_parallel import daskflow_sessions, seconds_per_run  # noqa: E402
from distributed.utils import open_port  # noqa: E402
from record import record  # noqa: E402

HERE = Path(__file__).resolve().parent
TASK = HERE / "between_graph_task.py"
REPO = HERE.parent
GO_DELAY_S = 0.5  # from the go file to the windows' start: every worker has read it by then
START_TIMEOUT_S = 180  # imports, servers and sessions of a job on a busy 2-core machine
MODES = {True: "sync", False: "async"}
APPLIED = (
    "applied: the examples in the updates the job made during the windows (global steps × N × "
    "batch when sync, × batch when async); below examples/s where gradients were dropped as stale"
)
WORKERS = (1, 2)


class Task:
    """One task's process, in a process group of its own; its output collected line by line."""

    def __init__(self, argv, name):
        self.name = name
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=child_env(),
            cwd=REPO,
            start_new_session=True,
        )
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    def result(self):
        """The worker's JSON line, or None before it printed it."""
        for line in self.lines:
            if line.startswith("{"):
                return json.loads(line)
        return None

    def check_alive(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.tail()}")

    def tail(self, n=25):
        return "\n".join("    " + line for line in self.lines[-n:])

    def kill(self):
        """Kill its whole process group (whatever it started goes too)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        self._reader.join(5)


def child_env():
    """This environment, one BLAS thread, no cluster configured, daskflow importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("DASK_SCHEDULER_ADDRESS", "TF_CONFIG")}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return env


@contextlib.contextmanager
def job(framework, workers, sync, seconds, warmup):
    """A ps and ``workers`` worker processes on free ports of 127.0.0.1; yields (workers'
    tasks, all tasks, barrier folder) and kills every process group at the end."""
    ps = f"127.0.0.1:{open_port('127.0.0.1')}"
    hosts = ",".join(f"127.0.0.1:{open_port('127.0.0.1')}" for _ in range(workers))
    common = [sys.executable, str(TASK), f"--framework={framework}", f"--ps={ps}", f"--workers={hosts}"]
    common += ["--sync"] if sync else []
    tasks = []
    with tempfile.TemporaryDirectory(prefix="between_graph_") as barrier:
        try:
            tasks.append(Task([*common, "--job=ps"], "ps-0"))
            flags = [f"--barrier={barrier}", f"--seconds={seconds}", f"--warmup={warmup}"]
            for i in range(workers):
                tasks.append(Task([*common, "--job=worker", f"--task={i}", *flags], f"worker-{i}"))
            yield tasks[1:], tasks, Path(barrier)
        finally:
            for task in tasks:
                task.kill()


def examples_per_second(framework, workers, sync, seconds, warmup):
    """One measurement of a between-graph configuration, the workers' windows starting at one
    wall-clock time: (examples/s computed, examples/s applied). Computed: the sum over the
    workers of ``BATCH * steps / seconds``. Applied: the job's global steps per second (the
    workers' mean) times the examples an update carries (``workers * BATCH`` when sync);
    gradients dropped as stale make the difference."""
    with job(framework, workers, sync, seconds, warmup) as (replicas, tasks, barrier):
        warm = [barrier / f"ready-{i}" for i in range(workers)]
        _wait_until(lambda: all(path.exists() for path in warm), tasks, "warmed up")
        go = barrier / "go.tmp"
        go.write_text(repr(time.time() + GO_DELAY_S))
        go.replace(barrier / "go")  # whole or not at all
        _wait_until(lambda: all(r.result() for r in replicas), tasks, "timed", seconds + 120)
        results = [r.result() for r in replicas]
    computed = sum(BATCH * r["steps"] / r["seconds"] for r in results)
    updates = statistics.mean(r["global_steps"] / r["seconds"] for r in results)
    return computed, updates * BATCH * (workers if sync else 1)


def _wait_until(ready, tasks, what, timeout=START_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while not ready():
        for task in tasks:
            task.check_alive()
        if time.monotonic() > deadline:
            tails = "\n".join(f"  {t.name}:\n{t.tail()}" for t in tasks)
            raise TimeoutError(f"the workers had not {what} after {timeout:.0f} s:\n{tails}")
        time.sleep(0.1)


def in_graph(steps, order):
    """daskflow's in-graph replication (data_parallel.py's sessions): {(sync, workers):
    examples/s}, each a burst of ``steps`` runs, in ``order`` ((sync, workers) pairs)."""
    with daskflow_sessions(1) as (one, _), daskflow_sessions(2) as (two, _):
        sessions = {1: one, 2: two}
        return {(s, n): n * BATCH / seconds_per_run(*sessions[n][s], steps) for s, n in order}


def tf1_available():
    return importlib.util.find_spec("tensorflow") is not None


def measure(args):
    """({(kind, sync, workers): [examples/s per round]} for kind in daskflow, tf1, in-graph,
    {(kind, sync, workers): [examples/s applied per round]} for the between-graph kinds); a
    measurement that failed leaves its error (str) in place of its figure."""
    frameworks = ["daskflow"] + (["tf1"] if tf1_available() else [])
    units = [(f, s, n) for f in frameworks for s in MODES for n in WORKERS] + ["in-graph"]
    pairs = [(s, n) for s in MODES for n in WORKERS]
    out, applied = {}, {}
    for r in range(args.rounds):
        forward = r % 2 == 0
        for unit in units if forward else reversed(units):
            started = time.monotonic()
            if unit == "in-graph":
                for (s, n), eps in in_graph(args.steps, pairs if forward else pairs[::-1]).items():
                    out.setdefault(("in-graph", s, n), []).append(eps)
                label = "in-graph"
            else:
                label = f"{unit[0]} {MODES[unit[1]]} {unit[2]} worker(s)"
                try:
                    framework, sync, workers = unit
                    figure, used = examples_per_second(framework, workers, sync, args.seconds, args.warmup)
                except (RuntimeError, TimeoutError, OSError) as e:
                    figure = used = f"{type(e).__name__}: {e}"
                out.setdefault(unit, []).append(figure)
                applied.setdefault(unit, []).append(used)
            print(f"  round {r + 1}: {label} measured in {time.monotonic() - started:.0f} s", flush=True)
    return out, applied


def spread(values):
    """(median, lowest, highest) of the numbers among ``values``; None if there are none."""
    numbers = sorted(v for v in values if not isinstance(v, str))
    return (statistics.median(numbers), numbers[0], numbers[-1]) if numbers else None


def ratios(results, top, bottom):
    """(median, lowest, highest) of the rounds' ratios ``top`` ÷ ``bottom``, round by round."""
    a, b = results.get(top), results.get(bottom)
    if a is None or b is None:
        return None
    return spread([x / y for x, y in zip(a, b) if not isinstance(x, str) and not isinstance(y, str)])


def rows(results, applied):
    """The table: (framework, mode, N, examples/s, applied, ÷ in-graph, ÷ TF1, N=2 ÷ N=1), each
    a (median, lowest, highest) triple or None, then the errors of the rounds that failed."""
    out = []
    for kind in ("daskflow", "tf1", "in-graph"):
        for s in MODES:
            for n in WORKERS:
                key = (kind, s, n)
                if key not in results:
                    continue
                errors = [v for v in results[key] if isinstance(v, str)]
                vs_in_graph = ratios(results, key, ("in-graph", s, n)) if kind != "in-graph" else None
                vs_tf1 = ratios(results, key, ("tf1", s, n)) if kind != "tf1" else None
                scale = ratios(results, key, (kind, s, 1)) if n > 1 else None
                figures = spread(results[key]), spread(applied.get(key, []))
                out.append((kind, MODES[s], n, *figures, vs_in_graph, vs_tf1, scale, errors))
    return out


NAMES = {"daskflow": "daskflow between-graph", "tf1": "TF1 between-graph", "in-graph": "daskflow in-graph"}
HEADER = ("framework", "mode", "N", "examples/s (range)", "applied (range)")
HEADER += ("÷ in-graph (range)", "÷ TF1 (range)", "N=2 ÷ N=1 (range)")


def _figure(triple, fmt="{:.0f}", unit=""):
    if triple is None:
        return "—"
    mid, low, high = (fmt.format(v) for v in triple)
    return f"{mid}{unit} ({low}–{high})"


def cells(row):
    kind, mode, n, eps, used, vs_in_graph, vs_tf1, scale, errors = row
    ratio = {"fmt": "{:.2f}", "unit": "×"}
    eps_cell = _figure(eps) if eps is not None else "failed"
    if errors and eps is not None:
        eps_cell += f", {len(errors)} failed"
    ratio_cells = [_figure(vs_in_graph, **ratio), _figure(vs_tf1, **ratio), _figure(scale, **ratio)]
    return [NAMES[kind], mode, str(n), eps_cell, _figure(used)] + ratio_cells


def print_table(results, applied, args):
    print(
        f"\nMLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps + N worker processes, "
        f"one thread each; {args.rounds} rounds, alternating; between-graph windows of {args.seconds:g} s, "
        f"in-graph bursts of {args.steps} steps"
    )
    table = [list(HEADER)] + [cells(row) for row in rows(results, applied)]
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADER))]
    for r in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    if not tf1_available():
        print("TF1: tensorflow is not installed here, not measured")
    print(APPLIED)
    for row in rows(results, applied):
        for error in dict.fromkeys(row[-1]):
            print(f"\n{NAMES[row[0]]} {row[1]} N={row[2]} failed: {error}")


def record_table(results, applied, args):
    """RESULTS.md's block ``between_graph``: one row per (framework, mode, N)."""
    table = [list(HEADER)] + [cells(row) for row in rows(results, applied)]
    notes = [
        f"MLP {'->'.join(map(str, SHAPES))}, batch {BATCH} per replica, ps + N worker processes "
        "(one thread each), one process per task as TF1's between-graph scripts ran "
        "(`benchmarks/between_graph_task.py`: `Server`, `replica_device_setter`, an in-graph "
        "dataset, `MonitoredTrainingSession`; sync: `SyncReplicasOptimizer(opt, N, N)`). "
        f"Examples/s: the sum over the workers of batch × steps ÷ seconds in windows of {args.seconds:g} s "
        "starting at one wall-clock time. In-graph: data_parallel.py's sessions on "
        f"`tf.local_cluster(ps=1, workers=N)`, bursts of {args.steps} steps. {args.rounds} rounds in "
        "alternating order: the median (lowest–highest); ratios are the median of the rounds' ratios. "
        + APPLIED[0].upper()
        + APPLIED[1:]
        + ".",
        "Machine: 2 cores shared with other work; a job's N+1 processes and the benchmark share them.",
    ]
    if tf1_available():
        notes.append(f"TF1: TensorFlow {importlib.metadata.version('tensorflow')} (`compat.v1`) over gRPC.")
    else:
        notes.append("TensorFlow was not installed: TF1 not measured.")
    title = "Between-graph training: examples per second, against in-graph replication and TF1"
    record("between_graph", title, table, notes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="each between-graph timed window")
    parser.add_argument("--rounds", type=int, default=2, help="measurements of each configuration")
    parser.add_argument("--steps", type=int, default=10, help="steps per in-graph burst")
    parser.add_argument("--warmup", type=int, default=3, help="each worker's steps before the window")
    parser.add_argument("--record", action="store_true", help="write the table into benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    results, applied = measure(args)
    print_table(results, applied, args)
    if args.record:
        record_table(results, applied, args)


if __name__ == "__main__":
    main()
