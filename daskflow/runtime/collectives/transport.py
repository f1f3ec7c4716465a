"""A rank's messages to and from the other ranks, over the bulk transport.

Each rank listens on a :class:`..wire.bulk.Receiver` of its own, which takes
connections only from processes that prove they know the job's secret
(:class:`..wire.trust.Credentials`), and sends through this process's bulk
links. A message is a collective's step: its header names the collective
(its sequence number on the ranks, and the step), and its items are arrays.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from ..wire import bulk
from ..wire.trust import Sessions

if TYPE_CHECKING:
    import concurrent.futures
    from collections.abc import Sequence

    from ..wire.trust import Credentials

PLAN = "collectives"  # the receiver admits the job's credentials under this name
ABORT = -1  # the step of a message saying a rank gave a collective up
JOINED = 1 << 20  # the step of a rank's "I have joined" is this plus its rank


class AbortedError(Exception):
    """Another rank gave the collective up; the message says why."""


class AbandonedError(AbortedError):
    """The job's ranks changed (one was lost): every collective of this ring fails."""


class Transport:
    """This rank's receiver and what it has received, by key.

    Parameters
    ----------
    host : str
        The address to listen on (this machine's, as the other ranks reach it).
    credentials : Credentials
        The job's: only processes knowing its secret may send here.
    """

    def __init__(self, host: str, credentials: Credentials) -> None:
        self.credentials = credentials
        sessions = Sessions()
        sessions.admit(PLAN, credentials)
        self._inbox: dict[tuple, tuple[dict, list]] = {}
        self._aborted: dict[int, str] = {}  # collective's sequence number -> why a rank gave it up
        self._abandoned: str | None = None  # why this ring is over (a rank of it was lost)
        self._arrived = threading.Condition()
        self._receiver = bulk.Receiver(host, self._deliver, _refusal, sessions)
        self.where = self._receiver.where  # (host, port, token): what the others send to
        self.peers: dict[int, tuple] = {}  # rank -> its bulk address
        self.sent_bytes = 0  # of the arrays sent, since the start: what each step costs the link

    def send(self, rank: int, key: tuple, name: str, items: Sequence, kind=None) -> concurrent.futures.Future:
        """Send ``items`` to ``rank`` under ``key`` (ints), for the collective ``name``
        (``kind``: what a joined rank needs to serve it); the future completes once they are
        there. No items: the sender has nothing to give (it has joined)."""
        header = {"c": list(key), "n": name, **({"k": kind} if kind is not None else {})}
        self.sent_bytes += sum(getattr(item, "nbytes", 0) for item in items)
        return bulk.submit(self.peers[rank], header, list(items), self.credentials)

    def receive(self, key: tuple, timeout: float) -> tuple[str, list]:
        """(The collective's name, the items) sent under ``key``, once they arrive.

        Raises
        ------
        TimeoutError
            Nothing came within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with self._arrived:
            while key not in self._inbox:
                if self._abandoned is not None:
                    raise AbandonedError(self._abandoned)
                if key[0] in self._aborted:
                    raise AbortedError(self._aborted[key[0]])
                left = deadline - time.monotonic()
                if left <= 0 or self._receiver.closed:
                    raise TimeoutError(f"no message {key} in {timeout:g} s")
                self._arrived.wait(left)
            header, items = self._inbox.pop(key)
        return header["n"], items

    def wait(self, ready, timeout: float):
        """Wait until ``ready(keys)`` (the keys received, not yet taken) is truthy; its value.

        Raises
        ------
        AbandonedError
            The ring was abandoned.
        TimeoutError
            Not within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with self._arrived:
            while not (found := ready(self._inbox.keys())):
                if self._abandoned is not None:
                    raise AbandonedError(self._abandoned)
                left = deadline - time.monotonic()
                if left <= 0 or self._receiver.closed:
                    raise TimeoutError(f"nothing ready in {timeout:g} s")
                self._arrived.wait(left)
            return found

    def header(self, key: tuple) -> dict:
        """The header of the message received under ``key`` (left to be taken)."""
        with self._arrived:
            return self._inbox[key][0]

    def take(self, keys) -> None:
        """Drop the messages of ``keys`` (read from their keys alone)."""
        with self._arrived:
            for key in keys:
                self._inbox.pop(key, None)

    def abort(self, ranks, seq: int, why: str) -> None:
        """Tell ``ranks`` that collective ``seq`` failed here (``why``): their steps of it fail too."""
        for rank in ranks:
            try:
                self.send(rank, (seq, ABORT), why, []).result(timeout=10)
            except Exception:  # noqa: BLE001 - a rank gone already will time out on its own
                pass

    def abandon(self, why: str) -> None:
        """End this ring (``why``: a rank of it was lost): every wait for a message, now or
        later, fails at once."""
        with self._arrived:
            self._abandoned = why
            self._arrived.notify_all()

    def _deliver(self, header: dict, items: list, release) -> None:
        key = tuple(header["c"])
        with self._arrived:
            if key[1] == ABORT:
                self._aborted[key[0]] = header["n"]
            else:
                self._inbox[key] = (header, items)
            self._arrived.notify_all()
        if release is not None:
            release()  # the arrays are ours now: they no longer count as unclaimed

    def close(self) -> None:
        self._receiver.close()
        bulk.close_links(self.credentials.session)
        with self._arrived:
            self._arrived.notify_all()


def _refusal(header: dict, count: int, session: str, plans: frozenset) -> str | None:
    """Why a message is not a collective's step (None: it is), before its items are read."""
    key, name = header.get("c"), header.get("n")
    if not (isinstance(key, list) and len(key) == 2 and all(type(k) is int for k in key)):
        return "a message that names no collective step"
    if not isinstance(name, str) or len(name) > 4000:
        return "a collective step without its collective's name"
    kind = header.get("k")
    if kind is not None and not (isinstance(kind, dict) and len(str(kind)) < 1000):
        return "a collective step with a malformed description"
    return None
