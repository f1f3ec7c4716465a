"""A kernel's wait for another run's work (a queue full or empty), as the runtime sees it.

A queue op blocks until another run enqueues or dequeues, as in TF1. On a Dask
worker the partition calling it holds one of the worker's threads, and the run
that would unblock it may need that very thread: a one-thread worker holding a
full queue would wait for ever. So the runtime says, around a partition's call
(:func:`letting`), what a kernel does before it blocks (:func:`waiting`): a
worker's task gives its thread up to the other tasks. Elsewhere (an embedded
session, whose runs are threads of their own) nothing is done.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from .thread_scoped import scoped

_local = threading.local()


def letting(before_blocking: Callable[[], None]) -> contextlib.AbstractContextManager:
    """Run the body with ``before_blocking`` called (once) should a kernel of it block."""
    return scoped(_local, "before", before_blocking)


def waiting() -> None:
    """Say, from a kernel, that this thread is about to block on another run's work."""
    before = getattr(_local, "before", None)
    if before is not None:
        _local.before = None  # once: the thread has given its place up
        before()
