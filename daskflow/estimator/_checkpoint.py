"""Reading an Estimator's checkpoints: variable values, the global step, partial restores.

An evaluation or prediction graph holds fewer variables than the training
graph saved (no optimizer slots, no learning-rate state). TF1's ``Saver``
restores the variables it was given and ignores the rest of the checkpoint;
:class:`PartialRestoreSaver` does that over daskflow's checkpoint format,
still refusing a checkpoint that lacks one of the graph's variables or holds
it with another shape or dtype.
"""

from __future__ import annotations

import posixpath

from ..errors import InvalidArgumentError, NotFoundError
from ..train.saver import Saver, latest_checkpoint, read_manifest


def resolve(checkpoint_dir_or_path):
    """A checkpoint prefix: the latest one in a folder, or the path itself; None if none."""
    latest = latest_checkpoint(checkpoint_dir_or_path)
    if latest is not None:
        return latest
    try:
        read_manifest(checkpoint_dir_or_path)
    except (NotFoundError, OSError, ValueError):
        return None
    return checkpoint_dir_or_path


def list_variables(checkpoint_path):
    """``[(name, shape)]`` of every variable in a checkpoint, sorted by name."""
    stored = read_manifest(checkpoint_path)["variables"]
    return [(name, list(stored[name]["shape"])) for name in sorted(stored)]


def load_variables(checkpoint_path, names):
    """``{name: numpy value}`` of some variables of a checkpoint, each file checked."""
    from ..runtime.checkpoint import read_variable  # numpy/fsspec only; no dask

    manifest = read_manifest(checkpoint_path)
    stored = manifest["variables"]
    missing = [name for name in names if name not in stored]
    if missing:
        raise NotFoundError(None, None, f"Key {missing[0]} not found in checkpoint {checkpoint_path}")
    folder = posixpath.join(posixpath.dirname(checkpoint_path), manifest["data"])
    return {name: read_variable(f"{folder}/{stored[name]['file']}", stored[name]) for name in names}


def global_step_in(checkpoint_dir):
    """The global step of the latest checkpoint in ``checkpoint_dir``; 0 without one (as TF1)."""
    path = latest_checkpoint(checkpoint_dir)
    if path is None:
        return 0
    manifest = read_manifest(path)
    step = manifest.get("global_step")
    if step is None and "global_step" in manifest["variables"]:
        step = load_variables(path, ["global_step"])["global_step"]
    return 0 if step is None else int(step)


class PartialRestoreSaver(Saver):
    """A ``Saver`` whose ``restore`` ignores checkpoint entries the graph does not have (as TF1's)."""

    def restore(self, sess, save_path):
        stored = read_manifest(save_path)["variables"]
        missing = sorted(set(self._vars) - set(stored))
        if missing:
            raise NotFoundError(
                None, None, f"Key {missing[0]} not found in checkpoint {save_path} (missing: {missing})"
            )
        wrong = [
            f"{name}: checkpoint {tuple(stored[name]['shape'])} {stored[name]['dtype']}, "
            f"graph {v.shape} {v.dtype.name}"
            for name, v in sorted(self._vars.items())
            if not _fits(v, stored[name])
        ]
        if wrong:
            raise InvalidArgumentError(
                None, None, f"checkpoint {save_path} does not match the graph: {wrong}"
            )
        values = load_variables(save_path, sorted(self._vars))
        for name, variable in self._vars.items():
            sess.load_variable(variable, values[name])


def _fits(variable, record):
    dims = variable.shape.dims
    if dims is None:
        return variable.dtype.name == record["dtype"]
    same_rank = len(dims) == len(record["shape"])
    same_dims = same_rank and all(d is None or d == s for d, s in zip(dims, record["shape"]))
    return same_dims and variable.dtype.name == record["dtype"]
