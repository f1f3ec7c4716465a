"""Compiled CPU loops (numba) for kernels that numpy makes in many passes.

numpy runs one pass over memory per operation: Adam's update is twelve
passes, a max-pool gradient a comparison, a mask and a product. TF1 runs each
as one C++ loop. Where that difference is measured to matter, the kernel's
numpy path calls a loop here, compiled by numba on its first call in each
process (cached on disk, so later processes load it). The loops do the same
arithmetic in the same order as the numpy code they replace, so results are
bit for bit the same; the numpy code stays as the path for other namespaces
(cupy) and for processes without numba.

``DASKFLOW_JIT=0`` in the environment, or :func:`use_compiled` (False), turns
the loops off, for comparing the two paths.
"""

from __future__ import annotations

import contextlib
import functools
import os

import numpy

_enabled = os.environ.get("DASKFLOW_JIT", "1") != "0"
_FLOAT32, _FLOAT64 = numpy.dtype(numpy.float32), numpy.dtype(numpy.float64)  # dtype.name is slow


@contextlib.contextmanager
def use_compiled(flag: bool):
    """Let kernels use their compiled loops (True) or only numpy (False) in this block."""
    global _enabled
    previous, _enabled = _enabled, bool(flag)
    try:
        yield
    finally:
        _enabled = previous


@functools.cache
def _numba():
    try:
        import numba
    except Exception:  # noqa: BLE001 - numba missing, or built for another numpy: use numpy
        return None
    return numba


class Loop:
    """A Python loop compiled on first use; :meth:`get` is None where it cannot be."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    @functools.cached_property
    def _compiled(self):
        numba = _numba()
        if numba is None:
            return None
        # nogil: a worker's other threads run while a loop does; error_model="numpy":
        # division by zero gives inf/nan as numpy's does, instead of raising.
        return numba.njit(self.fn, cache=True, nogil=True, error_model="numpy")

    def get(self):
        """The compiled loop, or None (numba unavailable, or turned off)."""
        return self._compiled if _enabled else None


def loop(fn) -> Loop:
    """Declare ``fn`` (numba's nopython subset) a loop to compile on first use."""
    return Loop(fn)


def jitable(fn):
    """Declare ``fn`` a helper that loops call: compiled into each loop that calls it (a
    plain Python function where numba is missing)."""
    numba = _numba()
    return fn if numba is None else numba.extending.register_jitable(fn)


def plain(*arrays, contiguous=True) -> bool:
    """Arrays a loop takes as they are: numpy, of one dtype the loops are built for
    (float32 or float64: numba has no float16 math), and C-contiguous unless the loop
    takes strided views (``contiguous=False``)."""
    dtype = arrays[0].dtype
    return (dtype == _FLOAT32 or dtype == _FLOAT64) and all(
        type(a) is numpy.ndarray and a.dtype == dtype and (a.flags.c_contiguous or not contiguous)
        for a in arrays
    )
