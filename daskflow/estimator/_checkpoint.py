"""Reading an Estimator's checkpoints: variable values and the global step.

An evaluation or prediction graph holds fewer variables than the training
graph saved (no optimizer slots); ``tf.train.Saver`` restores the variables
it was given and ignores the rest, as TF1's does.
"""

from __future__ import annotations

from ..errors import NotFoundError
from ..train.checkpoint_files import open_checkpoint
from ..train.saver import latest_checkpoint


def resolve(checkpoint_dir_or_path):
    """A checkpoint prefix: the latest one in a folder, or the path itself; None if none."""
    latest = latest_checkpoint(checkpoint_dir_or_path)
    if latest is not None:
        return latest
    try:
        open_checkpoint(checkpoint_dir_or_path)
    except (NotFoundError, OSError, ValueError):
        return None
    return checkpoint_dir_or_path


def list_variables(checkpoint_path):
    """``[(name, shape)]`` of every variable in a checkpoint, sorted by name."""
    stored = open_checkpoint(checkpoint_path).shapes_and_dtypes
    return [(name, list(stored[name][0])) for name in sorted(stored)]


def load_variables(checkpoint_path, names):
    """``{name: numpy value}`` of some variables of a checkpoint, each checksum checked."""
    stored = open_checkpoint(checkpoint_path)
    missing = [name for name in names if name not in stored.shapes_and_dtypes]
    if missing:
        raise NotFoundError(None, None, f"Key {missing[0]} not found in checkpoint {checkpoint_path}")
    return {name: stored.read(name) for name in names}


def global_step_in(checkpoint_dir):
    """The global step of the latest checkpoint in ``checkpoint_dir``; 0 without one (as TF1)."""
    path = latest_checkpoint(checkpoint_dir)
    if path is None:
        return 0
    stored = open_checkpoint(path)
    if "global_step" not in stored.shapes_and_dtypes:
        return 0
    return int(stored.read("global_step"))
