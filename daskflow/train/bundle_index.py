"""Writing TF's checkpoint index: the ``<prefix>.index`` of a V2 tensor bundle.

The index is an SSTable (LevelDB's table format, as TF's ``table::TableBuilder``
writes it with compression off): data blocks of ``key -> BundleEntryProto`` in
key order, the empty key first holding the ``BundleHeaderProto`` (the number of
data shards, little-endian, version 1); an empty metaindex block; an index block
naming each data block by its last key; a footer. Each block carries a type byte
and its masked CRC-32C. The data shards themselves are written by
:func:`daskflow.runtime.checkpoint.write_shard`. What this writes is read back
by :mod:`daskflow.train.tensor_bundle` and by TensorFlow.
"""

from __future__ import annotations

import struct

import numpy as np

from .. import dtypes
from ..lib.io.crc32c import masked
from ..lib.io.proto_wire import length_delimited, tag, varint

MAGIC = 0xDB4775248B80FB57  # LevelDB's table magic number, which TF's tables keep
BLOCK_SIZE = 1 << 18  # TF's tables: 256 KiB blocks
RESTART_INTERVAL = 16
_VERSION = 1  # tensorflow::kTensorBundleVersion


def _number(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value) if value else b""


def header_proto(num_shards: int) -> bytes:
    """``BundleHeaderProto``: the shards, little-endian (0, left out), version 1."""
    return _number(1, num_shards) + length_delimited(3, _number(1, _VERSION))


def shape_proto(shape) -> bytes:
    return b"".join(length_delimited(2, _number(1, int(d))) for d in shape)


def entry_proto(record, shard_id) -> bytes:
    """``BundleEntryProto`` of a tensor written by ``write_shard`` into shard ``shard_id``."""
    dtype = dtypes.as_dtype(np.dtype(record["dtype"]))
    return (
        _number(1, dtype.as_datatype_enum)
        + length_delimited(2, shape_proto(record["shape"]))
        + _number(3, shard_id)
        + _number(4, record["offset"])
        + _number(5, record["size"])
        + tag(6, 5)
        + struct.pack("<I", record["crc32c"])
    )


class _Block:
    """One table block being built: prefix-compressed entries with restart points."""

    def __init__(self):
        self.data, self.restarts, self.count, self.last = bytearray(), [0], 0, b""

    def add(self, key: bytes, value: bytes):
        shared = 0
        if self.count % RESTART_INTERVAL == 0:
            if self.count:
                self.restarts.append(len(self.data))
        else:
            limit = min(len(key), len(self.last))
            while shared < limit and key[shared] == self.last[shared]:
                shared += 1
        self.data += varint(shared) + varint(len(key) - shared) + varint(len(value))
        self.data += key[shared:] + value
        self.last, self.count = key, self.count + 1

    def finish(self) -> bytes:
        return (
            bytes(self.data)
            + b"".join(struct.pack("<I", r) for r in self.restarts)
            + struct.pack("<I", len(self.restarts))
        )


def _handle(offset: int, size: int) -> bytes:
    return varint(offset) + varint(size)


def table(items) -> bytes:
    """An SSTable of ``(key, value)`` byte pairs, given in increasing key order."""
    out = bytearray()

    def emit(block: bytes) -> bytes:
        handle = _handle(len(out), len(block))
        out.extend(block + b"\0" + struct.pack("<I", masked(block + b"\0")))
        return handle

    index, block = _Block(), _Block()
    for key, value in items:
        block.add(key, value)
        if len(block.data) >= BLOCK_SIZE:
            index.add(block.last, emit(block.finish()))
            block = _Block()
    if block.count or not index.count:
        index.add(block.last, emit(block.finish()))
    metaindex = emit(_Block().finish())
    index_handle = emit(index.finish())
    footer = (metaindex + index_handle).ljust(40, b"\0") + struct.pack("<Q", MAGIC)
    return bytes(out + footer)


def index_bytes(records: dict, num_shards: int) -> bytes:
    """The ``.index`` of a checkpoint: ``records`` ``{name: record with shard_id}``."""
    items = [(b"", header_proto(num_shards))]
    items += [
        (name.encode(), entry_proto(records[name], records[name]["shard_id"])) for name in sorted(records)
    ]
    return table(items)
