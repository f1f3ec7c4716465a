"""Record what each program prints under real TF1, into ``tf1_reference.json``.

Run with the TensorFlow environment::

    /work/tfenv/bin/python tests/programs/make_tf1_reference.py [name ...]

Each program runs in its own process through ``run_tf1.py`` with its short
step count (the program's ``DASKFLOW_PROGRAM_STEPS`` default) and the data of
:mod:`harness`. The metrics are the last values printed on the lines given
by ``harness.METRICS``. Programs that cannot run under the TensorFlow at
hand are recorded with the error that stopped them. Naming programs on the
command line reruns just those and keeps the other entries.
"""

import json
import os
import re
import subprocess
import sys
import time

import harness

OUT = harness.HERE / "tf1_reference.json"
TIMEOUT_S = 900


def parse_metrics(name, stdout):
    """The last value printed for each metric of program `name`."""
    found = {}
    for metric, pattern in harness.METRICS[name]:
        values = re.findall(pattern, stdout, flags=re.MULTILINE)
        if values:
            found[metric] = float(values[-1])
    return found


def last_error_line(stderr):
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_one(name):
    env = {k: v for k, v in os.environ.items() if k != "DASKFLOW_PROGRAM_STEPS"}
    cmd = [sys.executable, str(harness.HERE / "run_tf1.py"), str(harness.HERE / f"{name}.py")]
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, cwd=harness.REPO
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": TIMEOUT_S}
    entry = {"seconds": round(time.perf_counter() - start, 1), "metrics": parse_metrics(name, proc.stdout)}
    if proc.returncode == 0:
        entry["status"] = "ok"
    else:
        entry["status"] = "error"
        entry["error"] = last_error_line(proc.stderr)
    return entry


def main(names):
    import tensorflow as tf

    old = json.loads(OUT.read_text())["programs"] if OUT.exists() and names else {}
    programs = dict(old)
    for name in names or harness.program_names():
        programs[name] = run_one(name)
        print(name, programs[name], flush=True)
    report = {
        "tensorflow": tf.__version__,
        "api": "tensorflow.compat.v1 with disable_v2_behavior(), graph seed 0",
        "data": "daskflow.datasets.read_data_sets: with no MNIST files, scikit-learn digits at 28x28; "
        f"shuffling seed {harness.DATA_SEED}",
        "steps": "each program's DASKFLOW_PROGRAM_STEPS default",
        "programs": dict(sorted(programs.items())),
    }
    OUT.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
