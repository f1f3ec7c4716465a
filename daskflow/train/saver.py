"""``tf.train.Saver``: sharded, safe, atomic checkpoints to any fsspec URL.

A checkpoint ``<save_path>-<step>`` is a folder of ``.npy`` files, one per
variable (``<prefix>.data-<token>/00000.npy``..., a new folder per save), written where each variable lives
(see :mod:`daskflow.runtime.checkpoint`), then a manifest
``<prefix>.index.json`` naming each file with its shape, dtype, size and
SHA-256, then the folder's ``checkpoint`` state file (the latest and the
kept ones). The manifest is written last and whole, so a save that dies
half-way leaves the previous checkpoint the latest and intact. File names
are generated; no variable name becomes a path. Restoring checks the names,
shapes and dtypes against the graph and every file against the manifest
before any variable changes.
"""

from __future__ import annotations

import json
import posixpath
import re
import uuid

import fsspec

from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..variables import Variable, global_variables

FORMAT = "daskflow-checkpoint-1"
STATE = "checkpoint"


class Saver:
    """Save and restore variables.

    Parameters
    ----------
    var_list : list or dict of Variable, optional
        What to save: a list (keyed by op name) or ``{name: variable}``;
        default every global variable at construction, as in TF1.
    max_to_keep : int, optional
        Checkpoints kept; older ones are deleted after each save (None or 0:
        keep all).

    Examples
    --------
    >>> import daskflow as tf
    >>> v = tf.Variable(1.0, name="v")
    >>> saver = tf.train.Saver()
    >>> with tf.Session() as sess:
    ...     sess.run(v.initializer)
    ...     path = saver.save(sess, "memory://doctest/model", global_step=7)
    ...     saver.restore(sess, path)
    >>> tf.train.latest_checkpoint("memory://doctest")
    'memory://doctest/model-7'
    """

    def __init__(self, var_list=None, max_to_keep=5, **_tf1_options):
        self._vars = _named(var_list if var_list is not None else global_variables())
        self._max_to_keep = max_to_keep
        self.last_checkpoints: list[str] = []

    def save(self, sess, save_path, global_step=None, write_state=True):
        """Write a checkpoint; return its path prefix (``save_path-<step>`` with a step).

        Each save writes a new data folder; only its manifest, moved into place
        last, makes it the checkpoint — so saving again under the same prefix
        never touches the files the current manifest names.
        """
        step = _step_value(sess, global_step)
        prefix = save_path if step is None else f"{save_path}-{step}"
        fs, _ = fsspec.core.url_to_fs(prefix)
        names = sorted(self._vars)
        files = {name: f"{i:05d}.npy" for i, name in enumerate(names)}
        data = f"{posixpath.basename(prefix)}.data-{uuid.uuid4().hex[:8]}"
        folder = posixpath.join(posixpath.dirname(prefix), data)
        fs.makedirs(_fs_path(fs, folder), exist_ok=True)
        records = sess._write_checkpoint({name: f"{folder}/{files[name]}" for name in names})
        manifest = {
            "format": FORMAT,
            "global_step": step,
            "data": data,
            "variables": {name: {"file": files[name], **records[name]} for name in names},
        }
        _write_whole(fs, prefix + ".index.json", json.dumps(manifest, indent=1))
        _remove_data(fs, prefix, keep=data)  # an earlier save under this prefix
        if prefix in self.last_checkpoints:
            self.last_checkpoints.remove(prefix)
        self.last_checkpoints.append(prefix)
        keep = self._max_to_keep
        dropped = self.last_checkpoints[:-keep] if keep else []
        self.last_checkpoints = self.last_checkpoints[len(dropped) :]
        if write_state:  # before deleting: the state never names a checkpoint being deleted
            state = {
                "latest": posixpath.basename(prefix),
                "all": [posixpath.basename(p) for p in self.last_checkpoints],
            }
            _write_whole(fs, posixpath.join(posixpath.dirname(prefix), STATE), json.dumps(state))
        for old in dropped:
            _delete(fs, old)
        return prefix

    def restore(self, sess, save_path):
        """Set this saver's variables from a checkpoint, or raise and change nothing.

        As TF1's: the checkpoint may hold more variables than the saver (an
        evaluation graph without the optimizer's slots restores from a
        training checkpoint); one it lacks is a ``NotFoundError``, one held
        with another shape or dtype an ``InvalidArgumentError``. A path with
        no checkpoint is a ``ValueError`` naming it, as TF1's.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        try:
            manifest = read_manifest(save_path)
        except DataLossError:
            raise
        except (NotFoundError, ValueError, OSError) as e:
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path!r} ({e})") from None
        stored = manifest["variables"]
        missing = sorted(set(self._vars) - set(stored))
        wrong = [
            f"{name}: checkpoint {tuple(r['shape'])} {r['dtype']}, graph {v.shape} {v.dtype.name}"
            for name, v in sorted(self._vars.items())
            if (r := stored.get(name)) is not None and not _fits(v, r)
        ]
        if missing:
            raise NotFoundError(
                None,
                None,
                f"Key {missing[0]} not found in checkpoint {save_path}: "
                f"missing {missing}, mismatched {wrong}",
            )
        if wrong:
            raise InvalidArgumentError(
                None, None, f"checkpoint {save_path} does not match the graph: mismatched {wrong}"
            )
        folder = posixpath.join(posixpath.dirname(save_path), manifest["data"])
        files = {
            name: (f"{folder}/{stored[name]['file']}", stored[name], v.op.device)
            for name, v in self._vars.items()
        }
        sess._read_checkpoint(files)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path prefix of the newest complete checkpoint in ``checkpoint_dir``, or None."""
    fs, _ = fsspec.core.url_to_fs(checkpoint_dir)
    state_path = posixpath.join(checkpoint_dir.rstrip("/"), latest_filename or STATE)
    try:
        with fsspec.open(state_path, "r") as f:
            state = json.load(f)
        prefix = posixpath.join(checkpoint_dir.rstrip("/"), str(state["latest"]))
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None
    return prefix if fs.exists(_fs_path(fs, prefix + ".index.json")) else None


def read_manifest(save_path) -> dict:
    """A checkpoint's manifest, checked for shape; raises NotFoundError or DataLossError."""
    try:
        with fsspec.open(save_path + ".index.json", "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise NotFoundError(
            None, None, f"no checkpoint at {save_path} ({save_path}.index.json is missing)"
        ) from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
        ok = (
            manifest.get("format") == FORMAT
            and _plain_name(manifest.get("data"))
            and all(
                isinstance(r, dict)
                and {"file", "shape", "dtype", "bytes", "sha256"} <= set(r)
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


def _remove_data(fs, prefix, keep=None):
    """Delete the data folders of checkpoint ``prefix`` (except ``keep``)."""
    pattern = _fs_path(fs, prefix) + ".data-*"
    for path in fs.glob(pattern):
        if posixpath.basename(path) != keep:
            fs.rm(path, recursive=True)


def _delete(fs, prefix):
    # The manifest first: a half-deleted checkpoint is then no checkpoint at all.
    manifest = _fs_path(fs, prefix + ".index.json")
    if fs.exists(manifest):
        fs.rm(manifest)
    _remove_data(fs, prefix)


def _named(var_list):
    if isinstance(var_list, dict):
        named = dict(var_list)
    else:
        named = {}
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError(f"Saver: var_list holds {v!r}, not a Variable")
            if v.op.name in named:
                raise ValueError(f"Saver: variable {v.op.name} is listed twice")
            named[v.op.name] = v
    if not named:
        raise ValueError("Saver: no variables to save")
    return named


def _fits(variable, record):
    dims = variable.shape.dims
    shape_ok = dims is None or (
        len(dims) == len(record["shape"]) and all(d is None or d == s for d, s in zip(dims, record["shape"]))
    )
    return shape_ok and variable.dtype.name == record["dtype"]


def _step_value(sess, global_step):
    if global_step is None:
        return None
    if hasattr(global_step, "op") or hasattr(global_step, "_ref"):
        global_step = sess.run(global_step)
    return int(global_step)


def _fs_path(fs, url):
    return fs._strip_protocol(url)


def _write_whole(fs, url, text):
    """Write ``text`` to a temporary name, then move it into place."""
    tmp = url + ".tmp"
    with fs.open(_fs_path(fs, tmp), "w") as f:
        f.write(text)
    fs.mv(_fs_path(fs, tmp), _fs_path(fs, url))
