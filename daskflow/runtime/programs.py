"""Compiled partitions on the workers.

A plan's compiled partitions are sent to every worker once, in a worker
plugin (so workers that join later get them too); each step's tasks then
name their program by id instead of carrying the code again.
"""

from __future__ import annotations

import operator

from distributed.diagnostics.plugin import WorkerPlugin

_PROGRAMS: dict = {}


class ProgramRegistry(WorkerPlugin):
    """Installs a plan's compiled partitions on each worker."""

    def __init__(self, plan_id: str, programs: dict):
        self.name = f"daskflow-programs-{plan_id}"
        self.programs = programs

    def setup(self, worker):
        _PROGRAMS.update(self.programs)

    def teardown(self, worker):
        for key in self.programs:
            _PROGRAMS.pop(key, None)


def run_program(program_id, *args):
    """The task a partition runs on its worker."""
    key, fn = _PROGRAMS[program_id]
    try:
        return fn(*args)
    except Exception as e:
        # Pickling code renames its file, so record which line of which
        # partition failed; the session maps it back to the op.
        e.daskflow_line = (key, _line_in(fn, e.__traceback__))
        raise


def _line_in(fn, tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code is fn.__code__:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def item(values, index):
    """One output of a partition (a variable's new value, a fetched tensor)."""
    return operator.getitem(values, index)
