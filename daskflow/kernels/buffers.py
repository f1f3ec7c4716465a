"""Kernels that write into an input's buffer instead of allocating their result.

A kernel may do so only where the runtime told it the input is dead (its
``donate`` flag), and only into an array that is its own buffer: a fresh
23 MB result costs page faults as well as the writes, every step.
"""

import numpy


def owned(a):
    """A writable array that is no view: overwriting it disturbs no one (the
    runtime already knows no other op reads it). cupy's flags have no
    ``writeable``: its arrays always are."""
    flags = getattr(a, "flags", None)
    return flags is not None and getattr(flags, "writeable", True) and a.base is None


class _Memory:
    """``a``'s memory, exported writable through the array interface; keeps ``a`` alive."""

    def __init__(self, a):
        self.owner = a
        self.__array_interface__ = {
            "data": (a.__array_interface__["data"][0], False),
            "shape": a.shape,
            "typestr": a.dtype.str,
            "version": 3,
        }


def writable(a):
    """A writable array over the memory of ``a``, a C-contiguous array that owns its
    buffer (a variable's value, which the session keeps read-only so that fetches
    copy it); None for anything else. Only an ``in_place`` kernel the runtime
    told so may write through it: there no one reads the old value any more."""
    if getattr(a, "base", True) is not None or not a.flags.c_contiguous:
        return None
    if getattr(a.flags, "writeable", True):  # cupy, or a value the store does not hold yet
        return a
    if type(a) is not numpy.ndarray:
        return None
    return numpy.asarray(_Memory(a))
