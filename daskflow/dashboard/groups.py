"""The dashboard's Groups page (``/groups``) laid out so that it answers during training.

Distributed's ``TaskGroupGraph`` lays each task group out right of the groups it
depends on, in the order ``dask.order.order`` gives, but that function now reads
dependencies off the graph it is given (``{group: 1}``: none) and ignores its
``dependencies`` argument, so a group could come before one it depends on (e.g.
``worker_0 step`` before ``ps_0 values``, which it reads; plain Dask fails the same
way, names decide) and the page answered 500 (``KeyError``). It would also fail on a
link to a group since forgotten, which the runtime's cut lineage
(:mod:`daskflow.runtime.cluster.lineage`) can leave. :func:`group_layout` takes its
place (each group after the live groups it depends on) from the time a session opens
on the scheduler until the last one closes.

The runtime knows nothing of the page: a session's scheduler plugin emits
:class:`~daskflow.runtime.events.SchedulerSessionOpened` and
:class:`~daskflow.runtime.events.SchedulerSessionsClosed` and loads the modules
``daskflow.scheduler-subscribers`` names (this one), on every scheduler, whether or
not it preloads :mod:`daskflow.dashboard`.
"""

from __future__ import annotations

from ..runtime import dask_compat, events


def mend_groups_page(record=None):
    """Lay the dashboard's Groups page out with :func:`group_layout` (in this process)."""
    dask_compat.replace_group_layout(group_layout)


def unmend_groups_page(record=None):
    """Give the Groups page distributed's own layout back."""
    dask_compat.replace_group_layout(None)


def groups_in_order(dependencies):
    """Group names, each after the groups it depends on; a cycle is broken where it is met.

    Examples
    --------
    >>> groups_in_order({"worker_0 step": {"ps_0 values"}, "ps_0 values": set()})
    ['ps_0 values', 'worker_0 step']
    """
    order, placed, left = [], set(), list(dependencies)
    while left:
        ready = [g for g in left if dependencies[g] <= placed] or left[:1]
        order += ready
        placed.update(ready)
        left = [g for g in left if g not in placed]
    return order


@dask_compat.log_errors
def group_layout(graph):
    """``TaskGroupGraph.update_layout``: (x, y) of each task group, and its arrows.

    As distributed lays them out: a group right of the groups it depends on,
    a group with none in the first column, each in a free place.
    """
    dependencies = dask_compat.task_group_dependencies(graph.scheduler)
    xs, ys, taken, nodes, arrows = {}, {}, set(), {}, {}
    for name in groups_in_order(dependencies):
        deps = {dep for dep in dependencies[name] if dep in xs}  # less a cycle's closing link
        if deps:
            x, y = max(xs[d] for d in deps) + 1, max(ys[d] for d in deps)
            if len(deps) > 1 and len({ys[d] for d in deps}) == 1:
                y += 1  # off the row of the groups it joins
        else:
            x, y = 0, max(ys.values(), default=-1) + 1
        while (x, y) in taken:
            y += 1
        taken.add((x, y))
        xs[name], ys[name] = x, y
        nodes[name] = {"x": x, "y": y}
        arrows[name] = {"nstart": deps, "nend": [name] * len(deps)}
    return nodes, arrows


events.subscribe(events.SchedulerSessionOpened, mend_groups_page)
events.subscribe(events.SchedulerSessionsClosed, unmend_groups_page)
