"""Keeping a cluster session going when a worker dies.

Dask pins a task restricted to a worker's *address*; when that worker dies
such a task waits forever (distributed#7346), and a variable value held only
there is lost (its lineage was cut on purpose, see :mod:`.lineage`). So the
session watches the workers of each step while it waits; when one has left:

1. it waits (bounded) for a worker of the same name to come back — a
   Nanny restarts a killed worker under its name — and otherwise lets a live
   worker stand in for it (placement resolves names to addresses per step);
2. every variable whose value was lost takes the copy the session keeps on
   a second worker (``ConfigProto(backup_variables_every=K)``: refreshed by
   every K-th step, as part of that step); the steps lost are those since
   that copy, at most K - 1 (0 for K = 1);
3. the interrupted step runs again.

A replica's worker that leaves is not waited for: the step runs with the
replicas there are (sync training aggregates no more than are present), and
a worker that joins the worker job later under a new name takes the lost
replica's place (the plan is made again for it; the replicas' input
pipelines then start their shards again).
This module knows no ops; it works on names, addresses and futures.
"""

from __future__ import annotations

import logging
import time

from ..errors import AbortedError
from .devices import job_of
from .held import Held, holders

logger = logging.getLogger("daskflow")

POLL = 0.5  # seconds between looks at the cluster while recovering


class WorkerLost(Exception):  # noqa: N818 - internal signal, never leaves the runtime
    """A worker that the running step uses has left the cluster."""

    def __init__(self, names):
        super().__init__(f"worker(s) {sorted(names)} left the cluster")
        self.names = set(names)


def backup_workers(names) -> dict:
    """For each worker name, another worker to hold copies of its variables."""
    names = sorted(names)
    if len(names) < 2:
        return {}
    # The next name round the ring: ps-0's copies on ps-1 (or a worker), spread evenly.
    return {name: names[(i + 1) % len(names)] for i, name in enumerate(names)}


def wait_for(runtime, missing, wait_for_same_name, give_up):
    """Wait for workers named ``missing`` to return; return names -> stand-in names.

    After ``wait_for_same_name`` seconds a missing worker gets a live stand-in;
    with no worker at all for ``give_up`` seconds, raise.
    """
    start = time.monotonic()
    while True:
        known = runtime.workers_now()
        back = {name for name in missing if name in known}
        if back == set(missing):
            return {}
        waited = time.monotonic() - start
        if known and waited >= wait_for_same_name:
            live = sorted(known)
            return {name: live[i % len(live)] for i, name in enumerate(sorted(set(missing) - back))}
        if waited >= give_up:
            raise RuntimeError(
                f"no worker to continue on: {sorted(missing)} left and none came back in {give_up:g} s"
            )
        time.sleep(POLL)


def restore_lost(runtime, steps_done):
    """Swap each lost variable value for its backup copy; return (steps lost, their names)."""
    client = runtime.client
    lost = [name for name, where in holders(client, runtime.variables).items() if not where]
    if not lost:
        return 0, []
    copies = {name: runtime.backups.get(name) for name in lost}
    backed = {name: c for name, c in copies.items() if c is not None}
    alive = client.who_has([future for future, _ in backed.values()]) if backed else {}
    gone = sorted(name for name in lost if name not in backed or not alive.get(backed[name][0].key))
    if gone:
        raise AbortedError(
            None,
            None,
            f"the values of {gone} were lost with their worker and have no copy on another worker; "
            "restore them from a checkpoint (ConfigProto(backup_variables_every=K) keeps copies)",
        )
    lost_steps = 0
    for name in lost:
        future, step = backed[name]
        runtime.variables[name] = Held(future)
        lost_steps = max(lost_steps, steps_done.get(name, step) - step)
    logger.warning("restored %d variable(s) from their copies; %d step(s) lost", len(lost), lost_steps)
    return lost_steps, lost


def must_return(lost, plans, homes, here) -> set:
    """The lost workers to wait for (or give a stand-in): all but those that only ran
    replicas, while other replicas go on — the steps skip them, and a worker joining
    later takes their place (:func:`with_replacements`)."""
    must = set(lost) & homes  # they held variables
    for plan in plans:
        fixed = plan.worker_names - plan.replica_names
        replicas_left = (plan.replica_names - set(lost)) & here
        must |= {n for n in lost if n in fixed or (n in plan.replica_names and not replicas_left)}
    return must


def is_newcomer(name, lowered) -> bool:
    """Whether worker ``name`` could run a replica and ``lowered`` does not use it."""
    return job_of(name) == "worker" and name not in lowered.worker_names


def with_replacements(workers, planned, count):
    """The workers to plan replicas on again: those planned that are here, and up to
    ``count`` newcomers to the worker job taking the places of those that left."""
    newcomers = [w for w in workers if w.job == "worker" and w.name not in planned][:count]
    return [w for w in workers if w.job != "worker" or w.name in planned] + newcomers
