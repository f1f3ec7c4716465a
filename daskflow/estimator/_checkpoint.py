"""Reading an Estimator's checkpoints: variable values and the global step.

An evaluation or prediction graph holds fewer variables than the training
graph saved (no optimizer slots); ``tf.train.Saver`` restores the variables
it was given and ignores the rest, as TF1's does.
"""

from __future__ import annotations

import posixpath

from ..errors import NotFoundError
from ..train.saver import latest_checkpoint, read_manifest


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
