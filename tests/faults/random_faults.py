"""Training under random sequences of faults: the job finishes, as accurate as undisturbed.

Each run trains the README's data-parallel program (``sync``: a ps and three
workers, SyncReplicasOptimizer aggregating two; ``async``: the same, each
replica's update by itself) on `dask scheduler` / `dask worker` processes under
Nannies, or the between-graph script ``tests/between_graph/digits_replica.py``
(``between``: a ps script and two worker scripts, each its own client). While
it trains, faults come one after the other at random steps, each on a random
task, chosen by a seeded generator:

* ``kill``: kill -9 of the task's process (a Nanny starts a new worker under
  its name; a between-graph script is started again);
* ``memory``: the worker fills more than its memory limit, and its Nanny
  restarts it (in-graph modes);
* ``slow``: the task's process stops for 2 s (SIGSTOP, then SIGCONT).

A run passes when the job finishes, its test accuracy is within 0.02 of the
same job's undisturbed run (trained first, in the same invocation), and, in
the in-graph modes, each recovery lost fewer steps than the bound the
README states: under half the steps run before the fault (the copies are
made at the 1st, 2nd, 4th, ... updating steps, and again after any loss),
and no more than ``backup_variables_secs`` of step time.

In the in-graph modes a run's accuracy is the mean test accuracy after each
session run of the last fifth of its global steps. One evaluation at the end
cannot resolve 0.02: asynchronous Adam's test accuracy moves by up to 0.03
from one evaluation to the next, undisturbed (0.961 at global step 225, 0.983
at 240), so a single final figure fails runs that trained as well. The final
evaluation is printed too. The between-graph job reports its chief's final
evaluation. A run whose only problem is its accuracy is trained again under
the same faults and judged by the second try (both are printed): after a
replica's restart, async accuracy sits about 0.007 below the undisturbed
run's on average, and missed by over 0.02 in 1 of 17 runs measured.

    python tests/faults/random_faults.py --modes sync,async,between --runs 3 --seed 1
    python tests/faults/random_faults.py --modes sync --runs 1 --sequence 100:kill:worker-0,200:kill:ps-0
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from distributed import Client  # noqa: E402

import daskflow as tf  # noqa: E402
from daskflow.datasets import load_digits  # noqa: E402
from tests.cli_cluster import cli_cluster, start_scheduler  # noqa: E402
from tests.test_data_parallel import contract_program, mlp  # noqa: E402

NAMES = ["ps-0", "worker-0", "worker-1", "worker-2"]
STEPS = 300  # global steps of the in-graph runs
BETWEEN_STEPS = 600  # of the between-graph runs
TOLERANCE = 0.02  # test accuracy below the undisturbed run's, at most
SLOW_SECS = 2.0
# The copies' window: the runs are shorter, so the doubling alone bounds the steps lost.
WINDOW_SECS = 30.0
SLACK = 3  # session steps that are not training steps (initialization, the hooks' first reads)
WINDOW_FROM = STEPS * 4 // 5  # the accuracy of an in-graph run: its mean from this global step on


def plan(rng, kinds, victims, count, first, last, gap):
    """``count`` faults ``(global step, kind, victim)`` at least ``gap`` steps apart."""
    steps = sorted(rng.sample(range(first, last, gap), count))
    return [(step, rng.choice(kinds), rng.choice(victims)) for step in steps]


def _pids(address):
    with Client(address, set_as_default=False) as client:
        pids = client.run(os.getpid)
        names = {a: w["name"] for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
    return {names[a]: pid for a, pid in pids.items()}


def _fill_memory(dask_worker=None):
    """Run on a worker: hold more than its memory limit until its Nanny restarts it."""
    import numpy as np

    limit = dask_worker.memory_manager.memory_limit
    held = [np.ones(2**24) for _ in range(int(limit * 1.2) // 2**27 + 1)]
    time.sleep(30)
    return len(held)


def _fill_on(scheduler, worker):
    with Client(scheduler, set_as_default=False) as client:
        try:
            client.run(_fill_memory, workers=[worker])
        except Exception:  # noqa: BLE001, S110 - the worker died, as meant
            pass


class Faults(tf.train.SessionRunHook):
    """Injects the planned faults into an in-graph run as its global step passes them."""

    def __init__(self, address, faults):
        self.address, self.todo, self.done = address, list(faults), []

    def begin(self):
        self.global_step = tf.train.get_global_step()

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        if self.todo and run_values.results >= self.todo[0][0]:
            step, kind, victim = self.todo.pop(0)
            self._inject(kind, victim, run_context.session)
            self.done.append({"step": int(run_values.results), "kind": kind, "victim": victim})

    def _pid_when_back(self, victim):
        """The victim's process id, once a Nanny has restarted it after an earlier fault."""
        deadline = time.monotonic() + 60
        while (pid := _pids(self.address).get(victim)) is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{victim} not back 60 s after its last fault")
            time.sleep(0.5)
        return pid

    def _inject(self, kind, victim, sess):
        pid = self._pid_when_back(victim)
        if kind == "slow":
            os.kill(pid, signal.SIGSTOP)
            threading.Timer(SLOW_SECS, os.kill, (pid, signal.SIGCONT)).start()
            return
        if kind == "kill":
            os.kill(pid, signal.SIGKILL)
        else:  # the call ends with its worker: made from a thread of its own
            address = sess.runtime.workers_now()[victim]
            threading.Thread(target=_fill_on, args=(self.address, address), daemon=True).start()
        deadline = time.monotonic() + 60  # one after the other: the session sees it go first
        while victim in sess.runtime.workers_now() and time.monotonic() < deadline:
            time.sleep(0.1)


class LastFifth(tf.train.SessionRunHook):
    """Test accuracy after each run from global step ``first`` on (the program's own
    model: its weights, then its biases, as ``contract_program`` makes them)."""

    def __init__(self, first):
        self.first, self.accuracies = first, []

    def begin(self):
        data = load_digits(one_hot=True)
        w0, w1, b0, b1 = tf.trainable_variables()
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.float32, [None, 10])
        correct = tf.equal(tf.argmax(mlp(x, ([w0, w1], [b0, b1])), 1), tf.argmax(y, 1))
        self.accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        self.feed = {x: data.test.images, y: data.test.labels}
        self.global_step = tf.train.get_global_step()

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        if run_values.results >= self.first:
            self.accuracies.append(float(run_context.session.run(self.accuracy, self.feed)))


def in_graph_run(sync, faults=()):
    """Train once on a fresh cluster; the run's figures."""
    config = tf.ConfigProto(backup_variables_secs=WINDOW_SECS)
    with cli_cluster(NAMES, nanny=True) as (address, _):
        tf.reset_default_graph()
        hook, window = Faults(address, faults), LastFifth(WINDOW_FROM)
        start = time.monotonic()
        final, metrics = contract_program(
            address, sync=sync, steps=STEPS, config=config, extra_hooks=[hook, window]
        )
        seconds = time.monotonic() - start
    return {
        "accuracy": sum(window.accuracies) / len(window.accuracies),
        "final_accuracy": float(final),
        "seconds": seconds,
        "faults": hook.done,
        "recoveries": contract_program.recoveries,
    }


def in_graph_problems(run, baseline):
    found = []
    if run["accuracy"] < baseline["accuracy"] - TOLERANCE:
        found.append(f"accuracy {run['accuracy']:.3f} < undisturbed {baseline['accuracy']:.3f} - {TOLERANCE}")
    unmatched = [f for f in run["faults"] if f["kind"] != "slow"]
    for recovery in run["recoveries"]:  # a lost replica is not waited for: no recovery
        fault = next((f for f in unmatched if f["victim"] in recovery["lost"]), None)
        if fault is None:
            continue
        unmatched.remove(fault)
        bound = fault["step"] // 2 + SLACK
        if recovery["steps_lost"] > bound:
            found.append(f"{recovery['steps_lost']} steps lost after {fault}, over the bound {bound}")
    return found


# -- between-graph ------------------------------------------------------------------------------


def between_graph_run(rng_faults=()):
    """The between-graph job once, with faults at the chief's global steps; its figures."""
    from distributed.utils import open_port

    from tests.test_between_graph_processes import Task

    with tempfile.TemporaryDirectory() as folder:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        scheduler, address = start_scheduler(folder, **quiet)
        ps = f"127.0.0.1:{open_port()}"
        hosts = [
            f"--ps_hosts={ps}",
            "--worker_hosts=" + ",".join(f"127.0.0.1:{open_port()}" for _ in range(2)),
        ]
        flags = (f"--train_steps={BETWEEN_STEPS}", "--backup_secs=5", "--step_delay=0.01")
        report = Path(folder) / "chief.json"
        tasks = {"ps-0": Task("ps", 0, hosts, scheduler=address)}
        tasks["worker-0"] = Task("worker", 0, hosts, *flags, report=report, scheduler=address)
        tasks["worker-1"] = Task("worker", 1, hosts, *flags, scheduler=address)
        done, start = [], time.monotonic()
        try:
            for name in ("worker-0", "worker-1"):
                tasks[name].wait_for("session ready")
            for at, kind, victim in rng_faults:
                time.sleep(at)
                if tasks["worker-0"].process.poll() is not None:
                    break  # the chief finished first
                process = tasks[victim].process
                if kind == "slow":
                    os.kill(process.pid, signal.SIGSTOP)
                    time.sleep(SLOW_SECS)
                    os.kill(process.pid, signal.SIGCONT)
                else:
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait(10)
                    job, index = victim.split("-")
                    extra = flags if job == "worker" else ()
                    tasks[victim] = Task(job, int(index), hosts, *extra, scheduler=address)
                done.append({"after_secs": at, "kind": kind, "victim": victim})
            tasks["worker-0"].finish(timeout=300)
            figures = json.loads(report.read_text())
        finally:
            for task in tasks.values():
                task.stop()
            scheduler.terminate()
            scheduler.wait(20)
    return {
        "accuracy": figures["accuracy"],
        "seconds": time.monotonic() - start,
        "faults": done,
        "recoveries": figures["recoveries"],
        "global_step": figures["global_step"],
    }


def between_problems(run, baseline):
    found = []
    if run["global_step"] < BETWEEN_STEPS:
        found.append(f"ended at global step {run['global_step']} < {BETWEEN_STEPS}")
    if run["accuracy"] < baseline["accuracy"] - TOLERANCE:
        found.append(f"accuracy {run['accuracy']:.3f} < undisturbed {baseline['accuracy']:.3f} - {TOLERANCE}")
    return found


# -- main -------------------------------------------------------------------------------------


def run_mode(mode, runs, rng, count, sequence=None):
    if mode == "between":
        baseline = between_graph_run()
        for _ in range(runs):
            kinds, victims = ["kill", "slow"], ["ps-0", "worker-1"]
            faults = [(rng.uniform(1.0, 3.0), rng.choice(kinds), rng.choice(victims)) for _ in range(count)]
            yield baseline, *_judged(lambda f=faults: between_graph_run(f), between_problems, baseline)
        return
    sync = mode == "sync"
    baseline = in_graph_run(sync)
    for _ in range(runs):
        faults = sequence or plan(rng, ["kill", "memory", "slow"], NAMES, count, 30, STEPS - 60, 60)
        yield baseline, *_judged(lambda f=faults: in_graph_run(sync, f), in_graph_problems, baseline)


def _judged(train, problems, baseline):
    """``(run, its problems)``; a run whose only problem is its accuracy is trained again
    under the same faults and judged by that second try (the first is kept in it): the
    accuracy's noise misses once in a while, a fault's cost misses both times."""
    run = train()
    found = problems(run, baseline)
    if found and all(line.startswith("accuracy") for line in found):
        first, run = run, train()
        run["first_try"] = {"accuracy": first["accuracy"], "problems": found}
        found = problems(run, baseline)
    return run, found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="sync,async,between")
    parser.add_argument("--runs", type=int, default=3, help="faulted runs per mode")
    parser.add_argument("--faults", type=int, default=2, help="faults per run, one after the other")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write every run's figures here")
    parser.add_argument(
        "--sequence",
        help="in-graph modes: these faults instead of random ones, e.g. 100:kill:worker-0,200:kill:ps-0",
    )
    args = parser.parse_args(argv)
    rng, failed, record = random.Random(args.seed), 0, []
    sequence = None
    if args.sequence:
        sequence = [
            (int(s), kind, victim) for s, kind, victim in (f.split(":") for f in args.sequence.split(","))
        ]
    for mode in args.modes.split(","):
        for baseline, run, found in run_mode(mode, args.runs, rng, args.faults, sequence):
            faults = ", ".join(f"{f['kind']} {f['victim']}" for f in run["faults"])
            lost = [r.get("steps_lost") for r in run["recoveries"]]
            final = ""
            if "final_accuracy" in run:
                final = f" final {run['final_accuracy']:.3f} (undisturbed {baseline['final_accuracy']:.3f});"
            print(
                f"{mode}: {'FAILED' if found else 'ok'}: faults [{faults}]; accuracy {run['accuracy']:.3f} "
                f"(undisturbed {baseline['accuracy']:.3f});{final} steps lost {lost}; "
                f"{run['seconds']:.0f} s (undisturbed {baseline['seconds']:.0f} s)",
                flush=True,
            )
            if "first_try" in run:
                missed = run["first_try"]
                print(f"    first try: accuracy {missed['accuracy']:.3f}, missed; trained again", flush=True)
            for line in found:
                print("   ", line, flush=True)
            failed += bool(found)
            record.append({"mode": mode, "baseline": baseline, "run": run, "problems": found})
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1, default=str))
    print(f"{len(record) - failed} of {len(record)} runs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
