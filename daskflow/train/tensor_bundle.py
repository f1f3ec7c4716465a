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
from ..runtime.checkpoint import read_bundle_tensor
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
    """A ``BundleEntryProto`` as a dict."""
    entry = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": None, "slices": 0}
    names = {1: "dtype", 3: "shard_id", 4: "offset", 5: "size", 6: "crc32c"}
    for number, value in fields(data):
        if number == 2:
            entry["shape"] = _shape(value)
        elif number == 7:
            entry["slices"] += 1
        elif number in names:
            entry[names[number]] = value
    return entry


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
        self.entries = {key.decode(): _entry(value) for key, value in table.items()}

    def dtype(self, name):
        return dtypes.as_dtype(self.entries[name]["dtype"])

    def shape(self, name):
        return self.entries[name]["shape"]

    def record(self, name):
        """What :func:`~daskflow.runtime.checkpoint.read_variable` needs to read the tensor."""
        entry = self.entries[name]
        if entry["slices"]:
            raise UnimplementedError(None, None, f"{name}: partitioned (sliced) variables are not read yet")
        dtype = self.dtype(name)
        if dtype == dtypes.string:
            raise UnimplementedError(None, None, f"{name}: string tensors in checkpoints are not read yet")
        fields = ("shape", "offset", "size", "crc32c")
        return {"name": name, "dtype": np.dtype(dtype.as_numpy_dtype).name, **{k: entry[k] for k in fields}}

    def shard(self, name):
        """The URL of the data shard holding the tensor."""
        return f"{self.prefix}.data-{self.entries[name]['shard_id']:05d}-of-{self.num_shards:05d}"

    def read(self, name):
        """The tensor's value, as a new numpy array (its CRC checked)."""
        return np.array(read_bundle_tensor(self.shard(name), self.record(name)))
