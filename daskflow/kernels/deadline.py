"""A step's deadline (TF1's ``RunOptions(timeout_in_ms)`` and
``ConfigProto(operation_timeout_in_ms)``), as the kernels that could run forever see it.

The session sets it around one step's execution (:func:`within`); a loop kernel calls
:func:`check` once per iteration, so a loop that never ends fails the step with TF1's
``DeadlineExceededError`` instead of holding ``run`` forever. With no deadline the check is
one attribute read.
"""

from __future__ import annotations

import threading
import time

from ..errors import DeadlineExceededError
from .thread_scoped import scoped

_local = threading.local()
TIMED_OUT = "Timed out waiting for notification"  # TF1's message past a run's deadline


def within(milliseconds):
    """Run the body under a deadline ``milliseconds`` from now (None or 0: none)."""
    return until(time.monotonic() + milliseconds / 1000 if milliseconds else None)


def until(at):
    """Run the body under a deadline at ``time.monotonic() == at`` (None: none)."""
    return scoped(_local, "at", at)


def bounded(fn, milliseconds):
    """``fn`` called under a deadline ``milliseconds`` from now, whichever thread calls it:
    a cluster step's partition gets the step's deadline as it starts on its worker."""
    at = time.monotonic() + milliseconds / 1000

    def call(*args, **kwargs):
        with until(at):
            return fn(*args, **kwargs)

    return call


def check():
    """Raise TF1's ``DeadlineExceededError`` if this thread's step is past its deadline."""
    at = getattr(_local, "at", None)
    if at is not None and time.monotonic() > at:
        raise DeadlineExceededError(None, None, TIMED_OUT)
