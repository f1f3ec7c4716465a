"""Large tensors between processes over plain sockets, read on threads.

Dask's comms read a message on the event loop, woken for each chunk the
socket holds, which costs over twice the CPU and wall time of a blocking
socket read on a thread (``benchmarks/RESULTS.md``, design measurements).
A data-parallel step moves several megabyte-sized arrays — each tower's
gradients, the new variable values pushed to the towers, the fed batches —
and every millisecond of CPU spent moving them is taken from the towers.

So a worker running daskflow steps also listens on a second port of its
host (:class:`Receiver`, which the worker's
:class:`..worker.state.WorkerState` holds and closes with the worker), and
values made only of numeric arrays go there (:func:`send`), each over one
connection per destination and session written by its own thread
(:class:`_Link`); small ones too: a Dask rpc, with its reply and the
``sizeof`` of every message, costs more than a write on a thread. What
arrives is handed to the worker's event loop, as Dask's comm handler would.

Only a session's own processes may send there. Each session makes a random
secret (:class:`Credentials`) that reaches its workers inside its programs'
worker plugin, over Dask's own comms (TLS where the cluster is), and is
forgotten there when the session closes. A connection starts with a
handshake: the receiver sends a random challenge, the sender answers with
its session's id and HMAC-SHA256(secret, challenge || "hello"); a receiver
that does not know the session, or finds the wrong MAC, hangs up having read
a few dozen bytes. Each message is then an 8-byte length, a msgpack header
(what the message is for, the receiver's token, each item's dtype and
shape), a MAC of that header keyed by the secret and chained to the
challenge and the message's number on the connection (:class:`Seal`: a
message replayed, here or on another connection, is refused), and the
items' bytes. The bytes themselves carry no MAC: hashing them costs more
than reading them does, and a peer that could alter them on the wire could
read Dask's plaintext ``tcp://`` comms, secret included.

Before it allocates or reads an item the receiver checks the header's MAC,
its token (a port reused by another receiver), each item's dtype (numeric
only: nothing received is unpickled or evaluated) and shape, the message's
destination (a ``check`` the worker gives: :func:`.transport.refusal`), and
its size against ``daskflow.bulk-max-bytes`` and against what the session's
messages already hold here unclaimed (``daskflow.bulk-max-buffered``); any
mismatch closes the connection, with a warning naming why. A handshake must
end within ``daskflow.bulk-handshake-timeout`` seconds and a message, once
begun, may stall at most ``daskflow.bulk-read-timeout`` seconds per read.
The receiver acknowledges each message once it has handed it on, so a send
completes only when the value is there; a send that fails (refused, or the
receiver restarted) is sent again on Dask's comms. Only ``tcp://`` workers
serve it; on TLS clusters (and where ``daskflow.bulk-transfers`` is false)
values keep to Dask's comms.

Between processes of one Linux machine the bytes need not cross a socket at
all: the receiver also listens on a Unix socket named after its token, and
a sender that reaches it (with the same handshake) sends each array's
address (the header's ``at``) instead; the receiver copies the arrays out of
the sender's memory while the sender waits for the acknowledgement
(:mod:`.inplace`), or answers ``RESEND`` and reads the bytes where the kernel
refuses.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import hmac
import logging
import math
import queue
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import msgpack
import numpy as np
from dask.utils import parse_bytes, parse_timedelta
from distributed.comm import get_address_host

from .. import dask_compat
from ..defaults import setting
from ..worker.state import find_state
from . import inplace
from .log_limit import OncePerPeer
from .trust import Credentials, Sessions, Unclaimed

__all__ = ["Credentials", "Sessions"]  # (their home is .trust; many callers know them as bulk's)

logger = logging.getLogger(__name__)

HANDLER = "daskflow_bulk_port"
_KINDS = frozenset("biufc")  # numeric and boolean dtypes: bytes with no code in them
_LENGTH = struct.Struct("<Q")
_NUMBER = struct.Struct("<Q")  # a message's number on its connection, under its MAC
MAX_HEADER = 1 << 20
MAX_ITEMS = 1 << 16  # items of one message: a push carries one per variable
MAX_DIMS = 64  # numpy's own limit
MAX_SESSION = 64  # bytes of a session id in a hello
HELLO = b"DFB1"  # what a receiver says first, with its challenge: protocol and version
CHALLENGE = 16
MAC = 32  # HMAC-SHA256
ACK = b"\x01"
RESEND = b"\x02"  # to a sender of addresses: the receiver could not read them, send the bytes
TIMEOUT = 60.0  # seconds a connection may stall before its send fails
IDLE = 120.0  # seconds a link to a receiver stays open unused
MAX_CONNECTIONS = 256  # per receiver: one per sending process and session is the normal case
MAX_HANDSHAKES = 32  # of those, not yet authenticated: strangers cannot take every slot
CLIENT_PLANS = 1024  # plans a client process remembers the credentials of (see ProgramRegistry)


class BulkFormatError(ValueError):
    """A connection or message refused (the connection is closed; nothing is delivered)."""


class Seal:
    """The MACs of one connection's headers, in order.

    Message ``n``'s MAC is HMAC-SHA256(secret, challenge || n || header): a
    header is taken only under the connection it was sent on, at its place.
    """

    def __init__(self, secret: bytes, challenge: bytes):
        self._keyed = hmac.new(secret, challenge, hashlib.sha256)
        self._count = 0

    def mac(self, head: bytes) -> bytes:
        h = self._keyed.copy()
        h.update(_NUMBER.pack(self._count))
        h.update(head)
        self._count += 1
        return h.digest()

    def frame(self, header: dict) -> bytes:
        """``header`` as it goes on the wire: its length, its msgpack bytes, their MAC."""
        head = msgpack.packb(header)
        return _LENGTH.pack(len(head)) + head + self.mac(head)


def hello_mac(secret: bytes, challenge: bytes) -> bytes:
    return hmac.digest(secret, challenge + b"hello", "sha256")


def handshake(sock, credentials: Credentials) -> Seal:
    """As a sender: answer the receiver's challenge on ``sock``; the connection's :class:`Seal`."""
    greeting = bytearray(len(HELLO) + CHALLENGE)
    if not _recv_into(sock, memoryview(greeting)) or greeting[: len(HELLO)] != HELLO:
        raise ConnectionError("the peer is not a daskflow bulk receiver")
    challenge = bytes(greeting[len(HELLO) :])
    session = credentials.session.encode("ascii")
    sock.sendall(bytes([len(session)]) + session + hello_mac(credentials.secret, challenge))
    return Seal(credentials.secret, challenge)


def eligible(items) -> bool:
    """Whether ``items`` (arrays, numpy scalars or None) can go by bulk: all numeric."""
    return all(
        v is None or ((type(v) is np.ndarray or isinstance(v, np.generic)) and v.dtype.kind in _KINDS)
        for v in items
    )


def _as_bytes(arr):
    """A flat uint8 view of a C-contiguous array (any numeric dtype, 0-d included)."""
    return arr.reshape(-1).view(np.uint8)


def describe(header: dict, items) -> tuple[dict, list]:
    """``header`` with the items' dtypes and shapes, and the items' buffers."""
    specs, buffers = [], []
    for v in items:
        if v is None:
            specs.append(None)
            continue
        arr = np.asarray(v)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        specs.append([arr.dtype.str, list(arr.shape), isinstance(v, np.generic)])
        buffers.append(_as_bytes(arr))
    return {**header, "items": specs}, buffers


def _seconds(key) -> float:
    """A duration from Dask's config: seconds, or a string such as ``"5s"``."""
    return float(parse_timedelta(setting(key), default="seconds"))


def _bytes(key) -> int:
    """A size from Dask's config: bytes, or a string such as ``"8GiB"``."""
    return int(parse_bytes(setting(key)))


def max_bytes() -> int:
    """``daskflow.bulk-max-bytes``: the largest message (or value on Dask's comms) a worker takes."""
    return _bytes("daskflow.bulk-max-bytes")


def max_buffered() -> int:
    """``daskflow.bulk-max-buffered``: a session's unclaimed bytes a worker holds at most."""
    return _bytes("daskflow.bulk-max-buffered")


def _recv_into(conn, view, deadline=None) -> bool:
    """Fill ``view`` from ``conn``; False if the peer closed before the first byte.

    ``deadline`` (``time.monotonic()``): the whole read must end by then, however
    the peer trickles its bytes (each read then waits only for what is left).
    """
    got = 0
    while got < len(view):
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            conn.settimeout(left)
        n = conn.recv_into(view[got:])
        if n == 0:
            if got == 0:
                return False
            raise BulkFormatError("the connection closed in the middle of a message")
        got += n
    return True


def _recv_exactly(conn, n: int, deadline=None) -> bytes:
    buffer = bytearray(n)
    if n and not _recv_into(conn, memoryview(buffer), deadline):
        raise BulkFormatError("the connection closed in the middle of a message")
    return bytes(buffer)


@dataclass
class Message:
    """What :func:`read_message` read: ``release`` frees its bytes from the session's count."""

    header: dict
    items: list
    in_place: bool
    release: Callable[[], None]


def _nothing():
    pass


def read_message(conn, seal, peer=None, token=None, reserve=None) -> Message | None:
    """The next message on ``conn``; None once the peer has closed between messages.

    ``seal``: the connection's (:class:`Seal`), which the header's MAC must
    match. ``peer``: the pid of the sender on this machine, which a header
    may ask to have its items read from (its ``at``: an address per item);
    where that fails, the items' bytes are asked for (``RESEND``) and read
    here. ``token``: the receiver's; a header naming another is refused.
    ``reserve(header, count, nbytes)``: the destination's consent to the
    message, as a function releasing its bytes, or BulkFormatError. All of
    this before any item is allocated or read. Once a message has begun,
    each read may stall at most ``daskflow.bulk-read-timeout`` seconds.
    """
    length = bytearray(_LENGTH.size)
    conn.settimeout(2 * IDLE)  # between messages: a sender's link closes itself after IDLE
    if not _recv_into(conn, memoryview(length)[:1]):
        return None
    conn.settimeout(_seconds("daskflow.bulk-read-timeout"))
    if not _recv_into(conn, memoryview(length)[1:]):
        raise BulkFormatError("the connection closed in the middle of a message")
    (n,) = _LENGTH.unpack(length)
    if n > MAX_HEADER:
        raise BulkFormatError(f"a header of {n} bytes (at most {MAX_HEADER})")
    head = _recv_exactly(conn, n)
    if not hmac.compare_digest(seal.mac(head), _recv_exactly(conn, MAC)):
        raise BulkFormatError("a header whose MAC does not match: not this session's, or replayed")
    header = _unpacked(head)
    if token is not None and header.pop("to", None) != token:
        raise BulkFormatError("a message for another receiver (this port was reused)")
    specs = [None if spec is None else _checked(spec) for spec in header.pop("items")]
    at = header.pop("at", None)
    total = sum(math.prod(spec[1]) * spec[0].itemsize for spec in specs if spec is not None)
    limit = max_bytes()
    if total > limit:
        raise BulkFormatError(f"a message of {total} bytes (daskflow.bulk-max-bytes: {limit})")
    release = reserve(header, len(specs), total) if reserve is not None else _nothing
    try:
        items, in_place = _read_items(conn, specs, at, peer)
    except BaseException:
        release()
        raise
    return Message(header, items, in_place, release)


def _unpacked(head: bytes) -> dict:
    """The header map in ``head``, its items a list: checked for shape only (see :func:`_checked`)."""
    try:
        header = msgpack.unpackb(head)
    except Exception as e:  # noqa: BLE001 - msgpack raises several kinds for malformed bytes
        raise BulkFormatError(f"a header that is not msgpack ({type(e).__name__})") from None
    if not isinstance(header, dict) or not isinstance(header.get("items"), list):
        raise BulkFormatError("a header that is not a map with a list of items")
    if len(header["items"]) > MAX_ITEMS:
        raise BulkFormatError(f"a message of {len(header['items'])} items (at most {MAX_ITEMS})")
    return header


def _read_items(conn, specs, at, peer):
    """The items ``specs`` describe, read in place (from ``at``) or off ``conn``."""
    arrays = [None if spec is None else np.empty(spec[1], spec[0]) for spec in specs]
    present = [arr for arr in arrays if arr is not None]
    in_place = at is not None and _read_in_place(peer, present, at)
    if in_place and not inplace.still_waiting(conn):
        raise BulkFormatError("the sender gave up before its arrays were read (they may be gone)")
    if at is not None and not in_place:
        conn.sendall(RESEND)
    if not in_place:
        for arr in present:
            if arr.nbytes and not _recv_into(conn, memoryview(_as_bytes(arr))):
                raise BulkFormatError("the connection closed in the middle of a message")
    items = [arr if spec is None or not spec[2] else arr[()] for spec, arr in zip(specs, arrays)]
    return items, in_place


def _read_in_place(peer, arrays, at) -> bool:
    """Fill ``arrays`` from the sender's memory at the addresses ``at``; False if not done
    (malformed addresses included: the bytes are asked for instead)."""
    if peer is None or not isinstance(at, list) or len(at) != len(arrays):
        return False
    if not all(type(a) is int and a >= 0 for a in at):
        return False
    return all(inplace.read(peer, address, _as_bytes(arr)) for arr, address in zip(arrays, at))


def _checked(spec):
    """(dtype, shape, scalar) of an item spec ``[dtype, shape, scalar]``, checked."""
    try:
        dtype_str, shape, scalar = spec
        if type(dtype_str) is not str or type(shape) is not list or type(scalar) is not bool:
            raise TypeError
        dtype = np.dtype(dtype_str)
        if not all(type(d) is int for d in shape):
            raise TypeError
    except (TypeError, ValueError):
        raise BulkFormatError(f"a malformed item {_short(spec)}") from None
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise BulkFormatError(f"an item of dtype {dtype}: only numeric arrays travel this way")
    if len(shape) > MAX_DIMS or any(d < 0 or d >= 2**62 for d in shape) or (scalar and shape):
        raise BulkFormatError(f"an item of shape {_short(shape)}")
    return dtype, tuple(shape), scalar


def _short(value, limit=120) -> str:
    """``repr(value)`` cut to ``limit`` characters: a peer's bytes in a log line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    the bytes each holds here (:class:`.trust.Unclaimed`). Both are the worker's, shared
    with its handlers on Dask's comms (:mod:`.transport`); new ones by default.
    """

    def __init__(self, host: str, deliver, check=None, sessions=None, unclaimed=None):
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
        self.received_in_place = 0  # of which read from the sender's memory (:mod:`.inplace`)
        self._local = inplace.listen(self.token) if in_place_enabled() else None
        for server in filter(None, [self._server, self._local]):
            accept = threading.Thread(target=self._accept, args=(server,), name="daskflow-bulk-accept")
            accept.daemon = True
            accept.start()

    def buffered(self, session: str) -> int:
        """Bytes of ``session``'s values delivered here and not yet claimed."""
        return self.unclaimed.held(session)

    def _accept(self, server):
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

    def _read(self, conn, peer, local):
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

    def _greet(self, conn) -> _Inbound:
        """Challenge a new connection; its session once it has proved it knows the secret."""
        timeout = _seconds("daskflow.bulk-handshake-timeout")
        deadline = time.monotonic() + timeout  # the whole handshake, not each read: no trickling
        conn.settimeout(timeout)
        challenge = secrets.token_bytes(CHALLENGE)
        try:
            conn.sendall(HELLO + challenge)
            size = bytearray(1)
            if not _recv_into(conn, memoryview(size), deadline):
                raise BulkFormatError("the peer closed without a hello")
            if not 0 < size[0] <= MAX_SESSION:
                raise BulkFormatError(f"a hello with a session id of {size[0]} bytes")
            answer = _recv_exactly(conn, size[0] + MAC, deadline)
        except TimeoutError:
            raise BulkFormatError(f"no hello in {timeout:g} s (daskflow.bulk-handshake-timeout)") from None
        raw, mac = answer[: size[0]], answer[size[0] :]
        session = raw.decode("ascii", "replace")
        secret = self.sessions.secret(session) if raw.isascii() else None
        if secret is None:
            raise BulkFormatError(f"a hello for session {_short(session)}, which has no plan on this worker")
        if not hmac.compare_digest(mac, hello_mac(secret, challenge)):
            raise BulkFormatError(f"a hello for session {_short(session)} with a wrong MAC (not its secret)")
        return _Inbound(session, secret, Seal(secret, challenge))

    def _reserve(self, inbound, header, count, nbytes):
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

    def _forget(self, conn):
        with self._lock:
            self._conns.discard(conn)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: nothing more is accepted or read."""
        return self._closed

    def close(self):
        with self._lock:
            self._closed = True
            conns, self._conns = list(self._conns), set()
        for s in [self._server, *filter(None, [self._local]), *conns]:
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked on it
            except OSError:
                pass
            s.close()


def _peer_name(conn) -> str:
    try:
        host, port, *_ = conn.getpeername()
    except (OSError, ValueError):
        return "a peer"
    return f"{host}:{port}"


class _Link:
    """One connection to a receiver for one session, written in order by its own thread.

    Jobs are queued under the module's lock, so none lands after the link
    closed; a link unused for ``IDLE`` seconds closes itself.
    """

    def __init__(self, where: tuple, credentials: Credentials):
        self.where = where
        self.key = (where, credentials.session)
        self.closed = False
        self._credentials = credentials
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._sock = None
        self._seal = None
        self.in_place = False  # whether this connection sends addresses (:mod:`.inplace`)
        threading.Thread(target=self._run, name="daskflow-bulk-send", daemon=True).start()

    def put(self, job):  # under _LOCK
        self._queue.put(job)

    def close(self):  # under _LOCK
        self.closed = True
        self._queue.put(None)

    def _run(self):
        while True:
            try:
                job = self._queue.get(timeout=IDLE)
            except queue.Empty:
                with _LOCK:
                    if self._queue.empty():
                        if _LINKS.get(self.key) is self:
                            del _LINKS[self.key]
                        self.closed = True
                        break
                continue
            if job is None or self.closed:  # closed (forgotten): what is queued falls back
                if job is not None:
                    _settle(job[2], ConnectionError("the link to this receiver closed"))
                break
            self._send(*job)
        self._drop()
        while not self._queue.empty():  # queued before close: fail them, the callers fall back
            job = self._queue.get()
            if job is not None:
                _settle(job[2], ConnectionError("the link to this receiver closed"))

    def _connect(self):
        """Over a Unix socket where the receiver is on this machine (:mod:`.inplace`), else TCP;
        then the handshake proving the session."""
        host, _, token = self.where
        self._sock = inplace.connect(host, token, TIMEOUT) if in_place_enabled() else None
        self.in_place = self._sock is not None
        if self._sock is None:
            self._sock = socket.create_connection(self.where[:2], timeout=TIMEOUT)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._seal = handshake(self._sock, self._credentials)

    def _send(self, header, buffers, done):
        try:
            if self._sock is None:
                self._connect()
            if self.in_place:
                self._sock.sendall(self._seal.frame({**header, "at": [b.ctypes.data for b in buffers]}))
                reply = self._sock.recv(1)
                if reply == RESEND:  # the kernel would not let it read here: bytes from now on
                    self.in_place = False
                    reply = self._send_bytes(buffers)
            else:
                self._sock.sendall(self._seal.frame(header))
                reply = self._send_bytes(buffers)
            if reply != ACK:  # b"": it closed instead (refused, or gone)
                raise ConnectionError(f"the receiver at {self.where[:2]} did not take the message")
        except Exception as e:  # noqa: BLE001 - the caller falls back to Dask's comms
            self._drop()
            _settle(done, e if isinstance(e, OSError) else ConnectionError(str(e)))
        else:
            _settle(done)

    def _send_bytes(self, buffers) -> bytes:
        """Write the items' bytes; the receiver's reply."""
        for b in buffers:
            self._sock.sendall(b)
        return self._sock.recv(1)

    def _drop(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            self._seal = None


def _settle(done, error=None):
    """Complete ``done``, unless its waiter has cancelled it (its event loop closed)."""
    try:
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
    except concurrent.futures.InvalidStateError:
        pass


# What a *sending process* knows: where each receiver listens and its open connections to
# them. Unlike a worker's receiver and session table (its state's), these are per process
# by nature: workers sharing a process send from the same process, so one connection per
# receiver and session serves them all, and a receiver's port is the same whoever asks.
_PORTS: dict = {}  # Dask address -> (host, bulk port, token), or None where it serves none
_LINKS: dict = {}  # ((host, port, token), session) -> _Link
_UNKNOWN = object()
_LOCK = threading.Lock()
# The client process's credentials, by plan: it sends fed values. Per process, for the
# same reason (a Session admits them when it makes its plans' registries, whatever
# cluster they go to). It hears of no session's close, so the least recently used are
# forgotten (their fed values then use Dask's comms).
CLIENT_SESSIONS = Sessions(limit=CLIENT_PLANS)


def known(address):
    """The bulk address of a Dask address looked up before (None: none, or not looked up)."""
    return _PORTS.get(address)


async def lookup(rpc, address):
    """The bulk address the worker at ``address`` serves, asked once; None where none."""
    found = _PORTS.get(address, _UNKNOWN)  # another thread may forget it meanwhile
    if found is not _UNKNOWN:
        return found
    found = None
    if address.startswith("tcp://"):
        try:
            served = await rpc(address).daskflow_bulk_port()
        except Exception:  # noqa: BLE001 - no such handler, or gone: Dask's comms it is
            served = None
        if served:
            port, token = served
            found = (get_address_host(address), int(port), str(token))
    _PORTS[address] = found
    return found


def in_place_enabled() -> bool:
    """Whether arrays between processes of one machine are read in place (:mod:`.inplace`)."""
    return inplace.AVAILABLE and bool(setting("daskflow.bulk-in-place"))


def submit(where, header, items, credentials: Credentials) -> concurrent.futures.Future:
    """Send one message to the bulk address ``where`` as ``credentials``' session, from the
    calling thread, without waiting."""
    described, buffers = describe({**header, "to": where[2]}, items)
    done: concurrent.futures.Future = concurrent.futures.Future()
    key = (where, credentials.session)
    with _LOCK:
        link = _LINKS.get(key)
        if link is None or link.closed:
            link = _LINKS[key] = _Link(where, credentials)
        link.put((described, buffers, done))
    return done


def close_links(session: str):
    """Close this process's links of ``session`` (it left): their threads end, and each
    receiver's reader of them sees the connection close and ends too."""
    with _LOCK:
        for key in [k for k in _LINKS if k[1] == session]:
            _LINKS.pop(key).close()


def forget(address):
    """After a failed transfer: look the worker up again next time (it may have restarted)."""
    where = _PORTS.pop(address, None)
    with _LOCK:
        for key in [k for k in _LINKS if k[0] == where]:
            _LINKS.pop(key).close()


async def send(rpc, address, header, items, credentials) -> bool:
    """Send ``items`` to the worker at ``address`` by bulk; False where it takes none
    (or ``credentials`` is None: no session to send as)."""
    if credentials is None:
        return False
    where = await lookup(rpc, address)
    if where is None:
        return False
    try:
        await asyncio.wrap_future(submit(where, header, items, credentials))
    except OSError:  # ConnectionError included
        forget(address)
        return False  # the caller sends it on Dask's comms, which say what is wrong
    return True


def serve(worker, deliver, check=None, sessions=None, unclaimed=None) -> Receiver | None:
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


def sessions_of(worker, state=None) -> Sessions | None:
    """The sessions ``worker`` takes values from and sends as, on its receiver and on Dask's
    comms alike (None: nothing installed daskflow there yet); ``worker`` None: the client
    process's. ``state``: ``worker``'s, where the caller has it."""
    if worker is None:
        return CLIENT_SESSIONS
    if state is None:
        state = find_state(worker)
    return None if state is None else state.trusted


def credentials(worker, plan: str) -> Credentials | None:
    """What ``worker`` (None: this client) sends ``plan``'s messages as; None: none (they are
    refused)."""
    table = sessions_of(worker)
    return None if table is None else table.credentials(plan)
