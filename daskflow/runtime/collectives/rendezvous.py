"""How a job's ranks find each other: through the Dask scheduler, addresses only.

Each rank publishes its bulk address under ``("daskflow-collectives", job,
rank)`` in the scheduler's metadata (``Client.set_metadata``) and waits for
the others'. Values never pass through the scheduler. The job's secret comes
from the launcher (``DASKFLOW_HOROVOD_SECRET``); ranks started without one
take rank 0's, which it publishes there (the scheduler's own trust: whoever
may talk to it may run code on its workers).
"""

from __future__ import annotations

import secrets
import time

from ..wire.trust import Credentials
from .ring import CollectiveError, Communicator
from .transport import Transport

PREFIX = "daskflow-collectives"
POLL = 0.05  # seconds between looks at the scheduler's metadata while ranks are missing


def join_ring(client, rank: int, size: int, job: str, host: str, secret: bytes | None = None, timeout=120.0):
    """This process's :class:`Communicator` as ``rank`` of ``size`` in ``job``, once every
    rank has published its address (``client``: a ``distributed.Client`` of the scheduler).

    Raises
    ------
    CollectiveError
        A rank did not publish within ``timeout`` seconds.
    """
    if secret is None:
        secret = _shared_secret(client, rank, job, timeout)
    transport = Transport(host, Credentials(f"{PREFIX}-{job}", secret))
    try:
        client.set_metadata([PREFIX, job, str(rank)], list(transport.where))
        for other in range(size):
            if other != rank:
                transport.peers[other] = tuple(_wait_for(client, [PREFIX, job, str(other)], timeout, job))
    except BaseException:
        transport.close()
        raise
    return Communicator(rank, size, transport)


def leave_ring(client, rank: int, job: str) -> None:
    """Take ``rank``'s address (and rank 0, the job's secret) off the scheduler."""
    for key in ([PREFIX, job, str(rank)], [PREFIX, job, "secret"] if rank == 0 else None):
        if key is not None:
            try:
                client.set_metadata(key, None)
            except Exception:  # noqa: BLE001 - the scheduler may be gone first: nothing left to undo
                pass


def _shared_secret(client, rank: int, job: str, timeout: float) -> bytes:
    key = [PREFIX, job, "secret"]
    if rank == 0:
        secret = secrets.token_bytes(32)
        client.set_metadata(key, secret.hex())
        return secret
    return bytes.fromhex(_wait_for(client, key, timeout, job))


def _wait_for(client, key, timeout, job):
    deadline = time.monotonic() + timeout
    while True:
        value = client.get_metadata(key, None)
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise CollectiveError(
                f"job {job!r}: {key[-1]} was not published on the scheduler within {timeout:g} s "
                "(is every rank started, with the same job and scheduler?)"
            )
        time.sleep(POLL)
