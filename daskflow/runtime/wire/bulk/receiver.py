"""The bulk port's receiving end: a worker's listening sockets and a reader thread per connection.

:class:`Receiver` accepts connections (TCP, and a Unix socket for senders on
this machine: :mod:`..inplace`), authenticates each (:func:`.protocol.handshake`'s
other half) and hands each checked message to the worker's event loop;
:func:`serve` starts one for a worker and answers :data:`.protocol.HANDLER`.
"""

from __future__ import annotations

import functools
import hmac
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from distributed.comm import get_address_host

from ... import dask_compat
from ...defaults import setting
from .. import inplace
from ..log_limit import OncePerPeer
from ..trust import Sessions, Unclaimed
from .protocol import (
    ACK,
    CHALLENGE,
    HANDLER,
    HELLO,
    MAC,
    MAX_SESSION,
    BulkFormatError,
    Seal,
    handshake_timeout,
    hello_mac,
    in_place_enabled,
    max_buffered,
    read_message,
    recv_exactly,
    recv_into,
    short,
)

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from distributed import Worker

# deliver(header, items, release): hands a message on; check(header, count, session, plans): why
# a message is not taken (None: it is).
Deliver = Callable[[dict, list, Callable[[], None] | None], None]
Check = Callable[[dict, int, str, frozenset], str | None]

MAX_CONNECTIONS = 256  # per receiver: one per sending process and session is the normal case
MAX_HANDSHAKES = 32  # of those, not yet authenticated: strangers cannot take every slot


@dataclass
class _Inbound:
    """An authenticated connection: its session and the :class:`Seal` its headers match."""

    session: str
    secret: bytes = field(repr=False)
    seal: Seal = field(repr=False)


class Receiver:
    """Accepts connections on ``host``; hands each message to ``deliver(header, items, release)``.

    ``deliver`` runs on a reader thread; it should pass the message on to
    the event loop that owns its destination, and call ``release()`` once
    the items are claimed or dropped (the session's unclaimed bytes here
    count against ``daskflow.bulk-max-buffered`` until then).
    ``check(header, count, session, plans)``: why a message of ``count``
    items from ``session`` (which has registered ``plans`` here) is not
    taken, or None; called before any item is allocated. ``sessions``: whose
    messages are taken (:class:`Sessions`), admitted by their programs; ``unclaimed``:
    the bytes each holds here (:class:`..trust.Unclaimed`). Both are the worker's, shared
    with its handlers on Dask's comms (:mod:`..rendezvous`); new ones by default.
    """

    def __init__(
        self,
        host: str,
        deliver: Deliver,
        check: Check | None = None,
        sessions: Sessions | None = None,
        unclaimed: Unclaimed | None = None,
    ) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = socket.create_server((host, 0), family=family)
        self.port = self._server.getsockname()[1]
        self.token = secrets.token_hex(8)  # senders name the receiver they mean: ports get reused
        self.where = (host, self.port, self.token)  # what senders submit to
        self.sessions = Sessions() if sessions is None else sessions
        self.unclaimed = Unclaimed() if unclaimed is None else unclaimed
        self._deliver = deliver
        self._check = check
        self._conns: set = set()
        self._handshakes = 0  # connections not yet authenticated
        self._lock = threading.Lock()
        self._closed = False
        # A peer's refusals: one log line a minute per host (a flood writes no more).
        self._refused = OncePerPeer(logger, "daskflow refused bulk transfers from %s and hung up: %s")
        self.received = 0  # messages handed on
        self.received_in_place = 0  # of which read from the sender's memory (:mod:`..inplace`)
        self._local = inplace.listen(self.token) if in_place_enabled() else None
        for server in filter(None, [self._server, self._local]):
            accept = threading.Thread(target=self._accept, args=(server,), name="daskflow-bulk-accept")
            accept.daemon = True
            accept.start()

    def buffered(self, session: str) -> int:
        """Bytes of ``session``'s values delivered here and not yet claimed."""
        return self.unclaimed.held(session)

    def _accept(self, server: socket.socket) -> None:
        local = server is self._local
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed
            if not local:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                full = len(self._conns) >= MAX_CONNECTIONS or self._handshakes >= MAX_HANDSHAKES
                if full:  # its sender fails and uses Dask's comms
                    logger.warning(
                        "daskflow refused a bulk connection: %d open, %d of them not yet authenticated",
                        len(self._conns),
                        self._handshakes,
                    )
                    conn.close()
                    continue
                self._conns.add(conn)
                self._handshakes += 1
            try:
                peer = inplace.peer_pid(conn) if local else None  # whose memory it may read
                reader = threading.Thread(target=self._read, args=(conn, peer, local), name="daskflow-read")
                reader.daemon = True
                reader.start()
            except RuntimeError:  # no more threads: the sender fails and uses Dask's comms
                self._forget(conn)
                with self._lock:
                    self._handshakes -= 1
                conn.close()

    def _read(self, conn: socket.socket, peer: int | None, local: bool) -> None:
        who = f"pid {peer}" if local else _peer_name(conn)
        try:
            try:
                inbound = self._greet(conn)
            finally:
                with self._lock:
                    self._handshakes -= 1
            reserve = functools.partial(self._reserve, inbound)
            while (message := read_message(conn, inbound.seal, peer, self.token, reserve)) is not None:
                try:
                    self._deliver(message.header, message.items, message.release)
                except BaseException:
                    message.release()
                    raise
                with self._lock:
                    self.received += 1
                    self.received_in_place += message.in_place
                # Not held while this connection idles: the next message may be minutes
                # away (or never come), and the last one's arrays are the consumer's now.
                del message
                conn.sendall(ACK)
        except Exception as e:  # noqa: BLE001 - whatever the peer sent, the reader only hangs up
            if not self._closed:
                self._refused(who.rsplit(":", 1)[0], e, who)  # by host: each attempt comes from a new port
        finally:
            self._forget(conn)
            conn.close()

    def _greet(self, conn: socket.socket) -> _Inbound:
        """Challenge a new connection; its session once it has proved it knows the secret."""
        timeout = handshake_timeout()
        deadline = time.monotonic() + timeout  # the whole handshake, not each read: no trickling
        conn.settimeout(timeout)
        challenge = secrets.token_bytes(CHALLENGE)
        try:
            conn.sendall(HELLO + challenge)
            size = bytearray(1)
            if not recv_into(conn, memoryview(size), deadline):
                raise BulkFormatError("the peer closed without a hello")
            if not 0 < size[0] <= MAX_SESSION:
                raise BulkFormatError(f"a hello with a session id of {size[0]} bytes")
            answer = recv_exactly(conn, size[0] + MAC, deadline)
        except TimeoutError:
            raise BulkFormatError(f"no hello in {timeout:g} s (daskflow.bulk-handshake-timeout)") from None
        raw, mac = answer[: size[0]], answer[size[0] :]
        session = raw.decode("ascii", "replace")
        secret = self.sessions.secret(session) if raw.isascii() else None
        if secret is None:
            raise BulkFormatError(f"a hello for session {short(session)}, which has no plan on this worker")
        if not hmac.compare_digest(mac, hello_mac(secret, challenge)):
            raise BulkFormatError(f"a hello for session {short(session)} with a wrong MAC (not its secret)")
        return _Inbound(session, secret, Seal(secret, challenge))

    def _reserve(self, inbound: _Inbound, header: dict, count: int, nbytes: int) -> Callable[[], None]:
        """Check a message's destination and size; a function releasing its bytes."""
        session = inbound.session
        secret = self.sessions.secret(session)
        if secret is None or not hmac.compare_digest(secret, inbound.secret):
            raise BulkFormatError(f"a message of session {session}, which has left this worker")
        reason = self._check(header, count, session, self.sessions.plans(session)) if self._check else None
        if reason is not None:
            raise BulkFormatError(reason)
        cap = max_buffered()
        release = self.unclaimed.reserve(session, nbytes, cap)
        if release is None:
            raise BulkFormatError(
                f"a message of {nbytes} bytes for session {session}, which holds "
                f"{self.unclaimed.held(session)} bytes unclaimed here (daskflow.bulk-max-buffered: {cap})"
            )
        return release

    def _forget(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.discard(conn)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: nothing more is accepted or read."""
        return self._closed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns, self._conns = list(self._conns), set()
        for s in [self._server, *filter(None, [self._local])]:
            _shut(s, socket.SHUT_RDWR)  # wakes the thread blocked on it
            s.close()
        # Their readers close them: one that has just handed a message over still answers
        # that it arrived (a consumer may close as soon as it has taken its last message).
        for conn in conns:
            _shut(conn, socket.SHUT_RD)


def _shut(s: socket.socket, how: int) -> None:
    try:
        s.shutdown(how)
    except OSError:  # not connected, or closed already
        pass


def _peer_name(conn: socket.socket) -> str:
    try:
        host, port, *_ = conn.getpeername()
    except (OSError, ValueError):
        return "a peer"
    return f"{host}:{port}"


def serve(
    worker: Worker,
    deliver: Deliver,
    check: Check | None = None,
    sessions: Sessions | None = None,
    unclaimed: Unclaimed | None = None,
) -> Receiver | None:
    """Start a receiver for ``worker`` and answer :data:`HANDLER` with its address; None
    where it serves none (TLS, or ``daskflow.bulk-transfers`` false).

    Call it once per worker: the caller owns the receiver (the worker's state
    keeps it, and closes it with the worker). ``sessions``, ``unclaimed``: the worker's
    (see :class:`Receiver`).
    """
    enabled = setting("daskflow.bulk-transfers")
    if not enabled or not worker.address.startswith("tcp://"):
        dask_compat.serve_handler(worker, HANDLER, lambda: None)
        return None
    receiver = Receiver(get_address_host(worker.address), deliver, check, sessions, unclaimed)
    dask_compat.serve_handler(worker, HANDLER, lambda: [receiver.port, receiver.token])
    return receiver
