"""Reading checkpoints outside a session: TF1's ``tf.train.load_variable`` and friends.

``NewCheckpointReader`` / ``load_checkpoint`` give a reader of one
checkpoint (its names, shapes, dtypes and values); ``list_variables`` and
``load_variable`` are the one-line forms; ``init_from_checkpoint`` makes
variables' initializers set them from a checkpoint (warm starts, transfer
learning), with TF1's assignment maps. They read TF's checkpoints (V2
bundles, which daskflow's ``Saver`` writes too: CRCs checked) and daskflow's
first format (see :mod:`daskflow.train.checkpoint_files`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping

import fsspec
import numpy as np

from .. import dtypes
from ..errors import NotFoundError
from ..framework.constant import constant
from ..framework.graph import name_scope
from ..ops import state_ops
from ..variable_scope import _state
from ..variables import Variable, _update
from .checkpoint_files import open_checkpoint
from .checkpoint_management import latest_checkpoint

__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "checkpoints_iterator",
    "init_from_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "wait_for_new_checkpoint",
]

logger = logging.getLogger(__name__)


class CheckpointReader:
    """One checkpoint's variables: names, shapes, dtypes and values (TF1's ``CheckpointReader``).

    Made by :func:`NewCheckpointReader` or :func:`load_checkpoint`.
    """

    def __init__(self, prefix):
        try:
            self._checkpoint = open_checkpoint(prefix)
        except NotFoundError:
            raise NotFoundError(
                None,
                None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}",
            ) from None
        self._stored = self._checkpoint.shapes_and_dtypes  # name -> (shape, numpy dtype)

    def get_variable_to_shape_map(self):
        """``{name: shape as a list}`` of every variable in the checkpoint."""
        return {name: list(shape) for name, (shape, _) in self._stored.items()}

    def get_variable_to_dtype_map(self):
        """``{name: DType}`` of every variable in the checkpoint."""
        return {name: dtypes.as_dtype(np.dtype(dtype)) for name, (_, dtype) in self._stored.items()}

    def has_tensor(self, tensor_str):
        """Whether the checkpoint holds a variable of this name."""
        return _text(tensor_str) in self._stored

    def get_tensor(self, tensor_str):
        """A variable's value, as a new numpy array.

        Raises
        ------
        NotFoundError
            The checkpoint has no variable of this name (TF1's message).
        """
        name = _text(tensor_str)
        if name not in self._stored:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self._checkpoint.read(name)

    def debug_string(self):
        """One line per variable, ``name (DT_FLOAT) [2,3]``, sorted by name, as bytes (TF1's)."""
        from ..runtime.config_schema import ENUMS  # local import: the schemas load on first use

        dt_names = {number: label for label, number in ENUMS["DataType"].items()}
        lines = []
        for name, dtype in sorted(self.get_variable_to_dtype_map().items()):
            shape = ",".join(str(d) for d in self._stored[name][0])
            lines.append(f"{name} ({dt_names.get(dtype.as_datatype_enum, dtype.name)}) [{shape}]\n")
        return "".join(lines).encode()


def _text(name):
    return name.decode() if isinstance(name, bytes) else str(name)


def NewCheckpointReader(filepattern):  # noqa: N802 - TF1's name
    """A reader of the checkpoint with this prefix (TF1's function).

    Raises
    ------
    NotFoundError
        No checkpoint there; the message names the path, as TF1's.

    Examples
    --------
    >>> import daskflow as tf
    >>> v = tf.Variable([1.0, 2.0], name="v")
    >>> with tf.Session() as sess:
    ...     sess.run(v.initializer)
    ...     path = tf.train.Saver().save(sess, "memory://reader-doc/model", write_meta_graph=False)
    >>> reader = tf.train.NewCheckpointReader(path)
    >>> reader.get_variable_to_shape_map(), reader.get_tensor("v")
    ({'v': [2]}, array([1., 2.], dtype=float32))
    """
    return CheckpointReader(os.fspath(_text(filepattern)))


def _checkpoint_filename(ckpt_dir_or_file):
    """A folder's latest checkpoint, or the path itself."""
    path = os.fspath(ckpt_dir_or_file)
    fs, stripped = fsspec.core.url_to_fs(path)
    if fs.isdir(stripped):
        return latest_checkpoint(path)
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A :class:`CheckpointReader` of a checkpoint, or of a folder's latest (TF1's function).

    Raises
    ------
    ValueError
        A folder with no checkpoint.
    NotFoundError
        A path with no checkpoint.
    """
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            f"Couldn't find 'checkpoint' file or checkpoints in given directory {os.fspath(ckpt_dir_or_file)}"
        )
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """A variable's value in a checkpoint (``name`` may end in ``:0``), as a numpy array."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """``[(name, shape)]`` of every variable in a checkpoint, sorted by name (TF1's function).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.train.list_variables("memory://reader-doc")
    [('v', [2])]
    """
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """Wait until ``checkpoint_dir`` has a latest checkpoint other than ``last_checkpoint``;
    return it, or None after ``timeout`` seconds."""
    stop_time = time.time() + timeout if timeout is not None else None
    logger.info("Waiting for new checkpoint at %s", checkpoint_dir)
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            logger.info("Found new checkpoint at %s", path)
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new latest checkpoint of ``checkpoint_dir`` as it appears (TF1's generator).

    Stops after ``timeout`` seconds without one, unless ``timeout_fn()`` says to go on.
    """
    checkpoint = None
    while True:
        checkpoint = wait_for_new_checkpoint(checkpoint_dir, checkpoint, timeout=timeout)
        if checkpoint is None:
            if timeout_fn is None or timeout_fn():
                logger.info("Timed-out waiting for a checkpoint.")
                return
            continue
        start = time.time()
        yield checkpoint
        time.sleep(max(0.0, start + min_interval_secs - time.time()))


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Make variables' initializers set them from a checkpoint (TF1's function).

    ``assignment_map`` maps names in the checkpoint to the current graph's
    variables, in TF1's forms: ``{"old_scope/": "new_scope/"}`` (every
    ``tf.get_variable`` variable of ``new_scope`` from its namesake under
    ``old_scope``), ``{"/": "scope/"}`` or ``{"scope/": "/"}`` (the root on
    either side), ``{"old/name": "new/name"}`` (one ``get_variable``
    variable by name) or ``{"old/name": variable}`` (any variable). Run the
    initializers (``global_variables_initializer``, made after this call)
    to set them. The values are read now, checked, and kept in the graph.

    Raises
    ------
    ValueError
        A name the checkpoint lacks, a variable whose shape differs from the
        checkpoint's, or a scope mapped to a name (TF1's messages).

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     w = tf.Variable([0.0, 0.0], name="w")
    ...     tf.train.init_from_checkpoint("memory://reader-doc", {"v": w})
    ...     with tf.Session() as sess:
    ...         sess.run(tf.global_variables_initializer())
    ...         sess.run(w)
    array([1., 2.], dtype=float32)
    """
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    pairs = assignment_map.items() if isinstance(assignment_map, Mapping) else assignment_map
    store = _state().variables
    for tensor_name, current in sorted(pairs, key=lambda pair: pair[0]):
        variable = current if _is_variable(current) else store.get(current)
        if variable is not None:
            if tensor_name not in shapes:
                raise ValueError(
                    f"Tensor {tensor_name} is not found in {ckpt_dir_or_file} checkpoint {shapes}"
                )
            _set_initializer(variable, reader, tensor_name, shapes[tensor_name])
            continue
        _init_scope(reader, shapes, store, tensor_name, current, ckpt_dir_or_file)
    logger.debug("Initialized variables from checkpoint %s", ckpt_file)


def _init_scope(reader, shapes, store, tensor_name, current, ckpt_dir_or_file):
    """A scope-to-scope entry of an assignment map, TF1's rules (see ``init_from_checkpoint``)."""
    scopes = current[: current.rindex("/")] if "/" in current else ""
    if not tensor_name.endswith("/"):
        raise ValueError(
            f"Assignment map with scope only name {scopes} should map to scope only {tensor_name}. "
            "Should be 'scope/': 'other_scope/'."
        )
    names = sorted(name for name in store if not scopes or name.startswith(scopes + "/"))
    for var_name in names:
        full = var_name[len(scopes) :]
        if current != "/":
            full = full[1:]
        if tensor_name != "/":
            full = tensor_name + full
        full = full.rstrip("/") if full.endswith("/") else full
        if full not in shapes:
            raise ValueError(
                f"Tensor {full} ({var_name[len(scopes) + 1 :]} in {tensor_name}) is not found in "
                f"{ckpt_dir_or_file} checkpoint"
            )
        _set_initializer(store[var_name], reader, full, shapes[full])


def _is_variable(x):
    return isinstance(x, Variable)


def _set_initializer(variable, reader, tensor_name, shape):
    """Point ``variable``'s initializer at the checkpoint's value (checked for shape first)."""
    if not variable.shape.is_compatible_with(shape):
        raise ValueError(
            f"Shape of variable {variable.name} ({variable.shape}) doesn't match with shape of tensor "
            f"{tensor_name} ({shape}) from checkpoint reader."
        )
    value = reader.get_tensor(tensor_name).astype(variable.dtype.as_numpy_dtype, copy=False)
    graph = variable.graph
    with graph.as_default(), graph.colocate_with(variable.op), name_scope(variable.op.name + "/"):
        initial = constant(value, dtype=variable.dtype, name="checkpoint_initializer")
        variable._initial_value = initial
        variable._initializer = _update(state_ops.Assign, variable._ref, initial, "Assign")
    logger.debug("Initialize variable %s from checkpoint with %s", variable.name, tensor_name)
