"""Where a variable's current value lives on the cluster.

A step's new variable values are held by one task per partition that
updates them (a tuple of them all), not one task per variable: every Dask
task costs CPU on the client, the scheduler and its worker, most of it as
the step starts (``benchmarks/RESULTS.md``, design measurements). A
variable is then an item of that tuple: a :class:`Held` with an index.
Values made on their own (restored from a checkpoint, a recovery
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
        normally sent their values instead, :mod:`..wire.pushes`)."""
        if self.index is None:
            return self.future
        return Task(None, operator.getitem, self.future, self.index)


def holders(client, held: dict) -> dict:
    """``{name: addresses of the workers holding its value}`` (empty: lost), in one request."""
    where = client.who_has([h.future for h in held.values()])
    return {name: tuple(where.get(h.future.key, ())) for name, h in held.items()}


def item_tasks(held: dict) -> dict:
    """``{name: Task}`` taking each item out of its tuple on the worker holding it, under a
    key of its own; values held on their own need none."""
    tag = uuid.uuid4().hex[:8]
    return {
        name: Task((ITEM_PREFIX + name, tag), operator.getitem, h.future, h.index)
        for name, h in held.items()
        if h.index is not None
    }


def with_tasks(graph: HighLevelGraph, tasks) -> HighLevelGraph:
    """``graph`` and a layer of ``tasks`` (Dask ``Task`` objects) that depend on no other layer."""
    if not tasks:
        return graph
    layer = f"daskflow-items-{uuid.uuid4().hex[:8]}"
    return HighLevelGraph(
        {**graph.layers, layer: MaterializedLayer({t.key: t for t in tasks})},
        {**graph.dependencies, layer: set()},
    )


def singles(client, held: dict) -> dict:
    """``{name: Future}`` of each value alone (for ``variable_futures``, and values whose
    tuple would otherwise stay alive for them), in one submission. A step's fetches
    submit :func:`item_tasks` with the step instead."""
    tasks = item_tasks(held)
    out = {name: h.future for name, h in held.items() if h.index is None}
    if tasks:
        graph = with_tasks(HighLevelGraph({}, {}), tasks.values())
        out.update(zip(tasks, client.get(graph, [t.key for t in tasks.values()], sync=False)))
    return {name: out[name] for name in held}
