"""Cutting the lineage of variable values on the scheduler.

Each step's new variable value is computed from the previous one, so Dask
would keep a task record for every step while the newest value is held
(distributed#809, "Forget provenance"): after 5,000 steps, 5,000 records per
variable. A session's plugins (:mod:`.scope`) drop the dependency links of
its own variable values (:func:`cut`, :func:`cut_on_worker`) as soon as one
is in memory — the same state the scheduler reaches when a dependency is
forgotten — and forget the released records left behind, so the task count
stays flat. The value itself never moves. A lost value then cannot be
recomputed from its history; recovery works from copies and checkpoints.

The same plugins bound Dask's cache of ``key_split`` (an LRU cache of its
last 100,000 keys, in every worker and the scheduler): every step's keys are
new, so on a long run that cache is what grows (tens of MB a worker, the
keys and their prefixes). Past ``KEY_SPLIT_LIMIT`` keys it is emptied; it is
only a cache.

While a session is open, the scheduler also lays out the dashboard's Groups page (``/groups``,
distributed's ``TaskGroupGraph``), which answered 500 (``KeyError``) during
training: it lays each task group out right of the groups it depends on, in
the order ``dask.order.order`` gives, but that function now reads
dependencies off the graph it is given (``{group: 1}``: none) and ignores
its ``dependencies`` argument, so a group could come before one it depends
on (e.g. ``worker_0 step`` before ``ps_0 values``, which it reads; plain Dask
fails the same way, names decide). It would also fail on a link to a group
since forgotten, which this forgetting can leave. :func:`group_layout`
takes its place (each group after the live groups it depends on) until the
last session closes.
"""

from __future__ import annotations

import time

from .. import dask_compat

VAR_PREFIX = "var-"  # a variable's value on its own: ("var-<name>", step or tag)
VALUES_SUFFIX = " values"  # a partition's new variable values: ("<worker> values", step, instance)
KEY_SPLIT_LIMIT = 1_000


def bound_key_split_cache():
    dask_compat.bound_key_split_cache(KEY_SPLIT_LIMIT)


def values_key(role, n, instance) -> tuple:
    """The key of the task holding the new variable values partition instance ``instance``
    makes in step ``n`` on worker ``role`` (as task keys name it, :mod:`.step_tasks`).

    Examples
    --------
    >>> values_key("ps_0", 7, "ps-0-s1")
    ('ps_0 values', 7, 'ps-0-s1')
    """
    return (role + VALUES_SUFFIX, n, instance)


def is_variable_key(key) -> bool:
    """Keys of variable values: ``("var-<name>", step)`` and :func:`values_key`'s.

    Examples
    --------
    >>> is_variable_key(("ps_0 values", 7, "ps-0-s1")), is_variable_key(("ps_0 update", 7, "ps-0-s1"))
    (True, False)
    """
    if not isinstance(key, tuple) or len(key) not in (2, 3) or not isinstance(key[0], str):
        return False
    return key[0].startswith(VAR_PREFIX) if len(key) == 2 else key[0].endswith(VALUES_SUFFIX)


def cut(scheduler, key):
    """Unlink the scheduler's task ``key`` (in memory) from the tasks that made it."""
    orphans = dask_compat.unlink_from_dependencies(scheduler, key)
    if orphans:  # forgotten on the next loop tick: not from inside a transition
        stimulus = f"daskflow-cut-lineage-{time.time()}"
        dask_compat.call_soon(scheduler, dask_compat.forget_released, scheduler, orphans, stimulus)


def cut_on_worker(worker, key):
    """The same unlinking in a worker's task state."""
    dask_compat.unlink_on_worker(worker, key)


def mend_groups_page():
    """Lay the dashboard's Groups page out with :func:`group_layout` (in this process)."""
    dask_compat.replace_group_layout(group_layout)


def unmend_groups_page():
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
