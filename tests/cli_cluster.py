"""A Dask cluster started the way users deploy one: `dask scheduler` and
`dask worker --name <job>-<task>` processes, on 127.0.0.1 with free ports."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from distributed import Client

from tests.waiting import poll_for

SIGTERM_GRACE = 5  # seconds the processes have to exit on SIGTERM before SIGKILL


def _dask(*args):
    # The `dask` console script of this interpreter's environment.
    return [sys.executable, "-m", "dask", *args]


@contextlib.contextmanager
def cli_cluster(names, nanny=True, timeout=90):
    """Yield the scheduler address of a CLI-started cluster with workers ``names``."""
    procs = []
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    with tempfile.TemporaryDirectory() as folder:
        try:
            process, address = start_scheduler(folder, timeout, **quiet)
            procs.append(process)
            for name in names:
                procs.append(start_worker(address, name, nanny))
            _wait_for(address, len(names), timeout)
            yield address, procs
        finally:
            for p in reversed(procs):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGTERM)
            # A `dask worker` that outlived a peer killed with -9 sometimes never exits on
            # SIGTERM (the task waiting for its close is left waiting when asyncio cancels the
            # close: distributed 2026.8); these tests are about training, not Dask's shutdown.
            deadline = time.time() + SIGTERM_GRACE
            for p in procs:
                try:
                    p.wait(timeout=max(deadline - time.time(), 0.1))
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(p.pid, signal.SIGKILL)


def start_scheduler(folder, timeout=60, **popen):
    """A `dask scheduler` process on 127.0.0.1: ``(process, its address)``.

    It picks its own port and says which in its scheduler file (in ``folder``): a port
    picked here and freed could be taken by another process before it binds it.
    """
    scheduler_file = os.path.join(folder, "scheduler.json")
    argv = ["scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0"]
    process = subprocess.Popen(_dask(*argv, "--scheduler-file", scheduler_file), **popen)
    try:
        return process, _scheduler_address(scheduler_file, process, timeout)
    except BaseException:
        process.kill()
        process.wait(10)
        raise


def _scheduler_address(scheduler_file, proc, timeout):
    def written():
        if proc.poll() is not None:
            raise RuntimeError(f"dask scheduler exited with code {proc.returncode}")
        with contextlib.suppress(FileNotFoundError, ValueError, KeyError):
            with open(scheduler_file) as f:
                return json.load(f)["address"]

    return poll_for(written, timeout, f"dask scheduler to write its address into {scheduler_file}", every=0.1)


def start_worker(address, name, nanny=True):
    """A `dask worker --name NAME` process joining the scheduler at ``address``."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    args = ["worker", address, "--name", name, "--nthreads", "1", "--host", "127.0.0.1"]
    args += ["--no-dashboard", "--memory-limit", "1GiB"] + ([] if nanny else ["--no-nanny"])
    return subprocess.Popen(_dask(*args), **quiet)


def _wait_for(address, n, timeout):
    deadline = time.monotonic() + timeout

    def joined():
        try:
            with Client(address, timeout=5, set_as_default=False) as client:
                client.wait_for_workers(n, timeout=max(deadline - time.monotonic(), 1))
                return True
        except (OSError, TimeoutError):
            return False

    poll_for(joined, timeout, f"{n} workers to join the scheduler at {address}", every=0.5)
