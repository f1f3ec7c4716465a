"""Whether a step's values fit the workers they are sent to.

A value larger than a worker can hold does not fail where it lands: the
worker's memory grows past its limit and its Nanny restarts it, the session
recovers and sends it again, and so on. So the fed values a step sends
straight to a worker are weighed against that worker's room first, and a
step that does not fit fails as TF1's does when an allocation fails
(``ResourceExhaustedError``), before anything is sent and with no variable
changed. The room is Dask's: the worker pauses at
``distributed.worker.memory.pause`` of its memory limit, less the memory
its process used at its last heartbeat. This module knows no ops.
"""

from __future__ import annotations

import dask

from ...errors import AbortedError, ResourceExhaustedError


def rooms(identity: dict) -> dict:
    """Worker address -> (memory limit, bytes in use) from the scheduler's identity, for the
    workers that have a limit."""
    out = {}
    for address, info in identity.get("workers", {}).items():
        limit = info.get("memory_limit") or 0
        if limit:
            out[address] = (int(limit), int(info.get("metrics", {}).get("memory") or 0))
    return out


def _fraction() -> float:
    """The part of its limit a worker fills before it pauses (Dask's configuration)."""
    for key in ("distributed.worker.memory.pause", "distributed.worker.memory.terminate"):
        value = dask.config.get(key, False)
        if value:
            return float(value)
    return 1.0


def check_posts(posts, room: dict, addresses: dict, feeds) -> None:
    """Raise ResourceExhaustedError if the values of ``posts`` (:class:`.step_tasks.Post`) sent to a
    worker exceed its room (``room``: :func:`rooms`); ``addresses``: worker name -> address,
    ``feeds``: the executable's fed tensors, which the posts' mailbox keys index."""
    sent: dict = {}
    for p in posts:
        sent.setdefault(p.address, []).append(p)
    for address, group in sent.items():
        if address not in room:
            continue
        limit, in_use = room[address]
        free = int(limit * _fraction()) - in_use
        total = sum(getattr(p.value, "nbytes", 0) for p in group)
        if total > free:
            largest = max(group, key=lambda p: getattr(p.value, "nbytes", 0))
            worker = next((name for name, a in addresses.items() if a == address), address)
            raise _too_big(largest, total, free, limit, worker, feeds)


def _too_big(post, total, free, limit, worker, feeds):
    tensor = feeds[int(post.box.producer.removeprefix("feed-"))]  # a fed value's MailKey: from "feed-<i>"
    value = post.value
    shape = list(getattr(value, "shape", ()))
    return ResourceExhaustedError(
        None,
        tensor.op,
        f"OOM when feeding {tensor.name}: a value of shape {shape} and type "
        f"{getattr(value, 'dtype', '?')} ({value.nbytes:,} bytes; {total:,} fed to it in all) does "
        f"not fit on worker {worker!r}: {free:,} bytes free of its memory limit of {limit:,} "
        f"(Dask pauses it at {_fraction():.0%}); feed smaller batches or give the worker more "
        "memory (dask worker --memory-limit). No variable changed.",
    )


def lost_too_often(names, times, room: dict, here) -> Exception:
    """The error ending a step whose workers left ``times`` times while it ran (``names``:
    the last ones lost; ``room``: :func:`rooms` as last seen, ``here``: addresses now):
    ResourceExhaustedError if a worker gone was near its memory limit at its last
    heartbeat (its Nanny restarts a worker past it), else AbortedError."""
    full = [
        (address, in_use / limit)
        for address, (limit, in_use) in room.items()
        if address not in here and in_use >= limit * _fraction()
    ]
    what = f"worker(s) {sorted(names)} left the cluster {times} times while this step ran"
    if full:
        address, share = max(full, key=lambda f: f[1])
        return ResourceExhaustedError(
            None,
            None,
            f"{what}; the worker at {address} was at {share:.0%} of its memory limit at its last "
            "heartbeat (a Nanny restarts a worker past it): the step needs more memory than the "
            "worker has. Variables are as after the last step that finished.",
        )
    return AbortedError(
        None,
        None,
        f"{what} (its Nanny restarts a worker past its memory limit: if a worker's log says "
        "'exceeded 95% memory budget', the step needs more memory than it has); variables are "
        "as after the last step that finished",
    )
