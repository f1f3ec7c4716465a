"""New variable values pushed to the workers that read them.

A partition on ``worker-0`` reading a variable held on ``ps-0`` would
otherwise fetch it as a Dask dependency when the step starts: only after the
submission has reached the scheduler and the scheduler has told
``worker-0``, so the transfer (3 MB for an MLP's first layer) sits on every
step's critical path. Instead, the partition that updates a variable sends
the new value, as soon as it exists, to every other worker whose partitions
the plan says read it — without waiting for the delivery, which overlaps
the step's completion reaching the client and the next submission. The next
step's readers find it in their worker's cache (:func:`cache_of`), under
the step that produced it.

The session passes a :class:`Pushed` argument only for a value it knows was
pushed to that worker; any other value (restored from a checkpoint or a
copy, or made by a plan with no reader there) is read as a Dask dependency.
Such a read moves the whole task it is part of: all the new values its
partition made in that step (:mod:`.held`), once, until they are replaced.
A worker keeps the newest few versions of each variable it reads:
as many as steps may be in flight (at most ``MAX_KEEP``). A push whose
name, version or count is malformed is dropped with a warning, never
stored: one bad version would break the ordering of all of them.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from .. import dask_compat

logger = logging.getLogger(__name__)

HANDLER = "daskflow_push"
BUSY_RETRIES = 10  # a holder too busy to answer is asked again, for about 10 s in all
# Versions kept of one variable, at most: a reader whose version was superseded
# meanwhile fetches it from its holder, so this bounds memory, not correctness.
MAX_KEEP = 256


@dataclass(frozen=True)
class Pushed:
    """A task argument: variable ``name``'s value from step ``version``, pushed here.

    ``key``, ``index`` and ``home`` (the Dask key holding that value, its
    place in that key's tuple, and the address of the worker holding it)
    fetch it should it have been superseded here first.
    """

    name: str
    version: int
    key: tuple
    home: str
    index: int | None = None


class VariableCache:
    """The newest pushed values of the variables this worker's partitions read.

    Used only from the worker's event loop (the comm handler and coroutine
    tasks), so it needs no lock.
    """

    def __init__(self):
        self._values: dict = {}  # name -> {version: value}
        self._waiting: dict = {}  # (name, version) -> [asyncio.Future]

    def put(self, name, version, value, keep):
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

    def ready(self, name, version) -> bool:
        return version in self._values.get(name, ())

    def superseded(self, name, version) -> bool:
        versions = self._values.get(name)
        return bool(versions) and version < min(versions)

    async def get(self, name, version, timeout=None):
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

    def clear(self, prefix):
        """Forget the variables whose names start with ``prefix`` (a closed session's)."""
        for name in [n for n in self._values if n.startswith(prefix)]:
            del self._values[name]


def entry_refusal(entry, prefix="") -> str | None:
    """Why ``[name, version, keep]`` is no push for this worker to take (None: it is one).

    ``prefix``: the session's (:func:`cache_name`), which ``name`` must start with.
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


def _short(value, limit=120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cache_name(session, variable):
    """A variable's name in the caches: sessions sharing a cluster may share variable names."""
    return f"{session}/{variable}"


_CACHES: dict = {}  # worker address -> VariableCache (workers may share a process)


def cache_of(worker) -> VariableCache:
    return _CACHES.setdefault(worker.address, VariableCache())


def install(worker):
    """Give ``worker`` the receiving end of pushes (idempotent)."""
    cache = cache_of(worker)

    def receive(name=None, version=None, keep=2, value=None):
        cache.put(name, version, value, keep)

    dask_compat.serve_handler(worker, HANDLER, receive)


def ready(worker, arg) -> bool:
    return cache_of(worker).ready(arg.name, arg.version)


async def value_of(worker, arg, timeout):
    """The value a :class:`Pushed` argument names."""
    cache = cache_of(worker)
    if cache.superseded(arg.name, arg.version):
        return await _fetch(worker, arg)
    return await cache.get(arg.name, arg.version, timeout)


async def _fetch(worker, arg):
    """From the variable's home: a late reader whose version was superseded here.

    With Dask's own handshake (:func:`.dask_compat.fetch_from_worker`):
    a bare ``get_data`` call leaves the holder waiting for the reader's "OK",
    counted as an outgoing transfer for ever.
    """
    for attempt in range(BUSY_RETRIES):
        if attempt:
            await asyncio.sleep(0.01 * 2**attempt)  # the holder is sending to many: wait our turn
        response = await dask_compat.fetch_from_worker(worker, arg.key, arg.home)
        if response.get("status") != "busy":
            break
    else:
        raise RuntimeError(
            f"the worker {arg.home} holding the value of variable {arg.name} from step {arg.version} "
            f"stayed too busy to send it ({BUSY_RETRIES} tries)"
        )
    data = response.get("data", {})
    if arg.key not in data:
        raise RuntimeError(
            f"the value of variable {arg.name} from step {arg.version} is gone: newer steps replaced it "
            "before this partition read it"
        )
    return data[arg.key] if arg.index is None else data[arg.key][arg.index]
