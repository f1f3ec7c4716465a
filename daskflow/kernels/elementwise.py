"""A chain of elementwise float ops run as one kernel (``FusedElementwise``).

Each op of the chain is the array-API function it names (``multiply``,
``tanh``...), called in the chain's order, so the values are those the ops
would give one by one, bit for bit. On numpy, a step writes into the buffer
of the intermediate value it consumes when that value is as large as the
step's result (same shape and dtype) instead of allocating another: measured
on this project's machine, ``tanh(a * b + c) * d`` runs 1.15-1.24x faster so
from 10^5 to 4·10^6 float32 elements, and no faster below (the heap hands a
small array back at once). A compiled loop (numba) was slower: without a
vector math library its ``tanh`` costs 5-10x numpy's.
"""

from __future__ import annotations

import numpy

IN_PLACE_MIN = 1 << 15  # elements: below, a fresh result costs as little as writing in place


def run_chain(xp, *inputs, steps):
    """The chain's last value. ``steps``: ``(function name, arguments)`` per op in order,
    an argument ``i >= 0`` being ``inputs[i]`` and ``~j`` the result of step ``j``; each
    step's result is read by one later step only."""
    results = []
    for name, args in steps:
        values = [inputs[a] if a >= 0 else results[~a] for a in args]
        spare = _spare(values, args)
        fn = getattr(xp, name)
        results.append(fn(*values) if spare is None else fn(*values, out=spare))
    return results[-1]


def _spare(values, args):
    """An intermediate among ``values`` (a numpy array of this chain's, read only here)
    that can take the step's result, or None."""
    for value, a in zip(values, args):
        if a >= 0 or type(value) is not numpy.ndarray or value.size < IN_PLACE_MIN:
            continue
        if value.base is None and all(v.shape == value.shape or numpy.ndim(v) == 0 for v in values):
            if all(numpy.result_type(v) == value.dtype for v in values):
                return value
    return None
