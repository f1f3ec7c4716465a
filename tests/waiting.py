"""Waiting in tests for something observable, with one deadline helper.

A test that must wait for another thread, process or worker waits for what it
can see (a value, a log line, a file, a listed worker), never for a fixed time,
and its failure names what it waited for.
"""

import time


def poll_for(predicate, timeout, what, every=0.05):
    """``predicate()``'s first truthy value, asked every ``every`` s for up to ``timeout`` s.

    Parameters
    ----------
    predicate : callable
        Asked with no arguments until it returns a truthy value, which is returned.
    timeout : float
        Seconds to keep asking; then the wait fails.
    what : str or callable
        What was waited for, as the failure says it (``"worker-1 to leave"``); a callable
        is called at the failure for the text (to show a process's last lines, say).
    every : float
        Seconds between two questions.

    Raises
    ------
    AssertionError
        Naming ``what`` and ``timeout``, and the predicate's last answer.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        if time.monotonic() > deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"waited {timeout:g} s for {said} (last answer: {found!r})")
        time.sleep(every)


def settled(read, timeout, what, quiet=0.3, every=0.05):
    """``read()``'s value once it has stayed the same for ``quiet`` s (what is still on its
    way has landed), asked every ``every`` s for up to ``timeout`` s; fails as
    :func:`poll_for` does, naming ``what``."""
    last = {"value": read(), "since": time.monotonic()}

    def unchanged_long_enough():
        now = read()
        if now != last["value"]:
            last.update(value=now, since=time.monotonic())
            return False
        return time.monotonic() - last["since"] >= quiet

    poll_for(unchanged_long_enough, timeout, lambda: f"{what} to settle (still {last['value']!r})", every)
    return last["value"]
