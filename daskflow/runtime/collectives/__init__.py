"""Collectives among a job's ranks: all-reduce, all-gather and broadcast, with no parameter server.

Each rank is one process (``daskflow launch --np N``, or ranks started by
hand); the ranks find each other through the Dask scheduler
(:mod:`.rendezvous`: only their bulk ports' addresses go there, never a
value) and exchange values over the bulk transport (:mod:`.transport`,
:mod:`..wire.bulk`): authenticated by the job's secret, read on threads.
:mod:`.ring` runs the collectives: a ring all-reduce (reduce-scatter, then
all-gather: each rank sends and receives ``2 (N - 1) / N`` of the buffer,
whatever ``N``), a ring all-gather, a broadcast from the root. The
reduction itself is the caller's (the op's kernel): this package knows no math.
In an elastic job (:mod:`.membership`) the ranks are re-formed, generation by
generation, as processes are lost and join.
"""

from . import membership
from .rendezvous import join_ring, leave_ring
from .ring import CollectiveError, Communicator, RanksChangedError

__all__ = ["CollectiveError", "Communicator", "RanksChangedError", "join_ring", "leave_ring", "membership"]
