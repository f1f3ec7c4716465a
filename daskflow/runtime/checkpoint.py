"""Checkpoint files: one ``.npy`` per variable, written and read where it lives.

These functions run wherever the variable's value is: in the session's
process when embedded, as a task on the variable's worker on a cluster — so
a checkpoint is written and restored in parallel and nothing passes through
the client. The format cannot execute code on load: ``.npy`` read with
``allow_pickle=False``, and a SHA-256 of each file's bytes in the manifest
catches a truncated or corrupt file before any variable changes.
"""

from __future__ import annotations

import hashlib
import io

import fsspec
import numpy as np

from ..errors import DataLossError
from ..kernels.devices import to_host


def write_variable(value, url) -> dict:
    """Write one value to ``url`` (any fsspec URL); return its manifest record."""
    array = np.asarray(to_host(value))  # (not ascontiguousarray: it makes scalars 1-d)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    data = buffer.getvalue()
    with fsspec.open(url, "wb") as f:
        f.write(data)
    return {
        "shape": list(array.shape),
        "dtype": array.dtype.name,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
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

    with fsspec.open(url, "rb") as f:
        f.seek(record["offset"])
        raw = f.read(record["size"])
    if len(raw) != record["size"] or (record.get("crc32c") is not None and masked(raw) != record["crc32c"]):
        name, where = record.get("name", "a tensor"), f"offset {record['offset']}"
        raise DataLossError(None, None, f"{url}: checksum mismatch for {name} at {where}")
    array = np.frombuffer(raw, dtype=np.dtype(record["dtype"]).newbyteorder("<")).reshape(record["shape"])
    array = array.astype(array.dtype.newbyteorder("="))  # a copy, in this machine's byte order
    array.flags.writeable = False
    return array
