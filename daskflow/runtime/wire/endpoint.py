"""What moving values needs of a worker: the interface wire/ defines and the worker fills.

The runtime's rooms import one way, plan -> wire -> worker -> cluster ->
session, so nothing here looks a worker's state up. The worker's own
entry points (its programs plugin and the tasks it runs, :mod:`..worker`)
hand the state they hold, :class:`..worker.state.WorkerState`, to the
handlers and sends of :mod:`.rendezvous`, :mod:`.pushes` and
:mod:`.between_graph`, which read it as a :class:`WorkerEnd`: its mailbox,
push cache, the sessions it trusts, the bytes they hold here unclaimed, its
bulk port, the byte counts of what it sent, and the between-graph
variables it holds (:class:`SharedStore`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: between_graph types its handlers by this module
    from .between_graph import Snapshot
    from .bulk.receiver import Receiver
    from .mailbox import Mailbox
    from .trust import Sessions, Unclaimed
    from .variable_cache import VariableCache


class SharedStore(Protocol):
    """What :mod:`.between_graph` reads and keeps of the between-graph variables a worker
    holds (:class:`..worker.between_graph.SharedVariables`)."""

    copies: dict

    def read(self, job: str, name: str, required: bool) -> Any: ...

    def read_many(self, job: str, names: list[str], step: int | None = None) -> dict: ...

    def keep_copy(self, job: str, source: str, snapshot: Snapshot) -> None: ...

    def copies_bytes(self, but: tuple[str, str] | None = None) -> int: ...


class WorkerEnd(Protocol):
    """A worker's state as the modules moving values read it."""

    mailbox: Mailbox
    cache: VariableCache
    shared: SharedStore
    trusted: Sessions
    unclaimed: Unclaimed
    receiver: Receiver | None
    receiving: bool

    def count_sent(self, step: tuple[str, int], address: str, payload: Iterable) -> None: ...
