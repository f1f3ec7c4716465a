"""The bulk port's wire format: the handshake, each message's framing and MAC, its checks.

Both ends use this module: a sender (:mod:`.sender`) answers the receiver's
challenge with :func:`handshake` and frames each header with its
connection's :class:`Seal`; a receiver (:mod:`.receiver`) reads each message
with :func:`read_message`, which checks everything before it allocates or
reads an item. The format itself is described in :mod:`daskflow.runtime.wire.bulk`.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import socket
import struct
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgpack
import numpy as np
from dask.utils import parse_bytes, parse_timedelta

from ...defaults import setting
from .. import inplace
from ..trust import Credentials

HANDLER = "daskflow_bulk_port"  # the Dask rpc a worker answers with its receiver's address
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
IDLE = 120.0  # seconds a link to a receiver stays open unused
Spec = tuple[np.dtype, tuple[int, ...], bool]  # an item's dtype, shape and whether it is a numpy scalar


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


def handshake(sock: socket.socket, credentials: Credentials) -> Seal:
    """As a sender: answer the receiver's challenge on ``sock``; the connection's :class:`Seal`."""
    greeting = bytearray(len(HELLO) + CHALLENGE)
    if not recv_into(sock, memoryview(greeting)) or greeting[: len(HELLO)] != HELLO:
        raise ConnectionError("the peer is not a daskflow bulk receiver")
    challenge = bytes(greeting[len(HELLO) :])
    session = credentials.session.encode("ascii")
    sock.sendall(bytes([len(session)]) + session + hello_mac(credentials.secret, challenge))
    return Seal(credentials.secret, challenge)


def eligible(items: Iterable) -> bool:
    """Whether ``items`` (arrays, numpy scalars or None) can go by bulk: all numeric."""
    return all(
        v is None or ((type(v) is np.ndarray or isinstance(v, np.generic)) and v.dtype.kind in _KINDS)
        for v in items
    )


def as_bytes(arr: np.ndarray) -> np.ndarray:
    """A flat uint8 view of a C-contiguous array (any numeric dtype, 0-d included)."""
    return arr.reshape(-1).view(np.uint8)


def describe(header: dict, items: Iterable) -> tuple[dict, list]:
    """``header`` with the items' dtypes and shapes, and the items' buffers."""
    specs: list[list | None] = []
    buffers: list[np.ndarray] = []
    for v in items:
        if v is None:
            specs.append(None)
            continue
        arr = np.asarray(v)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        specs.append([arr.dtype.str, list(arr.shape), isinstance(v, np.generic)])
        buffers.append(as_bytes(arr))
    return {**header, "items": specs}, buffers


def _seconds(key: str) -> float:
    """A duration from Dask's config: seconds, or a string such as ``"5s"``."""
    return float(parse_timedelta(setting(key), default="seconds"))


def _bytes(key: str) -> int:
    """A size from Dask's config: bytes, or a string such as ``"8GiB"``."""
    return int(parse_bytes(setting(key)))


def max_bytes() -> int:
    """``daskflow.bulk-max-bytes``: the largest message (or value on Dask's comms) a worker takes."""
    return _bytes("daskflow.bulk-max-bytes")


def max_buffered() -> int:
    """``daskflow.bulk-max-buffered``: a session's unclaimed bytes a worker holds at most."""
    return _bytes("daskflow.bulk-max-buffered")


def handshake_timeout() -> float:
    """``daskflow.bulk-handshake-timeout``: seconds a new connection has to prove its session."""
    return _seconds("daskflow.bulk-handshake-timeout")


def read_timeout() -> float:
    """``daskflow.bulk-read-timeout``: seconds a begun message may stall per read."""
    return _seconds("daskflow.bulk-read-timeout")


def recv_into(conn: socket.socket, view: memoryview, deadline: float | None = None) -> bool:
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


def recv_exactly(conn: socket.socket, n: int, deadline: float | None = None) -> bytes:
    buffer = bytearray(n)
    if n and not recv_into(conn, memoryview(buffer), deadline):
        raise BulkFormatError("the connection closed in the middle of a message")
    return bytes(buffer)


@dataclass
class Message:
    """What :func:`read_message` read: ``release`` frees its bytes from the session's count."""

    header: dict
    items: list
    in_place: bool
    release: Callable[[], None]


def _nothing() -> None:
    pass


def read_message(
    conn: socket.socket,
    seal: Seal,
    peer: int | None = None,
    token: str | None = None,
    reserve: Callable[[dict, int, int], Callable[[], None]] | None = None,
) -> Message | None:
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
    if not recv_into(conn, memoryview(length)[:1]):
        return None
    conn.settimeout(read_timeout())
    if not recv_into(conn, memoryview(length)[1:]):
        raise BulkFormatError("the connection closed in the middle of a message")
    (n,) = _LENGTH.unpack(length)
    if n > MAX_HEADER:
        raise BulkFormatError(f"a header of {n} bytes (at most {MAX_HEADER})")
    head = recv_exactly(conn, n)
    if not hmac.compare_digest(seal.mac(head), recv_exactly(conn, MAC)):
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


def _read_items(
    conn: socket.socket, specs: list[Spec | None], at: Any, peer: int | None
) -> tuple[list, bool]:
    """The items ``specs`` describe, read in place (from ``at``) or off ``conn``."""
    arrays: list = [
        None if spec is None else np.empty(spec[1], spec[0]) for spec in specs
    ]  # None: a None item
    present = [arr for arr in arrays if arr is not None]
    in_place = at is not None and _read_in_place(peer, present, at)
    if in_place and not inplace.still_waiting(conn):
        raise BulkFormatError("the sender gave up before its arrays were read (they may be gone)")
    if at is not None and not in_place:
        conn.sendall(RESEND)
    if not in_place:
        for arr in present:
            if arr.nbytes and not recv_into(conn, as_bytes(arr).data):
                raise BulkFormatError("the connection closed in the middle of a message")
    items = [arr if spec is None or not spec[2] else arr[()] for spec, arr in zip(specs, arrays)]
    return items, in_place


def _read_in_place(peer: int | None, arrays: list[np.ndarray], at: Any) -> bool:
    """Fill ``arrays`` from the sender's memory at the addresses ``at``; False if not done
    (malformed addresses included: the bytes are asked for instead)."""
    if peer is None or not isinstance(at, list) or len(at) != len(arrays):
        return False
    if not all(type(a) is int and a >= 0 for a in at):
        return False
    return all(inplace.read(peer, address, as_bytes(arr)) for arr, address in zip(arrays, at))


def _checked(spec: Any) -> Spec:
    """(dtype, shape, scalar) of an item spec ``[dtype, shape, scalar]``, checked."""
    try:
        dtype_str, shape, scalar = spec
        if type(dtype_str) is not str or type(shape) is not list or type(scalar) is not bool:
            raise TypeError
        dtype = np.dtype(dtype_str)
        if not all(type(d) is int for d in shape):
            raise TypeError
    except (TypeError, ValueError):
        raise BulkFormatError(f"a malformed item {short(spec)}") from None
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise BulkFormatError(f"an item of dtype {dtype}: only numeric arrays travel this way")
    if len(shape) > MAX_DIMS or any(d < 0 or d >= 2**62 for d in shape) or (scalar and shape):
        raise BulkFormatError(f"an item of shape {short(shape)}")
    return dtype, tuple(shape), scalar


def short(value: object, limit: int = 120) -> str:
    """``repr(value)`` cut to ``limit`` characters: a peer's bytes in a log line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def in_place_enabled() -> bool:
    """Whether arrays between processes of one machine are read in place (:mod:`..inplace`)."""
    return inplace.AVAILABLE and bool(setting("daskflow.bulk-in-place"))
