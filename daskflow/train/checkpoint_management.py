"""TF1's checkpoint state: the ``checkpoint`` file naming a folder's checkpoints.

A folder a ``Saver`` writes into holds, beside the checkpoints, a small text
file (``checkpoint`` unless ``latest_filename`` names another) in protobuf's
text format, as TF1 writes it::

    model_checkpoint_path: "/tmp/run/model-300"
    all_model_checkpoint_paths: "/tmp/run/model-200"
    all_model_checkpoint_paths: "/tmp/run/model-300"

The functions here are TF1's, with TF1's names, arguments and rules: paths
under a relative folder are written relative to it and read back joined to
it; a file that does not parse is ignored with a warning; the newest path is
appended to the list when missing. Paths may be any fsspec URL
(``memory://``, ``s3://``...); a URL counts as absolute. A checkpoint here is
TF's (``<prefix>.index`` and its data shards, which ``Saver`` writes: see
:mod:`daskflow.train.saver`) or one of daskflow's first format
(``<prefix>.index.json`` and its data folder). State files written by earlier
daskflow versions (JSON) are still read.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
import time

import fsspec

from ..errors import NotFoundError
from .checkpoint_files import delete_checkpoint

__all__ = [
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
]

logger = logging.getLogger(__name__)

STATE = "checkpoint"
MANIFEST = ".index.json"  # daskflow's first format: the manifest names everything else
TF_INDEX = ".index"  # TF's V2 checkpoint


def CheckpointState(**fields):  # noqa: N802 - TF's message name
    """TF's ``CheckpointState`` message (``model_checkpoint_path``, ``all_model_checkpoint_paths``,
    ``all_model_checkpoint_timestamps``, ``last_preserved_timestamp``)."""
    # local import: the message schemas load on first use, not with `import daskflow`
    from ..runtime.messages import message_class

    return message_class("CheckpointState")(**fields)


def _is_absolute(path) -> bool:
    return "://" in path or posixpath.isabs(path)


def _relative(path, folder):
    return posixpath.relpath(path, folder) if folder else path


def _state_file(checkpoint_dir, latest_filename):
    return posixpath.join(checkpoint_dir, latest_filename or STATE)


def generate_checkpoint_state_proto(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
):
    """A ``CheckpointState`` for ``save_dir``, as TF1 makes it.

    ``model_checkpoint_path`` is appended to ``all_model_checkpoint_paths``
    unless it is already last; under a relative ``save_dir`` relative paths
    are made relative to it.

    Raises
    ------
    ValueError
        Timestamps given that do not match the paths one for one.

    Examples
    --------
    >>> import daskflow as tf
    >>> print(tf.train.generate_checkpoint_state_proto("run", "run/model-2", ["run/model-1"]), end="")
    model_checkpoint_path: "model-2"
    all_model_checkpoint_paths: "model-1"
    all_model_checkpoint_paths: "model-2"
    """
    save_dir, model_checkpoint_path = os.fspath(save_dir), os.fspath(model_checkpoint_path)
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    if not paths or paths[-1] != model_checkpoint_path:
        logger.info("%s is not in all_model_checkpoint_paths. Manually adding it.", model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{paths} and timestamps {list(all_model_checkpoint_timestamps)})"
        )
    if not _is_absolute(save_dir):  # TF1: paths under a relative folder are kept relative to it
        if not _is_absolute(model_checkpoint_path):
            model_checkpoint_path = _relative(model_checkpoint_path, save_dir)
        paths = [p if _is_absolute(p) else _relative(p, save_dir) for p in paths]
    return CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )


def update_checkpoint_state(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
):
    """Write the ``checkpoint`` file of ``save_dir`` (TF1's function; the write is atomic).

    Raises
    ------
    RuntimeError
        ``model_checkpoint_path`` is the state file itself.
    """
    _update_state(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths,
        latest_filename,
        False,
        all_model_checkpoint_timestamps,
        last_preserved_timestamp,
    )


def _update_state(save_dir, path, all_paths, latest_filename, relative, timestamps=None, preserved=None):
    """TF1's ``update_checkpoint_state_internal``: ``relative`` writes paths relative to
    ``save_dir`` (``Saver(save_relative_paths=True)``)."""
    save_dir = os.fspath(save_dir)
    state_file = _state_file(save_dir, latest_filename)
    if relative:
        path = _relative(path, save_dir) if _is_absolute(path) else path
        all_paths = [_relative(p, save_dir) if _is_absolute(p) else p for p in (all_paths or [])]
    state = generate_checkpoint_state_proto(save_dir, path, all_paths, timestamps, preserved)
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{path}' conflicts with path used for checkpoint state.  "
            "Please use a different save path."
        )
    fs, _ = fsspec.core.url_to_fs(state_file)
    write_whole(fs, state_file, str(state))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` in ``checkpoint_dir``'s ``checkpoint`` file, or None.

    Relative paths come back joined to ``checkpoint_dir``, as TF1's. A file
    that does not parse is ignored (None, with a warning).

    Raises
    ------
    ValueError
        The file parses but names no checkpoint.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.train.update_checkpoint_state("memory://state-doc", "memory://state-doc/model-3")
    >>> state = tf.train.get_checkpoint_state("memory://state-doc")
    >>> state.model_checkpoint_path, list(state.all_model_checkpoint_paths)
    ('memory://state-doc/model-3', ['memory://state-doc/model-3'])
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state_file = _state_file(checkpoint_dir, latest_filename)
    try:
        with fsspec.open(state_file, "r") as f:
            text = f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    from ..runtime.messages import TextParseError  # local import: the message schemas, on first use

    try:
        state = _parse_state(text)
    except TextParseError as e:
        logger.warning("%s: %s", type(e).__name__, e)
        logger.warning("%s: Checkpoint ignored", state_file)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    state.model_checkpoint_path = _within(state.model_checkpoint_path, checkpoint_dir, state_file)
    paths = state.all_model_checkpoint_paths
    paths[:] = [_within(p, checkpoint_dir, state_file) for p in paths]
    return state


def _within(path, checkpoint_dir, state_file):
    """A path the state file names, joined to its folder when relative (as TF1's). One
    outside the folder is refused, unless the folder holds a checkpoint of its name (the
    folder was moved since TF wrote absolute paths)."""
    joined = path if _is_absolute(path) else posixpath.join(checkpoint_dir, path)
    if _split(joined)[0] == _split(checkpoint_dir)[0] and _inside(
        _split(joined)[1], _split(checkpoint_dir)[1]
    ):
        return joined
    moved = posixpath.join(checkpoint_dir, posixpath.basename(path))
    if checkpoint_exists(moved):
        logger.warning("%s names %s, outside its folder: using %s", state_file, path, moved)
        return moved
    raise ValueError(f"{state_file} names the checkpoint {path!r}, outside its folder {checkpoint_dir!r}")


def _split(path):
    """``(protocol, normalized path)``: ``memory://a/../b`` is ``("memory", "/b")``."""
    protocol, sep, rest = path.partition("://")
    if not sep:
        protocol, rest = "", path
    return protocol, posixpath.normpath("/" + rest if protocol else posixpath.abspath(rest))


def _inside(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _parse_state(text):
    from ..runtime.messages import TextParseError, parse_text  # local import: the schemas, on first use

    if text.lstrip().startswith("{"):  # written by daskflow before it wrote TF's format
        try:
            legacy = json.loads(text)
            return CheckpointState(
                model_checkpoint_path=str(legacy["latest"]), all_model_checkpoint_paths=legacy.get("all", [])
            )
        except (ValueError, KeyError, TypeError) as e:
            raise TextParseError(f"not a checkpoint state: {e}") from None
    return parse_text(text, CheckpointState())


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None (TF1's function).

    The one the ``checkpoint`` file names, if its files are there.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.train.latest_checkpoint("memory://no-such-folder") is None
    True
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        logger.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def checkpoints_in(checkpoint_dir):
    """The prefixes of the checkpoints in ``checkpoint_dir`` (TF's ``.index`` files),
    newest first by the files' times."""
    fs, path = fsspec.core.url_to_fs(os.fspath(checkpoint_dir))
    try:
        entries = fs.ls(path, detail=True)
    except (FileNotFoundError, NotADirectoryError):
        return []
    index = [e for e in entries if e["name"].endswith(TF_INDEX)]
    index.sort(key=lambda e: (_modified(fs, e), e["name"]), reverse=True)
    base = os.fspath(checkpoint_dir)
    return [posixpath.join(base, posixpath.basename(e["name"])[: -len(TF_INDEX)]) for e in index]


def _modified(fs, entry):
    try:
        return fs.modified(entry["name"]).timestamp()
    except (NotImplementedError, AttributeError, OSError):
        return 0.0


def _matching(pattern):
    fs, _ = fsspec.core.url_to_fs(pattern)
    return fs.glob(fs._strip_protocol(pattern)), fs


def _first_file(prefix):
    """The file that says a checkpoint is there: TF's index, a manifest, or the prefix."""
    for candidate in (prefix + TF_INDEX, prefix + MANIFEST, prefix):
        names, fs = _matching(candidate)
        if names:
            return names[0], fs
    return None, None


def checkpoint_exists(checkpoint_prefix):
    """Whether a checkpoint with this prefix is there (TF1's function).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.train.checkpoint_exists("memory://no-such-folder/model-1")
    False
    """
    return _first_file(os.fspath(checkpoint_prefix))[0] is not None


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times (seconds since the epoch) of the checkpoints that exist, in order.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.train.get_checkpoint_mtimes(["memory://no-such-folder/model-1"])
    []
    """
    times = []
    for prefix in checkpoint_prefixes:
        name, fs = _first_file(os.fspath(prefix))
        if name is not None:
            times.append(_mtime(fs, name))
    return times


def _mtime(fs, name) -> float:
    info = fs.info(name)
    for key in ("mtime", "modified", "created", "LastModified"):
        value = info.get(key)
        if value is not None:
            return value.timestamp() if hasattr(value, "timestamp") else float(value)
    try:
        return fs.modified(name).timestamp()
    except (NotImplementedError, AttributeError):
        return time.time()


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """The meta graph file of a checkpoint: ``model-300`` -> ``model-300.meta`` (TF1's function)."""
    base = re.sub(r"-[\d\?]+-of-\d+$", "", os.fspath(checkpoint_filename))
    return ".".join([base, meta_graph_suffix])


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta"):
    """Delete a checkpoint's files: its manifest first, then its data and meta graph.

    Raises
    ------
    NotFoundError
        No checkpoint with this prefix.
    """
    prefix = os.fspath(checkpoint_prefix)
    if not checkpoint_exists(prefix):
        raise NotFoundError(None, None, f"no checkpoint at {prefix}")
    fs, _ = fsspec.core.url_to_fs(prefix)
    delete_checkpoint(fs, prefix)
    meta = fs._strip_protocol(meta_graph_filename(prefix, meta_graph_suffix))
    if fs.exists(meta):
        fs.rm(meta)


def write_whole(fs, url, text):
    """Write ``text`` (str or bytes) to a temporary name, then move it into place (a reader
    never sees half)."""
    tmp = url + ".tmp"
    with fs.open(fs._strip_protocol(tmp), "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    fs.mv(fs._strip_protocol(tmp), fs._strip_protocol(url))
