"""Cutting a partition where a bucket of its exports is ready, so they leave while it runs.

A data-parallel replica's partition computes its whole forward and backward
pass, and its gradients leave when it ends; the parameter server's updates
wait for the last of them. When the values a partition sends to other
devices hold at least a bucket's bytes well before its end (each layer's
weight gradient, as the backward pass makes them), the plan cuts the
partition after the op that fills each bucket, as PyTorch DDP's buckets
and Horovod's tensor fusion do: each piece is a task of its own whose
exports leave as it ends, and the partitions that read only the early
pieces (the updates of the later layers' variables) run meanwhile and push
their new values back.

In a partition that is cut, ops run in the order that completes each export
as early as its inputs allow: among the ops ready, those leading to the
earliest export go first (a layer's weight gradient before the gradient
flowing on to the layer below). This module knows neither ops nor Dask.
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from ...framework.graph import Operation, Tensor

MAX_BUCKETS = 4  # pieces per partition at most: each is one more task per step, and its hop


def nbytes(t: Tensor) -> int:
    """The bytes of ``t``'s value where its static shape says (0 where it does not)."""
    n = t.shape.num_elements() if t.shape.dims is not None else None
    return 0 if n is None else n * t.dtype.size


def pieces(
    ops: Sequence[Operation],
    sizes: Mapping[Operation, int],
    preds: Callable[[Operation], Iterable[Operation]],
    first: Callable[[Operation], bool],
    bucket_bytes: int,
) -> list[list[Operation]]:
    """``ops`` (one partition's, in a valid order) cut where each bucket of exports is
    complete; ``[ops]`` where a cut gains nothing.

    ``sizes``: bytes each op sends to other devices (ops sending none may be
    absent); ``preds(op)``: the ops it waits for; ``first(op)``: ops that run
    first among those ready (the plan's rule: reads before updates). A bucket
    holds at least ``bucket_bytes``, or a :data:`MAX_BUCKETS`-th of the
    exports; a cut is made only where half a bucket or more is left to send.
    """
    total = sum(sizes.get(op, 0) for op in ops)
    size = max(bucket_bytes, total / MAX_BUCKETS, 1)
    if total < 1.5 * size:
        return [list(ops)]
    cut: list[list[Operation]] = [[]]
    filled, left = 0, total
    for op in exports_first(ops, sizes, preds, first):
        cut[-1].append(op)
        sent = sizes.get(op, 0)
        filled, left = filled + sent, left - sent
        if sent and filled >= size and left >= size / 2:
            cut.append([])
            filled = 0
    return [piece for piece in cut if piece]


def exports_first(
    ops: Sequence[Operation],
    sizes: Mapping[Operation, int],
    preds: Callable[[Operation], Iterable[Operation]],
    first: Callable[[Operation], bool],
) -> list[Operation]:
    """``ops`` in a valid order that makes each export as early as its inputs allow:
    among the ops ready, ``first`` ones, then those leading to the export that came
    earliest in ``ops``, then the earliest."""
    position = {op: i for i, op in enumerate(ops)}
    before = {op: [p for p in preds(op) if p in position] for op in ops}
    due = {op: position[op] if sizes.get(op) else math.inf for op in ops}
    after: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in reversed(ops):  # an op's readers come after it: their due is final here
        for p in before[op]:
            due[p] = min(due[p], due[op])
            after[p].append(op)

    def rank(op: Operation) -> tuple:
        return (not first(op), due[op], position[op])

    waiting = {op: len(before[op]) for op in ops}
    ready = [(rank(op), op) for op in ops if not waiting[op]]
    heapq.heapify(ready)
    order = []
    while ready:
        op = heapq.heappop(ready)[1]
        order.append(op)
        for s in after[op]:
            waiting[s] -= 1
            if not waiting[s]:
                heapq.heappush(ready, (rank(s), s))
    return order
