"""Judging a daskflow run of a corpus program against TF1's runs of it.

TF1's spread: the oracle runs each program with five seeds (numpy's, Python's
and the graph-level seed, and any seed the program sets itself shifted by the
run's seed; ``python -m tests.conformance --oracle --seeds 5``) and keeps every
run's result numbers. A daskflow number is within TF's spread
when it lies in TF's range of that number widened on each side by the
range's own width, plus float32 rounding (``1e-3`` relative, ``1e-6``
absolute): a program whose numbers do not depend on the seed must match TF
to rounding; one whose numbers vary may vary as much again.
"""

from __future__ import annotations

import math

RELATIVE = 1e-3
ABSOLUTE = 1e-6


def envelope(results):
    """Per number: (low, high) over TF's runs, or None if the runs printed different counts."""
    results = [r for r in results if r is not None]
    if not results or len({len(r) for r in results}) != 1:
        return None
    return [(min(values), max(values)) for values in zip(*results)]


def within(value, low, high):
    """Whether `value` lies in ``[low, high]`` widened by its width and float32 rounding."""
    if math.isnan(value) or math.isnan(low) or math.isnan(high):
        return math.isnan(value) and (math.isnan(low) or math.isnan(high))
    width = high - low
    slack = width + RELATIVE * max(abs(low), abs(high), abs(value)) + ABSOLUTE
    return low - slack <= value <= high + slack


def verdict(oracle, run):
    """How a daskflow `run` (a report of run_program) compares with TF's `oracle` entry.

    Returns one of ``"tf fails"`` (TF cannot run it: not counted), ``"not run"``
    (no daskflow run recorded: not counted, and said so), ``"matches"``,
    ``"differs"`` (runs, but a number lies outside TF's spread or another count
    of numbers was printed), ``"fails"`` (error or timeout).
    """
    if oracle is None or oracle["status"] != "ok":
        return "tf fails"
    if run is None:
        return "not run"
    if run["status"] != "ok":
        return "fails"
    bounds = envelope([r for r, s in zip(oracle["results"], oracle["statuses"]) if s == "ok"])
    if bounds is None or len(bounds) != len(run["result"]):
        return "differs"
    if all(within(v, lo, hi) for v, (lo, hi) in zip(run["result"], bounds)):
        return "matches"
    return "differs"
