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

The dashboard's Groups page, which this forgetting (and Dask itself) could break,
is laid out by :mod:`daskflow.dashboard.groups` while a session is open.
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
