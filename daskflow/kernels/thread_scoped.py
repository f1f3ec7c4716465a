"""Per-thread settings a body runs under: what a step's kernels see of the runtime."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

_UNSET = object()


@contextlib.contextmanager
def scoped(local: threading.local, name: str, value: Any) -> Iterator[None]:
    """Run the body with ``local.<name>`` set to ``value`` on this thread, as before after
    (unset again where it was: its readers' default applies)."""
    saved = getattr(local, name, _UNSET)
    setattr(local, name, value)
    try:
        yield
    finally:
        if saved is _UNSET:
            delattr(local, name)
        else:
            setattr(local, name, saved)
