"""Horovod's Python-object collectives: ``broadcast_object``, ``broadcast_object_fn``,
``allgather_object``.

The object is pickled and its bytes travel as a uint8
array through the ranks' communicator, without a graph: the same values as
Horovod's TF1 functions, which build broadcast ops and run them in ``session``.
The ranks trust each other's bytes as they trust each other's code (the job's
secret admits them).
"""

from __future__ import annotations

import pickle

import numpy as np

from ..ops import collective_ops


def broadcast_object(obj, root_rank=0, session=None, name=None, process_set=None):
    """Rank ``root_rank``'s ``obj`` (any picklable object), on every rank.

    Parameters
    ----------
    obj : object
        This rank's object; only the root's is read.
    root_rank : int
        The rank whose object every rank gets.
    session, process_set : optional
        Accepted for Horovod's sake (no graph is run; only the global process set exists).
    name : str, optional
        The collective's name in errors.
    """
    comm = collective_ops.communicator()
    name = name or type(obj).__name__
    mine = _bytes(obj) if comm.rank == root_rank else np.zeros(0, np.uint8)
    size = comm.broadcast(np.array([mine.size], np.int64), root_rank, f"{name}.size")
    payload = mine if comm.rank == root_rank else np.zeros(int(size[0]), np.uint8)
    return pickle.loads(comm.broadcast(payload, root_rank, name).tobytes())


def broadcast_object_fn(root_rank=0, session=None, name=None, process_set=None):
    """A function broadcasting its argument from ``root_rank`` (Horovod's TF1 form, which
    builds its ops once)."""

    def broadcast(obj):
        return broadcast_object(obj, root_rank, session, name, process_set)

    return broadcast


def allgather_object(obj, session=None, name=None, process_set=None):
    """Every rank's ``obj``, as a list in rank order."""
    comm = collective_ops.communicator()
    name = name or type(obj).__name__
    mine = _bytes(obj)
    sizes = comm.allgather(np.array([mine.size], np.int64), f"{name}.sizes")
    gathered = comm.allgather(mine, name).tobytes()
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    return [pickle.loads(gathered[bounds[r] : bounds[r + 1]]) for r in range(len(sizes))]


def _bytes(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), np.uint8)
