"""Reading a between-graph job's shared variables from the ps worker holding them.

A worker script's partition reads the ps's newest values as its step starts,
as a TF1 worker reads its variables from the ps tasks: one request per ps
worker for all the variables the partition reads there (a :class:`SharedRead`
argument each). The ps answers it on its event loop from the variables it
holds (its state's :class:`.endpoint.SharedStore`) by sending the values to
the reader's mailbox as the reader's session, the way partitions send each other tensors
(:mod:`.rendezvous`): by the bulk port, read in place on one machine, else on
Dask's comms. Nothing waits for any other client: the values are whatever
version each variable has now.

The ps also sends copies of a job's variables to another worker, for a ps
restored after a loss to take back (:func:`send_copy`, :func:`fetch_copy`).
Both calls carry a session's proof (:mod:`.trust`): a copy is signed by the
session whose update made it due, for that plan, and kept only by a worker
where that plan is; a restored ps's fetch is signed by a session with plans
there, and answered only where that session has plans too. A copy is kept
within ``daskflow.bulk-max-bytes``, and within ``daskflow.bulk-max-buffered``
with the other copies its worker keeps. ``Session.reset``'s drop of a job's
variables, which no session proves, is Dask's ``run``
(:func:`..worker.between_graph_tasks.drop`), not a handler of daskflow's. The
tasks and calls a session runs on the ps, which look its state up, are the
worker room's (:mod:`..worker.between_graph_tasks`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dask.sizeof import sizeof
from distributed.protocol import to_serialize

from ...errors import FailedPreconditionError, ResourceExhaustedError, UnauthenticatedError
from .. import dask_compat
from . import bulk, calls, trust

if TYPE_CHECKING:
    from distributed import Worker

    from .endpoint import SharedStore, WorkerEnd
    from .log_limit import OncePerPeer

logger = logging.getLogger(__name__)
READ_HANDLER = "daskflow_shared_read"
COPY_HANDLER = "daskflow_shared_copy"
COPY_GET_HANDLER = "daskflow_shared_copy_get"
PLANS_WAIT = 10.0  # seconds a restored worker waits for a session's plans to prove its fetch


@dataclass(frozen=True, slots=True)
class SharedRead:
    """A task argument: variable ``name`` of ``job``, held by the worker at ``home``.

    ``required``: reading it with no value fails the step, naming it
    (otherwise None is passed, as to ``is_variable_initialized``).
    """

    job: str
    name: str
    home: str
    required: bool


@dataclass(frozen=True, slots=True)
class Definition:
    """What every client must agree on about a shared variable."""

    shape: tuple | None  # None: unknown rank
    dtype: str
    device: str


@dataclass(frozen=True)
class Snapshot:
    """A job's variables on one worker at one moment: what recovery restores."""

    values: dict
    versions: dict
    definitions: dict
    nbytes: int = 0  # its values' bytes, as received from the ps (counted against the copies' cap)

    def updates(self) -> int:
        """How many updates the snapshot includes: the newer copy has more."""
        return sum(self.versions.values())


def install(worker: Worker, state: WorkerEnd, refused: OncePerPeer) -> None:
    """Let the sessions of ``worker``'s plans copy to it, and fetch from it, the variables of a
    job's ps (:data:`COPY_HANDLER`, :data:`COPY_GET_HANDLER`); ``state``: ``worker``'s
    (:class:`.endpoint.WorkerEnd`); ``refused``: where strangers' calls are logged
    (:class:`.log_limit.OncePerPeer`)."""

    def refuse(comm: Any, reason: str) -> None:
        host, who = trust.peer_of(comm)
        refused(host, reason, who)

    def keep_copy(
        comm: Any = None,
        job: Any = None,
        source: Any = None,
        plan: Any = None,
        values: Any = None,
        versions: Any = None,
        definitions: Any = None,
        session: Any = None,
        mac: Any = None,
    ) -> str | None:
        fields = [job, source, plan]
        reason = copy_refusal(state.trusted, fields, values, versions, definitions, session, mac)
        if reason is not None:
            refuse(comm, reason)
            return reason
        snapshot = _snapshot(values, versions, definitions)
        reason = _too_large(state.shared, job, source, snapshot, worker.address)
        if reason is not None:  # a session's own copy: rare (one per copy window), said each time
            logger.warning("daskflow refused a copy of a job's variables: %s", reason)
            return reason
        state.shared.keep_copy(job, source, snapshot)
        return None

    def get_copy(
        comm: Any = None, job: Any = None, source: Any = None, session: Any = None, mac: Any = None
    ) -> dict | None:
        reason = trust.call_refusal(state.trusted, COPY_GET_HANDLER, [job, source], session, mac)
        if reason is not None:
            refuse(comm, reason)
            return {"refused": reason}
        kept = state.shared.copies.get((job, source))
        return None if kept is None else _message(kept)

    dask_compat.serve_handler(worker, COPY_HANDLER, keep_copy)
    dask_compat.serve_handler(worker, COPY_GET_HANDLER, get_copy)


def copy_refusal(
    sessions: trust.Sessions,
    fields: list,
    values: Any,
    versions: Any,
    definitions: Any,
    session: Any = None,
    mac: Any = None,
) -> str | None:
    """Why a copy of a job's variables (``fields`` = [job, source, plan]) is not kept (None: it
    may be, size permitting): one of a session with that plan on this worker, its values,
    versions and definitions maps by variable name."""
    job, source, plan = fields
    if type(job) is not str or type(source) is not str or type(plan) is not str:
        return "a copy of shared variables whose job, source or plan is not a string"
    reason = trust.call_refusal(sessions, COPY_HANDLER, fields, session, mac, plan=plan)
    if reason is not None:
        return reason
    maps = (values, versions, definitions)
    if any(type(m) is not dict or any(type(k) is not str for k in m) for m in maps):
        return f"a copy of job {job}'s variables whose values, versions or definitions are not maps by name"
    if any(type(v) is not int for v in versions.values()) or any(
        type(d) not in (list, tuple) or len(d) != 3 for d in definitions.values()
    ):
        return f"a copy of job {job}'s variables with malformed versions or definitions"
    return None


def _too_large(store: SharedStore, job: str, source: str, snapshot: Snapshot, address: str) -> str | None:
    """Why ``snapshot`` is too large to keep here (None: it is not): over
    ``daskflow.bulk-max-bytes`` by itself, or over ``daskflow.bulk-max-buffered`` with the
    other copies kept here (the one it replaces aside)."""
    what = f"the copy of job {job}'s variables on {source} is {snapshot.nbytes} bytes"
    limit = bulk.max_bytes()
    if snapshot.nbytes > limit:
        return f"{what}, over the {limit} bytes worker {address} takes in one value (daskflow.bulk-max-bytes)"
    others, cap = store.copies_bytes(but=(job, source)), bulk.max_buffered()
    if others + snapshot.nbytes > cap:
        return (
            f"{what}, and the other copies kept on worker {address} hold {others} bytes: over {cap} bytes "
            "with it (daskflow.bulk-max-buffered); the copy kept there, if any, stays"
        )
    return None


def _message(snapshot: Snapshot) -> dict:
    """A snapshot as a Dask message: arrays as frames, definitions as plain lists."""
    return {
        "values": {name: to_serialize(v) for name, v in snapshot.values.items()},
        "versions": dict(snapshot.versions),
        "definitions": {n: [d.shape, d.dtype, d.device] for n, d in snapshot.definitions.items()},
    }


def _snapshot(values: dict | None, versions: dict | None, definitions: dict | None) -> Snapshot:
    defs = {
        name: Definition(None if shape is None else tuple(shape), dtype, device)
        for name, (shape, dtype, device) in (definitions or {}).items()
    }
    values = dict(values or {})
    nbytes = sum(sizeof(v) for v in values.values())  # each value's own: sizeof samples a large dict
    return Snapshot(values, dict(versions or {}), defs, nbytes)


async def send_copy(
    worker: Worker,
    address: str,
    job: str,
    snapshot: Snapshot,
    plan: str,
    credentials: trust.Credentials | None,
) -> None:
    """Send a copy of ``job``'s variables held here to the worker at ``address``, as
    ``credentials``' session, for its ``plan`` (whose update made the copy due)."""
    source = str(worker.name)
    proof = trust.signed(credentials, COPY_HANDLER, [job, source, plan])
    message = {"job": job, "source": source, "plan": plan, **_message(snapshot), **proof}
    try:
        refused = await calls.call(dask_compat.comms(worker), address, COPY_HANDLER, **message)
    except Exception as e:  # noqa: BLE001 - the next copy goes again; training goes on
        if dask_compat.is_leaving(worker.status):  # this ps is leaving: the job has ended
            logger.debug("copy of job %s not sent to %s: this worker is closing (%r)", job, address, e)
            return
        if isinstance(e, OSError):  # its worker left (a script that ended): the next goes elsewhere
            logger.warning("daskflow could not send a copy of job %s's variables to %s: %r", job, address, e)
            return
        logger.warning(
            "daskflow could not send a copy of job %s's variables to %s", job, address, exc_info=True
        )
        return
    if refused is not None:
        logger.warning("worker %s refused a copy of job %s's variables: %s", address, job, refused)


async def fetch_copy(worker: Worker, trusted: trust.Sessions, job: str, address: str) -> Snapshot | None:
    """The copy of ``job``'s variables on this worker that the worker at ``address`` keeps
    (None: it keeps none), fetched as a session of ``trusted`` with plans here.

    The fetch is proved by a session whose plans this worker has (the restoring
    session's, sent to it as it joined): the holder gives copies to no stranger.

    Raises
    ------
    UnauthenticatedError
        If the holder refused the fetch (no session of this worker's has plans there).
    """
    source = str(worker.name)
    credentials = await _any_session(trusted)
    proof = trust.signed(credentials, COPY_GET_HANDLER, [job, source])
    rpc = dask_compat.comms(worker)
    answer = await calls.call(rpc, address, COPY_GET_HANDLER, job=job, source=source, **proof)
    if answer is None:
        return None
    if "refused" in answer:
        raise UnauthenticatedError(
            None, None, f"worker {address} refused the copy of job {job}'s variables: {answer['refused']}"
        )
    return _snapshot(**answer)


async def _any_session(sessions: trust.Sessions, within: float = PLANS_WAIT) -> trust.Credentials | None:
    """Credentials of a session with plans here, waiting up to ``within`` seconds for one: a
    worker that just joined is sent the cluster's plans right after it registers."""
    deadline = time.monotonic() + within
    while (credentials := sessions.latest()) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return credentials


async def resolve(
    worker: Worker, state: WorkerEnd, args: list, plan: str, step: int, timeout: float | None = None
) -> list:
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


async def _read(
    worker: Worker,
    state: WorkerEnd,
    home: str,
    job: str,
    names: list[str],
    plan: str,
    step: int,
    timeout: float | None,
) -> dict:
    """``{name: value}`` of ``names`` held at ``home``, sent to this worker's mailbox."""
    box = (plan, step, f"shared-{home}", worker.address)
    request = dict(job=job, names=names, step=step, to=worker.address, box=box, plan=plan)
    fields = read_fields(**request)
    proof = trust.signed(state.trusted.credentials(plan), READ_HANDLER, fields)
    refused = await calls.call(dask_compat.comms(worker), home, READ_HANDLER, **request, **proof)
    if refused is not None:
        raise UnauthenticatedError(
            None, None, f"worker {home} refused to send job {job}'s variables: {refused}"
        )
    sent = await state.mailbox.take(box, timeout)
    if type(sent) is trust.TooLarge:
        raise ResourceExhaustedError(None, None, sent.message)
    return {name: value for name, value in zip(names, sent) if value is not None}


def read_fields(job: Any, names: Any, step: Any, to: Any, box: Any, plan: Any) -> list:
    """The fields of a request for a job's variables, as its proof covers them."""
    return [job, list(names) if type(names) in (list, tuple) else names, step, to, box, plan]


def read_refusal(sessions: trust.Sessions, fields: list, session: Any, mac: Any) -> str | None:
    """Why a request for a job's variables (:func:`read_fields`) is not answered (None: it is):
    a session with the plan on this worker asks for them, into that plan's mailbox."""
    job, names, _, to, box, plan = fields
    if type(job) is not str or type(to) is not str or type(names) is not list:
        return "a request for shared variables whose job, names or destination is malformed"
    if type(box) not in (list, tuple) or len(box) != 4 or box[0] != plan:
        return f"a request for shared variables into the mailbox {box!r:.120}, not its plan's"
    return trust.call_refusal(sessions, READ_HANDLER, fields, session, mac, plan=plan)


def _value_of(arg: SharedRead, values: dict) -> Any:
    value = values[(arg.home, arg.job)].get(arg.name)
    if value is None and arg.required:
        raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {arg.name}")
    return value


def read_local(store: SharedStore, values: list) -> list:
    """``values`` with each :class:`SharedRead` of this worker's ``store`` replaced by its value."""
    return [store.read(v.job, v.name, v.required) if type(v) is SharedRead else v for v in values]
