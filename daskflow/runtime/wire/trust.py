"""Who may send a worker values: sessions' secrets, the MACs of their calls, their bytes held.

A session's processes prove their messages with its secret, which reaches
the workers in its programs' plugin (:mod:`..worker.programs`): on the bulk
port by a handshake and a MAC per header (:mod:`.bulk`), and on Dask's
comms, where daskflow's own handlers take values (a fed batch, a partition's
results, a pushed variable), by a MAC of the call's fields
(:func:`signed`, checked by :func:`call_refusal`); so do the copies of a
between-graph job's variables that its ps sends another worker, and their
fetch by a ps restored from one (:mod:`.between_graph`). A worker keeps one table
of the sessions it takes part in (:class:`Sessions`, in its
:class:`..worker.state.WorkerState`) for both ways, and one count of each
session's bytes delivered and not yet claimed (:class:`Unclaimed`), so
the bulk port's cap on them holds whichever way the bytes came.

The MAC of a call binds its handler and its fields (a mailbox key, a
variable's name and version) but not the value: like the bulk port's array
bytes, the value is as safe as Dask's comms carrying it, which carry the
secret too. A stranger, who knows no secret, cannot make a worker keep
anything; a call sent to the wrong process (an address since reused) gives
that process no secret, only a MAC.
"""

from __future__ import annotations

import collections
import hmac
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgpack

_PURPOSE = b"daskflow-call\0"  # no bulk MAC (keyed by the same secret) is ever one of these


@dataclass(frozen=True, eq=False)
class Credentials:
    """A session's id and secret: what proves a message is the session's."""

    session: str
    secret: bytes = field(repr=False)


class _Admitted:
    """A plan's credentials and how many of its registries admitted them here."""

    __slots__ = ("credentials", "count")

    def __init__(self, credentials: Credentials):
        self.credentials, self.count = credentials, 0


class _Known(NamedTuple):
    """A session's credentials and its plans here."""

    credentials: Credentials
    plans: set[str]


class Sessions:
    """The sessions a worker (or a client process) takes part in, by plan.

    A plan's programs admit its session's credentials (:meth:`admit`) and
    dismiss them when they are taken off (:meth:`dismiss`); a session's
    secret is known while one of its plans is. ``limit``: keep at most that
    many plans, forgetting the least recently used — admitted, or its
    credentials looked up (a client, which is told of no close: a plan it
    still runs stays, one it left goes). Thread-safe: readers, senders and
    the event loop all ask.

    Examples
    --------
    >>> sessions = Sessions(limit=2)
    >>> for plan in ("p1", "p2"):
    ...     sessions.admit(plan, Credentials("s", b"secret"))
    True
    True
    >>> sessions.credentials("p1").session  # p1 is now the most recently used
    's'
    >>> sessions.admit("p3", Credentials("s", b"secret"))  # forgets p2
    True
    >>> sessions.credentials("p2") is None
    True
    >>> sessions.latest().session  # p3's, admitted last
    's'
    """

    def __init__(self, limit: int | None = None) -> None:
        self._lock = threading.Lock()
        self._plans: collections.OrderedDict[str, _Admitted] = collections.OrderedDict()
        self._sessions: dict[str, _Known] = {}  # session id -> its credentials and plans here
        self._limit = limit

    def admit(self, plan: str, credentials: Credentials) -> bool:
        """Remember ``plan``'s credentials; False where another secret has its session's id."""
        with self._lock:
            known = self._sessions.get(credentials.session)
            if known is not None and not hmac.compare_digest(known.credentials.secret, credentials.secret):
                return False
            entry = self._plans.get(plan)
            if entry is not None and entry.credentials.session != credentials.session:
                return False
            if known is None:
                known = self._sessions[credentials.session] = _Known(credentials, set())
            known.plans.add(plan)
            if entry is None:
                entry = self._plans[plan] = _Admitted(credentials)
            entry.count += 1
            self._plans.move_to_end(plan)  # the most recently used
            while self._limit is not None and len(self._plans) > self._limit:
                self._forget(next(iter(self._plans)))
        return True

    def dismiss(self, plan: str) -> None:
        with self._lock:
            entry = self._plans.get(plan)
            if entry is not None:
                entry.count -= 1
                if entry.count <= 0:
                    self._forget(plan)

    def credentials(self, plan: str) -> Credentials | None:
        """``plan``'s credentials (None: not admitted here); the plan counts as used."""
        with self._lock:
            entry = self._plans.get(plan)
            if entry is None:
                return None
            self._plans.move_to_end(plan)
        return entry.credentials

    def latest(self) -> Credentials | None:
        """The credentials of the plan admitted or used last (None: no plan is here)."""
        with self._lock:
            return self._plans[next(reversed(self._plans))].credentials if self._plans else None

    def secret(self, session: str) -> bytes | None:
        with self._lock:
            known = self._sessions.get(session)
        return None if known is None else known.credentials.secret

    def plans(self, session: str) -> frozenset:
        with self._lock:
            known = self._sessions.get(session)
            return frozenset(known.plans) if known is not None else frozenset()

    def _forget(self, plan: str) -> None:  # under _lock
        credentials = self._plans.pop(plan).credentials
        plans = self._sessions[credentials.session].plans
        plans.discard(plan)
        if not plans:
            del self._sessions[credentials.session]


def call_mac(secret: bytes, handler: str, fields: Any) -> bytes:
    """HMAC-SHA256(secret, purpose || handler || msgpack(fields)): lists and tuples alike
    (Dask's comms turn one into the other)."""
    message = _PURPOSE + handler.encode() + b"\0" + msgpack.packb(fields)
    return hmac.digest(secret, message, "sha256")


def signed(credentials: Credentials | None, handler: str, fields: Any) -> dict:
    """The keyword arguments proving a call to ``handler`` about ``fields`` is
    ``credentials``' session's (none: the call goes unproved, and is refused)."""
    if credentials is None:
        return {}
    return {"session": credentials.session, "mac": call_mac(credentials.secret, handler, fields)}


def call_refusal(
    sessions: Sessions, handler: str, fields: Any, session: Any, mac: Any, plan: str | None = None
) -> str | None:
    """Why a call to ``handler`` about ``fields``, proved as ``session`` by ``mac``, is not
    taken (None: it is). ``plan``: the plan it is for, which ``session`` must have here.

    Examples
    --------
    >>> sessions = Sessions()
    >>> sessions.admit("p1", Credentials("s", b"secret"))
    True
    >>> proof = signed(Credentials("s", b"secret"), "h", ["p1", 1])
    >>> call_refusal(sessions, "h", ("p1", 1), plan="p1", **proof) is None
    True
    >>> call_refusal(sessions, "h", ["p1", 2], plan="p1", **proof)
    "a call of session 's' with a wrong MAC (not its secret, or other fields)"
    >>> call_refusal(sessions, "h", ["p1", 1], None, None)
    "a call with no session's credentials"
    """
    if type(session) is not str or type(mac) is not bytes:
        return "a call with no session's credentials"
    secret = sessions.secret(session)
    if secret is None:
        return f"a call of session {_short(session)}, which has no plan on this worker"
    try:
        expected = call_mac(secret, handler, fields)
    except (TypeError, ValueError, OverflowError):  # msgpack: fields of no wire type
        return f"a call whose fields are not plain values: {_short(fields)}"
    if not hmac.compare_digest(mac, expected):
        return f"a call of session {_short(session)} with a wrong MAC (not its secret, or other fields)"
    if plan is not None and plan not in sessions.plans(session):
        return f"a call for plan {_short(plan)}, which its session has not registered on this worker"
    return None


@dataclass(frozen=True)
class TooLarge:
    """Filed in place of a session's value that a worker would not take for its size
    (``daskflow.bulk-max-bytes`` or ``daskflow.bulk-max-buffered``): its consumer fails at
    once with TF1's ``ResourceExhaustedError`` saying ``message``, instead of waiting."""

    message: str


def peer_of(comm: Any) -> tuple[str, str]:
    """``(host, address)`` of the peer at the other end of a handler's ``comm``: refusals
    are counted by host (each connection comes from a new port)."""
    address = str(getattr(comm, "peer_address", None) or "a peer")
    return address.rsplit(":", 1)[0] if address.count(":") > 1 else address, address


class Unclaimed:
    """The bytes of each session's values delivered to a worker and not yet claimed.

    Examples
    --------
    >>> held = Unclaimed()
    >>> release = held.reserve("s", 600, cap=1000)
    >>> held.reserve("s", 600, cap=1000) is None  # over the cap: refused
    True
    >>> release(); release()  # once only
    >>> held.held("s")
    0
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}

    def held(self, session: str) -> int:
        with self._lock:
            return self._held.get(session, 0)

    def reserve(self, session: str, nbytes: int, cap: int) -> Callable[[], None] | None:
        """Count ``nbytes`` more for ``session``; a function uncounting them (once), or None
        where they would take it past ``cap``."""
        with self._lock:
            held = self._held.get(session, 0)
            if held + nbytes > cap:
                return None
            self._held[session] = held + nbytes
        released: list[bool] = []

        def release() -> None:
            with self._lock:
                if released:
                    return
                released.append(True)
                left = self._held.get(session, 0) - nbytes
                if left > 0:
                    self._held[session] = left
                else:
                    self._held.pop(session, None)

        return release


def _short(value: object, limit: int = 120) -> str:
    """``repr(value)`` cut to ``limit`` characters: a peer's words in a log line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
