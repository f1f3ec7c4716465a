"""Run programs of this folder under daskflow.

Usage::

    python tests/programs/run_daskflow.py tests/programs/<name>.py
    python tests/programs/run_daskflow.py --forked <name>.py [<name>.py ...]

The program imports daskflow itself. Before it runs, only the data and the
plotting are arranged as for TF1 (see :mod:`harness`):
``daskflow.datasets.read_data_sets`` is wrapped to shuffle with seed 0,
pyplot is a no-op, and the graph-level random seed is 0. Nothing else is filled in: a
TF1 name daskflow lacks fails here as it would for a user.

With ``--forked``, daskflow is imported once and each program runs in a child
process forked from this one (a fresh interpreter per program spends most of a
short program's time importing); after each, a line ``PROGRAM {json}`` gives its
``path``, ``returncode``, ``stdout``, ``stderr`` and ``seconds``. With no paths
after ``--forked``, the paths come one per line on stdin, each run as it arrives
(so runners side by side can share a queue of programs).
"""

import json
import os
import signal
import sys
import tempfile
import time
import traceback

import harness

import daskflow
import daskflow.datasets

TIMEOUT_S = 300


def install():
    daskflow.datasets.read_data_sets = harness.read_data_sets_for(daskflow.datasets)
    daskflow.set_random_seed(0)
    harness.headless_pyplot()


def run_forked(path, timeout=TIMEOUT_S):
    """Run the program at `path` in a forked child; its report as a dict."""
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        os._exit(_child(path, timeout))
    _, status = os.waitpid(pid, 0)
    streams = []
    for stream in (out, err):
        stream.seek(0)
        streams.append(stream.read().decode(errors="replace"))
    return {
        "path": path,
        "returncode": os.waitstatus_to_exitcode(status),
        "stdout": streams[0],
        "stderr": streams[1],
        "seconds": round(time.perf_counter() - start, 1),
    }


def _child(path, timeout):
    """The forked child's work: the program's exit code (the alarm ends a hung one)."""
    signal.alarm(timeout)
    code = 1
    try:
        install()
        harness.run_program(path)
        code = 0
    except SystemExit as stop:
        code = 0 if stop.code in (None, 0) else 1
    except BaseException:  # noqa: BLE001 - any failure of the program is its result
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return code


if __name__ == "__main__":
    if sys.argv[1] == "--forked":
        for program in sys.argv[2:] or (line.strip() for line in sys.stdin):
            print("PROGRAM", json.dumps(run_forked(program)), flush=True)
    else:
        install()
        harness.run_program(sys.argv[1])
