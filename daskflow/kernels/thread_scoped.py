"""Per-thread settings a body runs under: what a step's kernels see of the runtime."""

from __future__ import annotations

import threading
from typing import Any

_UNSET = object()


class scoped:  # noqa: N801 - used as a function: ``with scoped(local, "name", value):``
    """Run the body with ``local.<name>`` set to ``value`` on this thread, as before after
    (unset again where it was: its readers' default applies). A class, not a generator:
    a worker enters several of these around every partition call."""

    __slots__ = ("local", "name", "value", "saved")

    def __init__(self, local: threading.local, name: str, value: Any):
        self.local, self.name, self.value = local, name, value

    def __enter__(self) -> None:
        self.saved = getattr(self.local, self.name, _UNSET)
        setattr(self.local, self.name, self.value)

    def __exit__(self, *exc) -> None:
        if self.saved is _UNSET:
            delattr(self.local, self.name)
        else:
            setattr(self.local, self.name, self.saved)
