"""A worker's cache of the variable values pushed to it (see :mod:`.pushes`).

Apart from :mod:`.pushes` so that the worker's state (:mod:`..worker.state`),
which owns one cache per worker, need not import the module that reaches it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

# Its warnings (a malformed push dropped) are the pushes' own: logged under that module's name.
logger = logging.getLogger("daskflow.runtime.wire.pushes")

# Versions kept of one variable, at most: a reader whose version was superseded
# meanwhile fetches it from its holder, so this bounds memory, not correctness.
MAX_KEEP = 256


class VariableCache:
    """The newest pushed values of the variables this worker's partitions read.

    Used only from the worker's event loop (the comm handler and coroutine
    tasks), so it needs no lock.
    """

    def __init__(self) -> None:
        self._values: dict[str, dict[int, Any]] = {}  # name -> {version: value}
        self._waiting: dict[tuple[str, int], list[asyncio.Future]] = {}

    def put(self, name: str, version: int, value: Any, keep: int) -> None:
        """Keep ``value`` as ``name``'s from step ``version``, among its newest ``keep``;
        a push with a malformed field is dropped (logged): no reader waits on it."""
        reason = entry_refusal([name, version, keep])
        if reason is not None:
            logger.warning("daskflow dropped a pushed value: %s", reason)
            return
        keep = min(keep, MAX_KEEP)
        versions = self._values.setdefault(name, {})
        versions[version] = value
        for old in sorted(versions)[:-keep]:  # as many as steps may be in flight
            del versions[old]
        for waiter in self._waiting.pop((name, version), ()):
            if not waiter.done():
                waiter.set_result(value)

    def ready(self, name: str, version: int) -> bool:
        return version in self._values.get(name, ())

    def superseded(self, name: str, version: int) -> bool:
        versions = self._values.get(name)
        return version < min(versions) if versions else False

    def forget(self, name: str) -> None:
        """Drop every value of ``name`` held here."""
        self._values.pop(name, None)

    def newest(self, name: str) -> Any:
        """The newest value of ``name`` there is."""
        versions = self._values[name]
        return versions[max(versions)]

    async def get(self, name: str, version: int, timeout: float | None = None) -> Any:
        """The value of ``name`` from step ``version``, once it has arrived."""
        versions = self._values.get(name, {})
        if version in versions:
            return versions[version]
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.setdefault((name, version), []).append(waiter)
        try:
            return await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(
                f"waited {timeout:g} s for the value of variable {name} from step {version}, which did "
                "not come (ConfigProto(operation_timeout_in_ms=...) sets this limit)"
            ) from None
        finally:
            waiting = self._waiting.get((name, version))
            if waiting is not None and waiter in waiting:
                waiting.remove(waiter)
                if not waiting:
                    del self._waiting[(name, version)]

    def clear(self, prefix: str) -> None:
        """Forget the variables whose names start with ``prefix`` (a closed session's)."""
        for name in [n for n in self._values if n.startswith(prefix)]:
            del self._values[name]


def entry_refusal(entry: Any, prefix: str = "") -> str | None:
    """Why ``[name, version, keep]`` is no push for this worker to take (None: it is one).

    ``prefix``: the session's (:func:`.pushes.cache_name`), which ``name`` must start with.
    """
    if type(entry) not in (list, tuple) or len(entry) != 3:
        return f"a push entry that is not [name, version, keep]: {_short(entry)}"
    name, version, keep = entry
    if type(name) is not str or not name.startswith(prefix):
        return f"a push of {_short(name)}, not a variable of session {prefix.rstrip('/') or '(any)'}"
    if type(version) is not int or not 0 <= version < 2**63:
        return f"a push of {_short(name)} whose version {_short(version)} is not a step number"
    if type(keep) is not int or keep < 1:
        return f"a push of {_short(name)} keeping {_short(keep)} versions (at least 1)"
    return None


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
