"""``daskflow doctor``: run as a user runs it (a subprocess), on this machine and on clusters."""

import os
import subprocess
import sys

import dask
import numpy
import pytest
from distributed import LocalCluster, Scheduler, SpecCluster, Worker

import daskflow as tf
from daskflow.runtime.dask_compat import open_port

pytestmark = pytest.mark.process

HANG = 120  # seconds: a doctor still running after this is hung (not a timing check)
SECTIONS = ["versions", "blas", "numba and cupy", "cluster"]


def doctor(*args, env=None):
    """Run ``daskflow doctor ARGS`` as the console script does; the CompletedProcess."""
    environment = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    environment.update(env or {})
    command = [sys.executable, "-c", "import sys; from daskflow.cli import main; sys.exit(main())", "doctor"]
    return subprocess.run(
        [*command, *args], env=environment, capture_output=True, text=True, timeout=HANG, check=False
    )


def rows(text):
    """``{first word: rest}`` of the report's indented rows."""
    found = {}
    for line in text.splitlines():
        if line.startswith("  ") and line.strip():
            name, _, rest = line.strip().partition(" ")
            found.setdefault(name, rest.strip())
    return found


def test_doctor_prints_its_sections_without_a_cluster():
    out = doctor()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line for line in lines if not line.startswith(" ")] == SECTIONS
    assert len(lines) <= 20, out.stdout
    found = rows(out.stdout)
    assert found["daskflow"].startswith(tf.__version__ + " ")
    assert found["python"].startswith(".".join(map(str, sys.version_info[:3])))
    assert found["numpy"] == numpy.__version__
    assert found["dask"] == dask.__version__
    assert found["numba"].split(",")[0] == __import__("numba").__version__
    # numpy's BLAS and its threads, as threadpoolctl sees them in a process of its own.
    from threadpoolctl import threadpool_info

    blas = next(p for p in threadpool_info() if p["user_api"] == "blas")
    blas_line = lines[lines.index("blas") + 1]
    assert blas_line.split()[0] == blas["internal_api"] and f"{blas['num_threads']} threads" in blas_line
    assert "none given" in lines[-1]


def test_doctor_says_when_openblas_coretype_chose_the_kernels():
    out = doctor(env={"OPENBLAS_CORETYPE": "Haswell"})
    assert out.returncode == 0, out.stderr
    blas_line = out.stdout.splitlines()[out.stdout.splitlines().index("blas") + 1]
    if not blas_line.strip().startswith("openblas"):
        pytest.skip(f"numpy's BLAS is not OpenBLAS here: {blas_line}")
    assert "Haswell kernels" in blas_line and "OPENBLAS_CORETYPE=Haswell chose them" in blas_line
    avx512 = "avx512f" in open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else False
    assert ("processor with AVX-512" in blas_line) == avx512, blas_line
    unset = doctor(env={"OPENBLAS_CORETYPE": ""})
    assert "OPENBLAS_CORETYPE" not in unset.stdout


def test_doctor_lists_a_local_clusters_workers_as_tf_tasks():
    options = dict(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1")
    with LocalCluster(dashboard_address="127.0.0.1:0", **options) as cluster:
        address = cluster.scheduler_address
        dashboard = cluster.scheduler.services["dashboard"].port
        out = doctor("--scheduler", address)
    assert out.returncode == 0, out.stderr
    cluster_lines = out.stdout.split("\ncluster ", 1)[1].splitlines()
    assert cluster_lines[0] == f"{address} (dashboard http://127.0.0.1:{dashboard}/status)"
    # Dask names LocalCluster's workers 0 and 1: /job:worker/task:0 and task:1.
    tasks = [line.split()[0] for line in cluster_lines[1:3]]
    assert tasks == ["/job:worker/task:0", "/job:worker/task:1"]
    assert all("1 thread(s)" in line for line in cluster_lines[1:3])
    assert "jobs: worker tasks 0-1" in out.stdout
    assert "an op with no device runs on /job:worker/task:0 (0)" in out.stdout


def test_doctor_reads_the_scheduler_from_the_environment_and_names_the_jobs():
    with tf.local_cluster(ps=1, workers=2, processes=False) as cluster:
        out = doctor(env={"DASK_SCHEDULER_ADDRESS": cluster.scheduler_address})
    assert out.returncode == 0, out.stderr
    tasks = [line.split()[:2] for line in out.stdout.splitlines() if line.startswith("  /job:")]
    assert tasks == [
        ["/job:ps/task:0", "ps-0"],
        ["/job:worker/task:0", "worker-0"],
        ["/job:worker/task:1", "worker-1"],
    ]
    assert "jobs: ps task 0; worker tasks 0-1" in out.stdout
    assert "a model on /job:worker (no task) runs one replica per worker task (2)" in out.stdout


def test_doctor_fails_clearly_on_a_dead_address():
    address = f"tcp://127.0.0.1:{open_port('127.0.0.1')}"  # nothing listens there
    out = doctor("--scheduler", address, "--timeout", "2")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [out.stderr.strip()], "one line of reason"
    assert out.stderr.startswith(f"Error: cannot reach the Dask scheduler at {address} within 2 s: ")
    assert "versions" in out.stdout  # what it found before the cluster


def test_doctor_names_a_worker_that_is_no_tf_task():
    workers = {"alpha": {"cls": Worker, "options": {"name": "alpha", "nthreads": 1}}}
    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": ":0"}}
    with SpecCluster(workers=workers, scheduler=scheduler) as cluster:
        out = doctor("--scheduler", cluster.scheduler_address)
    assert out.returncode == 1
    assert "is named 'alpha'" in out.stderr and "<job>-<task>" in out.stderr
