"""A step's failure in a worker's log: one line, not Dask's traceback.

A step's task that fails (the end of its input, ``OutOfRangeError``; a queue closed under a
waiting enqueue as the session closes, ``CancelledError``; a bad feed, which numpy's kernel
refuses with a ``ValueError``) hands its exception, traceback included, to its session,
which raises it in the program as the failing op's error; TF1's own servers log an op's
failure as one warning line. Dask logs every failed task as an ERROR with its traceback,
so a loop ending on ``OutOfRangeError``, as TF1 programs end on purpose, filled the
workers' logs (and a local cluster's terminal) with tracebacks. A step's failures, the
tasks that could not run because of them and its variables' copies are logged as one
line (Dask's record, traceback included, goes to ``daskflow.worker.failures`` at DEBUG);
any other task (not a step's) keeps Dask's record.
"""

from __future__ import annotations

from .. import dask_compat

# The task kinds of a step (cluster/step_tasks.py names them) whose failures a session raises.
STEP_TASKS = (" step", " update", " values", " fetch")
# A step's copies of the variables it updates (cluster/recovery.py's BACKUP_PREFIX): they end
# as the step does, cancelled with it or starved by its failure.
COPY_TASKS = "variable backup--"


def one_line(key, exception_text: str) -> str | None:
    """The line a worker logs for task ``key`` failing with ``exception_text`` (its repr),
    or None where Dask's record stays."""
    if not (isinstance(key, tuple) and key and isinstance(key[0], str)):
        return None
    if not (key[0].endswith(STEP_TASKS) or key[0].startswith(COPY_TASKS)):
        return None
    name, _, rest = str(exception_text).partition("(")
    first = rest.strip("'\")").split("\\n", 1)[0]
    said = f"{name}: {first}" if first else name
    return f"daskflow: {key[0]} {key[1:]} ended with {said} (handed to its session; traceback at DEBUG)"


def install() -> None:
    """Log this process's workers' step failures as :func:`one_line` says (once)."""
    dask_compat.rewrite_task_failure_logs(one_line)
