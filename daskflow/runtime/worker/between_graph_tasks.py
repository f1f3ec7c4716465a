"""The tasks and calls a between-graph session runs on the worker holding its job's variables.

A session sharing a job's variables (:mod:`..cluster.between_graph`) reads,
defines, checkpoints, restores and drops them where they live, the ps
worker's :class:`.between_graph.SharedVariables`, by tasks pinned to that
worker and by Dask's ``client.run``. Each looks the worker's state up here,
in the worker room; how values and copies travel is :mod:`..wire.between_graph`'s.
"""

from __future__ import annotations

from distributed import get_worker

from ...errors import InvalidArgumentError
from ..checkpoint import write_shard
from ..wire import between_graph as wire
from .between_graph import HostedBy
from .state import state_of


def read_value(job, name):
    """Variable ``name``'s newest value (a task pinned to its worker: a fetched variable)."""
    return state_of(get_worker()).shared.read(job, name, required=True)


def define(job, definitions, dask_worker=None):
    """Record (or check) the job's variable definitions here (``client.run``).

    Raises
    ------
    InvalidArgumentError
        If a ``tf.train.Server`` of another cluster spec hosts this worker (its
        scripts were given different clusters), or a definition differs.
    """
    state = state_of(dask_worker)
    hosted = state.shared.hosted_by
    if hosted is not None and hosted.job != job:
        raise InvalidArgumentError(
            None,
            None,
            f"task {dask_worker.name} was started by a tf.train.Server of the cluster {hosted.spec}, and a "
            "session of another cluster spec would keep variables there: every script of a job must be "
            "given the same cluster",
        )
    state.shared.define(job, definitions)


def host(job, spec, dask_worker=None):
    """Mark ``dask_worker`` as hosted by a ``tf.train.Server`` of ``job`` (cluster ``spec``)."""
    state_of(dask_worker).shared.hosted_by = HostedBy(job, spec)


def write_checkpoint_shard(job, names, url):
    """Write variables ``names``' newest values into the data shard at ``url`` (a task on
    their worker)."""
    store = state_of(get_worker()).shared
    return write_shard(url, names, *[store.read(job, name, required=True) for name in names])


def restore(job, values: dict):
    """Give ``job``'s variables these values (read from a checkpoint), at once."""
    store = state_of(get_worker()).shared
    with store.lock(job):
        store.write(job, values)


def names(job, dask_worker=None) -> list:
    """The variables of ``job`` that have a value here (``client.run``)."""
    return state_of(dask_worker).shared.names(job)


def incarnation(dask_worker=None) -> str:
    """The token of this worker's daskflow state (``client.run``): another after a restart."""
    return state_of(dask_worker).incarnation


def drop(job, dask_worker=None):
    """Forget ``job``'s variables, definitions and copies here (``client.run``: ``Session.reset``,
    which no session's secret proves, uses Dask's own way of running code on a worker)."""
    state_of(dask_worker).shared.drop(job)


def newest_copy(job, source, dask_worker=None):
    """How many updates this worker's copy of the variables of ``job`` on worker ``source``
    includes (None: it keeps none)."""
    kept = state_of(dask_worker).shared.copies.get((job, source))
    return None if kept is None else kept.updates()


async def restore_from(job, address, dask_worker=None) -> bool:
    """Give ``job`` here the copy of this worker's variables that the worker at ``address``
    keeps (:func:`..wire.between_graph.fetch_copy`), unless they have values (another
    client restored them first); whether it did.

    Raises
    ------
    UnauthenticatedError
        If the holder refused the fetch (no session of this worker's has plans there).
    """
    state = state_of(dask_worker)
    snapshot = await wire.fetch_copy(dask_worker, state.trusted, job, address)
    return snapshot is not None and state.shared.restore(job, snapshot)
