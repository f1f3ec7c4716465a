"""A checkpoint's files, in either format daskflow reads, behind one interface.

``<prefix>.index`` (+ ``<prefix>.data-SSSSS-of-NNNNN``) is TF's V2 tensor bundle, which
``Saver`` writes (:mod:`daskflow.train.bundle_index`) and TensorFlow reads and writes.
``<prefix>.index.json`` (+ a ``<prefix>.data-<token>/`` folder of ``.npy`` files) is
daskflow's first format, still read so that no checkpoint is lost. Where a prefix has
both, TF's is the newer (a save removes the other format's files after its index).
"""

from __future__ import annotations

import json
import posixpath
import re

import fsspec
import numpy as np

from ..errors import DataLossError, NotFoundError

FORMAT = "daskflow-checkpoint-1"


class StoredCheckpoint:
    """One checkpoint: ``shapes_and_dtypes`` of every tensor, and where each one's bytes are."""

    def __init__(self, prefix, bundle=None, manifest=None):
        self.prefix, self._bundle, self._manifest = prefix, bundle, manifest
        if bundle is not None:
            self.shapes_and_dtypes = {
                name: (bundle.shape(name), bundle.dtype(name).as_numpy_dtype) for name in bundle.entries
            }
        else:
            stored = manifest["variables"]
            self.shapes_and_dtypes = {name: (r["shape"], np.dtype(r["dtype"])) for name, r in stored.items()}

    def record(self, name) -> dict:
        """What :func:`daskflow.runtime.checkpoint.read_variable` needs to read ``name``."""
        if self._bundle is not None:
            return self._bundle.record(name)
        return self._manifest["variables"][name]

    def url(self, name) -> str:
        """The file holding ``name``'s bytes."""
        if self._bundle is not None:
            return self._bundle.shard(name)
        folder = posixpath.join(posixpath.dirname(self.prefix), self._manifest["data"])
        return f"{folder}/{self._manifest['variables'][name]['file']}"

    def read(self, name) -> np.ndarray:
        """``name``'s value, as a new array, its checksum checked."""
        # local import: the checkpoint reader (numpy and fsspec; no dask) loads with the first read
        from ..runtime.checkpoint import read_variable

        return np.array(read_variable(self.url(name), self.record(name)))


def open_checkpoint(prefix) -> StoredCheckpoint:
    """The checkpoint at ``prefix``: ``NotFoundError`` if there is none, ``DataLossError``
    if its index or manifest is damaged."""
    from .tensor_bundle import Bundle  # local import: the bundle format loads with the first checkpoint

    try:
        return StoredCheckpoint(prefix, bundle=Bundle(prefix))
    except NotFoundError:
        pass
    return StoredCheckpoint(prefix, manifest=read_manifest(prefix))


def read_manifest(save_path) -> dict:
    """A checkpoint's manifest (daskflow's first format), checked for shape; raises
    NotFoundError or DataLossError."""
    try:
        with fsspec.open(save_path + ".index.json", "rb") as f:
            raw = f.read()
    except (OSError, ValueError):  # missing, or a path no file system can open
        raise NotFoundError(
            None, None, f"no checkpoint at {save_path} ({save_path}.index and .index.json are missing)"
        ) from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
        ok = (
            manifest.get("format") == FORMAT
            and _plain_name(manifest.get("data"))
            and all(
                isinstance(r, dict)
                and set(r) == {"file", "shape", "dtype", "bytes", "sha256"}  # only these: read by kind
                and _plain_name(r["file"])
                for r in manifest["variables"].values()
            )
        )
    except (ValueError, AttributeError, KeyError, TypeError):
        ok = False
    if not ok:
        raise DataLossError(None, None, f"{save_path}.index.json is not a daskflow checkpoint manifest")
    return manifest


def _plain_name(name) -> bool:
    """A file or folder name of ours: no separators, no way out of the folder."""
    return isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", name) is not None and ".." not in name


def shard_name(prefix, shard, shards) -> str:
    return f"{prefix}.data-{shard:05d}-of-{shards:05d}"


def remove_files(fs, prefix, keep=(), only=None):
    """Delete checkpoint ``prefix``'s data (TF's shards, daskflow's folders, half-written
    files), except the paths in ``keep``; with ``only``, just the names ending in it.
    (The folder is listed and names compared: a prefix is no glob pattern.)"""
    folder, base = posixpath.split(fs._strip_protocol(prefix))
    try:
        paths = fs.ls(folder or ".", detail=False)
    except FileNotFoundError:
        return
    for path in paths:
        name = posixpath.basename(path.rstrip("/"))
        if not name.startswith(base + ".data-") or path in keep or (only and not name.endswith(only)):
            continue
        fs.rm(path, recursive=True)


def delete_checkpoint(fs, prefix):
    """Delete checkpoint ``prefix``: its index or manifest first, so that a half-deleted
    checkpoint is no checkpoint at all, then its data."""
    for index in (prefix + ".index", prefix + ".index.json"):
        if fs.exists(fs._strip_protocol(index)):
            fs.rm(fs._strip_protocol(index))
    remove_files(fs, prefix)
