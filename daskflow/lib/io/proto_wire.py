"""Protocol buffers' wire format, the few pieces daskflow writes and reads by hand: for
the protos no installed package ships (TF's checkpoint index entries) and for messages
built without protobuf (``ConfigProto``, ``MetaGraphDef``'s frame)."""

from __future__ import annotations

import struct


def varint(n: int) -> bytes:
    """``n`` as a base-128 varint (a negative number takes ten bytes, as protobuf writes it)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tag(number: int, kind: int) -> bytes:
    """A field's key: its number and wire type (0 varint, 1 fixed64, 2 bytes, 5 fixed32)."""
    return varint(number << 3 | kind)


def length_delimited(number: int, body: bytes) -> bytes:
    """Field ``number`` holding ``body`` (bytes, a string or a nested message)."""
    return tag(number, 2) + varint(len(body)) + body


def read_varint(data, pos: int) -> tuple[int, int]:
    """(value, next position) of the varint at ``pos``."""
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(data):
    """``(field number, value)`` of a message's wire bytes (varints, fixed32/64 and bytes)."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, pos = read_varint(data, pos)
        elif kind == 1:
            value, pos = struct.unpack_from("<Q", data, pos)[0], pos + 8
        elif kind == 2:
            size, pos = read_varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif kind == 5:
            value, pos = struct.unpack_from("<I", data, pos)[0], pos + 4
        else:
            raise ValueError(f"wire type {kind} of field {number}")
        yield number, value
