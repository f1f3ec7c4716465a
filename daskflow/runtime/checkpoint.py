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

from ..errors import DataLossError, UnimplementedError
from ..kernels.devices import to_host

CHUNK = 1 << 24  # bytes written (and checksummed) at a time: a large tensor is not copied whole


def write_shard(url, names, *values) -> dict:
    """Write ``values`` (of variables ``names``) one after another into the data shard at
    ``url`` (any fsspec URL); return ``{name: record}`` (shape, dtype, offset, size, CRC)."""
    from ..lib.io.crc32c import extend, mask

    records, offset = {}, 0
    with fsspec.open(url, "wb") as f:
        for name, value in zip(names, values):
            array = np.asarray(to_host(value))
            if array.dtype.kind not in "biufc":
                raise UnimplementedError(
                    None, None, f"variable {name}: {array.dtype} values are not written to checkpoints yet"
                )
            raw = np.ascontiguousarray(array.reshape(-1), dtype=array.dtype.newbyteorder("<")).view(np.uint8)
            crc = 0
            for start in range(0, raw.size, CHUNK):
                chunk = raw[start : start + CHUNK].tobytes()
                f.write(chunk)
                crc = extend(crc, chunk)
            shape, dtype = list(array.shape), array.dtype.name
            records[name] = {
                "shape": shape,
                "dtype": dtype,
                "offset": offset,
                "size": raw.size,
                "crc32c": mask(crc),
            }
            offset += raw.size
    return records


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
    ``offset`` is a tensor in a shard of TF's checkpoint: see :func:`read_bundle_tensor`)."""
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


def read_bundle_tensor(url, record) -> np.ndarray:
    """The tensor at ``record['offset']`` of a TF checkpoint shard (``size`` bytes,
    little-endian, its masked CRC-32C checked), shaped ``record['shape']``."""
    from ..lib.io.crc32c import masked

    try:
        with fsspec.open(url, "rb") as f:
            f.seek(record["offset"])
            raw = f.read(record["size"])
    except FileNotFoundError:
        raise DataLossError(None, None, f"checkpoint file {url} is missing") from None
    if len(raw) != record["size"] or (record.get("crc32c") is not None and masked(raw) != record["crc32c"]):
        name, where = record.get("name", "a tensor"), f"offset {record['offset']}"
        raise DataLossError(None, None, f"{url}: checksum mismatch for {name} at {where}")
    array = np.frombuffer(raw, dtype=np.dtype(record["dtype"]).newbyteorder("<")).reshape(record["shape"])
    array = array.astype(array.dtype.newbyteorder("="))  # a copy, in this machine's byte order
    array.flags.writeable = False
    return array
