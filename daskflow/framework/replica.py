"""Replicas: which copy of a replicated graph is running, and values from several.

On a cluster, a graph whose compute is placed on ``/job:worker`` (no task)
runs as one replica per worker task. Two things of that reach ops, and only
through this module, so ops stay free of the runtime:

* :func:`current_replica` — ``(index, count)`` of the replica now running
  (``(0, 1)`` when not replicated); a dataset iterator reads its shard by it.
* :class:`PerReplica` — the values several replicas produced for one tensor,
  which only an op declared with ``aggregates_replicas`` may consume.

And for data already on the cluster (dask-array datasets):
:func:`current_source` gives the blocks the runtime placed for this replica.
"""

from __future__ import annotations

import threading

from ..kernels.thread_scoped import scoped

_local = threading.local()


def current_replica() -> tuple[int, int]:
    """``(index, count)`` of the replica this thread is running."""
    return getattr(_local, "replica", (0, 1))


def replica_context(index: int, count: int):
    """Run the body as replica ``index`` of ``count``."""
    return scoped(_local, "replica", (index, count))


class PerReplica:
    """One tensor's values from the replicas whose results are used, in arrival order.

    ``own[i]`` is true where value ``i`` is this worker's own copy (read into
    a new array as it arrived), which an aggregating kernel told its input is
    dead may overwrite; any other value may be held elsewhere too.
    """

    __slots__ = ("values", "own")

    def __init__(self, values, own=None):
        self.values = list(values)
        self.own = [False] * len(self.values) if own is None else list(own)

    def __repr__(self):
        return f"PerReplica({len(self.values)} values)"


def current_source(source_id):
    """The blocks of a cluster-resident dataset source for the running replica; None embedded."""
    resolve = getattr(_local, "sources", None)
    return None if resolve is None else resolve(source_id)


def sources_context(resolve):
    """Run the body with ``resolve(source_id) -> blocks`` answering :func:`current_source`."""
    return scoped(_local, "sources", resolve)
