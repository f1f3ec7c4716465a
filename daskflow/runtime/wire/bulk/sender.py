"""The bulk port's sending end: a thread per link, and what a sending process knows.

:func:`submit` queues a message on the link (:class:`_Link`: one connection
and thread per receiver and session) to a receiver found with
:func:`lookup`; :func:`send` does both and says whether the value went, so
the caller can fall back to Dask's comms. The credentials a process sends
as are its worker's (the sessions its state trusts, :class:`..endpoint.WorkerEnd`)
or, in the client, :data:`CLIENT_SESSIONS`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import socket
import threading
from collections.abc import Sequence
from typing import Any

from distributed.comm import get_address_host

from .. import inplace
from ..trust import Credentials, Sessions
from .protocol import ACK, IDLE, RESEND, Seal, describe, handshake, in_place_enabled

Job = tuple  # (header, buffers, concurrent Future): a message queued on a link

TIMEOUT = 60.0  # seconds a connection may stall before its send fails
CLIENT_PLANS = 1024  # plans a client process remembers the credentials of (see ProgramRegistry)


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
        self._sock: socket.socket | None = None
        self._seal: Seal | None = None
        self.in_place = False  # whether this connection sends addresses (:mod:`..inplace`)
        threading.Thread(target=self._run, name="daskflow-bulk-send", daemon=True).start()

    def put(self, job: Job) -> None:  # under _LOCK
        self._queue.put(job)

    def close(self) -> None:  # under _LOCK
        self.closed = True
        self._queue.put(None)

    def _run(self) -> None:
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

    def _connected(self) -> tuple[socket.socket, Seal]:
        """The link's connection and its seal; where it has none, connected first: over a Unix
        socket where the receiver is on this machine (:mod:`..inplace`), else TCP, then the
        handshake proving the session."""
        if self._sock is not None and self._seal is not None:
            return self._sock, self._seal
        host, _, token = self.where
        sock = inplace.connect(host, token, TIMEOUT) if in_place_enabled() else None
        self.in_place = sock is not None
        if sock is None:
            sock = socket.create_connection(self.where[:2], timeout=TIMEOUT)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock  # closed by _drop should the handshake fail
        self._seal = seal = handshake(sock, self._credentials)
        return sock, seal

    def _send(self, header: dict, buffers: list, done: concurrent.futures.Future) -> None:
        try:
            sock, seal = self._connected()
            if self.in_place:
                sock.sendall(seal.frame({**header, "at": [b.ctypes.data for b in buffers]}))
                reply = sock.recv(1)
                if reply == RESEND:  # the kernel would not let it read here: bytes from now on
                    self.in_place = False
                    reply = _send_bytes(sock, buffers)
            else:
                sock.sendall(seal.frame(header))
                reply = _send_bytes(sock, buffers)
            if reply != ACK:  # b"": it closed instead (refused, or gone)
                raise ConnectionError(f"the receiver at {self.where[:2]} did not take the message")
        except Exception as e:  # noqa: BLE001 - the caller falls back to Dask's comms
            self._drop()
            _settle(done, e if isinstance(e, OSError) else ConnectionError(str(e)))
        else:
            _settle(done)

    def _drop(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            self._seal = None


def _send_bytes(sock: socket.socket, buffers: list) -> bytes:
    """Write the items' bytes; the receiver's reply."""
    for b in buffers:
        sock.sendall(b)
    return sock.recv(1)


def _settle(done: concurrent.futures.Future, error: BaseException | None = None) -> None:
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


def known(address: str) -> tuple | None:
    """The bulk address of a Dask address looked up before (None: none, or not looked up)."""
    return _PORTS.get(address)


async def lookup(rpc: Any, address: str) -> tuple | None:
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


def submit(
    where: tuple, header: dict, items: Sequence, credentials: Credentials
) -> concurrent.futures.Future:
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


def close_links(session: str) -> None:
    """Close this process's links of ``session`` (it left): their threads end, and each
    receiver's reader of them sees the connection close and ends too."""
    with _LOCK:
        for key in [k for k in _LINKS if k[1] == session]:
            _LINKS.pop(key).close()


def forget(address: str) -> None:
    """After a failed transfer: look the worker up again next time (it may have restarted)."""
    where = _PORTS.pop(address, None)
    with _LOCK:
        for key in [k for k in _LINKS if k[0] == where]:
            _LINKS.pop(key).close()


async def send(
    rpc: Any, address: str, header: dict, items: Sequence, credentials: Credentials | None
) -> bool:
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
