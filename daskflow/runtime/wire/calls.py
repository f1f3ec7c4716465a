"""Calling another worker's handler on Dask's comms, once more if a pooled connection was dead.

Dask keeps connections to other workers open in a pool and hands an idle one
to the next call. When the worker at the other end died and another took its
address (a ps script started again listens where it did), the pooled
connection fails on first use, and the pool drops it: a second call opens a
new one to the new worker.
"""

from __future__ import annotations

from typing import Any

from distributed.comm.core import CommClosedError


async def call(rpc: Any, address: str, handler: str, **kwargs: Any) -> Any:
    """``rpc(address).<handler>(**kwargs)``, again once on a closed pooled connection."""
    try:
        return await getattr(rpc(address), handler)(**kwargs)
    except CommClosedError:
        return await getattr(rpc(address), handler)(**kwargs)
