"""Combining replicas' values: the one op data-parallel sync training needs."""

from __future__ import annotations

from ..framework.primitive import Primitive, apply
from ..framework.replica import PerReplica
from .infer import same


def _mean_of_replicas(xp, x, *, replicas_to_aggregate, total_num_replicas):
    if type(x) is not PerReplica:
        return x  # not replicated (embedded, or one replica): the value itself
    total = x.values[0]
    for value in x.values[1:]:
        total = total + value
    return total / len(x.values)  # a Python int keeps the arrays' float dtype


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
