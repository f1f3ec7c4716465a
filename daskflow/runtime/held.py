"""Where a variable's current value lives on the cluster.

A step's new variable values are held by one task per partition that
updates them (a tuple of them all), not one task per variable: every Dask
task costs CPU on the client, the scheduler and its worker, most of it as
the step starts (measured with the benchmark's 7 variables: submission to
the replicas starting 12.5 -> 7.9 ms with one worker, 12.0 -> 10.6 ms with
two). A variable is then an item of that tuple: a :class:`Held` with an
index. Values made on their own (restored from a checkpoint, a recovery
copy, or an item taken out of a tuple) are a :class:`Held` without one.
"""

from __future__ import annotations

import operator
import uuid
from dataclasses import dataclass

from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import Task

# Not a variable key (lineage.is_variable_key): an item keeps its one link to the
# tuple it came from, so a lost item is waited for as a lost worker's value, and
# recovered, instead of being forgotten (and what reads it cancelled).
ITEM_PREFIX = "item-"


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


def holders(client, held: dict) -> dict:
    """``{name: addresses of the workers holding its value}`` (empty: lost), in one request."""
    where = client.who_has([h.future for h in held.values()])
    return {name: tuple(where.get(h.future.key, ())) for name, h in held.items()}


def singles(client, held: dict) -> dict:
    """``{name: Future}`` of each value alone (for fetches, ``variable_futures``, and values
    whose tuple would otherwise stay alive for them); items are taken out of their tuples
    on the workers holding them, in one submission."""
    out = {name: h.future for name, h in held.items() if h.index is None}
    items = {name: h for name, h in held.items() if h.index is not None}
    if not items:
        return out
    tag = uuid.uuid4().hex[:8]
    keys = {name: (ITEM_PREFIX + name, tag) for name in items}
    tasks = {keys[name]: Task(keys[name], operator.getitem, h.future, h.index) for name, h in items.items()}
    layer = f"daskflow-items-{tag}"
    graph = HighLevelGraph({layer: MaterializedLayer(tasks)}, {layer: set()})
    out.update(zip(items, client.get(graph, list(tasks), sync=False)))
    return {name: out[name] for name in held}
