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
for, and each item's dtype and shape) and the items' bytes: nothing received
is unpickled or evaluated, and a header naming a non-numeric dtype is
refused. Only ``tcp://`` workers serve it; on TLS clusters (and where the
Dask config ``daskflow.bulk-transfers`` is false) values keep to Dask's
comms.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import socket
import struct
import threading

import dask
import msgpack
import numpy as np
from distributed.comm.addressing import get_address_host

logger = logging.getLogger(__name__)

HANDLER = "daskflow_bulk_port"
_KINDS = frozenset("biufc")  # numeric and boolean dtypes: bytes with no code in them
_LENGTH = struct.Struct("<Q")
MAX_HEADER = 1 << 20


class BulkFormatError(ValueError):
    """A message that does not follow the wire format (refused, connection closed)."""


def eligible(items) -> bool:
    """Whether ``items`` (arrays, numpy scalars or None) can go by bulk: all numeric."""
    return all(
        v is None or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in _KINDS) for v in items
    )


def _as_bytes(arr):
    """A flat uint8 view of a C-contiguous array (any numeric dtype, 0-d included)."""
    return arr.reshape(-1).view(np.uint8)


def encode(header: dict, items) -> tuple[bytes, list]:
    """The header's bytes and the items' buffers of one message."""
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
    head = msgpack.packb({**header, "items": specs})
    return _LENGTH.pack(len(head)) + head, buffers


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


def read_message(conn):
    """(header, items) of the next message on ``conn``; None once the peer has closed."""
    length = bytearray(_LENGTH.size)
    if not _recv_into(conn, memoryview(length)):
        return None
    (n,) = _LENGTH.unpack(length)
    if n > MAX_HEADER:
        raise BulkFormatError(f"a header of {n} bytes (at most {MAX_HEADER})")
    head = bytearray(n)
    if n and not _recv_into(conn, memoryview(head)):
        raise BulkFormatError("the connection closed in the middle of a message")
    header = msgpack.unpackb(bytes(head))
    if not isinstance(header, dict) or not isinstance(header.get("items"), list):
        raise BulkFormatError("a header that is not a map with a list of items")
    items = []
    for spec in header.pop("items"):
        if spec is None:
            items.append(None)
            continue
        arr, scalar = _empty(spec)
        if arr.nbytes and not _recv_into(conn, memoryview(_as_bytes(arr))):
            raise BulkFormatError("the connection closed in the middle of a message")
        items.append(arr[()] if scalar else arr)
    return header, items


def _empty(spec):
    """The buffer an item spec ``[dtype, shape, scalar]`` describes, checked first."""
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
    return np.empty(shape, dtype), bool(scalar)


class Receiver:
    """Accepts connections on ``host``; hands each message to ``deliver(header, items)``.

    ``deliver`` runs on a reader thread; it should pass the message on to
    the event loop that owns its destination.
    """

    def __init__(self, host: str, deliver):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = socket.create_server((host, 0), family=family)
        self.port = self._server.getsockname()[1]
        self._deliver = deliver
        self._conns: set = set()
        self._lock = threading.Lock()
        self._closed = False
        self.received = 0  # messages handed on
        threading.Thread(target=self._accept, name="daskflow-bulk-accept", daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return  # closed
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._conns.add(conn)
            threading.Thread(target=self._read, args=(conn,), name="daskflow-bulk-read", daemon=True).start()

    def _read(self, conn):
        try:
            while (message := read_message(conn)) is not None:
                self._deliver(*message)
                with self._lock:
                    self.received += 1
        except (OSError, BulkFormatError, ValueError) as e:
            if not self._closed:
                logger.warning("daskflow refused a bulk transfer and closed its connection: %s", e)
        finally:
            with self._lock:
                self._conns.discard(conn)
            conn.close()

    def close(self):
        with self._lock:
            self._closed = True
            conns, self._conns = list(self._conns), set()
        for s in [self._server, *conns]:
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked on it
            except OSError:
                pass
            s.close()


class _Link:
    """One connection to a receiver, written in order by its own thread."""

    def __init__(self, address: tuple):
        self.address = address
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._sock = None
        threading.Thread(target=self._run, name="daskflow-bulk-send", daemon=True).start()

    def submit(self, head: bytes, buffers: list) -> concurrent.futures.Future:
        done: concurrent.futures.Future = concurrent.futures.Future()
        self._queue.put((head, buffers, done))
        return done

    def close(self):
        self._queue.put(None)

    def _run(self):
        while (job := self._queue.get()) is not None:
            head, buffers, done = job
            try:
                if self._sock is None:
                    self._sock = socket.create_connection(self.address, timeout=10)
                    self._sock.settimeout(None)
                    self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._sock.sendall(head)
                for b in buffers:
                    self._sock.sendall(b)
            except OSError as e:
                self._drop()
                done.set_exception(e)
            else:
                done.set_result(None)
        self._drop()

    def _drop(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None


_PORTS: dict = {}  # Dask address -> (host, bulk port), or None where it serves none
_LINKS: dict = {}  # (host, port) -> _Link
_LOCK = threading.Lock()


def known(address):
    """The bulk address of a Dask address looked up before (None: none, or not looked up)."""
    return _PORTS.get(address)


async def lookup(rpc, address):
    """The bulk address the worker at ``address`` serves, asked once; None where none."""
    if address in _PORTS:
        return _PORTS[address]
    found = None
    if address.startswith("tcp://"):
        try:
            port = await rpc(address).daskflow_bulk_port()
        except Exception:  # noqa: BLE001 - no such handler, or gone: Dask's comms it is
            port = None
        if port:
            found = (get_address_host(address), int(port))
    _PORTS[address] = found
    return found


def submit(where, header, items) -> concurrent.futures.Future:
    """Send one message to the bulk address ``where``, from the calling thread, without waiting."""
    head, buffers = encode(header, items)
    with _LOCK:
        link = _LINKS.get(where)
        if link is None:
            link = _LINKS[where] = _Link(where)
    return link.submit(head, buffers)


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
    except OSError:
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
    worker.handlers[HANDLER] = lambda: receiver.port
