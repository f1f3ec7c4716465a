"""Combining replicas' values: the one op data-parallel sync training needs."""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.primitive import Primitive
from ..framework.replica import PerReplica
from ..kernels.buffers import owned
from .infer import same


def _mean_of_replicas(xp, x, *, replicas_to_aggregate, total_num_replicas, donate=False):
    if type(x) is not PerReplica:
        return x  # not replicated (embedded, or one replica): the value itself
    values = x.values
    if len(values) == 1:
        return values[0]  # the mean of one: no 23 MB copies for an MLP's gradients
    total = _sum_into(values, _spare(x) if donate else None)
    if getattr(total, "dtype", None) is not None and total.dtype.kind in "fc":
        total /= len(values)
        return total
    return total / len(values)  # a Python int keeps the arrays' float dtype


def _spare(x):
    """Which of the first two values the sum may be written into: one of this
    process's own copies, like the others in shape and dtype (None: none is)."""
    kind = _kind(x.values[0])
    if any(_kind(v) != kind for v in x.values[1:]):
        return None  # broadcasting: the sum needs an array of its own
    return next((i for i in (0, 1) if x.own[i] and owned(x.values[i])), None)


def _kind(value):
    return getattr(value, "shape", None), getattr(value, "dtype", None)


def _sum_into(values, spare):
    # Summed in arrival order either way (a + b == b + a exactly): the mean does not
    # depend on which buffer holds it.
    if spare is None:
        total = values[0] + values[1]  # a new array, then added to in place
    else:
        total = values[spare]
        total += values[1 - spare]  # saves allocating (and page-faulting) the sum every step
    for value in values[2:]:
        total += value
    return total


AggregateReplicas = Primitive(
    "AggregateReplicas",
    same,
    _mean_of_replicas,
    aggregates_replicas=True,
    can_donate=True,
)


def aggregate_replicas(x, replicas_to_aggregate, total_num_replicas, name=None):
    """The mean of ``x`` over the first ``replicas_to_aggregate`` replicas to finish.

    Outside replication (embedded, one replica) it is ``x`` itself.
    """
    return apply(
        AggregateReplicas,
        x,
        name=name,
        replicas_to_aggregate=int(replicas_to_aggregate),
        total_num_replicas=int(total_num_replicas),
    )
