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
    ordered: Sequence[Operation], sizes: Mapping[Operation, int], bucket_bytes: int
) -> list[list[Operation]]:
    """``ordered`` (one partition's ops, exports first: :func:`due`) cut where each bucket of
    exports is complete; ``[ordered]`` where a cut gains nothing.

    ``sizes``: bytes each op sends to other devices (ops sending none may be
    absent). A bucket holds at least ``bucket_bytes``, or a :data:`MAX_BUCKETS`-th
    of the exports; a cut is made only where half a bucket or more is left to send.
    """
    total = sum(sizes.get(op, 0) for op in ordered)
    size = max(bucket_bytes, total / MAX_BUCKETS, 1)
    if total < 1.5 * size:
        return [list(ordered)]
    cut: list[list[Operation]] = [[]]
    filled, left = 0, total
    for op in ordered:
        cut[-1].append(op)
        sent = sizes.get(op, 0)
        filled, left = filled + sent, left - sent
        if sent and filled >= size and left >= size / 2:
            cut.append([])
            filled = 0
    return [piece for piece in cut if piece]


def due(
    ops: Sequence[Operation],
    sizes: Mapping[Operation, int],
    preds: Callable[[Operation], Iterable[Operation]],
) -> dict[Operation, float]:
    """Per op of ``ops`` (in a valid order): the position in ``ops`` of the earliest export it
    leads to (infinite for none). Running the ready op of the lowest first makes each export
    as early as its inputs allow."""
    position = {op: i for i, op in enumerate(ops)}
    first = {op: position[op] if sizes.get(op) else math.inf for op in ops}
    for op in reversed(ops):  # an op's readers come after it: theirs is final here
        for p in preds(op):
            if p in position:
                first[p] = min(first[p], first[op])
    return first
