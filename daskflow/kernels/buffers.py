"""Kernels that write into an input's buffer instead of allocating their result.

A kernel may do so only where the runtime told it the input is dead (its
``donate`` flag), and only into an array that is its own buffer: a fresh
23 MB result costs page faults as well as the writes, every step.
"""


def owned(a):
    """A writable array that is no view: overwriting it disturbs no one (the
    runtime already knows no other op reads it). cupy's flags have no
    ``writeable``: its arrays always are."""
    flags = getattr(a, "flags", None)
    return flags is not None and getattr(flags, "writeable", True) and a.base is None
