"""A Dask cluster started the way users deploy one: `dask scheduler` and
`dask worker --name <job>-<task>` processes, on 127.0.0.1 with free ports."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

from distributed import Client


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args):
    # The `dask` console script of this interpreter's environment.
    return [sys.executable, "-m", "dask", *args]


@contextlib.contextmanager
def cli_cluster(names, nanny=True, timeout=90):
    """Yield the scheduler address of a CLI-started cluster with workers ``names``."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = []
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        procs.append(
            subprocess.Popen(
                _dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0"),
                **quiet,
            )
        )
        for name in names:
            procs.append(start_worker(address, name, nanny))
        _wait_for(address, len(names), timeout)
        yield address, procs
    finally:
        for p in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.time() + 20
        for p in procs:
            try:
                p.wait(timeout=max(deadline - time.time(), 0.1))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)


def start_worker(address, name, nanny=True):
    """A `dask worker --name NAME` process joining the scheduler at ``address``."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    args = ["worker", address, "--name", name, "--nthreads", "1", "--host", "127.0.0.1"]
    args += ["--no-dashboard", "--memory-limit", "1GiB"] + ([] if nanny else ["--no-nanny"])
    return subprocess.Popen(_dask(*args), **quiet)


def _wait_for(address, n, timeout):
    deadline = time.time() + timeout
    while True:
        try:
            with Client(address, timeout=5, set_as_default=False) as client:
                client.wait_for_workers(n, timeout=max(deadline - time.time(), 1))
                return
        except (OSError, TimeoutError):
            if time.time() > deadline:
                raise
            time.sleep(0.5)
