"""A step's TF1 error in a worker's log: one line, not Dask's traceback.

A step's task that raises one of TF1's errors (the end of its input, ``OutOfRangeError``;
a queue closed under a waiting enqueue as the session closes, ``CancelledError``; a bad
feed) hands it to its session, which raises it in the program; TF1's own servers log
such a failure as one warning line. Dask logs every failed task as an ERROR with its
traceback, so a loop ending on ``OutOfRangeError``, as TF1 programs end on purpose, filled
the workers' logs (and a local cluster's terminal) with tracebacks. Those failures, and
the tasks that could not run because of them, are logged as one line; any other
exception (a fault of daskflow's own) keeps Dask's record.
"""

from __future__ import annotations

from ...errors import OpError, exception_type_from_error_code
from .. import dask_compat

# The task kinds of a step (cluster/step_tasks.py names them) whose failures a session raises.
STEP_TASKS = (" step", " update", " values", " fetch")


# TF1's errors (status codes 1-16, CANCELLED to UNAUTHENTICATED), and the failure of a task
# that a failed one starved.
TF_ERRORS = frozenset(
    [OpError.__name__, "UpstreamFailedError"]
    + [exception_type_from_error_code(code).__name__ for code in range(1, 17)]
)


def one_line(key, exception_text: str) -> str | None:
    """The line a worker logs for task ``key`` failing with ``exception_text`` (its repr),
    or None where Dask's record stays."""
    if not (isinstance(key, tuple) and key and isinstance(key[0], str) and key[0].endswith(STEP_TASKS)):
        return None
    name, _, rest = str(exception_text).partition("(")
    if name not in TF_ERRORS:
        return None
    first = rest.strip("'\")").split("\\n", 1)[0]
    return f"daskflow: {key[0]} {key[1:]} ended with {name}: {first} (raised in its session)"


def install() -> None:
    """Log this process's workers' step failures as :func:`one_line` says (once)."""
    dask_compat.rewrite_task_failure_logs(one_line)
