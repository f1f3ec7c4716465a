"""How a worker's C allocator treats the tensor buffers of each step.

Dask's Nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` so that
freed memory goes back to the OS at once. Setting it also turns off glibc's
adaptive ``mmap`` threshold, so every buffer over 128 KiB — each weight,
gradient and activation of a step — is a fresh ``mmap``, zero-filled page by
page on first touch, and unmapped when freed. A training step allocates the
same sizes every time; on the ps of an MLP that page-faulting costs several
times the arithmetic (``benchmarks/RESULTS.md``, design measurements). So a
worker running daskflow steps keeps buffers up to ``MMAP_THRESHOLD`` in its
heap and returns free heap beyond ``TRIM_THRESHOLD`` — glibc's own adaptive
limits — bounding what it holds back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what the adaptive scheme sets beside it


def keep_step_buffers() -> bool:
    """Let this process reuse freed tensor buffers; False where libc is not glibc."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False  # not glibc (macOS, Windows, musl without mallopt): nothing to tune
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    if not ok:
        logger.debug("daskflow could not set the allocator's thresholds")
    return ok
