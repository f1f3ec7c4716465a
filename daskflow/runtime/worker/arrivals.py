"""On the worker: consuming the results of every replica of a partition.

An instance that reads a replicated partition gets a :class:`FromReplicas`
argument: one mailbox key per replica. It consumes them in one of two ways,
chosen when the plan is lowered:

* ``("first", n)`` — synchronous training: wait for the first ``n`` replicas
  to finish, hand the program each of their values as one
  :class:`PerReplica` (which only an aggregating op accepts), run it once,
  and drop the rest (backup workers: a straggler's results are discarded).
* ``("each", chain, max_staleness)`` — asynchronous training: run the
  program once per replica, in the order they finish, each call starting
  from the variable values the previous call produced (``chain`` maps
  updated results back to variable arguments). A replica's *staleness* is
  the number of updates applied since the values it read; one beyond
  ``max_staleness`` is dropped.

Each step's outcome is logged in the worker's state (see :func:`step_log`);
the values come from the worker's mailbox, which the caller passes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from distributed.protocol import to_serialize

from ...framework.replica import PerReplica
from ...kernels.devices import memory_in_use
from .. import dask_compat
from ..wire.rendezvous import FromReplicas, Received, unless_failed
from .state import find_state


@dataclass(frozen=True)
class FirstReplicas:
    """Aggregate the first ``needed`` replicas' values to arrive (sync, backup workers)."""

    needed: int


@dataclass(frozen=True)
class EachReplica:
    """Apply each replica's value as it arrives (async), dropping those staler than
    ``max_staleness`` steps of the update ``chain``."""

    chain: object
    max_staleness: int | None


class _ReplicaTuple:
    """A producer's results from several replicas: item ``i`` is a PerReplica."""

    __slots__ = ("tuples", "own")

    def __init__(self, tuples):
        self.tuples = tuples
        self.own = [type(t) is Received for t in tuples]  # read off a bulk connection

    def __getitem__(self, i):
        return PerReplica([t[i] for t in self.tuples], self.own)


def _positions(args):
    return [i for i, a in enumerate(args) if type(a) is FromReplicas]


async def _arrive(mailbox, replica, args, positions, timeout):
    values = [unless_failed(await mailbox.take(args[p].keys[replica], timeout)) for p in positions]
    return replica, values


async def in_arrival_order(mailbox, args, timeout):
    """Yield ``(replica, its values for the FromReplicas arguments)`` as replicas finish,
    taking them from ``mailbox`` (the worker's).

    Closing the generator early discards what the remaining replicas send.
    """
    positions = _positions(args)
    count = len(args[positions[0]].keys)
    waits = [asyncio.ensure_future(_arrive(mailbox, r, args, positions, timeout)) for r in range(count)]
    done = set()
    try:
        for next_done in asyncio.as_completed(waits):
            replica, values = await next_done
            done.add(replica)
            yield replica, values
    finally:
        for r, wait in enumerate(waits):
            if r in done:
                continue
            if wait.done():  # its values were taken (a finished wait not yet yielded)
                if not wait.cancelled():
                    wait.exception()  # another replica's failure (or dropped step) is the one raised
                continue
            wait.cancel()
            for p in positions:
                mailbox.discard(args[p].keys[r])


async def first(mailbox, args, needed, timeout, record):
    """``args`` with each FromReplicas replaced by the first ``needed`` replicas' values."""
    positions = _positions(args)
    arrived = []
    gen = in_arrival_order(mailbox, args, timeout)
    async for replica, values in gen:
        arrived.append((replica, values))
        if len(arrived) == needed:
            break
    await gen.aclose()
    out = list(args)
    for j, p in enumerate(positions):
        out[p] = _ReplicaTuple([values[j] for _, values in arrived])
    used = [r for r, _ in arrived]
    record(used=used, dropped=[r for r in range(len(args[positions[0]].keys)) if r not in used])
    return out


async def each(mailbox, args, chain, max_staleness, timeout, compute, record):
    """Run ``compute`` once per replica in arrival order; return the last results."""
    positions = _positions(args)
    current, results = list(args), None
    used, dropped, staleness = [], [], []
    async for replica, values in in_arrival_order(mailbox, args, timeout):
        stale = len(used)  # updates applied since this replica read the variables
        if max_staleness is not None and stale > max_staleness:
            dropped.append(replica)
            continue
        for j, p in enumerate(positions):
            current[p] = values[j]
        results = await compute(current)
        for pos, index in chain:
            current[pos] = results[index]
        used.append(replica)
        staleness.append(stale)
    record(used=used, dropped=dropped, staleness=staleness)
    return results


async def each_alone(mailbox, args, timeout):
    """Yield ``args`` once per replica, in arrival order, with each FromReplicas replaced by
    that replica's values alone (a shared variables' update applies each by itself)."""
    positions = _positions(args)
    async for _, values in in_arrival_order(mailbox, args, timeout):
        current = list(args)
        for j, p in enumerate(positions):
            current[p] = values[j]
        yield current


def recorder(log, plan_step, partition):
    """A function that logs one consuming instance's outcome for step ``plan_step`` in
    ``log`` (the worker's, :attr:`.state.WorkerState.log`)."""

    def record(**outcome):
        log.append({"plan": plan_step[0], "step": plan_step[1], "partition": partition, **outcome})

    return record


def step_log(plan_ids, dask_worker=None):
    """This worker's log and bytes sent for the given plans (``client.run`` runs it on each
    worker, passing ``dask_worker``).

    ``{"log": [outcome, ...], "sent": {(plan, step): bytes}, "sent_to": {(plan, step):
    {address: bytes}}, "phases": [(plan, step, instance, updates, waiting, computing,
    sending), ...], "name": the worker's name, "device_memory": bytes its GPU memory pool
    holds now}``: ``sent_to`` is ``sent`` by the worker
    the bytes went to; ``phases`` where each partition instance's task spent its time
    (:meth:`.state.WorkerState.note_phases`).
    """
    name = None if dask_worker is None else str(dask_worker.name)
    state = None if dask_worker is None else find_state(dask_worker)
    if state is None:  # no daskflow program has reached this worker
        return {"log": [], "sent": {}, "sent_to": {}, "phases": [], "name": name, "device_memory": 0}
    wanted = set(plan_ids)
    # Copies first, each made in one call that holds the GIL: the threads running this worker's
    # tasks append to these while the answer is built (iterating them directly can raise).
    log, phases, sent, sent_to = list(state.log), list(state.phases), state.sent.copy(), state.sent_to.copy()
    return {
        "log": [e for e in log if e["plan"] in wanted],
        "sent": {k: v for k, v in sent.items() if k[0] in wanted},
        "sent_to": {k: v.copy() for k, v in sent_to.items() if k[0] in wanted},
        "phases": [p for p in phases if p[0] in wanted],
        "name": name,
        "device_memory": memory_in_use(),
    }


OUTCOMES_HANDLER = "daskflow_outcomes"  # the dashboard's question to each worker (no log line)


def outcomes_since(since: dict, dask_worker=None) -> dict:
    """This worker's log and bytes sent (in all, and by the worker they went to) for the
    plans of ``since`` (plan -> step), newer steps only: what the dashboard's collector asks
    every worker for, on :data:`OUTCOMES_HANDLER` (Dask's ``run`` would log each ask)."""
    found = step_log(list(since), dask_worker=dask_worker)
    return {
        "log": [e for e in found["log"] if e["step"] > since[e["plan"]]],
        "sent": {k: v for k, v in found["sent"].items() if k[1] > since[k[0]]},
        "sent_to": {k: v for k, v in found.get("sent_to", {}).items() if k[1] > since[k[0]]},
        "phases": [p for p in found.get("phases", ()) if p[1] > since[p[0]]],
    }


def serve_outcomes(worker):
    """Answer the dashboard's :data:`OUTCOMES_HANDLER` on ``worker`` (idempotent)."""
    dask_compat.serve_handler(
        worker,
        OUTCOMES_HANDLER,
        lambda since=None: to_serialize(outcomes_since(since or {}, dask_worker=worker)),
    )
