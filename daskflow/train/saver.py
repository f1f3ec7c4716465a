"""``tf.train.Saver``: checkpoints in TF's format, sharded by worker, to any fsspec URL.

A checkpoint ``<save_path>-<step>`` is TF's V2 tensor bundle, which TensorFlow
restores: each worker holding variables writes their bytes into a data shard of
its own (``<prefix>.data-00000-of-00002``..., under a temporary name first; see
:mod:`daskflow.runtime.checkpoint`), then the session's process writes the index
``<prefix>.index`` (each tensor's dtype, shape, shard, offset, size and CRC-32C:
:mod:`daskflow.train.bundle_index`), then the folder's ``checkpoint`` state file
(the latest and the kept ones, in TF1's text format: see
:mod:`daskflow.train.checkpoint_management`) and, unless ``write_meta_graph=False``,
the graph as TF's ``MetaGraphDef`` in ``<prefix>.meta``. The index is written last
(to a temporary name, moved into place after the shards), so a save that dies
half-way leaves no checkpoint under the new prefix and the previous one the latest
and intact; one under the prefix of an existing checkpoint leaves that one whole
until its last moves (dying between those leaves a checkpoint whose checksums fail,
never a silently wrong one). File
names come from the prefix; no variable name becomes a path. Restoring checks the
names, shapes and dtypes against the graph and every tensor's checksum before any
variable changes. Checkpoints TF wrote restore the same way, and so do daskflow's
first format's (:mod:`daskflow.train.checkpoint_files`).
"""

from __future__ import annotations

import os
import posixpath
import time
import uuid

import fsspec
import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError, NotFoundError
from ..variables import Variable, global_variables
from .checkpoint_files import delete_checkpoint, open_checkpoint, read_manifest, remove_files, shard_name
from .checkpoint_management import (
    STATE,
    _update_state,
    get_checkpoint_mtimes,
    latest_checkpoint,
    meta_graph_filename,
)
from .meta_graph import export_meta_graph

__all__ = ["Saver", "latest_checkpoint", "read_manifest"]


class Saver:
    """Save and restore variables (TF1's ``tf.train.Saver``, with TF1's arguments).

    Parameters
    ----------
    var_list : list or dict of Variable, optional
        What to save: a list (keyed by op name) or ``{name: variable}``;
        default every global variable at construction (at ``build()`` with
        ``defer_build=True``), as in TF1.
    max_to_keep : int, default 5
        Checkpoints kept; after each save the oldest beyond this many is
        deleted. None or 0 keeps all (and records none, as TF1).
    keep_checkpoint_every_n_hours : float, default 10000.0
        Also keep one checkpoint of every this many hours of training.
    allow_empty : bool, default False
        With no variables to save, ``save`` returns None instead of the
        constructor raising ``ValueError``.
    pad_step_number : bool, default False
        ``model-00000300`` instead of ``model-300``.
    save_relative_paths : bool, default False
        The ``checkpoint`` file names checkpoints relative to its folder.
    reshape, sharded, name, restore_sequentially, saver_def, builder, defer_build, write_version, filename
        TF1's, accepted. Each checkpoint is always written where each
        variable lives (one shard per worker) in TF's V2 format (see the
        module's docstring), so ``sharded``, ``builder``, ``write_version``
        and ``restore_sequentially`` change nothing; ``reshape`` restores
        are refused as mismatched shapes.

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

    def __init__(
        self,
        var_list=None,
        reshape=False,
        sharded=False,
        max_to_keep=5,
        keep_checkpoint_every_n_hours=10000.0,
        name=None,
        restore_sequentially=False,
        saver_def=None,
        builder=None,
        defer_build=False,
        allow_empty=False,
        write_version=2,
        pad_step_number=False,
        save_relative_paths=False,
        filename=None,
    ):
        if saver_def is not None:  # Saver.from_proto: the numbers are the SaverDef's
            max_to_keep = saver_def.max_to_keep
            keep_checkpoint_every_n_hours = saver_def.keep_checkpoint_every_n_hours
        self._var_list = var_list
        self._allow_empty = allow_empty
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._sharded = sharded
        self._filename = filename
        self._last_checkpoints: list = []  # (prefix, time saved), oldest first
        self._to_delete: list = []
        self._vars = None
        self.saver_def = None
        if not defer_build:
            self.build()

    def build(self):
        """Take the variables to save (TF1: build the save and restore ops)."""
        if self._var_list is None:  # TF1 fills it in here, with the variables of the graph now
            self._var_list = global_variables()
        listed = self._var_list
        self._vars = {} if self._allow_empty and not listed else _named(listed)
        # local import: the message schemas load on first use, not with `import daskflow`
        from ..runtime.messages import message_class

        self.saver_def = message_class("SaverDef")(
            max_to_keep=self._max_to_keep or 0,
            sharded=bool(self._sharded),
            keep_checkpoint_every_n_hours=self._keep_hours,
            version=2,
        )

    def _built(self):
        if self._vars is None:
            raise RuntimeError("Use save/restore instead of build in eager mode.")  # TF1's words
        return self._vars

    # -- the checkpoints this saver keeps ---------------------------------------------
    @property
    def last_checkpoints(self):
        """The checkpoints this saver has not deleted, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Take these checkpoints as this saver's, never to be deleted (TF1's)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(p, float("inf")) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Take these ``(path, time saved)`` as this saver's checkpoints (TF1's)."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Take those of ``checkpoint_paths`` that exist as this saver's, with their file times."""
        with_times = []
        for path in checkpoint_paths:
            mtimes = get_checkpoint_mtimes([path])
            if mtimes:
                with_times.append((path, mtimes[0]))
        self.set_last_checkpoints_with_time(with_times)

    def as_saver_def(self):
        """TF1's ``SaverDef`` of this saver: its numbers (daskflow has no save/restore ops to name)."""
        return self.saver_def

    def to_proto(self, export_scope=None):
        return self.saver_def

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        return Saver(saver_def=saver_def)

    def _record(self, prefix):
        """TF1's ``_RecordLastCheckpoint``: remember ``prefix``; queue the oldest past max_to_keep."""
        if not self._max_to_keep:
            return
        self._last_checkpoints = [c for c in self._last_checkpoints if c[0] != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        if len(self._last_checkpoints) > self._max_to_keep:
            self._to_delete.append(self._last_checkpoints.pop(0))

    def _delete_old(self, fs, meta_graph_suffix):
        """Delete the oldest checkpoint queued, unless it is one kept for its hour."""
        if not self._to_delete:
            return
        path, saved = self._to_delete.pop(0)
        if saved > self._next_checkpoint_time:
            self._next_checkpoint_time += self._keep_hours * 3600
            return
        delete_checkpoint(fs, path)
        meta = _fs_path(fs, meta_graph_filename(path, meta_graph_suffix))
        if fs.exists(meta):
            fs.rm(meta)

    # -- saving and restoring ---------------------------------------------------------
    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """Write a checkpoint; return its path prefix (``save_path-<step>`` with a step).

        As TF1's: ``write_state`` records it in the folder's ``checkpoint``
        file (``latest_filename`` names another) and deletes the oldest
        beyond ``max_to_keep``; ``write_meta_graph`` writes the graph to
        ``<prefix>.<meta_graph_suffix>`` (see :meth:`export_meta_graph`).
        Each save writes its data shards and index under temporary names and
        moves them into place only once all are written, the index last.
        """
        latest_filename = latest_filename or STATE
        if posixpath.dirname(latest_filename):
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        step = _step_value(sess, global_step)
        if step is None:
            prefix = save_path
            if posixpath.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(
                    f"'latest_filename' collides with 'save_path': '{latest_filename}' and '{save_path}'"
                )
        else:
            prefix = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        if not hasattr(sess, "write_checkpoint"):
            raise TypeError(f"'sess' must be a Session; {sess}")
        fs, _ = fsspec.core.url_to_fs(prefix)
        if self._built():
            self._write(sess, fs, prefix, step)
            if write_state:
                self._record(prefix)
                _update_state(
                    posixpath.dirname(save_path),
                    prefix,
                    self.last_checkpoints,
                    latest_filename,
                    self._save_relative_paths,
                )
                self._delete_old(fs, meta_graph_suffix)
        if write_meta_graph:
            with sess.graph.as_default():
                self.export_meta_graph(meta_graph_filename(prefix, meta_graph_suffix))
        return prefix if self._vars else None

    def _write(self, sess, fs, prefix, step):
        from .bundle_index import index_bytes  # local import: the bundle format loads with the first save

        temporary = f".tempstate{uuid.uuid4().hex[:8]}"
        index = fs._strip_protocol(prefix + ".index")
        try:
            keys = {v.op.name: key for key, v in self._vars.items()}  # variable -> checkpoint name
            records, shards = sess.write_checkpoint(
                sorted(keys), lambda i, n: shard_name(prefix, i, n) + temporary
            )
            records = {keys[name]: record for name, record in records.items()}
            with fs.open(index + temporary, "wb") as f:
                f.write(index_bytes(records, shards))
        except BaseException:  # the save failed: its temporary files go, nothing else changed
            remove_files(fs, prefix, only=temporary)
            if fs.exists(index + temporary):
                fs.rm(index + temporary)
            raise
        # Everything is written: only moves remain (an earlier checkpoint under this prefix
        # stays whole until now).
        final = [fs._strip_protocol(shard_name(prefix, i, shards)) for i in range(shards)]
        for path in final:
            fs.mv(path + temporary, path)
        fs.mv(index + temporary, index)
        remove_files(fs, prefix, keep=set(final))  # an earlier save's, in either format
        manifest = fs._strip_protocol(prefix + ".index.json")
        if fs.exists(manifest):
            fs.rm(manifest)

    def export_meta_graph(
        self,
        filename=None,
        collection_list=None,
        as_text=False,
        export_scope=None,
        clear_devices=False,
        clear_extraneous_savers=False,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """Write the default graph as TF's ``MetaGraphDef`` to ``filename``; return it
        (see :func:`daskflow.train.meta_graph.export_meta_graph`)."""
        return export_meta_graph(
            filename=filename,
            saver_def=self.saver_def,
            collection_list=collection_list,
            as_text=as_text,
            export_scope=export_scope,
            clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs,
            save_debug_info=save_debug_info,
            saved_variables=self._vars,
        )

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
        save_path = os.fspath(save_path)
        if not self._built():
            return
        try:
            stored = open_checkpoint(save_path)
        except NotFoundError as e:
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path!r} ({e})") from None
        shapes = stored.shapes_and_dtypes
        missing = sorted(set(self._vars) - set(shapes))
        wrong = [
            f"{name}: checkpoint {tuple(shapes[name][0])} {dtypes.as_dtype(np.dtype(shapes[name][1])).name}, "
            f"graph {v.shape} {v.dtype.name}"
            for name, v in sorted(self._vars.items())
            if name in shapes and not _fits(v, *shapes[name])
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
        # keyed by the variable: a var_list dict may save it under another name
        files = {
            v.op.name: (stored.url(key), stored.record(key), v.op.device) for key, v in self._vars.items()
        }
        sess.read_checkpoint(files)


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


def _fits(variable, shape, dtype):
    dims = variable.shape.dims
    shape_ok = dims is None or (
        len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))
    )
    return shape_ok and variable.dtype.base_dtype == dtypes.as_dtype(np.dtype(dtype))


def _step_value(sess, global_step):
    if global_step is None:
        return None
    if hasattr(global_step, "op") or hasattr(global_step, "_ref"):
        global_step = sess.run(global_step)
    return int(global_step)


def _fs_path(fs, url):
    return fs._strip_protocol(url)
