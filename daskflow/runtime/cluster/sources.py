"""Dataset sources already on the cluster (dask arrays): placing them.

When a plan reads a dask-array dataset (:mod:`daskflow.data.cluster_source`),
the session persists its arrays once and gives each replica that reads it a
share of the blocks, by key: first the blocks its own worker holds, while
its share of rows is below an even split, then the rest to whoever has the
fewest rows. On the worker, a replica reads its blocks once per pass
(:mod:`..worker.sources`): from its own memory, or straight from the worker
holding them — never through the client.
"""

from __future__ import annotations

import itertools

from distributed import futures_of


def place(client, lowered):
    """Persist and share out every dask-array source the plan reads.

    Returns ``(bindings, futures)``: source id -> per replica, the list of
    its blocks, each a tuple (one per component) of ``(key, holders)``;
    and the persisted blocks' futures, which the session holds so the data
    stays on the cluster.
    """
    executable = lowered.executable
    bindings, held = {}, []
    for op in executable.plan.ops:
        part = executable.plan.partition_of.get(op)
        for value in op.attrs.values():
            for node in getattr(value, "cluster_sources", lambda: [])():
                if part is None or node.source_id in bindings:
                    continue
                readers = [lowered.placement[inst.name][0].address for inst in lowered.instances(part.key)]
                bindings[node.source_id], futures = _share(client, node.dask_arrays(), readers)
                held.extend(futures)
    return bindings, held


def _share(client, arrays, readers):
    persisted = client.persist(list(arrays))
    futures = [f for a in persisted for f in futures_of(a)]
    holders = client.who_has(futures)
    blocks = list(zip(*[_flat(a.__dask_keys__()) for a in persisted]))  # per block, a key per component
    rows = persisted[0].chunks[0]
    shares = [[] for _ in readers]
    load = [0] * len(readers)
    even = sum(rows) / len(readers)
    for i in sorted(range(len(blocks)), key=lambda i: -rows[i]):  # biggest first: a closer balance
        here = set(holders.get(blocks[i][0], ()))
        local = [r for r, address in enumerate(readers) if address in here and load[r] < even]
        r = min(local or range(len(readers)), key=lambda r: load[r])
        shares[r].append(i)
        load[r] += rows[i]
    bound = [
        [tuple((key, tuple(holders.get(key, ()))) for key in blocks[i]) for i in sorted(share)]
        for share in shares
    ]
    return bound, futures


def _flat(keys):
    """A dask array's block keys in order (its other dimensions are one block each)."""
    if isinstance(keys, list):
        return list(itertools.chain.from_iterable(_flat(k) for k in keys))
    return [keys]
