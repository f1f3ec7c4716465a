"""Large tensors between processes over plain sockets, read on threads.

Dask's comms read a message on the event loop, woken for each chunk the
socket holds: moving a 3.2 MB array between two workers of one machine costs
about 1.9 ms of CPU on the two sides and 1.2 ms of wall time (measured here,
``distributed`` 2026.8), where a blocking socket read on a thread costs 0.8 ms
and 0.5 ms. A data-parallel step moves several such arrays — each tower's
gradients, the new variable values pushed to the towers, the fed batches —
and every millisecond of CPU spent moving them is taken from the towers.

So a worker running daskflow steps also listens on a second port of its
host (:class:`Receiver`), and values made only of numeric arrays go there
(:func:`send`), each over one connection per destination written by its own
thread (:class:`_Link`); small ones too: a Dask rpc, with its reply and the
``sizeof`` of every message, costs more than a write on a thread. What
arrives is handed to the worker's event loop, as Dask's comm handler would.

The wire format is an 8-byte length, a msgpack header (what the message is
for, the receiver's token, each item's dtype and shape) and the items'
bytes: nothing received is unpickled or evaluated, a header naming a
non-numeric dtype or more than ``daskflow.bulk-max-bytes`` is refused, and
the receiver acknowledges each message once it has handed it on, so a send
completes only when the value is there (a receiver that restarted, or another
one now on its port, fails the send and the caller uses Dask's comms). Only
``tcp://`` workers serve it; on TLS clusters (and where the Dask config
``daskflow.bulk-transfers`` is false) values keep to Dask's comms. Like Dask's
own ``tcp://`` comms, it is not authenticated; a receiver takes at most
``MAX_CONNECTIONS`` connections at once.

Between processes of one Linux machine the bytes need not cross a socket at
all: the receiver also listens on a Unix socket named after its token, and
a sender that reaches it sends each array's address (the header's ``at``)
instead; the receiver copies the arrays out of the sender's memory while
the sender waits for the acknowledgement (:mod:`.inplace`), or answers
``RESEND`` and reads the bytes where the kernel refuses.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import queue
import secrets
import socket
import struct
import threading

import dask
import msgpack
import numpy as np
from distributed.comm.addressing import get_address_host

from . import inplace

logger = logging.getLogger(__name__)

HANDLER = "daskflow_bulk_port"
_KINDS = frozenset("biufc")  # numeric and boolean dtypes: bytes with no code in them
_LENGTH = struct.Struct("<Q")
MAX_HEADER = 1 << 20
ACK = b"\x01"
RESEND = b"\x02"  # to a sender of addresses: the receiver could not read them, send the bytes
TIMEOUT = 60.0  # seconds a connection may stall before its send fails
IDLE = 120.0  # seconds a link to a receiver stays open unused
MAX_CONNECTIONS = 256  # per receiver: one per sending process is the normal case


class BulkFormatError(ValueError):
    """A message that does not follow the wire format (refused, connection closed)."""


def eligible(items) -> bool:
    """Whether ``items`` (arrays, numpy scalars or None) can go by bulk: all numeric."""
    return all(
        v is None or ((type(v) is np.ndarray or isinstance(v, np.generic)) and v.dtype.kind in _KINDS)
        for v in items
    )


def _as_bytes(arr):
    """A flat uint8 view of a C-contiguous array (any numeric dtype, 0-d included)."""
    return arr.reshape(-1).view(np.uint8)


def frame(header: dict) -> bytes:
    """A described header as it goes on the wire: its length, then its msgpack bytes."""
    head = msgpack.packb(header)
    return _LENGTH.pack(len(head)) + head


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


def _recv_into(conn, view) -> bool:
    """Fill ``view`` from ``conn``; False if the peer closed before the first byte."""
    got = 0
    while got < len(view):
        n = conn.recv_into(view[got:])
        if n == 0:
            if got == 0:
                return False
            raise BulkFormatError("the connection closed in the middle of a message")
        got += n
    return True


def read_message(conn, peer=None, token=None):
    """(header, items, read in place) of the next message on ``conn``; None once the peer has closed.

    ``peer``: the pid of the sender on this machine, which a header may ask
    to have its items read from (its ``at``: an address per item); where
    that fails, the items' bytes are asked for (``RESEND``) and read here.
    ``token``: the receiver's; a header naming another is refused before any
    item is allocated or read. Once a message has begun, each read may stall
    at most ``daskflow.bulk-read-timeout`` seconds (a sender that stops
    mid-message holds no reader for long).
    """
    length = bytearray(_LENGTH.size)
    conn.settimeout(2 * IDLE)  # between messages: a sender's link closes itself after IDLE
    if not _recv_into(conn, memoryview(length)):
        return None
    conn.settimeout(float(dask.config.get("daskflow.bulk-read-timeout", TIMEOUT)))
    (n,) = _LENGTH.unpack(length)
    if n > MAX_HEADER:
        raise BulkFormatError(f"a header of {n} bytes (at most {MAX_HEADER})")
    head = bytearray(n)
    if n and not _recv_into(conn, memoryview(head)):
        raise BulkFormatError("the connection closed in the middle of a message")
    header = msgpack.unpackb(bytes(head))
    if not isinstance(header, dict) or not isinstance(header.get("items"), list):
        raise BulkFormatError("a header that is not a map with a list of items")
    if token is not None and header.pop("to", None) != token:
        raise BulkFormatError("a message for another receiver (this port was reused)")
    specs = [None if spec is None else _checked(spec) for spec in header.pop("items")]
    total = sum(math.prod(spec[1]) * spec[0].itemsize for spec in specs if spec is not None)
    limit = dask.config.get("daskflow.bulk-max-bytes", 2**33)
    if total > limit:
        raise BulkFormatError(f"a message of {total} bytes (daskflow.bulk-max-bytes: {limit})")
    at = header.pop("at", None)
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
    return header, items, in_place


def _read_in_place(peer, arrays, at) -> bool:
    """Fill ``arrays`` from the sender's memory at the addresses ``at``; False if not done."""
    if peer is None or not isinstance(at, list) or len(at) != len(arrays):
        return False
    if not all(type(a) is int and a >= 0 for a in at):
        return False
    return all(inplace.read(peer, address, _as_bytes(arr)) for arr, address in zip(arrays, at))


def _checked(spec):
    """(dtype, shape, scalar) of an item spec ``[dtype, shape, scalar]``, checked."""
    try:
        dtype_str, shape, scalar = spec
        dtype = np.dtype(str(dtype_str))
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError) as e:
        raise BulkFormatError(f"a malformed item {spec!r}") from e
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise BulkFormatError(f"an item of dtype {dtype}: only numeric arrays travel this way")
    if any(d < 0 for d in shape):
        raise BulkFormatError(f"an item of shape {shape}")
    return dtype, shape, bool(scalar)


class Receiver:
    """Accepts connections on ``host``; hands each message to ``deliver(header, items)``.

    ``deliver`` runs on a reader thread; it should pass the message on to
    the event loop that owns its destination.
    """

    def __init__(self, host: str, deliver):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = socket.create_server((host, 0), family=family)
        self.port = self._server.getsockname()[1]
        self.token = secrets.token_hex(8)  # senders name the receiver they mean: ports get reused
        self.where = (host, self.port, self.token)  # what senders submit to
        self._deliver = deliver
        self._conns: set = set()
        self._lock = threading.Lock()
        self._closed = False
        self.received = 0  # messages handed on
        self.received_in_place = 0  # of which read from the sender's memory (:mod:`.inplace`)
        self._local = inplace.listen(self.token) if in_place_enabled() else None
        for server in filter(None, [self._server, self._local]):
            accept = threading.Thread(target=self._accept, args=(server,), name="daskflow-bulk-accept")
            accept.daemon = True
            accept.start()

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
                if len(self._conns) >= MAX_CONNECTIONS:  # its sender fails and uses Dask's comms
                    logger.warning("daskflow refused a bulk connection: %d open already", len(self._conns))
                    conn.close()
                    continue
                self._conns.add(conn)
            try:
                peer = inplace.peer_pid(conn) if local else None  # whose memory it may read
                reader = threading.Thread(target=self._read, args=(conn, peer), name="daskflow-read")
                reader.daemon = True
                reader.start()
            except RuntimeError:  # no more threads: the sender fails and uses Dask's comms
                self._forget(conn)
                conn.close()

    def _read(self, conn, peer):
        try:
            while (message := read_message(conn, peer, self.token)) is not None:
                header, items, in_place = message
                self._deliver(header, items)
                with self._lock:
                    self.received += 1
                    self.received_in_place += in_place
                conn.sendall(ACK)
        except (OSError, BulkFormatError, ValueError, MemoryError) as e:
            if not self._closed:
                logger.warning("daskflow refused a bulk transfer and closed its connection: %s", e)
        finally:
            self._forget(conn)
            conn.close()

    def _forget(self, conn):
        with self._lock:
            self._conns.discard(conn)

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


class _Link:
    """One connection to a receiver, written in order by its own thread.

    Jobs are queued under the module's lock, so none lands after the link
    closed; a link unused for ``IDLE`` seconds closes itself.
    """

    def __init__(self, where: tuple):
        self.where = where
        self.closed = False
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._sock = None
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
                        if _LINKS.get(self.where) is self:
                            del _LINKS[self.where]
                        self.closed = True
                        break
                continue
            if job is None:
                break
            self._send(*job)
        self._drop()
        while not self._queue.empty():  # queued before close: fail them, the callers fall back
            job = self._queue.get()
            if job is not None:
                _settle(job[2], ConnectionError("the link to this receiver closed"))

    def _connect(self):
        """Over a Unix socket where the receiver is on this machine (:mod:`.inplace`), else TCP."""
        host, _, token = self.where
        self._sock = inplace.connect(host, token, TIMEOUT) if in_place_enabled() else None
        self.in_place = self._sock is not None
        if self._sock is None:
            self._sock = socket.create_connection(self.where[:2], timeout=TIMEOUT)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, header, buffers, done):
        try:
            if self._sock is None:
                self._connect()
            if self.in_place:
                self._sock.sendall(frame({**header, "at": [b.ctypes.data for b in buffers]}))
                reply = self._sock.recv(1)
                if reply == RESEND:  # the kernel would not let it read here: bytes from now on
                    self.in_place = False
                    reply = self._send_bytes(buffers)
            else:
                self._sock.sendall(frame(header))
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


def _settle(done, error=None):
    """Complete ``done``, unless its waiter has cancelled it (its event loop closed)."""
    try:
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
    except concurrent.futures.InvalidStateError:
        pass


_PORTS: dict = {}  # Dask address -> (host, bulk port, token), or None where it serves none
_LINKS: dict = {}  # (host, port, token) -> _Link
_UNKNOWN = object()
_LOCK = threading.Lock()


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
    return inplace.AVAILABLE and bool(dask.config.get("daskflow.bulk-in-place", True))


def submit(where, header, items) -> concurrent.futures.Future:
    """Send one message to the bulk address ``where``, from the calling thread, without waiting."""
    described, buffers = describe({**header, "to": where[2]}, items)
    done: concurrent.futures.Future = concurrent.futures.Future()
    with _LOCK:
        link = _LINKS.get(where)
        if link is None or link.closed:
            link = _LINKS[where] = _Link(where)
        link.put((described, buffers, done))
    return done


def forget(address):
    """After a failed transfer: look the worker up again next time (it may have restarted)."""
    where = _PORTS.pop(address, None)
    with _LOCK:
        link = _LINKS.pop(where, None)
        if link is not None:
            link.close()


async def send(rpc, address, header, items) -> bool:
    """Send ``items`` to the worker at ``address`` by bulk; False where it takes none."""
    where = await lookup(rpc, address)
    if where is None:
        return False
    try:
        await asyncio.wrap_future(submit(where, header, items))
    except OSError:  # ConnectionError included
        forget(address)
        return False  # the caller sends it on Dask's comms, which say what is wrong
    return True


def serve(worker, deliver):
    """Start ``worker``'s receiver (idempotent); closed with the worker."""
    if "daskflow-bulk" in worker.extensions:
        return
    enabled = dask.config.get("daskflow.bulk-transfers", True)
    if not enabled or not worker.address.startswith("tcp://"):
        worker.handlers[HANDLER] = lambda: None
        return
    receiver = Receiver(get_address_host(worker.address), deliver)
    worker.extensions["daskflow-bulk"] = receiver  # Worker.close calls its close()
    worker.handlers[HANDLER] = lambda: [receiver.port, receiver.token]
