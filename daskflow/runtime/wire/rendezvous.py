"""Send/Recv between a step's partitions, worker to worker (TF's rendezvous).

A cluster step submits all its partition tasks at once, with no Dask
dependencies between them: a dependency would cost a round trip through the
scheduler for every edge (producer done -> scheduler -> consumer's worker).
Instead a producer sends its results straight to each consumer's worker as
soon as they exist, over a comm handler that each worker gains with the
programs plugin, and a consumer takes them from its worker's mailbox.

Partition tasks are coroutines: they wait for their inputs on the worker's
event loop, out of the count of its busy threads (so a waiting consumer never
keeps a producer on the same worker from running), then compute on the
worker's thread pool.
A producer that fails sends a :class:`Failed` marker instead, so its
consumers fail at once rather than wait.

Values sent by :mod:`.bulk` are checked before they are read
(:func:`refusal`): mail for a plan the sending session has registered on
this worker, pushes of that session's variables, every field of the right
type. Values sent on Dask's comms (:data:`HANDLER`, and pushes) must carry
the same proof, a MAC by the session's secret (:mod:`.trust`), and keep
within the bulk port's caps: a stranger's call is refused (logged once a
minute per host) and nothing is kept; a session's value too large to keep is
replaced by a :class:`.trust.TooLarge`, so its consumer fails at once with
``ResourceExhaustedError`` naming it and the sizes. The mailbox and the push
cache are the worker's own (its state, which the worker's entry points hand
in: :class:`.endpoint.WorkerEnd`): workers sharing a process share neither.
A value nobody can claim any more is dropped after ``daskflow.mailbox-ttl``
seconds (:mod:`.mailbox`), and a consumer that
comes for it later is told so.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard, Union, cast, final

import numpy as np
from dask.sizeof import sizeof
from distributed.protocol import to_serialize

from ...errors import ResourceExhaustedError, UnauthenticatedError
from ...kernels import codecs
from .. import dask_compat
from . import between_graph, bulk, calls, pushes, trust
from .endpoint import WorkerEnd
from .log_limit import OncePerPeer
from .mailbox import MailKey, ttl
from .pushes import PushKey
from .variable_cache import entry_refusal

if TYPE_CHECKING:
    from distributed import Client, Worker

    from .mailbox import Mailbox, Release

Results = Union[tuple, "Failed"]  # a partition's results, or the marker of its failure
PushEntry = tuple[tuple[str, int, int], Any]  # ((name, version, versions to keep), value)

logger = logging.getLogger(__name__)

HANDLER = "daskflow_recv"


@dataclass(frozen=True)
class Recv:
    """A task argument that arrives in the mailbox under ``key``."""

    key: tuple


@dataclass(frozen=True)
class FromReplicas:
    """A task argument sent by every replica of a partition, one mailbox key each."""

    keys: tuple


@dataclass(frozen=True)
class Send:
    """Where a partition's results go: the worker, the mailbox key, the indices it reads.

    A *push* (``keep > 0``) sends one new variable value to a worker that
    reads it, under a :class:`.pushes.PushKey` (plan id, step, variable name),
    for its cache (:mod:`.pushes`) to keep among the newest ``keep`` versions;
    the producer does not wait for its delivery. Any other send goes to a
    mailbox, under a :class:`.mailbox.MailKey`.
    """

    address: str
    key: MailKey | PushKey
    indices: tuple
    keep: int = 0
    codec: str | None = None  # a push's encoding (ConfigProto.variable_compression)


@dataclass(frozen=True)
class _PushedEarly:
    """A push sent from the computing thread (:func:`send_early`): ``value`` as it went,
    encoded where its :class:`Send` says, for counting its bytes."""

    value: object


class Received(tuple):
    """A producer's results read off a bulk connection into new arrays: this worker's own
    copies, which nothing else holds. (Dask's comms may hand over the producer's own
    arrays: its ``inproc://`` transport passes objects as they are.)"""

    __slots__ = ()


@final
@dataclass(frozen=True)
class Failed:
    """Sent in place of results by a partition that raised; ``discarded``: by one of a staged
    step that the session dropped instead of starting (no error: nothing ran)."""

    producer: str
    discarded: bool = False


class UpstreamFailedError(RuntimeError):
    """A partition could not run because one it reads from failed."""


class StepDiscardedError(Exception):
    """A staged step that its session dropped before it started: its tasks end with nothing
    done, and tell their consumers so."""


def install(worker: Worker, state: WorkerEnd) -> None:
    """Give ``worker`` the receiving ends (idempotent): Dask's comm handler and bulk's port,
    filing into ``state``, the worker's own (:class:`..worker.state.WorkerState`)."""
    if state.receiving:
        return
    mailbox = state.mailbox
    # Calls refused on Dask's comms: a line a minute per host, with the count held back.
    refused = OncePerPeer(logger, "daskflow refused a call from %s: %s")

    def receive(
        comm: Any = None, key: Any = None, value: Any = None, session: Any = None, mac: Any = None
    ) -> str | None:
        return _receive(state, worker.address, trust.peer_of(comm), refused, key, value, session, mac)

    def deliver(header: dict, items: list, release: Release) -> None:
        dask_compat.call_soon(worker, _arrived, state, header, items, release)

    dask_compat.serve_handler(worker, HANDLER, receive)
    pushes.install(worker, state, refused)
    between_graph.install(worker, state, refused)

    async def send_shared(
        comm: Any = None,
        job: Any = None,
        names: Any = (),
        step: Any = None,
        to: Any = None,
        box: Any = None,
        plan: Any = None,
        session: Any = None,
        mac: Any = None,
    ) -> str | None:
        # A reader's request for a job's variables held here (between_graph._read): only a
        # session with the plan here may have them sent anywhere.
        fields = between_graph.read_fields(job, names, step, to, box, plan)
        reason = between_graph.read_refusal(state.trusted, fields, session, mac)
        if reason is not None:
            host, who = trust.peer_of(comm)
            refused(host, reason, who)
            return reason
        values = state.shared.read_many(job, names, step)
        payload = tuple(values.get(name) for name in names)
        await _deliver(worker, to, MailKey._make(box), payload, state.trusted.credentials(plan))
        return None

    dask_compat.serve_handler(worker, between_graph.READ_HANDLER, send_shared)
    state.receiver = bulk.serve(worker, deliver, refusal, state.trusted, state.unclaimed)
    state.receiving = True
    # Expiry with no new arrivals too; Dask stops the callback when the worker closes.
    dask_compat.every(worker, "daskflow-mailbox", mailbox.sweep, min(ttl() / 4, 30.0))


def _arrived(state: WorkerEnd, header: dict, items: list, release: Release = None) -> None:
    """A value that came by :mod:`.bulk` (checked by :func:`refusal`) for the worker whose
    ``state`` it is, on the worker's event loop."""
    try:
        kind = header.get("kind")
        if kind == "mail":
            single = header.get("single")
            state.mailbox.put(MailKey._make(header["key"]), items[0] if single else Received(items), release)
            return
        if kind == "push":
            cache = state.cache
            for (name, version, keep), value in zip(header["entries"], items):
                cache.put(name, version, value, keep)
        else:
            logger.warning("daskflow dropped a bulk transfer of unknown kind %r", kind)
    except Exception:  # noqa: BLE001 - the receiver checked it: a bug here must not stop the loop
        logger.exception("daskflow dropped a bulk transfer it could not file")
    if release is not None:
        release()  # pushes are kept in the bounded cache, not the mailbox


def _receive(
    state: WorkerEnd,
    address: str,
    peer: tuple[str, str],
    refused: Callable[[str, str, str], None],
    key: Any,
    value: Any,
    session: Any,
    mac: Any,
) -> str | None:
    """A value that came on Dask's comms (the handler :data:`HANDLER`) for the worker at
    ``address`` whose ``state`` it is, from ``peer`` = (host, address).

    Returns None where it was filed (the value, or a :class:`.trust.TooLarge` in its
    place), else why it was refused: nothing is filed then.
    """
    reason: str | None
    fields = list(key) if type(key) in (list, tuple, MailKey) else None  # MailKey: inproc://
    if fields is None or not is_mailbox_key(fields):
        reason = f"a mailbox key that is not [plan, step, name, name]: {_short(key)}"
    else:
        reason = trust.call_refusal(state.trusted, HANDLER, fields, session, mac, plan=fields[0])
    if reason is not None:
        refused(peer[0], reason, peer[1])
        return reason
    key, nbytes = MailKey._make(key), sizeof(value)
    limit, cap = bulk.max_bytes(), bulk.max_buffered()
    release = state.unclaimed.reserve(session, nbytes, cap) if nbytes <= limit else None
    if release is None:
        what = f"the value of {key.producer} for partition {key.consumer} in step {key.step}"
        if nbytes > limit:
            why = f"over the {limit} bytes worker {address} takes in one value (daskflow.bulk-max-bytes)"
        else:
            held = state.unclaimed.held(session)
            why = (
                f"and this session's values waiting on worker {address} hold {held} bytes: over "
                f"{cap} bytes with it (daskflow.bulk-max-buffered)"
            )
        value = trust.TooLarge(f"{what} is {nbytes} bytes, {why}")
        refused(peer[0], value.message, peer[1])
    state.mailbox.put(key, value, release)
    return None


_MAIL_FIELDS = frozenset({"kind", "key", "single"})
_PUSH_FIELDS = frozenset({"kind", "entries"})


def refusal(header: dict, count: int, session: str, plans: frozenset[str]) -> str | None:
    """Why a bulk message of ``count`` items from ``session`` is not taken here (None: it is).

    ``plans``: the plans ``session`` has registered on this worker. Mail must
    be for one of them, under a key ``[plan, step, name, name]``; pushes must
    be of the session's variables (:func:`.variable_cache.entry_refusal`).
    """
    kind = header.get("kind")
    if kind == "mail":
        return _mail_refusal(header, count, plans)
    if kind == "push":
        return _push_refusal(header, count, session)
    return f"a message of unknown kind {_short(kind)}"


def _mail_refusal(header: dict, count: int, plans: frozenset[str]) -> str | None:
    if not _MAIL_FIELDS.issuperset(header):
        return f"a mail header with unknown fields {_short(sorted(map(repr, set(header) - _MAIL_FIELDS)))}"
    key = header.get("key")
    if not is_mailbox_key(key):
        return f"a mailbox key that is not [plan, step, name, name]: {_short(key)}"
    if key[0] not in plans:
        return f"mail for plan {_short(key[0])}, which its session has not registered on this worker"
    single = header.get("single", False)
    if type(single) is not bool:
        return f"a mail header whose single is {_short(single)}, not a bool"
    if single and count != 1:
        return f"a single value sent as {count} items"
    return None


def _push_refusal(header: dict, count: int, session: str) -> str | None:
    if not _PUSH_FIELDS.issuperset(header):
        return f"a push header with unknown fields {_short(sorted(map(repr, set(header) - _PUSH_FIELDS)))}"
    entries = header.get("entries")
    if type(entries) is not list or len(entries) != count:
        return f"push entries that are not a list of one per item ({count}): {_short(entries)}"
    prefix = pushes.cache_name(session, "")
    return next(filter(None, (entry_refusal(entry, prefix) for entry in entries)), None)


def is_mailbox_key(key: Any) -> TypeGuard[list]:
    """Whether ``key`` is ``[plan id, step, name, name]``, as a step's sends make them."""
    return (
        type(key) is list
        and len(key) == 4
        and all(type(part) is str for part in (key[0], key[2], key[3]))
        and type(key[1]) is int
        and 0 <= key[1] < 2**63
    )


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def release_slot(worker: Worker, key: tuple) -> None:
    """Stop counting task ``key`` against the worker's threads while it waits.

    What ``distributed.secede`` does for a task on a thread, for a coroutine
    task: others — the very producers it waits for — can run meanwhile.
    """
    dask_compat.release_thread_slot(worker, key)


def _ready(state: WorkerEnd, a: object) -> bool:
    if type(a) is Recv:
        return state.mailbox.ready(a.key)
    if type(a) is FromReplicas:
        return all(state.mailbox.ready(k) for k in a.keys)
    if type(a) is pushes.Pushed:
        return state.cache.ready(a.name, a.version)
    return True


async def receive_args(
    worker: Worker, state: WorkerEnd, task_key: tuple, args: Sequence, timeout: float | None
) -> list:
    """``args`` with every :class:`Recv` replaced by the value it names, from ``worker``'s
    ``state``.

    :class:`FromReplicas` arguments are left for :mod:`..worker.arrivals`.
    """
    if not all(_ready(state, a) for a in args):
        release_slot(worker, task_key)
    mailbox, out = state.mailbox, []
    try:
        for a in args:
            if type(a) is Recv:
                a = unless_failed(await mailbox.take(a.key, timeout))
            elif type(a) is pushes.Pushed:
                a = unless_failed(await pushes.value_of(worker, a, timeout, state.cache))
            out.append(a)
    except BaseException:
        # What the others send this failed instance would stay in the mailbox: the
        # arguments it had not waited for yet (the failing one is taken or given up).
        for i, a in enumerate(args):
            if type(a) is FromReplicas:
                keys = a.keys
            else:
                keys = (a.key,) if type(a) is Recv and i > len(out) else ()
            for key in keys:
                mailbox.discard(key)
        raise
    return out


def unless_failed(value: Any) -> Any:
    if type(value) is Failed:
        if value.discarded:
            raise StepDiscardedError(value.producer)
        raise UpstreamFailedError(f"partition {value.producer} failed, so this step cannot finish")
    if type(value) is trust.TooLarge:
        raise ResourceExhaustedError(None, None, value.message)
    return value


def send_results(
    worker: Worker,
    state: WorkerEnd,
    results: Results,
    sends: Sequence[Send],
    early: dict | None = None,
    urgent: bool = False,
) -> list[asyncio.Future]:
    """Deliver each consumer the results it reads (``None`` elsewhere); ``state``: ``worker``'s.

    Returns the deliveries to other workers, as asyncio tasks: the producer
    awaits them, so a delivery that fails fails its task instead of leaving
    the consumer waiting. ``early`` (from :func:`send_early`): the sends
    already on their way, by position; only confirmed here. ``urgent``: pushes
    go at once (a loop's next round waits for them; see :func:`_push_in_background`).
    """
    early = early or {}
    sessions = state.trusted
    deliveries: list[asyncio.Future] = []
    pushes: dict[str, list[Send]] = {}
    for j, send in enumerate(sends):
        if send.keep:
            if send.address == worker.address:  # a loop's next round, here: no message
                _, version, name = cast(PushKey, send.key)
                value = results if type(results) is Failed else results[send.indices[0]]
                state.cache.put(name, version, value, send.keep)
            elif j not in early:
                pushes.setdefault(send.address, []).append(send)
            else:
                state.count_sent(send.key[:2], send.address, (early[j].value,))
            continue
        if send.address == worker.address:
            state.mailbox.put(send.key, results)  # same process: the tuple itself, no copy
            continue
        payload: Results
        if type(results) is Failed:
            payload = results
        else:
            payload = _payload(results, send.indices)
            state.count_sent(send.key[:2], send.address, payload)
        credentials = sessions.credentials(send.key.plan)
        if j in early:
            deliveries.append(asyncio.ensure_future(_confirm(worker, send, payload, early[j], credentials)))
        else:
            key = cast(MailKey, send.key)
            deliveries.append(
                asyncio.ensure_future(_deliver(worker, send.address, key, payload, credentials))
            )
    encoded: dict = {}  # a value pushed to several readers is encoded once
    for address, reader_sends in pushes.items():
        credentials = sessions.credentials(reader_sends[0].key.plan)
        _push(worker, state, address, reader_sends, results, credentials, encoded, urgent)
    return deliveries


SLOT_GRACE = 0.05  # seconds a task waits for its deliveries while holding its worker's slot


async def delivered(worker: Worker, task_key: tuple, deliveries: list[asyncio.Future]) -> None:
    """Wait for ``deliveries`` (raising the first failure); past :data:`SLOT_GRACE`, or at
    once while another task waits for a thread, out of the count of the worker's busy threads.

    A delivery to a worker that died is retried for Dask's connect timeout
    (30 s). Holding the slot meanwhile, the task kept the step run again after
    the recovery from starting on this worker (measured: 28 s).
    """
    if not deliveries:
        return
    # A task queued behind this one (the next piece of a cut partition) starts at once.
    grace = 0.0 if dask_compat.tasks_queued(worker) else SLOT_GRACE
    _, waiting = await asyncio.wait(deliveries, timeout=grace)
    if waiting:
        release_slot(worker, task_key)
    for delivery in deliveries:
        await delivery


def _payload(results: tuple, indices: tuple) -> tuple:
    return tuple(results[i] if i in indices else None for i in range(len(results)))


def send_early(worker: Worker, state: WorkerEnd, results: tuple, sends: Sequence[Send]) -> dict:
    """From the thread that computed ``results``: send by bulk what can go now.

    The event loop may be busy when a partition's compute ends; handing it
    the results first would add its delay to every consumer's wait (measured
    up to 2.5 ms from a tower's last op to its gradients leaving). A
    worker's pushes go in one message. Returns ``{position in sends:
    concurrent Future}`` of what was submitted (a :class:`_PushedEarly` for pushes,
    which nobody awaits); :func:`send_results` does the rest.
    """
    early: dict[int, concurrent.futures.Future | _PushedEarly] = {}
    pushed: dict[tuple, list[PushEntry]] = {}
    encoded: dict = {}
    sessions = state.trusted
    try:
        for j, send in enumerate(sends):
            where = bulk.known(send.address) if send.address != worker.address else None
            credentials = sessions.credentials(send.key.plan)
            if where is None or credentials is None:
                continue
            if send.keep:
                entry = _push_entry(send, results, encoded)
                if bulk.eligible((entry[1],)):
                    pushed.setdefault((send.address, where, credentials), []).append(entry)
                    early[j] = _PushedEarly(entry[1])
                continue
            payload = _payload(results, send.indices)
            if bulk.eligible(payload):
                early[j] = bulk.submit(where, _mail(cast(MailKey, send.key)), payload, credentials)
        for (address, where, credentials), entries in pushed.items():
            header, values = _push_message(entries)
            done = bulk.submit(where, header, values, credentials)
            again = functools.partial(
                _repush, worker=worker, address=address, entries=entries, credentials=credentials
            )
            done.add_done_callback(again)
    except Exception:  # noqa: BLE001 - what did not go early goes from the event loop
        logger.exception("daskflow could not send results early")
        early = {j: f for j, f in early.items() if type(f) is not _PushedEarly}  # pushes: by the loop
    return early


async def _confirm(
    worker: Worker,
    send: Send,
    payload: Results,
    sent: concurrent.futures.Future,
    credentials: trust.Credentials | None,
) -> None:
    """Wait for an early delivery; on Dask's comms again if it did not go."""
    try:
        await asyncio.wrap_future(sent)
    except OSError:
        bulk.forget(send.address)
        await _call_receive(
            dask_compat.comms(worker), send.address, cast(MailKey, send.key), payload, credentials
        )


def _repush(
    done: concurrent.futures.Future,
    worker: Worker,
    address: str,
    entries: list[PushEntry],
    credentials: trust.Credentials,
) -> None:
    """Early pushes that did not go: again, from the event loop, on whatever way there is."""
    if done.exception() is not None:
        bulk.forget(address)
        dask_compat.call_soon(worker, _spawn, _push_in_background(worker, address, entries, credentials))


async def take(
    worker: Worker, mailbox: Mailbox, task_key: tuple, box: MailKey, index: int | tuple, timeout: float | None
) -> Any:
    """A partition's result ``index`` (a fetch), or the tuple of its results at ``index``
    (a tuple: its new variable values), from ``worker``'s ``mailbox``: what the task
    ``task_key`` holding them returns (:func:`..worker.programs.take`)."""
    if not mailbox.ready(box):
        release_slot(worker, task_key)
    results = unless_failed(await mailbox.take(box, timeout))
    return tuple(results[i] for i in index) if type(index) is tuple else results[index]


async def opened(worker: Worker, state: WorkerEnd, task_key: tuple, gate: MailKey) -> None:
    """Wait for the session's word to start a staged step (:class:`StepDiscardedError` if it
    dropped the step instead), however long its user takes to run it."""
    if not state.mailbox.ready(gate):
        release_slot(worker, task_key)
    unless_failed(await state.mailbox.take(gate, None))


async def _deliver(
    worker: Worker, address: str, key: MailKey, payload: Results, credentials: trust.Credentials | None
) -> None:
    """Send ``payload`` to ``key`` at ``address``: by bulk as ``credentials``' session where it
    can go so, else on Dask's comms."""
    if type(payload) is not Failed and bulk.eligible(payload):
        if await bulk.send(dask_compat.comms(worker), address, _mail(key), payload, credentials):
            return
    await _call_receive(dask_compat.comms(worker), address, key, payload, credentials)


async def _call_receive(
    rpc: Any, address: str, key: MailKey, value: Any, credentials: trust.Credentials | None
) -> None:
    """Put ``value`` under ``key`` in the mailbox at ``address`` on Dask's comms, proved as
    ``credentials``' session (:mod:`.trust`).

    Raises
    ------
    UnauthenticatedError
        If the worker refused it (it knows no such session or plan: nothing was kept).
    """
    proof = trust.signed(credentials, HANDLER, list(key))
    refused = await calls.call(rpc, address, HANDLER, key=key, value=to_serialize(value), **proof)
    if refused is not None:
        raise UnauthenticatedError(
            None,
            None,
            f"worker {address} refused the value of {key.producer} for partition {key.consumer}: {refused}",
        )


def _mail(key: MailKey, single: bool = False) -> dict:
    """The bulk header of a mailbox delivery; ``single``: a value, not a tuple of results."""
    return {"kind": "mail", "key": list(key), "single": single}


def _push_entry(send: Send, results: Results, encoded: dict) -> PushEntry:
    """``((name, version, versions to keep), value)`` that push ``send`` carries of ``results``;
    ``encoded``: the values already encoded for other readers, by (index, codec)."""
    _, version, name = cast(PushKey, send.key)
    value = results if type(results) is Failed else results[send.indices[0]]
    if send.codec is not None and type(value) is np.ndarray:
        key = (send.indices[0], send.codec)
        if key not in encoded:
            encoded[key] = codecs.encode(send.codec, value)
        value = encoded[key]
    return (name, version, send.keep), value


def _push_message(entries: list[PushEntry]) -> tuple[dict, list]:
    """The bulk header and items of a message pushing ``entries`` (see :func:`_push_entry`)."""
    header = {"kind": "push", "entries": [list(e) for e, _ in entries]}
    return header, [value for _, value in entries]


def _push(
    worker: Worker,
    state: WorkerEnd,
    address: str,
    sends: list[Send],
    results: Results,
    credentials: trust.Credentials | None,
    encoded: dict,
    urgent: bool = False,
) -> None:
    """Send a reader the new variable values it reads, in one message, in the background
    (see :mod:`.pushes`): one message per variable would wait for one acknowledgement each."""
    entries = [_push_entry(send, results, encoded) for send in sends]
    if type(results) is not Failed:
        state.count_sent(sends[0].key[:2], address, [value for _, value in entries])
    _spawn(_push_in_background(worker, address, entries, credentials, 0.0 if urgent else PUSH_DELAY))


def _spawn(coroutine: Coroutine) -> None:
    task = asyncio.ensure_future(coroutine)
    _BACKGROUND.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_BACKGROUND.discard)


_BACKGROUND: set = set()
PUSH_DELAY = 0.001  # seconds


async def _push_in_background(
    worker: Worker,
    address: str,
    entries: list[PushEntry],
    credentials: trust.Credentials | None,
    delay: float = PUSH_DELAY,
) -> None:
    """Push ``entries`` — ((name, version, versions to keep), value) — to one reader
    (by bulk as ``credentials``' session, where there are some)."""
    # Let the step's completion messages leave this worker's event loop first:
    # writing megabytes to a socket there delays them (measured: 5.5 ms -> 2 ms
    # from the last partition's end to the scheduler knowing it). Within a run of
    # several steps, no such message is due and the next step waits for the push.
    if delay:
        await asyncio.sleep(delay)
    header, values = _push_message(entries)
    try:
        if bulk.eligible(values) and await bulk.send(
            dask_compat.comms(worker), address, header, values, credentials
        ):
            return
        rpc = dask_compat.comms(worker)(address)
        for (name, version, keep), value in entries:
            proof = trust.signed(credentials, pushes.HANDLER, [name, version, keep])
            await rpc.daskflow_push(name=name, version=version, keep=keep, value=to_serialize(value), **proof)
    except Exception:  # noqa: BLE001 - the reader's worker is gone: recovery handles it
        names = ", ".join(name for (name, _, _), _ in entries)
        logger.warning("daskflow could not push variables %s to %s", names, address)


async def fail_consumers(
    worker: Worker, state: WorkerEnd, producer: str, sends: Sequence[Send], discarded: bool = False
) -> None:
    """Tell every consumer ``producer`` failed, or its step was ``discarded`` (best effort:
    it is ending already)."""
    for delivery in send_results(worker, state, Failed(producer, discarded), sends):
        try:
            await delivery
        except Exception:  # noqa: BLE001 - its consumer's worker is gone or unreachable
            logger.warning("daskflow could not tell a consumer that %s failed", producer)


DIRECT_FEED_BYTES = 64 * 1024  # feeds at least this big skip the scheduler


def posts_directly(value: object) -> bool:
    """Whether a fed value is big enough to send straight to its worker."""
    return getattr(value, "nbytes", 0) >= DIRECT_FEED_BYTES


def post(client: Client, address: str, key: MailKey, value: Any) -> concurrent.futures.Future | None:
    """From the client, put ``value`` in a worker's mailbox (without waiting); the bulk
    send's future where it goes by bulk (done once the worker has it), else None.

    Fed batches go this way instead of inside the task graph, which would
    carry them through the scheduler: one hop and two copies more. Where the
    worker's bulk port is known, from this thread, leaving the client's event
    loop to send the step's graph.
    """
    where, credentials = bulk.known(address), bulk.CLIENT_SESSIONS.credentials(key.plan)
    if where is not None and credentials is not None and bulk.eligible((value,)):
        sent = bulk.submit(where, _mail(key, single=True), (value,), credentials)
        sent.add_done_callback(lambda done: _post_again(done, client, address, key, value))
        return sent
    dask_compat.call_soon(client, _post, client, address, key, value)
    return None


def post_now(client: Client, boxes: Sequence[tuple[str, MailKey]], value: Any, timeout: float) -> None:
    """:func:`post` ``value`` to each ``(worker address, key)`` of ``boxes`` at once, waiting
    until the workers have it, or ``timeout`` seconds (then logged: a worker that left takes
    nothing)."""
    if boxes:
        dask_compat.run_on_loop(client, _post_within, client, boxes, value, timeout)


async def _post_within(
    client: Client, boxes: Sequence[tuple[str, MailKey]], value: Any, timeout: float
) -> None:
    posts = [_post(client, address, key, value) for address, key in boxes]
    try:
        await asyncio.wait_for(asyncio.gather(*posts), timeout)
    except asyncio.TimeoutError:
        where = sorted({address for address, _ in boxes})
        logger.warning(
            "daskflow could not reach all of %s in %g s to tell them a step was dropped", where, timeout
        )


def _post_again(
    done: concurrent.futures.Future, client: Client, address: str, key: MailKey, value: Any
) -> None:
    if done.exception() is not None:  # the worker's port changed: look it up again
        bulk.forget(address)
        dask_compat.call_soon(client, _post, client, address, key, value)


async def _post(client: Client, address: str, key: MailKey, value: Any) -> None:
    try:
        by_bulk, credentials = bulk.eligible((value,)), bulk.CLIENT_SESSIONS.credentials(key.plan)
        if by_bulk and await bulk.send(
            dask_compat.comms(client), address, _mail(key, single=True), (value,), credentials
        ):
            return
        await _call_receive(dask_compat.comms(client), address, key, value, credentials)
    except Exception:  # noqa: BLE001 - the consumer times out and names what it waited for
        logger.exception("daskflow could not send a fed value to %s", address)
