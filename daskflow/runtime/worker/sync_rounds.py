"""Synchronous updates across a between-graph job's clients, on the ps holding the variables.

TF1's ``SyncReplicasOptimizer`` in between-graph mode puts each worker's
gradients into a ``ConditionalAccumulator`` on the ps (dropping those
computed from an older global step), lets the chief apply the average once
``replicas_to_aggregate`` have come, and makes every worker wait for the new
global step on a token queue. Here each client's update task takes that
part itself, on the ps's event loop:

* a task whose gradients were computed from the current values *contributes*
  them to the current round; the one completing the round (the
  ``replicas_to_aggregate``-th) applies their mean once (each gathered
  argument becomes a :class:`..worker.arrivals._ReplicaTuple`, as in-graph
  replicas' results do), under the job's lock;
* a task that comes while the round is being applied is *dropped*: its
  client is a backup worker this round; it waits for the round and returns
  its results;
* every contributing task waits for its round to be applied and returns its
  results, so each client's step ends with the new global step, as TF1's
  token does;
* a task whose gradients are stale (a round was applied since its client
  read the variables) is dropped too, and returns at once: the round it
  missed is over, and waiting for the next could wait for ever once the
  other clients stop. Its results are the update computed, not written,
  on the current values.

Waiting happens on the event loop, holding no thread of the ps, and a
waiting task no longer counts against the ps's threads (``release``): a ps
with fewer threads than the job has clients (``dask worker --nthreads 1``)
would otherwise never run the task that completes the round.
"""

from __future__ import annotations

import asyncio

from .arrivals import _ReplicaTuple, recorder


class _Round:
    __slots__ = ("contributions", "closing", "done", "results", "error")

    def __init__(self):
        self.contributions: list = []
        self.closing = False  # the round is full: later gradients are this round's stragglers
        self.done = asyncio.Event()
        self.results = None
        self.error = None


async def contribute(state, shared, step, values, apply, compute, release, timeout=None):
    """Take part in the current round of ``shared``'s update; its results once applied.

    ``step`` = (plan, step number, partition), ``values`` this task's arguments,
    ``apply(arguments)`` the coroutine applying one round's merged arguments,
    ``compute(arguments)`` one computing them without writing (a stale task's),
    ``release()`` frees the task's thread slot before it waits.
    """
    store, names = state.shared, [name for name, _ in shared.writes]
    rounds = store.rounds(shared.job)
    current = rounds.get(shared.writes)
    if current is None:
        current = rounds[shared.writes] = _Round()
    stale = store.staleness(shared.job, step[1], names)
    record = recorder(state.log, step[:2], step[2])
    if stale:
        record(used=[], dropped=[0])
        return await compute(values)
    if current.closing:
        record(used=[], dropped=[0])
    else:
        current.contributions.append(values)
        record(used=[0], dropped=[], staleness=[0])
        if len(current.contributions) >= shared.sync:
            await _apply(current, rounds, shared, apply)
    if not current.done.is_set():
        release()
    await asyncio.wait_for(current.done.wait(), timeout)
    if current.error is not None:
        raise current.error
    return current.results


async def _apply(current, rounds, shared, apply):
    current.closing = True
    contributions = current.contributions
    merged = list(contributions[0])
    for position in shared.gathered:
        merged[position] = _ReplicaTuple([c[position] for c in contributions])
    try:
        current.results = await apply(merged)
    except Exception as e:  # noqa: BLE001 - every contributor's task fails with it
        current.error = e
    finally:
        rounds[shared.writes] = _Round()
        current.done.set()
