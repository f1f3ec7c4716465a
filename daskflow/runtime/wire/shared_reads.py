"""Reading a between-graph job's shared variables from the ps worker holding them.

A worker script's partition reads the ps's newest values as its step starts,
as a TF1 worker reads its variables from the ps tasks: one request per ps
worker for all the variables the partition reads there. The ps answers it on
its event loop from its :class:`..worker.shared.SharedVariables`
(:mod:`..worker.shared`) by sending the values to the reader's mailbox as the
reader's session, the way partitions send each other tensors
(:mod:`.transport`): by the bulk port, read in place on one machine, else on
Dask's comms. Nothing waits for any other client: the values are whatever
version each variable has now.
"""

from __future__ import annotations

import asyncio
import logging

from distributed import get_worker
from distributed.protocol.serialize import to_serialize

from ...errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    ResourceExhaustedError,
    UnauthenticatedError,
)
from .. import dask_compat
from ..checkpoint import write_shard
from ..worker.shared import DROP_HANDLER, READ_HANDLER, Definition, SharedRead, Snapshot
from ..worker.state import state_of
from . import calls, trust

logger = logging.getLogger(__name__)
COPY_HANDLER = "daskflow_shared_copy"
COPY_GET_HANDLER = "daskflow_shared_copy_get"


def install(worker):
    """Let other workers read, and sessions drop, the shared variables held by ``worker``."""
    store = state_of(worker).shared

    def drop(job=None):
        store.drop(job)

    def keep_copy(job=None, source=None, values=None, versions=None, definitions=None):
        store.keep_copy(job, source, _snapshot(values, versions, definitions))

    def get_copy(job=None, source=None):
        kept = store.copies.get((job, source))
        return None if kept is None else _message(kept)

    dask_compat.serve_handler(worker, DROP_HANDLER, drop)
    dask_compat.serve_handler(worker, COPY_HANDLER, keep_copy)
    dask_compat.serve_handler(worker, COPY_GET_HANDLER, get_copy)


def _message(snapshot) -> dict:
    """A snapshot as a Dask message: arrays as frames, definitions as plain lists."""
    return {
        "values": {name: to_serialize(v) for name, v in snapshot.values.items()},
        "versions": dict(snapshot.versions),
        "definitions": {n: [d.shape, d.dtype, d.device] for n, d in snapshot.definitions.items()},
    }


def _snapshot(values, versions, definitions) -> Snapshot:
    defs = {
        name: Definition(None if shape is None else tuple(shape), dtype, device)
        for name, (shape, dtype, device) in (definitions or {}).items()
    }
    return Snapshot(dict(values or {}), dict(versions or {}), defs)


async def send_copy(worker, address, job, snapshot):
    """Send a copy of ``job``'s variables held here to the worker at ``address``."""
    try:
        await calls.call(
            worker.rpc, address, COPY_HANDLER, job=job, source=str(worker.name), **_message(snapshot)
        )
    except Exception:  # noqa: BLE001 - the next copy goes again; training goes on
        logger.warning(
            "daskflow could not send a copy of job %s's variables to %s", job, address, exc_info=True
        )


def newest_copy(job, source, dask_worker=None):
    """How many updates this worker's copy of the variables of ``job`` on worker ``source``
    includes (None: it keeps none)."""
    kept = state_of(dask_worker).shared.copies.get((job, source))
    return None if kept is None else kept.updates()


async def restore_from(job, address, dask_worker=None) -> bool:
    """Give ``job`` here the copy of this worker's variables that the worker at ``address``
    keeps, unless they have values (another client restored them first)."""
    answer = await calls.call(
        dask_worker.rpc, address, COPY_GET_HANDLER, job=job, source=str(dask_worker.name)
    )
    if answer is None:
        return False
    return state_of(dask_worker).shared.restore(job, _snapshot(**answer))


async def resolve(worker, state, args, plan, step, timeout=None) -> list:
    """``args`` with each :class:`SharedRead` held elsewhere replaced by its value, as read
    for step ``step`` of ``plan`` (the holder notes which versions that step's update is
    based on).

    Those held here are left for the call (:func:`read_local`): an update reads
    them under its job's lock.
    """
    remote: dict = {}  # (home, job) -> names
    for a in args:
        if type(a) is SharedRead and a.home != worker.address:
            remote.setdefault((a.home, a.job), []).append(a.name)
    if not remote:
        return args
    answers = await asyncio.gather(
        *(
            _read(worker, state, home, job, names, plan, step, timeout)
            for (home, job), names in remote.items()
        )
    )
    values = {(home, job): answer for (home, job), answer in zip(remote, answers)}
    return [_value_of(a, values) if type(a) is SharedRead and a.home != worker.address else a for a in args]


async def _read(worker, state, home, job, names, plan, step, timeout):
    """``{name: value}`` of ``names`` held at ``home``, sent to this worker's mailbox."""
    box = (plan, step, f"shared-{home}", worker.address)
    request = dict(job=job, names=names, step=step, to=worker.address, box=box, plan=plan)
    fields = read_fields(**request)
    proof = trust.signed(state.trusted.credentials(plan), READ_HANDLER, fields)
    refused = await calls.call(worker.rpc, home, READ_HANDLER, **request, **proof)
    if refused is not None:
        raise UnauthenticatedError(
            None, None, f"worker {home} refused to send job {job}'s variables: {refused}"
        )
    sent = await state.mailbox.take(box, timeout)
    if type(sent) is trust.TooLarge:
        raise ResourceExhaustedError(None, None, sent.message)
    return {name: value for name, value in zip(names, sent) if value is not None}


def read_fields(job, names, step, to, box, plan) -> list:
    """The fields of a request for a job's variables, as its proof covers them."""
    return [job, list(names) if type(names) in (list, tuple) else names, step, to, box, plan]


def read_refusal(sessions, fields, session, mac) -> str | None:
    """Why a request for a job's variables (:func:`read_fields`) is not answered (None: it is):
    a session with the plan on this worker asks for them, into that plan's mailbox."""
    job, names, _, to, box, plan = fields
    if type(job) is not str or type(to) is not str or type(names) is not list:
        return "a request for shared variables whose job, names or destination is malformed"
    if type(box) not in (list, tuple) or len(box) != 4 or box[0] != plan:
        return f"a request for shared variables into the mailbox {box!r:.120}, not its plan's"
    return trust.call_refusal(sessions, READ_HANDLER, fields, session, mac, plan=plan)


def _value_of(arg, values):
    value = values[(arg.home, arg.job)].get(arg.name)
    if value is None and arg.required:
        raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {arg.name}")
    return value


def read_local(store, values) -> list:
    """``values`` with each :class:`SharedRead` of this worker's ``store`` replaced by its value."""
    return [store.read(v.job, v.name, v.required) if type(v) is SharedRead else v for v in values]


# -- tasks and calls a session runs on the worker holding a job's variables ----------------------


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
    if hosted is not None and hosted[0] != job:
        raise InvalidArgumentError(
            None,
            None,
            f"task {dask_worker.name} was started by a tf.train.Server of the cluster {hosted[1]}, and a "
            "session of another cluster spec would keep variables there: every script of a job must be "
            "given the same cluster",
        )
    state.shared.define(job, definitions)


def host(job, spec, dask_worker=None):
    """Mark ``dask_worker`` as hosted by a ``tf.train.Server`` of ``job`` (cluster ``spec``)."""
    state_of(dask_worker).shared.hosted_by = (job, spec)


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
