"""TF1's error classes, raised by ``Session.run``.

Each carries the failing ``op`` (when one is to blame), a message that
names it, and TF's status code (``error_code``, one of the constants here).
They also derive from the matching builtin (``ValueError``,
``RuntimeError``...) so plain ``except ValueError`` works too.
"""

from __future__ import annotations

import warnings

from ._namespaces import module_getattr as _module_getattr

# TF's status codes (error_codes.proto), as tf.errors names them.
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error raised while running a graph; ``op`` is the op to blame, if any.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.errors.OpError(None, None, "bad value", tf.errors.INVALID_ARGUMENT).error_code
    3
    """

    def __init__(self, node_def, op, message, error_code, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = error_code
        self._experimental_payloads = args[0] if args else {}

    def __reduce__(self):
        # The op belongs to a graph, which stays in the process that built it. Every other
        # attribute travels: a worker's error says which step of a run failed (daskflow_step).
        state = {k: v for k, v in self.__dict__.items() if k != "op"}
        return _rebuild, (type(self), self.node_def, self.message, self.error_code), state


def _rebuild(cls, node_def, message, error_code):
    try:
        error = cls.__new__(cls)
    except TypeError:  # MemoryError's own __new__ refuses a subclass called so: construct it
        error = cls(node_def, None, message)
    OpError.__init__(error, node_def, None, message, error_code)
    return error


class _CodedError(OpError):
    """A subclass for one status code, made with TF1's ``(node_def, op, message, *args)``."""

    code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, self.code, *args)


class InvalidArgumentError(_CodedError, ValueError):
    """Bad input: a feed of the wrong shape or dtype, an op given bad values."""

    code = INVALID_ARGUMENT


class FailedPreconditionError(_CodedError, RuntimeError):
    """The graph cannot run yet, e.g. a variable is not initialised."""

    code = FAILED_PRECONDITION


class NotFoundError(_CodedError, KeyError):
    """Something named does not exist."""

    code = NOT_FOUND


class AlreadyExistsError(_CodedError, FileExistsError):
    """Something to be created exists already (a file, a directory)."""

    code = ALREADY_EXISTS


class PermissionDeniedError(_CodedError, PermissionError):
    """The caller may not do this, e.g. write a file opened for reading."""

    code = PERMISSION_DENIED


class OutOfRangeError(_CodedError, IndexError):
    """An input is exhausted."""

    code = OUT_OF_RANGE


class ResourceExhaustedError(_CodedError, MemoryError):
    """Out of memory or another resource."""

    code = RESOURCE_EXHAUSTED


class CancelledError(_CodedError):
    """The step was cancelled."""

    code = CANCELLED


class UnavailableError(_CodedError, ConnectionError):
    """A worker or the cluster cannot be reached."""

    code = UNAVAILABLE


class InternalError(_CodedError, RuntimeError):
    """An internal invariant failed."""

    code = INTERNAL


class UnknownError(_CodedError, RuntimeError):
    """An error of no other kind."""

    code = UNKNOWN


class AbortedError(_CodedError, RuntimeError):
    """The operation was aborted."""

    code = ABORTED


class DeadlineExceededError(_CodedError, TimeoutError):
    """The step ran past its deadline."""

    code = DEADLINE_EXCEEDED


class DataLossError(_CodedError, IOError):
    """Stored data is truncated or corrupt (a checkpoint file)."""

    code = DATA_LOSS


class UnimplementedError(_CodedError, NotImplementedError):
    """The operation is not supported (yet) in this configuration."""

    code = UNIMPLEMENTED


class UnauthenticatedError(_CodedError):
    """The request lacks valid credentials."""

    code = UNAUTHENTICATED


_BY_CODE = {cls.code: cls for cls in _CodedError.__subclasses__()}


def exception_type_from_error_code(error_code):
    """The error class of TF's status code ``error_code`` (KeyError if none)."""
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls):
    """TF's status code of the error class ``cls``; for another class, as TF1, a
    warning and an ``UnknownError``."""
    codes = {error: code for code, error in _BY_CODE.items()}
    if cls in codes:
        return codes[cls]
    warnings.warn("Unknown class exception", stacklevel=2)
    return UnknownError(None, None, "Unknown class exception", None)


__getattr__ = _module_getattr("tf.errors")  # TF1's other paths for a name, else a clear error
