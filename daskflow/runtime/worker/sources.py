"""Dataset sources already on the cluster (dask arrays): a replica reading its blocks.

The session shares each dask-array source's blocks out among the replicas
that read it (:mod:`..cluster.sources`), by key and the workers holding
them. On the worker, a replica reads its share once per pass: from its own
memory, or straight from the worker holding a block — never through the
client.
"""

from __future__ import annotations

from .. import dask_compat

_ABSENT = object()


def resolver(worker, bindings: dict, replica: int):
    """``source id -> this replica's blocks`` for :func:`daskflow.framework.replica.sources_context`."""

    def blocks(source_id):
        shares = bindings.get(source_id)
        if shares is None:
            raise RuntimeError(f"dataset source {source_id} was not placed on this cluster")
        return [tuple(_read(worker, key, holders) for key, holders in block) for block in shares[replica]]

    return blocks


def _read(worker, key, holders):
    """One block, from this worker's memory or from a worker holding it (called off the loop)."""
    value = dask_compat.local_value(worker, key, _ABSENT)
    if value is not _ABSENT:
        return value
    return dask_compat.run_on_loop(worker, _fetch, worker, key, holders)


async def _fetch(worker, key, holders):
    """One block from a worker holding it, with Dask's handshake (the holder gets its "OK");
    moved or recomputed since the plan was made, from where the scheduler says it is now."""
    data = await dask_compat.fetch_block(worker, key, holders)
    if data is None:
        raise RuntimeError(f"dataset block {key} is on no worker of the cluster")
    return data[key]
