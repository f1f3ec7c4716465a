"""Compiled partitions on the workers.

A plan's compiled partitions are sent to every worker once, in a worker
plugin (so workers that join later get them too); each step's tasks then
name their program by id instead of carrying the code again.
"""

from __future__ import annotations

import asyncio

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from . import transport

_PROGRAMS: dict = {}


class ProgramRegistry(WorkerPlugin):
    """Installs a plan's compiled partitions on each worker."""

    def __init__(self, plan_id: str, programs: dict):
        self.name = f"daskflow-programs-{plan_id}"
        self.programs = programs

    def setup(self, worker):
        _PROGRAMS.update(self.programs)
        transport.install(worker)

    def teardown(self, worker):
        for key in self.programs:
            _PROGRAMS.pop(key, None)
        transport.MAILBOX.clear(self.name.rpartition("-")[2])


async def run_program(task_key, program_id, sends, timeout, *args):
    """The task a partition runs on its worker.

    Arguments that other partitions produce arrive through the mailbox
    (:mod:`.transport`); the program runs on the worker's thread pool; the
    results go out to the partitions and tasks that read them — or, when this
    partition fails, a marker that fails them too.
    """
    worker = get_worker()
    key, fn = _PROGRAMS[program_id]
    try:
        values = await transport.receive_args(worker, task_key, args, timeout)
        loop = asyncio.get_running_loop()
        results = await loop.run_in_executor(worker.executors["default"], fn, *values)
    except transport.UpstreamFailedError:
        transport.send_results(worker, transport.Failed(key), sends)
        raise
    except Exception as e:
        transport.send_results(worker, transport.Failed(key), sends)
        # Pickling code renames its file, so record which line of which
        # partition failed; the session maps it back to the op.
        e.daskflow_line = (key, _line_in(fn, e.__traceback__))
        raise
    transport.send_results(worker, results, sends)


def _line_in(fn, tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code is fn.__code__:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
