"""BLAS threads per session: TF1's ``intra_op_parallelism_threads``.

numpy's kernels get their parallelism from its BLAS library (OpenBLAS, MKL),
whose thread pool is process-wide. A session given
``ConfigProto(intra_op_parallelism_threads=n)`` sets that pool to ``n``
threads through threadpoolctl, in the embedded session's process or on every
worker of a cluster session, and puts the old size back when it closes. 0
(TF1's default) leaves the pool as it is: every core embedded, one thread in
a Dask worker process (the Nanny starts workers with ``OMP_NUM_THREADS=1``, so
that a worker per core does not oversubscribe the machine).
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits


class BlasThreads:
    """numpy's BLAS held at ``threads`` threads until :meth:`restore`."""

    def __init__(self, threads: int):
        self.threads = threads
        self._limits = threadpool_limits(limits=threads, user_api="blas")

    def restore(self):
        """Give the BLAS pool back the size it had before."""
        self._limits.restore_original_limits()


def blas_threads(threads: int) -> BlasThreads | None:
    """Hold numpy's BLAS at ``threads`` threads; None (nothing changed) for 0."""
    return BlasThreads(threads) if threads else None
