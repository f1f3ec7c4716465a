"""Reading TF's checkpoints: the V2 tensor bundle that TF1's ``Saver`` writes.

A bundle with prefix ``P`` is ``P.index``, an SSTable (LevelDB's table format,
uncompressed blocks) mapping each tensor's name to a ``BundleEntryProto``
(dtype, shape, shard, offset, size, CRC-32C), under the empty key a
``BundleHeaderProto`` (the number of shards); and ``P.data-SSSSS-of-NNNNN``,
the shards, holding each tensor's bytes, little-endian, at its offset. Every
block's CRC and every tensor's are checked as it is read: a damaged file is a
``DataLossError`` naming it.

The protos are decoded here, field by field: no package ships
``tensor_bundle.proto`` (tensorboard's and tensorboardX's copies of TF's protos
leave it out).
"""

from __future__ import annotations

import struct

import fsspec
import numpy as np

from .. import dtypes
from ..errors import DataLossError, NotFoundError, UnimplementedError
from ..lib.io.crc32c import masked
from ..lib.io.proto_wire import fields, read_varint
from ..runtime.checkpoint import read_variable
from .bundle_index import MAGIC

_FOOTER = 48


def _shape(data):
    """A ``TensorShapeProto``'s dims (None for an unknown rank)."""
    dims, unknown = [], False
    for number, value in fields(data):
        if number == 2:
            dims.append(dict(fields(value)).get(1, 0))
        elif number == 3:
            unknown = bool(value)
    return None if unknown else dims


def _entry(data):
    """A ``BundleEntryProto`` as a dict; ``slices``: the extents of a partitioned tensor's
    parts (each ``[(start, length)]``, length -1 for a whole dimension)."""
    entry = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": None, "slices": []}
    names = {1: "dtype", 3: "shard_id", 4: "offset", 5: "size", 6: "crc32c"}
    for number, value in fields(data):
        if number == 2:
            entry["shape"] = _shape(value)
        elif number == 7:
            entry["slices"].append(_extents(value))
        elif number in names:
            entry[names[number]] = value
    return entry


def _extents(data):
    """A ``TensorSliceProto`` 's extents: ``[(start, length)]``, length -1 for all of it."""
    extents = []
    for number, value in fields(data):
        if number == 1:
            extent = dict(fields(value))
            extents.append((extent.get(1, 0), extent.get(2, -1)))
    return extents


def _signed(value):
    """TF's ``OrderedCode::WriteSignedNumIncreasing``: the sign-extended big-endian bytes,
    as few as hold the value, the length in their leading bits."""
    magnitude = ~value if value < 0 else value
    length = 1
    while magnitude >= 1 << (7 * length - 1) and length < 10:
        length += 1
    raw = bytearray((value & ((1 << (8 * length)) - 1)).to_bytes(length, "big"))
    header = (0xFF00 >> length) & 0xFF if length <= 8 else 0xFF
    raw[0] ^= header
    if length > 8:
        raw[1] ^= (0xFF00 >> (length - 8)) & 0xFF
    return bytes(raw)


def slice_key(name, extents):
    """The index key of one part of a partitioned tensor (TF's ``EncodeTensorNameSlice``):
    0, the name (escaped, then ``00 01``), the rank and each extent's start and length."""
    escape = {0x00: b"\x00\xff", 0xFF: b"\xff\x00"}
    escaped = b"".join(escape.get(c, bytes([c])) for c in name.encode())
    key = b"\x00" + escaped + b"\x00\x01" + (bytes([1, len(extents)]) if extents else b"\x00")
    return key + b"".join(_signed(start) + _signed(length) for start, length in extents)


def _block(data, offset, size, path):
    """The contents of the table block at ``offset`` (its type and CRC checked)."""
    contents, trailer = data[offset : offset + size], data[offset + size : offset + size + 5]
    if len(trailer) != 5 or masked(contents + trailer[:1]) != struct.unpack("<I", trailer[1:])[0]:
        raise DataLossError(None, None, f"{path}: corrupted block at offset {offset}")
    if trailer[0] != 0:
        kind = trailer[0]
        raise UnimplementedError(None, None, f"{path}: compressed table blocks (type {kind}) are not read")
    return contents


def _entries(block):
    """``(key, value)`` of a table block, keys unfolded from their shared prefixes."""
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end, pos, key = len(block) - 4 - 4 * restarts, 0, b""
    while pos < end:
        shared, pos = read_varint(block, pos)
        unshared, pos = read_varint(block, pos)
        size, pos = read_varint(block, pos)
        key = key[:shared] + block[pos : pos + unshared]
        pos += unshared
        yield key, block[pos : pos + size]
        pos += size


def _handle(data, pos):
    offset, pos = read_varint(data, pos)
    size, pos = read_varint(data, pos)
    return (offset, size), pos


def read_table(data, path):
    """Every ``(key, value)`` of an SSTable's bytes, in key order."""
    if len(data) < _FOOTER or struct.unpack("<Q", data[-8:])[0] != MAGIC:
        raise DataLossError(None, None, f"{path}: not an SSTable (bad magic number)")
    footer = data[-_FOOTER:]
    _, pos = _handle(footer, 0)  # the metaindex: TF's tables keep nothing there
    index, _ = _handle(footer, pos)
    for _, handle in _entries(_block(data, *index, path)):
        (offset, size), _ = _handle(handle, 0)
        yield from _entries(_block(data, offset, size, path))


class Bundle:
    """One TF checkpoint (V2 bundle): its tensors' names, dtypes, shapes and values."""

    def __init__(self, prefix):
        self.prefix = prefix
        index = f"{prefix}.index"
        try:
            with fsspec.open(index, "rb") as f:
                data = f.read()
        except (OSError, ValueError):  # missing, or a path no file system can open
            raise NotFoundError(None, None, f"{index}: no such checkpoint index") from None
        table = dict(read_table(data, index))
        header = dict(fields(table.pop(b"", b"")))
        self.num_shards = header.get(1, 1)
        self.entries = {
            key.decode(): _entry(value) for key, value in table.items() if not key.startswith(b"\x00")
        }
        self._parts = {key: _entry(value) for key, value in table.items() if key.startswith(b"\x00")}

    def dtype(self, name):
        return dtypes.as_dtype(self.entries[name]["dtype"])

    def shape(self, name):
        return self.entries[name]["shape"]

    def record(self, name):
        """What :func:`~daskflow.runtime.checkpoint.read_variable` needs to read the tensor."""
        entry = self.entries[name]
        dtype = np.dtype(self.dtype(name).as_numpy_dtype).name
        if entry["slices"]:  # a partitioned variable: its parts, each with where it goes
            return {
                "name": name,
                "dtype": dtype,
                "shape": entry["shape"],
                "parts": self._part_records(name, entry),
            }
        fields = ("shape", "offset", "size", "crc32c")
        return {"name": name, "dtype": dtype, **{k: entry[k] for k in fields}}

    def _part_records(self, name, entry):
        parts = []
        for extents in entry["slices"]:
            part = self._parts.get(slice_key(name, extents))
            if part is None:
                raise DataLossError(
                    None, None, f"{self.prefix}.index: a part of {name} ({extents}) is missing"
                )
            where = [
                [start, start + length if length >= 0 else dim]
                for (start, length), dim in zip(extents, entry["shape"])
            ]
            record = {"name": name, "dtype": np.dtype(self.dtype(name).as_numpy_dtype).name}
            record.update({k: part[k] for k in ("shape", "offset", "size", "crc32c")})
            parts.append({"url": self._shard_url(part["shard_id"]), "record": record, "where": where})
        return parts

    def shard(self, name):
        """The URL of the data shard holding the tensor."""
        return self._shard_url(self.entries[name]["shard_id"])

    def _shard_url(self, shard_id):
        return f"{self.prefix}.data-{shard_id:05d}-of-{self.num_shards:05d}"

    def read(self, name):
        """The tensor's value, as a new numpy array (its CRC checked)."""
        return np.array(read_variable(self.shard(name), self.record(name)))
