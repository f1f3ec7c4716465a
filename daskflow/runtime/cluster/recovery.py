"""Keeping a cluster session going when a worker dies.

Dask pins a task restricted to a worker's *address*; when that worker dies
such a task waits forever (distributed#7346), and a variable value held only
there is lost (its lineage was cut on purpose, see :mod:`.lineage`). So the
session watches the workers of each step while it waits; when one has left:

1. it waits (bounded) for a worker of the same name to come back — a
   Nanny restarts a killed worker under its name — and otherwise lets a live
   worker stand in for it (placement resolves names to addresses per step);
2. every variable whose value was lost takes the copy the session keeps on
   a second worker; the steps lost are those since that copy;
3. the interrupted step runs again.

The copies are in memory, made by *backup steps* (:class:`BackupSchedule`):
such a step also sends each new variable value it makes to a second worker,
as part of the step (``variable backup`` tasks, :mod:`.step_tasks`). By default a step is
a backup step when it updates a variable that has no copy (the initializer;
the first update after a restore or after the worker holding its copy left),
when it is the 1st, 2nd, 4th, 8th, ... step that updates variables, or when the
session has spent ``ConfigProto(backup_variables_secs=30)`` seconds running steps
since the last one (time between steps loses no work, so it does not count);
``backup_variables_every=K`` adds every K-th step. So a ps lost after ``n`` such
steps loses fewer than ``n / 2`` of them (the doubling) and no more than ran in
the last window of step time. A variable that other steps updated since its
copy (a one-off ``assign``) is copied after a backup step, from where it is (with
``async_dispatch``, once no later step is in flight), so a loss goes back at
most about one window. ``ConfigProto(backup_variables=False)`` keeps none.

Copies follow the cluster: after any loss, the copies that left with their
worker are forgotten and every variable without one is copied again, to the
next live worker, by the next step (or just after it), so two workers lost one
after the other never leave a value without a copy.

A replica's worker that leaves is not waited for: the step runs with the
replicas there are (sync training aggregates no more than are present), and
a worker that joins the worker job later under a new name takes the lost
replica's place (the plan is made again for it; the replicas' input
pipelines then start their shards again).
This module knows no ops; it works on names, addresses and futures.
"""

from __future__ import annotations

import logging
import operator
import time

from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import Task, TaskRef

from ...errors import AbortedError
from .devices import job_of
from .variables import Copy

logger = logging.getLogger("daskflow")

POLL = 0.5  # seconds between looks at the cluster while recovering
# Keys of the copies recovery falls back on: ("variable backup--<variable>", step). Dask's
# key_split, which names tasks on the dashboard, stops at the empty word: "variable backup".
BACKUP_PREFIX = "variable backup--"


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


class BackupSchedule:
    """Which steps also copy their new variable values to a second worker.

    A step is a backup step when it is a multiple of ``backup_variables_every``,
    when the steps since the last backup step ran for ``backup_variables_secs``, or
    when it updates a variable that has no copy yet. ``flushing`` holds the
    copies of variables left stale (updated by other steps since their copy)
    until they are in memory.
    """

    def __init__(self, config):
        options = config.recovery
        on = options.backup_variables
        self.on = bool(on and (options.backup_variables_every or options.backup_variables_secs))
        self.every = options.backup_variables_every if on else 0
        self.secs = options.backup_variables_secs if on else 0.0
        # Seconds spent running steps since the last backup step: time between steps loses no
        # work, and a session that waits between bursts would otherwise copy in every burst.
        self.busy = 0.0
        self._ended = float("-inf")  # time.perf_counter() when the last finished step ended
        self.taken = 0  # backup steps so far
        self.updating = 0  # steps so far that updated variables (the early copies double)
        self.flush_owed = False  # a backup step ran: copy the stale variables after it
        # variable name -> (Future of its copy, step of the value copied, the value's Held.ident)
        self.flushing: dict = {}

    def due(self, n, updated, copies) -> bool:
        """Whether step ``n``, updating the variables ``updated``, is a backup step
        (``copies``: the variables' current copies)."""
        if not self.on:
            return False
        due = self.would_be_due(n, updated, copies)
        self.updating += bool(updated)
        if due:
            self.busy, self.flush_owed = 0.0, True
            self.taken += 1
        return due

    def would_be_due(self, n, updated, copies) -> bool:
        """What :meth:`due` would answer now, counting nothing (a staged step asks at its start)."""
        if not self.on:
            return False
        # The 1st, 2nd, 4th, ... updating step: the work lost stays under half of that done
        # while the window has not yet passed (a ps lost early would go back to the start).
        updating = self.updating + 1
        doubling = bool(updated) and updating & (updating - 1) == 0
        return bool(
            (self.every and n % self.every == 0)
            or (self.secs and (self.busy >= self.secs or doubling))
            or (self.secs and any(name not in copies for name in updated))
        )

    def ran(self, start, end) -> None:
        """Count a finished step, from ``start`` to ``end`` (``time.perf_counter()``), towards
        the window; steps finish in order, and a step's overlap with the one before counts once."""
        self.busy += max(0.0, end - max(start, self._ended))
        self._ended = end

    def flush(self, client, table, targets, addresses, n, exclude=()):
        """Copy the stale variables of ``table`` (a :class:`.variables.VariableTable`; see the class)
        but ``exclude`` to their ``targets`` (worker name -> backup worker's name), in one
        submission the steps do not wait for; :meth:`promote` takes the copies once made.
        ``n``: the step after which they are copied."""
        self.flush_owed = False
        if not targets:
            return
        layers, made = {}, {}
        for name in table.stale():
            if name in exclude or name in self.flushing:
                continue
            home = table.homes.get(name)
            target = targets.get(home)
            if target not in addresses or home not in addresses:
                continue  # no home known (restored from a copy: its next update copies it)
            key = (BACKUP_PREFIX + name, n)
            held = table.values[name]
            # Taken out at home under a key of its own, which is what crosses: a dependency on
            # the variable's own key would leave its whole tuple replicated on the target.
            out = (BACKUP_PREFIX + "out-" + name, n)
            take = Task(out, _same, held.future)
            if held.index is not None:
                take = Task(out, operator.getitem, held.future, held.index)
            layers.setdefault(home, {})[out] = take
            layers.setdefault(target, {})[key] = Task(key, _same, TaskRef(out))
            made[name] = (key, table.versions.get(name, n), held.ident)
        if not made:
            return
        names = {where: f"backup-flush-{n}-{where}" for where in layers}
        graph = HighLevelGraph(
            {
                names[where]: MaterializedLayer(
                    tasks, annotations={"workers": [addresses[where]], "allow_other_workers": False}
                )
                for where, tasks in layers.items()
            },
            {names[where]: set() for where in layers},  # task references say the order
        )
        keys = [key for key, _, _ in made.values()]
        futures = dict(zip(keys, client.get(graph, keys, sync=False)))
        self.flushing.update((name, (futures[key], *rest)) for name, (key, *rest) in made.items())

    def promote(self, table):
        """Flushed copies now in memory become the copies recovery falls back on, if their
        variable still has the value copied (a restored checkpoint replaces it)."""
        for name, (future, step, ident) in list(self.flushing.items()):
            if future.status == "pending":
                continue
            del self.flushing[name]
            if future.status == "finished":
                table.offer_copy(name, Copy(future, step), ident)


def _same(value):
    return value


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


def forget_lost_copies(client, table, schedule, names_of) -> dict:
    """Forget the copies of ``table`` that left with their worker (they are made again: see
    the module); return variable name -> the worker name holding each copy that is left.

    ``names_of``: worker address -> name. Copies still on their way are dropped too: one
    bound for a worker that left would wait forever, and keep its variable from a new one.
    """
    schedule.flushing.clear()
    copies = table.copies
    where = client.who_has([c.future for c in copies.values()]) if copies else {}
    held = {}
    for name, copy in list(copies.items()):
        holding = [names_of[a] for a in where.get(copy.future.key, ()) if a in names_of]
        if holding:
            held[name] = holding[0]
        else:
            del copies[name]
    schedule.flush_owed = True  # the stale ones (no copy now) are copied after the next step
    return held


def restore_lost(client, table, schedule, names_of):
    """Swap each lost variable value of ``table`` for its copy; return (steps lost, their names).

    ``names_of``: worker address -> name. Copies lost with their worker are forgotten
    first (:func:`forget_lost_copies`). Raises AbortedError, changing nothing but
    that, when a lost value has no copy left.
    """
    held = forget_lost_copies(client, table, schedule, names_of)
    lost = table.lost(client)
    if not lost:
        return 0, []
    gone = sorted(name for name in lost if name not in held)
    if gone:
        why = (
            "copies are off (ConfigProto(backup_variables=False))"
            if not schedule.on
            else "their copies were lost too, or never made (a cluster of one worker)"
        )
        raise AbortedError(
            None,
            None,
            f"the values of {gone} were lost with their worker and have no copy on another worker: "
            f"{why}; restore them from a checkpoint",
        )
    lost_steps = table.fall_back(lost, held)
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
