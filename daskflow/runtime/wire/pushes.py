"""New variable values pushed to the workers that read them.

A partition on ``worker-0`` reading a variable held on ``ps-0`` would
otherwise fetch it as a Dask dependency when the step starts: only after the
submission has reached the scheduler and the scheduler has told
``worker-0``, so the transfer (3 MB for an MLP's first layer) sits on every
step's critical path. Instead, the partition that updates a variable sends
the new value, as soon as it exists, to every other worker whose partitions
the plan says read it — without waiting for the delivery, which overlaps
the step's completion reaching the client and the next submission. The next
step's readers find it in their worker's cache (the
:class:`.variable_cache.VariableCache` its state holds), under the step
that produced it.

The session passes a :class:`Pushed` argument only for a value it knows was
pushed to that worker; any other value (restored from a checkpoint or a
copy, or made by a plan with no reader there) is read as a Dask dependency.
Such a read moves the whole task it is part of: all the new values its
partition made in that step (:mod:`..cluster.held`), once, until they are replaced.
A worker keeps the newest few versions of each variable it reads: as
many as steps may be in flight (at most ``variable_cache.MAX_KEEP``). A
push whose name, version or count is malformed is dropped with a warning,
never stored: one bad version would break the ordering of all of them.
Pushes on Dask's comms carry their session's proof (:mod:`.trust`) and name
its variables, as on the bulk port; a value over ``daskflow.bulk-max-bytes``
is kept as a :class:`.trust.TooLarge`, which fails its reader.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from dask.sizeof import sizeof

from ...kernels import codecs
from .. import dask_compat
from . import bulk, trust
from .variable_cache import VariableCache, entry_refusal

if TYPE_CHECKING:
    from distributed import Worker

    from .endpoint import WorkerEnd
    from .log_limit import OncePerPeer

logger = logging.getLogger(__name__)

HANDLER = "daskflow_push"
BUSY_RETRIES = 10  # a holder too busy to answer is asked again, for about 10 s in all


class PushKey(NamedTuple):
    """What a push (a :class:`.rendezvous.Send` with ``keep``) is of: variable ``name``'s value
    (its name in the caches, :func:`cache_name`) made in ``plan``'s step ``step``."""

    plan: str
    step: int
    name: str


@dataclass(frozen=True)
class Pushed:
    """A task argument: variable ``name``'s value from step ``version``, pushed here.

    ``key``, ``index`` and ``home`` (the Dask key holding that value, its
    place in that key's tuple, and the address of the worker holding it)
    fetch it should it have been superseded here first. A round of a run of
    several steps (``key`` None) reads the newest value there is instead:
    a partition that far behind is a backup replica whose synchronous
    update went without it, or one whose rounds before the last have no
    consumer (the last round's version is never superseded).
    """

    name: str
    version: int
    key: tuple | None
    home: str | None
    index: int | None = None
    encoded: bool = False  # a float32 value pushed encoded (ConfigProto.variable_compression)


def cache_name(session: str, variable: str) -> str:
    """A variable's name in the caches: sessions sharing a cluster may share variable names."""
    return f"{session}/{variable}"


def install(worker: Worker, state: WorkerEnd, refused: OncePerPeer) -> None:
    """Give ``worker`` the receiving end of pushes on Dask's comms (idempotent), filing into
    ``state``, its :class:`.endpoint.WorkerEnd`; ``refused``: where refusals are logged
    (:class:`.log_limit.OncePerPeer`)."""

    def receive(
        comm: Any = None,
        name: Any = None,
        version: Any = None,
        keep: Any = 2,
        value: Any = None,
        session: Any = None,
        mac: Any = None,
    ) -> str | None:
        entry = [name, version, keep]
        reason = trust.call_refusal(state.trusted, HANDLER, entry, session, mac)
        if reason is None:
            reason = entry_refusal(entry, cache_name(session, ""))
        if reason is not None:
            host, who = trust.peer_of(comm)
            refused(host, reason, who)
            return reason
        nbytes, limit = sizeof(value), bulk.max_bytes()
        if nbytes > limit:
            value = trust.TooLarge(
                f"the value of variable {name} from step {version} pushed to worker {worker.address} is "
                f"{nbytes} bytes, over the {limit} bytes it takes in one value (daskflow.bulk-max-bytes)"
            )
            host, who = trust.peer_of(comm)
            refused(host, value.message, who)
        state.cache.put(name, version, value, keep)
        return None

    dask_compat.serve_handler(worker, HANDLER, receive)


async def value_of(worker: Worker, arg: Pushed, timeout: float | None, cache: VariableCache) -> Any:
    """The value a :class:`Pushed` argument names, from ``cache`` (``worker``'s)."""
    if not cache.superseded(arg.name, arg.version):
        value = await cache.get(arg.name, arg.version, timeout)
    elif arg.key is None:  # a round behind the run (a backup replica): its result will be dropped
        value = cache.newest(arg.name)
    else:
        return await _fetch(worker, arg)
    if arg.encoded and type(value) is np.ndarray and value.dtype != np.float32:
        return codecs.decode(value, value.shape, np.float32)
    return value


async def _fetch(worker: Worker, arg: Pushed) -> Any:
    """From the variable's home: a late reader whose version was superseded here.

    With Dask's own handshake (:func:`..dask_compat.fetch_from_worker`):
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
