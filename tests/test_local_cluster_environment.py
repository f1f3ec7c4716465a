"""tf.local_cluster leaves this process's environment as it found it."""

import os

from distributed import Client

import daskflow as tf


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
