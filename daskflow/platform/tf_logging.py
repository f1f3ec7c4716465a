"""TF1's ``tf.logging``, over the standard :mod:`logging` module.

Messages go to the logger named ``"daskflow"``, so a program's own handlers,
filters and levels on that logger (or on the root logger) apply as usual.
As in TF1, the first call adds a stderr handler to that logger only if the
root logger has none (an interactive session gets INFO level and stdout
instead), and the default threshold is the root's, WARNING: call
``set_verbosity(INFO)`` to see ``info`` messages.

Each record names the line that called ``tf.logging``, not this module.
``log_every_n`` and ``log_first_n`` count calls per calling line.

Examples
--------
>>> from daskflow.platform import tf_logging as logging
>>> logging.set_verbosity(logging.INFO)
>>> logging.get_verbosity() == logging.INFO
True
"""

import logging as _logging
import sys
import threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN, WARNING

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "WARNING",
    "TaskLevelStatusMessage",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_logger",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

LOGGER_NAME = "daskflow"

_configured = False
_lock = threading.Lock()
_counts = {}  # (filename, lineno) -> calls so far, for log_every_n / log_first_n


def get_logger():
    """Return the ``"daskflow"`` :class:`logging.Logger` that ``tf.logging`` writes to.

    Returns
    -------
    logging.Logger
    """
    global _configured
    logger = _logging.getLogger(LOGGER_NAME)
    if not _configured:
        with _lock:
            if not _configured:
                _add_default_handler(logger)
                _configured = True
    return logger


def _add_default_handler(logger):
    # A program that configured the root logger gets no second copy of
    # every line; one that did not still sees what it logs, as in TF1.
    if _logging.getLogger().handlers:
        return
    interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
    if interactive:
        logger.setLevel(INFO)
    handler = _logging.StreamHandler(sys.stdout if interactive else sys.stderr)
    handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
    logger.addHandler(handler)


def _caller_frame():
    """The first frame outside this module: the user's line that logged."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return frame


def _emit(level, msg, args, kwargs):
    logger = get_logger()
    if not logger.isEnabledFor(level):
        return
    # stacklevel 1 is this frame; count up past every frame of this module.
    depth, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        depth, frame = depth + 1, frame.f_back
    kwargs.setdefault("stacklevel", depth)
    logger.log(level, msg, *args, **kwargs)


def log(level, msg, *args, **kwargs):
    """Log ``msg % args`` at `level` (``INFO``, ``WARN``... or any int)."""
    _emit(level, msg, args, kwargs)


def debug(msg, *args, **kwargs):
    """Log ``msg % args`` at ``DEBUG``."""
    _emit(DEBUG, msg, args, kwargs)


def info(msg, *args, **kwargs):
    """Log ``msg % args`` at ``INFO``."""
    _emit(INFO, msg, args, kwargs)


def warning(msg, *args, **kwargs):
    """Log ``msg % args`` at ``WARNING``."""
    _emit(WARNING, msg, args, kwargs)


warn = warning


def error(msg, *args, **kwargs):
    """Log ``msg % args`` at ``ERROR``."""
    _emit(ERROR, msg, args, kwargs)


def fatal(msg, *args, **kwargs):
    """Log ``msg % args`` at ``FATAL``; as in TF1 the program goes on."""
    _emit(FATAL, msg, args, kwargs)


def vlog(level, msg, *args, **kwargs):
    """Log ``msg % args`` at `level`; the same as :func:`log`."""
    _emit(level, msg, args, kwargs)


def log_if(level, msg, condition, *args):
    """Log ``msg % args`` at `level` only if `condition` is true."""
    if condition:
        _emit(level, msg, args, {})


def _next_count():
    frame = _caller_frame()
    key = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)
    with _lock:
        count = _counts.get(key, -1) + 1
        _counts[key] = count
    return count


def log_every_n(level, msg, n, *args):
    """Log ``msg % args`` on the 1st, (n+1)th, (2n+1)th... call from the same line.

    Examples
    --------
    >>> for step in range(5):
    ...     log_every_n(INFO, "step %d", 2, step)  # logs steps 0, 2 and 4
    """
    log_if(level, msg, _next_count() % _positive("n", n) == 0, *args)


def log_first_n(level, msg, n, *args):
    """Log ``msg % args`` only on the first `n` calls from the same line."""
    log_if(level, msg, _next_count() < n, *args)


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"log_every_n: {name} must be a positive integer, got {value!r}")
    return value


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF1's public name
    """Log `msg` at ``ERROR``, as TF1 did."""
    _emit(ERROR, msg, (), {})


def flush():
    """Flush the handlers of the ``"daskflow"`` logger and of the root logger."""
    for logger in (get_logger(), _logging.getLogger()):
        for handler in logger.handlers:
            handler.flush()


def get_verbosity():
    """Return the threshold below which messages are dropped (an int level)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    """Drop messages below level `v` (``DEBUG``, ``INFO``, ``WARN``, ``ERROR``, ``FATAL``).

    Raises
    ------
    TypeError
        If `v` is not an int level or a level name such as ``"INFO"``.
    ValueError
        If `v` is a string that names no level.
    """
    get_logger().setLevel(v)
