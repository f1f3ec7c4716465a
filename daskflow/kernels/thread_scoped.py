"""Per-thread settings a body runs under: what a step's kernels see of the runtime."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def scoped(local: threading.local, name: str, value: Any) -> Iterator[None]:
    """Run the body with ``local.<name>`` set to ``value`` on this thread, as before after."""
    saved = getattr(local, name, None)
    setattr(local, name, value)
    try:
        yield
    finally:
        setattr(local, name, saved)
