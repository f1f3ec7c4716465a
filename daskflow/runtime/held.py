"""Where a variable's current value lives on the cluster.

A step's new variable values are held by one task per partition that
updates them (a tuple of them all), not one task per variable: every Dask
task costs CPU on the scheduler, the worker and the client, and most of it
lands as the step starts, when the replicas compute (measured: seven such
tasks more per step made a two-worker step 18% longer, one worker's not at
all). A variable is then an item of that tuple: a :class:`Held` with an
index. Values made on their own (restored from a checkpoint, or a recovery
copy) are a :class:`Held` without one.
"""

from __future__ import annotations

import operator
import uuid
from dataclasses import dataclass

from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import Task
from distributed.client import _wait

from .lineage import VAR_PREFIX


@dataclass(frozen=True)
class Held:
    """A variable's value: ``future``'s value, or item ``index`` of the tuple it holds."""

    future: object  # distributed.Future
    index: int | None = None

    @property
    def ident(self) -> tuple:
        """Names the value: its task's key and its place in that task's tuple."""
        return self.future.key, self.index

    def arg(self):
        """The value as a task argument: an item is taken out on the worker running the task
        (Dask moves the whole tuple there if it is elsewhere: readers on other workers are
        normally sent their values instead, :mod:`.pushes`)."""
        if self.index is None:
            return self.future
        return Task(None, operator.getitem, self.future, self.index)


def singles(client, held: dict, wait=False) -> dict:
    """``{name: Future}`` of each value alone, for the session's callers (fetches, checkpoints,
    ``variable_futures``); items are taken out of their tuples on the workers holding them,
    in one submission (``wait``: and are there when this returns)."""
    out = {name: h.future for name, h in held.items() if h.index is None}
    items = {name: h for name, h in held.items() if h.index is not None}
    if not items:
        return out
    tag = uuid.uuid4().hex[:8]
    keys = {name: (VAR_PREFIX + name, f"item-{tag}") for name in items}
    tasks = {keys[name]: Task(keys[name], operator.getitem, h.future, h.index) for name, h in items.items()}
    layer = f"daskflow-items-{tag}"
    graph = HighLevelGraph({layer: MaterializedLayer(tasks)}, {layer: set()})
    futures = client.get(graph, list(tasks), sync=False)
    if wait:
        client.sync(_wait, futures)
    out.update(zip(items, futures))
    return {name: out[name] for name in held}
