"""Combining replicas' values: the one op data-parallel sync training needs."""

from __future__ import annotations

from ..framework.primitive import Primitive, apply
from ..framework.replica import PerReplica
from .infer import same


def _mean_of_replicas(xp, x, *, replicas_to_aggregate, total_num_replicas):
    if type(x) is not PerReplica:
        return x  # not replicated (embedded, or one replica): the value itself
    values = x.values
    if len(values) == 1:
        return values[0]  # the mean of one: no 23 MB copies for an MLP's gradients
    total = values[0] + values[1]
    for value in values[2:]:
        total += value  # in place: ``total`` is this kernel's own array
    if getattr(total, "dtype", None) is not None and total.dtype.kind in "fc":
        total /= len(values)
        return total
    return total / len(values)  # a Python int keeps the arrays' float dtype


AggregateReplicas = Primitive(
    "AggregateReplicas",
    same,
    _mean_of_replicas,
    aggregates_replicas=True,
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
