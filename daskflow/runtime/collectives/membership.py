"""Elastic jobs: which processes are the ranks, generation by generation.

A process of an elastic job registers under ``(PREFIX, job, "members",
ident)`` in the scheduler's metadata (its slot and host; ``ident`` is its
slot and a random tag, so a restarted slot is a new member). The job's
driver (``daskflow launch --min-np``) publishes each *generation*, the
members in rank order, under ``(PREFIX, job, "generation")``, and tells the
ranks on the job's Dask event topic: a generation without one of a ring's
members ends that ring at once (:meth:`.transport.Transport.abandon`), one
that only adds members waits for the ranks' next commit. Each generation's
ring is formed anew: every member publishes its new receiver's address under
``(PREFIX, job, "ring", number, ident)`` and waits for the others'.
Addresses only; values never pass through the scheduler.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..wire.trust import Credentials
from .rendezvous import POLL, PREFIX
from .ring import CollectiveError, Communicator
from .transport import Transport


@dataclass(frozen=True)
class Generation:
    """One membership of the job: its number and its members (idents, in rank order), with
    each member's host. A generation that is not ``ready`` (fewer members than the job's
    ``--min-np``) only ends the ring before it: its members wait for the next."""

    number: int
    members: tuple[str, ...]
    hosts: tuple[str, ...]
    ready: bool = True

    @classmethod
    def of(cls, record) -> Generation | None:
        """The generation a metadata record (or an event's message) describes; None for none."""
        if not record:
            return None
        members, hosts = tuple(record["members"]), tuple(record["hosts"])
        return cls(int(record["number"]), members, hosts, bool(record.get("ready", True)))

    def record(self) -> dict:
        members, hosts = list(self.members), list(self.hosts)
        return {"number": self.number, "members": members, "hosts": hosts, "ready": self.ready}

    def place(self, ident: str) -> dict:
        """Member ``ident``'s rank, size, and local and cross ranks (Horovod's
        ``local_rank``: its index among the members on its host; ``cross_rank``: its host's
        index among the hosts with a member of that local rank)."""
        rank = self.members.index(ident)
        host = self.hosts[rank]
        on_host = [i for i, h in enumerate(self.hosts) if h == host]
        local_rank = on_host.index(rank)
        local_index = [self.hosts[:i].count(h) for i, h in enumerate(self.hosts)]
        peers = [h for i, h in enumerate(self.hosts) if local_index[i] == local_rank]  # one per host
        return {
            "rank": rank,
            "size": len(self.members),
            "local_rank": local_rank,
            "local_size": len(on_host),
            "cross_rank": peers.index(host),
            "cross_size": len(peers),
        }

    def drops_any_of(self, members) -> bool:
        """Whether a member of ``members`` is not in this generation (it was lost)."""
        return any(m not in self.members for m in members)


def ident(slot: int, tag: str) -> str:
    """A member's ident: its slot and a tag of its process (a restarted slot is a new member)."""
    return f"{slot}.{tag}"


def slot_of(member: str) -> int:
    """The slot of member ``member`` (an :func:`ident`)."""
    return int(member.split(".", 1)[0])


def topic(job: str) -> str:
    """The Dask event topic on which the driver announces ``job``'s generations."""
    return f"{PREFIX}-{job}"


def register(client, job: str, ident: str, slot: int, host: str) -> None:
    """Announce this process to the driver as a member-to-be."""
    client.set_metadata([PREFIX, job, "members", ident], {"slot": slot, "host": host})


def registered(client, job: str) -> dict:
    """Every process registered in ``job``: ident -> {"slot", "host"} (the driver's view)."""
    found = client.get_metadata([PREFIX, job, "members"], None) or {}
    return {ident: member for ident, member in found.items() if member is not None}


def current(client, job: str) -> Generation | None:
    return Generation.of(client.get_metadata([PREFIX, job, "generation"], None))


def publish(client, job: str, generation: Generation) -> None:
    """Make ``generation`` the job's (the driver): in the metadata, then on the event topic."""
    client.set_metadata([PREFIX, job, "generation"], generation.record())
    client.log_event(topic(job), generation.record())


def forget(client, job: str) -> None:
    """Empty the job's records on the scheduler (the driver, at the end; Dask's metadata has
    no delete)."""
    try:
        client.set_metadata([PREFIX, job], {})
    except Exception:  # noqa: BLE001 - the scheduler may be gone first: nothing left to undo
        pass


def join_generation(client, job: str, ident: str, host: str, secret: bytes, after: int, timeout=600.0):
    """(Generation, Communicator): this member's place in the first generation numbered
    above ``after`` that includes it, once every member of it has published its address.

    A generation replaced while its members gather is given up for the newer one.

    Raises
    ------
    CollectiveError
        No such generation formed within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        generation = _await(client, job, _joinable(ident, after), deadline)
        formed = _form(client, job, ident, host, secret, generation, deadline)
        if formed is not None:
            return generation, formed
        after = generation.number - 1  # replaced while forming: the next one with us in it


def _form(client, job, ident, host, secret, generation, deadline) -> Communicator | None:
    """The ring of ``generation``; None if a newer generation replaced it meanwhile."""
    credentials = Credentials(f"{PREFIX}-{job}-{generation.number}", secret)
    transport = Transport(host, credentials)
    ring = [PREFIX, job, "ring", str(generation.number)]
    try:
        client.set_metadata([*ring, ident], list(transport.where))
        for rank, other in enumerate(generation.members):
            while other != ident and rank not in transport.peers:
                where = client.get_metadata([*ring, other], None)
                if where is not None:
                    transport.peers[rank] = tuple(where)
                    continue
                if _replaced(client, job, generation):
                    transport.close()
                    return None
                _check(deadline, job, f"member {other} of generation {generation.number}")
                time.sleep(POLL)
        if _replaced(client, job, generation):  # just as it formed: the others may have given it up
            transport.close()
            return None
    except BaseException:
        transport.close()
        raise
    place = generation.place(ident)
    return Communicator(place["rank"], place["size"], transport, elastic=True)


def _replaced(client, job, generation) -> bool:
    latest = current(client, job)
    return latest is not None and latest.number != generation.number


def _joinable(ident: str, after: int):
    return lambda g: g.number > after and g.ready and ident in g.members


def _await(client, job, wanted, deadline) -> Generation:
    while True:
        generation = current(client, job)
        if generation is not None and wanted(generation):
            return generation
        _check(deadline, job, "a generation with this process in it")
        time.sleep(POLL)


def _check(deadline, job, what):
    if time.monotonic() > deadline:
        raise CollectiveError(f"elastic job {job!r}: {what} did not form in time (is the driver running?)")
