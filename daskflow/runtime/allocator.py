"""How this process's C allocator treats the tensor buffers of each step.

A training step allocates and frees the same large sizes every time: each
weight's gradient, Adam's new variable and moments, activations. Left to
itself, glibc serves a buffer over its ``mmap`` threshold with a fresh
``mmap``, zero-filled page by page on first touch, and gives freed heap
beyond its trim threshold back to the OS, to fault it in again next step.
Dask's Nanny makes that the rule on workers: it starts them with
``MALLOC_TRIM_THRESHOLD_=65536``, which also turns off glibc's adaptive
``mmap`` threshold. On the ps of an MLP that page-faulting costs several
times the arithmetic, and embedded, mnist_deep's Adam step on its dense
kernel (three 12.8 MB outputs) took twice its arithmetic
(``benchmarks/RESULTS.md``). So a process running daskflow steps, worker or
embedded session, keeps buffers up to ``MMAP_THRESHOLD`` in its heap and
returns free heap beyond ``TRIM_THRESHOLD``: glibc's own adaptive limits,
bounding what it holds back.
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
