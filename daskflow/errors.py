"""TF1's error classes, raised by ``Session.run``.

Each carries the failing ``op`` (when one is to blame) and a message that
names it. They also derive from the matching builtin (``ValueError``,
``RuntimeError``...) so plain ``except ValueError`` works too.
"""

from __future__ import annotations


class OpError(Exception):
    """An error raised while running a graph; ``op`` is the op to blame, if any."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message


class InvalidArgumentError(OpError, ValueError):
    """Bad input: a feed of the wrong shape or dtype, an op given bad values."""


class FailedPreconditionError(OpError, RuntimeError):
    """The graph cannot run yet, e.g. a variable is not initialised."""


class NotFoundError(OpError, KeyError):
    """Something named does not exist."""


class AlreadyExistsError(OpError, FileExistsError):
    """Something to be created exists already (a file, a directory)."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not do this, e.g. write a file opened for reading."""


class OutOfRangeError(OpError, IndexError):
    """An input is exhausted."""


class ResourceExhaustedError(OpError, MemoryError):
    """Out of memory or another resource."""


class CancelledError(OpError):
    """The step was cancelled."""


class UnavailableError(OpError, ConnectionError):
    """A worker or the cluster cannot be reached."""


class InternalError(OpError, RuntimeError):
    """An internal invariant failed."""


class UnknownError(OpError, RuntimeError):
    """An error of no other kind."""


class AbortedError(OpError, RuntimeError):
    """The operation was aborted."""


class DeadlineExceededError(OpError, TimeoutError):
    """The step ran past its deadline."""


class DataLossError(OpError, IOError):
    """Stored data is truncated or corrupt (a checkpoint file)."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not supported (yet) in this configuration."""
