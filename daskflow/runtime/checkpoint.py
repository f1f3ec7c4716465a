"""Checkpoint data, written and read where each variable lives.

These functions run wherever the variables' values are: in the session's process
when embedded, as a task on each worker on a cluster — so a checkpoint is written
and restored in parallel and nothing passes through the client. ``write_shard``
writes one data shard of TF's checkpoint format (a V2 tensor bundle: each tensor's
bytes, little-endian, one after another) and returns where each tensor went with
its masked CRC-32C, for the index the saver writes (:mod:`daskflow.train.bundle_index`).
``read_bundle_tensor`` reads one tensor back, its CRC checked before any variable
changes. ``read_variable`` also reads daskflow's first format (one ``.npy`` per
variable named by a manifest with SHA-256s, read with ``allow_pickle=False``).
"""

from __future__ import annotations

import hashlib
import io

import fsspec
import numpy as np

from ..errors import DataLossError, InvalidArgumentError, UnimplementedError
from ..kernels.devices import to_host
from ..lib.io.crc32c import extend, mask, masked
from ..lib.io.proto_wire import read_varint, varint

CHUNK = 1 << 24  # bytes written (and checksummed) at a time: a large tensor is not copied whole


def write_shard(url, names, *values) -> dict:
    """Write ``values`` (of variables ``names``) one after another into the data shard at
    ``url`` (any fsspec URL); return ``{name: record}`` (shape, dtype, offset, size, CRC)."""

    records, offset = {}, 0
    with fsspec.open(url, "wb") as f:
        for name, value in zip(names, values):
            array = np.asarray(to_host(value))
            if array.dtype.kind not in "biufcO":
                raise UnimplementedError(
                    None, None, f"variable {name}: {array.dtype} values are not written to checkpoints yet"
                )
            if array.dtype.kind == "O":
                chunk, crc = _string_tensor(array)
                f.write(chunk)
                size = len(chunk)
            else:
                crc, size = 0, 0
                for chunk in _number_chunks(array):
                    f.write(chunk)
                    crc, size = extend(crc, chunk), size + len(chunk)
                crc = mask(crc)
            shape, dtype = list(array.shape), array.dtype.name
            records[name] = {"shape": shape, "dtype": dtype, "offset": offset, "size": size, "crc32c": crc}
            offset += size
    return records


def _number_chunks(array):
    raw = np.ascontiguousarray(array.reshape(-1), dtype=array.dtype.newbyteorder("<")).view(np.uint8)
    for start in range(0, raw.size, CHUNK):
        yield raw[start : start + CHUNK].tobytes()


def _string_tensor(array):
    """A string tensor as TF's bundle holds it, and its masked CRC-32C as TF's index records
    it: each element's length (a varint), the masked CRC-32C of the lengths (each taken as
    4 bytes, little-endian; 8 beyond 4 GiB), then the elements' bytes. The tensor's CRC runs
    over those 4-byte lengths, the lengths' CRC and the elements' bytes."""

    items = array.reshape(-1).tolist()
    if not all(isinstance(v, (bytes, str)) for v in items):
        kinds = sorted({type(v).__name__ for v in items if not isinstance(v, (bytes, str))})
        raise InvalidArgumentError(
            None, None, f"a string tensor holds {kinds} values: only bytes and str are written"
        )
    items = [v if isinstance(v, bytes) else v.encode() for v in items]
    crc = 0
    for item in items:
        crc = extend(crc, _length_bytes(len(item)))
    lengths_crc = mask(crc).to_bytes(4, "little")
    crc = extend(crc, lengths_crc)
    for item in items:
        crc = extend(crc, item)
    data = b"".join(varint(len(item)) for item in items) + lengths_crc + b"".join(items)
    return data, mask(crc)


def _length_bytes(length):
    return length.to_bytes(4 if length <= 0xFFFFFFFF else 8, "little")


def _strings(raw, record, url):
    """The elements of a string tensor's bytes (see :func:`_string_tensor`), both its CRCs
    checked."""

    count, name = int(np.prod(record["shape"], dtype=np.int64)), record.get("name", "a tensor")
    if count > len(raw):  # each element takes a byte of length at least
        raise DataLossError(None, None, f"{url}: {name} claims {count} strings in {len(raw)} bytes")
    crc, lengths, pos = 0, [], 0
    for _ in range(count):
        try:
            length, pos = read_varint(raw, pos)
        except IndexError:
            raise DataLossError(None, None, f"{url}: the lengths of {name} are cut short") from None
        lengths.append(length)
        crc = extend(crc, _length_bytes(length))
    lengths_crc = raw[pos : pos + 4]
    if mask(crc).to_bytes(4, "little") != lengths_crc:
        raise DataLossError(
            None, None, f"{url}: checksum mismatch in the lengths of {record.get('name', 'a tensor')}"
        )
    crc, pos = extend(crc, lengths_crc), pos + 4
    items = np.empty(count, dtype=object)
    for i, length in enumerate(lengths):
        items[i], pos = raw[pos : pos + length], pos + length
        crc = extend(crc, items[i])
    if record.get("crc32c") is not None and mask(crc) != record["crc32c"]:
        raise DataLossError(None, None, f"{url}: checksum mismatch for {record.get('name', 'a tensor')}")
    return items.reshape(record["shape"])


def shard_groups(homes) -> list:
    """``[(worker address or None, [names])]``: the variables of each worker (``homes``:
    name -> a list of at most one address) in one shard, in the workers' order."""
    groups: dict = {}
    for name in sorted(homes):
        groups.setdefault(homes[name][0] if homes[name] else None, []).append(name)
    return sorted(groups.items(), key=lambda item: (item[0] is None, item[0] or ""))


def shard_records(written) -> dict:
    """The records of each shard's ``write_shard`` (in shard order), each with its shard."""
    return {
        name: {**record, "shard_id": i}
        for i, records in enumerate(written)
        for name, record in records.items()
    }


def read_variable(url, record) -> np.ndarray:
    """The value stored at ``url``, checked against its manifest ``record`` (a record with an
    ``offset`` is a tensor in a shard of TF's checkpoint: see :func:`read_bundle_tensor`; one
    with ``parts``, a partitioned tensor of TF's, put together from its parts)."""
    if "parts" in record:
        return _joined(record)
    if "offset" in record:
        return read_bundle_tensor(url, record)
    try:
        with fsspec.open(url, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise DataLossError(None, None, f"checkpoint file {url} is missing") from None
    if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
        raise DataLossError(
            None,
            None,
            f"checkpoint file {url} is truncated or corrupt ({len(data)} of {record['bytes']} bytes)",
        )
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as e:
        raise DataLossError(None, None, f"checkpoint file {url} is not a plain .npy array: {e}") from None
    if list(array.shape) != record["shape"] or array.dtype.name != record["dtype"]:
        raise DataLossError(None, None, f"checkpoint file {url} does not hold what its manifest says")
    array.flags.writeable = False
    return array


def _joined(record):
    """A partitioned tensor from its parts (``{url, record, where}``: each part's shard,
    its record and its ``[start, stop]`` in each dimension), which must cover it exactly."""
    shape, name = record["shape"], record.get("name", "a tensor")
    covered = np.zeros(shape, dtype=np.int8)
    array = np.empty(shape, dtype=np.dtype(record["dtype"]))
    for part in record["parts"]:
        where = tuple(slice(a, b) for a, b in part["where"])
        if list(covered[where].shape) != list(part["record"]["shape"]):
            raise DataLossError(
                None, None, f"{part['url']}: a part of {name} does not fit its place {part['where']}"
            )
        array[where] = read_bundle_tensor(part["url"], part["record"])
        covered[where] += 1
    if (covered != 1).any():
        raise DataLossError(None, None, f"the parts of {name} do not cover it exactly once")
    array.flags.writeable = False
    return array


def read_bundle_tensor(url, record) -> np.ndarray:
    """The tensor at ``record['offset']`` of a TF checkpoint shard (``size`` bytes,
    little-endian, its masked CRC-32C checked), shaped ``record['shape']``."""

    try:
        with fsspec.open(url, "rb") as f:
            f.seek(record["offset"])
            raw = f.read(record["size"])
    except FileNotFoundError:
        raise DataLossError(None, None, f"checkpoint file {url} is missing") from None
    strings = np.dtype(record["dtype"]).kind == "O"  # their CRC is TF's own (see _string_tensor)
    checked = record.get("crc32c") is not None and not strings
    if len(raw) != record["size"] or (checked and masked(raw) != record["crc32c"]):
        name, where = record.get("name", "a tensor"), f"offset {record['offset']}"
        raise DataLossError(None, None, f"{url}: checksum mismatch for {name} at {where}")
    if strings:
        array = _strings(raw, record, url)
    else:
        array = np.frombuffer(raw, dtype=np.dtype(record["dtype"]).newbyteorder("<")).reshape(record["shape"])
        array = array.astype(array.dtype.newbyteorder("="))  # a copy, in this machine's byte order
    array.flags.writeable = False
    return array
