"""tf.local_cluster leaves this process's environment as it found it."""

import os

import pytest
from distributed import Client

import daskflow as tf

pytestmark = pytest.mark.process


def _blas_threads():
    return os.environ.get("OMP_NUM_THREADS")  # the worker's (os.environ.get itself would pickle ours)


def test_worker_processes_get_one_blas_thread_and_this_process_keeps_its_environment(monkeypatch):
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    with tf.local_cluster(ps=0, workers=1, dashboard_page=False) as cluster:
        assert "OMP_NUM_THREADS" not in os.environ  # Dask's Nanny had left "1" here
        assert "OPENBLAS_NUM_THREADS" not in os.environ
        with Client(cluster, set_as_default=False) as client:
            seen = client.run(_blas_threads)
        assert list(seen.values()) == ["1"]  # the worker process still has it


def _listening_addresses():
    import psutil

    process = psutil.Process()
    found = set()
    for p in [process, *process.children(recursive=True)]:
        found |= {c.laddr.ip for c in p.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN}
    return found


def test_every_port_and_dashboard_is_bound_where_the_cluster_is():
    before = _listening_addresses()
    with tf.local_cluster(ps=1, workers=1, processes=False, host="127.0.0.1") as cluster:
        opened = _listening_addresses() - before
        assert cluster.dashboard_link.startswith("http://127.0.0.1:")
    assert opened == {"127.0.0.1"}  # nothing on every interface (Dask's default for ":0")
