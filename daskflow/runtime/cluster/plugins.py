"""A session's worker plugins, handed out and taken back without failing on a worker that leaves.

Dask's ``Client.register_plugin`` and ``Client.unregister_worker_plugin`` have
the scheduler broadcast to every worker it knows: one that is leaving fails the
call (``CommClosedError``) and the scheduler logs ``broadcast to ... failed``.
In a between-graph job, workers leave as their scripts end while the other
tasks' sessions still start and close. Here the scheduler sends a plugin only
to the workers still running, again to one whose comm closed while it stays,
and a worker that left is no error: its plugins went with it. The scheduler
keeps a plugin for the workers that join later, as Dask's registration does.
"""

from __future__ import annotations

import functools
import logging
import time

from .. import dask_compat

logger = logging.getLogger(__name__)

TRIES = 5  # calls to the scheduler made again when a comm closes under them


def retried(call, *args, tries=TRIES, **kwargs):
    """``call(*args, **kwargs)``, made again after a pause when a comm closes under it
    (Dask's ``CommClosedError`` is an ``OSError``); the last try's error stands."""
    for attempt in range(tries):
        try:
            return call(*args, **kwargs)
        except OSError:
            if attempt == tries - 1:
                raise
            time.sleep(0.2 * (attempt + 1))


def add(client, plugin) -> None:
    """Start ``plugin`` (a ``WorkerPlugin`` with a ``name``) on every running worker, and on
    those that join later.

    Raises
    ------
    RuntimeError
        Naming the workers where its setup failed, or that never answered though still
        in the cluster.
    """
    answers = retried(client.run_on_scheduler, _add_on_scheduler, plugin.name, dask_compat.pickled(plugin))
    failed = {address: why for address, why in answers.items() if why}
    if failed:
        raise RuntimeError(f"daskflow could not start {plugin.name} on the workers: {failed}")


def remove(client, names) -> None:
    """Take the worker plugins ``names`` off the scheduler and its running workers; a
    worker that left already is no error, one that stays and does not answer is logged."""
    names = list(names)
    if not names or client.status != "running":
        return
    try:
        stuck = retried(client.run_on_scheduler, remove_on_scheduler, names)
    except OSError as e:  # the scheduler is gone: it took the plugins with it
        logger.warning("daskflow could not take %s off the workers: %s", names, e)
        return
    if stuck:
        logger.warning("daskflow could not take %s off the workers %s (no answer)", names, stuck)


async def _add_on_scheduler(name, data, dask_scheduler=None) -> dict:
    """On the scheduler: keep plugin ``name`` (pickled: ``data``) for workers that join, send it
    to those running; address -> why it failed there ("" where it started).

    Relies on the workers' ``plugin-add`` handler."""
    dask_compat.keep_worker_plugin(dask_scheduler, name, data)
    msg = {"op": "plugin-add", "plugin": data, "name": name}
    answers = await dask_compat.to_running_workers(dask_scheduler, msg)
    return {address: _failure(answer) for address, answer in answers.items()}


async def remove_on_scheduler(names, dask_scheduler=None) -> list:
    """On the scheduler: forget the worker plugins ``names`` and take them off the running
    workers; the addresses of those still there that did not answer. Never raises: it
    also runs as a callback (:func:`later`), where an error would only be logged."""
    try:
        for name in names:
            dask_compat.forget_worker_plugin(dask_scheduler, name)
        msg = dask_compat.run_message(_drop, names)  # Client.run's message
        answers = await dask_compat.to_running_workers(dask_scheduler, msg)
        return sorted(address for address, answer in answers.items() if answer is None)
    except Exception as e:  # noqa: BLE001 - a scheduler closing under it
        logger.warning("daskflow could not take %s off the workers: %r", names, e)
        return []


async def _drop(names, dask_worker=None) -> None:
    """On a worker: tear down those of the plugins ``names`` it has, unless it is closing.

    Not Dask's ``plugin-remove``: a worker closing tears its plugins down itself, and one
    removed twice logs a ``KeyError`` traceback. ``Worker.plugin_remove`` pops the plugin
    before its first await, so no close can start between this check and the pop.
    """
    for name in names:
        if dask_compat.is_running(dask_worker) and dask_compat.has_plugin(dask_worker, name):
            await dask_worker.plugin_remove(name)


def later(scheduler, names) -> None:
    """:func:`remove_on_scheduler` of ``names``, soon, on the scheduler's event loop."""
    remove = functools.partial(remove_on_scheduler, list(names), dask_scheduler=scheduler)
    dask_compat.call_soon(scheduler, remove)


def _failure(answer) -> str:
    """Why a worker's answer to ``plugin-add`` is a failure ("" for none)."""
    if answer is None:
        return "no answer"
    if isinstance(answer, dict) and answer.get("status") == "OK":
        return ""
    if isinstance(answer, dict):
        return str(answer.get("exception_text") or answer.get("text") or answer)
    return repr(answer)
