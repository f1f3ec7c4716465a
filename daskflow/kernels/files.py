"""Where a step's relative file paths lead: the working directory of its session's process.

A TF1 program names files relative to where it runs (``saver.save(sess, "./model/m.ckpt")``,
``string_input_producer(["data.csv"])``). On a cluster its reading and writing ops run in
worker processes, whose own working directory is wherever ``dask worker`` started; the
runtime sets the session's (:func:`working_directory`) around each partition call, and the
kernels that open files ask :func:`local_path`. Elsewhere (embedded, or the client's own
threads) nothing is set and paths stay as they are.
"""

from __future__ import annotations

import os
import threading

from .thread_scoped import scoped

_local = threading.local()


def working_directory(directory: str | None):
    """Run the body with relative paths read against ``directory`` (None: this process's)."""
    return scoped(_local, "directory", directory)


def directory() -> str | None:
    """The working directory set for this thread, or None (the process's own applies)."""
    return getattr(_local, "directory", None)


def local_path(path):
    """``path`` (str or os.PathLike) read against this thread's working directory: a
    relative local path joined to it; an absolute path, a URL, or no directory set: as is."""
    base = getattr(_local, "directory", None)
    if base is None:
        return path
    text = os.fsdecode(path)
    if "://" in text or os.path.isabs(text):
        return path
    return os.path.join(base, text)
