"""Static shapes of the tensors a program fetches, taken under either engine and compared.

While a program runs, :func:`watch` makes ``tf.Session`` (and
``InteractiveSession``) note, for each distinct ``run`` call (the same
fetched tensors count once), the static shape of every fetched tensor, in the
order the program's own code first makes each call. The same program makes the same
calls under TF and daskflow, so the n-th call's tensors are the same tensors
of the program's model under both, whatever each engine names its ops
internally. :func:`mismatches` lists the fetched tensors whose daskflow
shape differs from TF's wherever TF knows it (a known rank, a known
dimension).
"""

from __future__ import annotations

import sys
import threading

MAX_CALLS = 100


def _leaves(fetches):
    if isinstance(fetches, dict):
        return [leaf for value in fetches.values() for leaf in _leaves(value)]
    if isinstance(fetches, (list, tuple)):
        return [leaf for value in fetches for leaf in _leaves(value)]
    return [fetches]


def _shape(fetch):
    """A fetched tensor's static shape as a list (None: unknown); "op" for anything else."""
    shape = getattr(fetch, "shape", None)
    if shape is None or not hasattr(fetch, "dtype") or not hasattr(shape, "ndims"):
        return "op"
    if shape.ndims is None:
        return None
    return [None if d is None else int(d) for d in shape.as_list()]


def watch(tf, program):
    """Make ``tf.Session`` and ``tf.InteractiveSession`` note the fetched shapes of the runs
    the file `program` makes; returns the list they fill: one ``[shape per fetched leaf]``
    per distinct call."""
    calls, seen = [], set()
    for name in ("Session", "InteractiveSession"):
        base = getattr(tf, name, None)
        if base is not None:
            setattr(tf, name, _recording(base, calls, seen, program))
    return calls


# Frames between a program's line and Session.run when it writes `t.eval()` or `op.run()`.
_PASS_THROUGH = {"eval", "run", "_eval_using_default_session", "_run_using_default_session"}


def _called_by(program):
    """Whether the Session.run being made comes from `program`'s own code (not from a library
    it calls, such as a Saver, nor from a queue runner's thread: those differ between engines)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name in _PASS_THROUGH and frame.f_code.co_filename != program:
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename == program


def _recording(base, calls, seen, program):
    """A subclass of session class `base` whose ``run`` notes each new call's fetched shapes."""

    def run(self, fetches, *args, **kwargs):
        if len(calls) < MAX_CALLS and _called_by(program):
            leaves = _leaves(fetches)
            key = tuple(id(leaf) for leaf in leaves)
            if key not in seen:
                seen.add(key)
                calls.append([_shape(leaf) for leaf in leaves])
        return base.run(self, fetches, *args, **kwargs)

    return type(base.__name__, (base,), {"run": run, "__module__": base.__module__})


def _differs(theirs, ours):
    if theirs is None or theirs == "op":
        return False
    if ours is None or ours == "op" or len(ours) != len(theirs):
        return True
    return any(t is not None and o != t for t, o in zip(theirs, ours))


def mismatches(tf_calls, our_calls, limit=20):
    """``[(call number, leaf number, TF's shape, daskflow's shape)]``, at most `limit`."""
    found = []
    for call, (theirs, ours) in enumerate(zip(tf_calls, our_calls)):
        for leaf, (t, o) in enumerate(zip(theirs, ours)):
            if _differs(t, o):
                found.append((call, leaf, t, o))
    return found[:limit]


def compared(tf_calls, our_calls):
    """How many fetched tensors with a shape TF knows at least in rank were compared."""
    return sum(
        1 for theirs, ours in zip(tf_calls, our_calls) for t, _ in zip(theirs, ours) if t not in (None, "op")
    )
