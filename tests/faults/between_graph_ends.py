"""Between-graph jobs whose workers end at different times, run again and again.

Each run is ``daskflow launch`` of :mod:`between_graph_job` (a ps, two workers,
the scheduler: four processes): it must end with exit code 0, every worker
having finished (none stopped by the launcher, none failed), and no
``Traceback`` in any process's log (the launcher prints them all, each line
under its process's name). Runs alternate which worker trains longer and
whether the chief opens ``tf.Session`` or ``MonitoredTrainingSession``.

By hand, or in CI (about 6 s a run on two cores)::

    python tests/faults/between_graph_ends.py --runs 20

``tests/test_between_graph_processes.py`` runs one of them in the suite.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
JOB = Path(__file__).resolve().parent / "between_graph_job.py"


def run_job(run: int, timeout: float = 120.0) -> tuple[int, str]:
    """Launch the job once (its variant picked by ``run``); its exit code and whole output."""
    env = {k: v for k, v in os.environ.items() if k not in ("DASK_SCHEDULER_ADDRESS", "TF_CONFIG")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    argv = [sys.executable, "-m", "daskflow.cli", "launch", str(JOB), "--ps", "1", "--workers", "2"]
    argv += ["--grace", "60", "--", f"--longer={run % 2}"] + (["--monitored"] if run % 4 >= 2 else [])
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def problems(code: int, output: str) -> list[str]:
    """What is wrong with a run: its exit code, a worker that did not finish, a traceback."""
    found = [] if code == 0 else [f"exit code {code}"]
    found += [f"worker {i} did not finish" for i in (0, 1) if f"[worker-{i}] worker {i} done" not in output]
    found += [line for line in output.splitlines() if "[launcher]" in line and "worker-1" in line]
    found += [f"a traceback: {line}" for line in output.splitlines() if "Traceback" in line]
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    failed = 0
    for run in range(args.runs):
        start = time.monotonic()
        code, output = run_job(run)
        found = problems(code, output)
        verdict = "FAILED" if found else "ok"
        print(f"run {run + 1}: {verdict} in {time.monotonic() - start:.1f} s", flush=True)
        if found:
            failed += 1
            print("\n".join(found) + "\n--- its output ---\n" + output, flush=True)
    print(f"{args.runs - failed} of {args.runs} runs ended cleanly")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
