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
type. A value nobody claims within ``daskflow.mailbox-ttl`` seconds (600)
is dropped, and a consumer that comes for it later is told so.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from dataclasses import dataclass
from time import monotonic

import dask
from dask.utils import parse_timedelta
from distributed import get_worker
from distributed.protocol.serialize import to_serialize
from tornado.ioloop import PeriodicCallback

from .. import dask_compat
from . import bulk, pushes

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
    reads it, under ``key = (plan id, step, variable name)``, for its
    cache (:mod:`.pushes`) to keep among the newest ``keep`` versions; the
    producer does not wait for its delivery.
    """

    address: str
    key: tuple
    indices: tuple
    keep: int = 0


class Received(tuple):
    """A producer's results read off a bulk connection into new arrays: this worker's own
    copies, which nothing else holds. (Dask's comms may hand over the producer's own
    arrays: its ``inproc://`` transport passes objects as they are.)"""

    __slots__ = ()


@dataclass(frozen=True)
class Failed:
    """Sent in place of results by a partition that raised."""

    producer: str


class UpstreamFailedError(RuntimeError):
    """A partition could not run because one it reads from failed."""


class Mailbox:
    """Values received on this worker, by key, until their consumer takes them.

    Used only from the worker's event loop (comm handlers and coroutine
    tasks), so it needs no lock. A value's ``release`` (from :mod:`.bulk`)
    is called once it is claimed or dropped; one unclaimed for
    ``daskflow.mailbox-ttl`` seconds is dropped (:meth:`sweep`).
    """

    def __init__(self):
        self._box: dict = {}
        self._arrived: dict = {}  # key -> (when, release) of what _box holds, oldest first
        self._waiting: dict = {}  # key -> asyncio.Future of a consumer that came first
        self._discarded: dict = {}  # key -> when its consumer stopped waiting (late replicas)
        self._expired: collections.OrderedDict = collections.OrderedDict()  # keys dropped unclaimed

    def put(self, key, value, release=None):
        self.sweep()
        if self._discarded.pop(key, _ABSENT) is not _ABSENT:
            _release(release)
            return
        waiter = self._waiting.pop(key, None)
        if waiter is None:
            self._drop(key)  # sent twice (its first acknowledgement lost): the newest
            self._box[key] = value
            self._arrived[key] = (monotonic(), release)
        else:
            if not waiter.done():
                waiter.set_result(value)
            _release(release)

    def ready(self, key) -> bool:
        return key in self._box

    async def take(self, key, timeout=None):
        """The value under ``key``, once it has arrived."""
        if key in self._box:
            return self._pop(key)
        if key in self._expired:
            raise TimeoutError(
                f"the results of partition {key[2]} came but were dropped, unclaimed for "
                f"{_ttl():g} s (the Dask config daskflow.mailbox-ttl sets this limit)"
            )
        waiter = self._waiting[key] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(waiter, timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError) as e:
            self._discarded[key] = monotonic()  # nobody waits for it now: drop it when it comes
            if isinstance(e, asyncio.CancelledError):
                raise
            raise TimeoutError(
                f"waited {timeout:g} s for the results of partition {key[2]}, which did not come "
                "(ConfigProto(operation_timeout_in_ms=...) sets this limit)"
            ) from None
        finally:
            self._waiting.pop(key, None)

    def discard(self, key):
        """Nobody will take ``key``: drop its value, now or when it comes."""
        if key in self._box:
            self._drop(key)
        else:
            self._discarded[key] = monotonic()

    def __len__(self):
        return len(self._box) + len(self._discarded)

    def clear(self, prefix):
        """Drop what is left for a plan (a failed step's undelivered values)."""
        for key in [k for k in self._box if k[0] == prefix]:
            self._drop(key)
        for table in (self._discarded, self._expired):
            for key in [k for k in table if k[0] == prefix]:
                del table[key]

    def sweep(self):
        """Drop the values unclaimed for ``daskflow.mailbox-ttl`` seconds, and forget the
        keys whose consumers stopped waiting that long ago."""
        cutoff = monotonic() - _ttl()
        dropped = []
        while self._arrived and next(iter(self._arrived.values()))[0] < cutoff:
            key = next(iter(self._arrived))
            self._drop(key)
            self._expired[key] = None
            dropped.append(key)
        while self._discarded and next(iter(self._discarded.values())) < cutoff:
            del self._discarded[next(iter(self._discarded))]
        while len(self._expired) > EXPIRED_KEPT:
            self._expired.popitem(last=False)
        if dropped:
            logger.warning(
                "daskflow dropped %d values unclaimed for %g s (daskflow.mailbox-ttl), the first for %r",
                len(dropped),
                _ttl(),
                dropped[0],
            )

    def _pop(self, key):
        _, release = self._arrived.pop(key, (None, None))
        _release(release)
        return self._box.pop(key)

    def _drop(self, key):
        if key in self._box:
            self._pop(key)


_ABSENT = object()
TTL = 600.0  # seconds an unclaimed value is kept: daskflow.mailbox-ttl
EXPIRED_KEPT = 10_000  # keys of dropped values remembered, to tell a late consumer


def _ttl() -> float:
    return float(parse_timedelta(dask.config.get("daskflow.mailbox-ttl", TTL), default="seconds"))


def _release(release):
    if release is not None:
        release()


MAILBOX = Mailbox()
SENT: dict = {}  # (plan id, step) -> bytes this worker sent to other workers
LOG_LIMIT = 1_000  # steps of accounting kept per worker: a long run's memory stays flat


def install(worker):
    """Give ``worker`` the receiving ends (idempotent): Dask's comm handler and bulk's port."""
    dask_compat.serve_handler(worker, HANDLER, _receive)
    pushes.install(worker)

    def deliver(header, items, release):
        worker.loop.add_callback(_arrived, worker, header, items, release)

    bulk.serve(worker, deliver, refusal)
    if "daskflow-mailbox" not in worker.periodic_callbacks:  # expiry with no new arrivals too
        sweep = PeriodicCallback(MAILBOX.sweep, 1000 * min(_ttl() / 4, 30.0))
        worker.periodic_callbacks["daskflow-mailbox"] = sweep
        sweep.start()


def _arrived(worker, header, items, release=None):
    """A value that came by :mod:`.bulk` (checked by :func:`refusal`), on the worker's event loop."""
    try:
        kind = header.get("kind")
        if kind == "mail":
            MAILBOX.put(tuple(header["key"]), items[0] if header.get("single") else Received(items), release)
            return
        if kind == "push":
            cache = pushes.cache_of(worker)
            for (name, version, keep), value in zip(header["entries"], items):
                cache.put(name, version, value, keep)
        else:
            logger.warning("daskflow dropped a bulk transfer of unknown kind %r", kind)
    except Exception:  # noqa: BLE001 - the receiver checked it: a bug here must not stop the loop
        logger.exception("daskflow dropped a bulk transfer it could not file")
    _release(release)  # pushes are kept in the bounded cache, not the mailbox


def _receive(key=None, value=None):
    if type(key) not in (list, tuple):
        logger.warning("daskflow dropped a value sent under the key %r", key)
        return
    MAILBOX.put(tuple(key), value)


_MAIL_FIELDS = frozenset({"kind", "key", "single"})
_PUSH_FIELDS = frozenset({"kind", "entries"})


def refusal(header, count, session, plans) -> str | None:
    """Why a bulk message of ``count`` items from ``session`` is not taken here (None: it is).

    ``plans``: the plans ``session`` has registered on this worker. Mail must
    be for one of them, under a key ``[plan, step, name, name]``; pushes must
    be of the session's variables (:func:`.pushes.entry_refusal`).
    """
    kind = header.get("kind")
    if kind == "mail":
        return _mail_refusal(header, count, plans)
    if kind == "push":
        return _push_refusal(header, count, session)
    return f"a message of unknown kind {_short(kind)}"


def _mail_refusal(header, count, plans):
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


def _push_refusal(header, count, session):
    if not _PUSH_FIELDS.issuperset(header):
        return f"a push header with unknown fields {_short(sorted(map(repr, set(header) - _PUSH_FIELDS)))}"
    entries = header.get("entries")
    if type(entries) is not list or len(entries) != count:
        return f"push entries that are not a list of one per item ({count}): {_short(entries)}"
    prefix = pushes.cache_name(session, "")
    return next(filter(None, (pushes.entry_refusal(entry, prefix) for entry in entries)), None)


def is_mailbox_key(key) -> bool:
    """Whether ``key`` is ``[plan id, step, name, name]``, as a step's sends make them."""
    return (
        type(key) is list
        and len(key) == 4
        and all(type(part) is str for part in (key[0], key[2], key[3]))
        and type(key[1]) is int
        and 0 <= key[1] < 2**63
    )


def _short(value, limit=120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def release_slot(worker, key):
    """Stop counting task ``key`` against the worker's threads while it waits.

    What ``distributed.secede`` does for a task on a thread, for a coroutine
    task: others — the very producers it waits for — can run meanwhile.
    """
    dask_compat.release_thread_slot(worker, key)


def _ready(worker, a):
    if type(a) is Recv:
        return MAILBOX.ready(a.key)
    if type(a) is FromReplicas:
        return all(MAILBOX.ready(k) for k in a.keys)
    if type(a) is pushes.Pushed:
        return pushes.ready(worker, a)
    return True


async def receive_args(worker, task_key, args, timeout):
    """``args`` with every :class:`Recv` replaced by the value it names.

    :class:`FromReplicas` arguments are left for :mod:`.arrivals`.
    """
    if not all(_ready(worker, a) for a in args):
        release_slot(worker, task_key)
    out = []
    try:
        for a in args:
            if type(a) is Recv:
                a = unless_failed(await MAILBOX.take(a.key, timeout))
            elif type(a) is pushes.Pushed:
                a = unless_failed(await pushes.value_of(worker, a, timeout))
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
                MAILBOX.discard(key)
        raise
    return out


def unless_failed(value):
    if type(value) is Failed:
        raise UpstreamFailedError(f"partition {value.producer} failed, so this step cannot finish")
    return value


def send_results(worker, results, sends, early=None) -> list:
    """Deliver each consumer the results it reads (``None`` elsewhere).

    Returns the deliveries to other workers, as asyncio tasks: the producer
    awaits them, so a delivery that fails fails its task instead of leaving
    the consumer waiting. ``early`` (from :func:`send_early`): the sends
    already on their way, by position; only confirmed here.
    """
    early = early or {}
    deliveries, pushes = [], {}
    for j, send in enumerate(sends):
        if send.keep:
            if j not in early:
                pushes.setdefault(send.address, []).append(send)
            else:
                _count_sent(send.key[:2], (results[send.indices[0]],))
            continue
        if send.address == worker.address:
            MAILBOX.put(send.key, results)  # same process: the tuple itself, no copy
            continue
        if type(results) is Failed:
            payload = results
        else:
            payload = _payload(results, send.indices)
            _count_sent(send.key[:2], payload)
        if j in early:
            deliveries.append(asyncio.ensure_future(_confirm(worker, send, payload, early[j])))
        else:
            deliveries.append(asyncio.ensure_future(_deliver(worker, send.address, send.key, payload)))
    for address, reader_sends in pushes.items():
        _push(worker, address, reader_sends, results)
    return deliveries


SLOT_GRACE = 0.05  # seconds a task waits for its deliveries while holding its worker's slot


async def delivered(worker, task_key, deliveries):
    """Wait for ``deliveries`` (raising the first failure); past :data:`SLOT_GRACE`,
    out of the count of the worker's busy threads.

    A delivery to a worker that died is retried for Dask's connect timeout
    (30 s). Holding the slot meanwhile, the task kept the step run again after
    the recovery from starting on this worker (measured: 28 s).
    """
    if not deliveries:
        return
    _, waiting = await asyncio.wait(deliveries, timeout=SLOT_GRACE)
    if waiting:
        release_slot(worker, task_key)
    for delivery in deliveries:
        await delivery


def _payload(results, indices):
    return tuple(results[i] if i in indices else None for i in range(len(results)))


def send_early(worker, results, sends) -> dict:
    """From the thread that computed ``results``: send by bulk what can go now.

    The event loop may be busy when a partition's compute ends; handing it
    the results first would add its delay to every consumer's wait (measured
    up to 2.5 ms from a tower's last op to its gradients leaving). A
    worker's pushes go in one message. Returns ``{position in sends:
    concurrent Future}`` of what was submitted (None for pushes, which
    nobody awaits); :func:`send_results` does the rest.
    """
    early, pushed = {}, {}
    try:
        for j, send in enumerate(sends):
            where = bulk.known(send.address) if send.address != worker.address else None
            credentials = bulk.credentials(worker, send.key[0])
            if where is None or credentials is None:
                continue
            if send.keep:
                entry = _push_entry(send, results)
                if bulk.eligible((entry[1],)):
                    pushed.setdefault((send.address, where, credentials), []).append(entry)
                    early[j] = None
                continue
            payload = _payload(results, send.indices)
            if bulk.eligible(payload):
                early[j] = bulk.submit(where, _mail(send.key), payload, credentials)
        for (address, where, credentials), entries in pushed.items():
            done = bulk.submit(where, *_push_message(entries), credentials)
            done.add_done_callback(lambda d, a=address, e=entries, c=credentials: _repush(d, worker, a, e, c))
    except Exception:  # noqa: BLE001 - what did not go early goes from the event loop
        logger.exception("daskflow could not send results early")
        early = {j: f for j, f in early.items() if f is not None}  # unsent pushes: by the loop
    return early


async def _confirm(worker, send, payload, sent):
    """Wait for an early delivery; on Dask's comms again if it did not go."""
    try:
        await asyncio.wrap_future(sent)
    except OSError:
        bulk.forget(send.address)
        await worker.rpc(send.address).daskflow_recv(key=send.key, value=to_serialize(payload))


def _repush(done, worker, address, entries, credentials):
    """Early pushes that did not go: again, from the event loop, on whatever way there is."""
    if done.exception() is not None:
        bulk.forget(address)
        worker.loop.add_callback(_spawn, _push_in_background(worker, address, entries, credentials))


def _count_sent(step, payload):
    SENT[step] = SENT.get(step, 0) + sum(getattr(v, "nbytes", 0) for v in payload)
    if len(SENT) > LOG_LIMIT:
        del SENT[next(iter(SENT))]  # the oldest step: a long run's accounting stays bounded


async def take(task_key, box, index, timeout):
    """The task holding a partition's result ``index`` (a fetch), or the tuple of its
    results at ``index`` (a tuple: its new variable values).

    It starts with the step and waits for the partition's results in the
    mailbox: as a dependency of the partition it would start only after a
    round trip through the scheduler.
    """
    worker = get_worker()
    if not MAILBOX.ready(box):
        release_slot(worker, task_key)
    results = unless_failed(await MAILBOX.take(box, timeout))
    return tuple(results[i] for i in index) if type(index) is tuple else results[index]


async def _deliver(worker, address, key, payload):
    by_bulk = type(payload) is not Failed and bulk.eligible(payload)
    credentials = bulk.credentials(worker, key[0])
    if by_bulk and await bulk.send(worker.rpc, address, _mail(key), payload, credentials):
        return
    await worker.rpc(address).daskflow_recv(key=key, value=to_serialize(payload))


def _mail(key, single=False):
    """The bulk header of a mailbox delivery; ``single``: a value, not a tuple of results."""
    return {"kind": "mail", "key": list(key), "single": single}


def _push_entry(send, results):
    """``((name, version, versions to keep), value)`` that push ``send`` carries of ``results``."""
    version, name = send.key[1:]
    value = results if type(results) is Failed else results[send.indices[0]]
    return (name, version, send.keep), value


def _push_message(entries):
    """The bulk header and items of a message pushing ``entries`` (see :func:`_push_entry`)."""
    header = {"kind": "push", "entries": [list(e) for e, _ in entries]}
    return header, [value for _, value in entries]


def _push(worker, address, sends, results):
    """Send a reader the new variable values it reads, in one message, in the background
    (see :mod:`.pushes`): one message per variable would wait for one acknowledgement each."""
    entries = [_push_entry(send, results) for send in sends]
    if type(results) is not Failed:
        _count_sent(sends[0].key[:2], [value for _, value in entries])
    _spawn(_push_in_background(worker, address, entries, bulk.credentials(worker, sends[0].key[0])))


def _spawn(coroutine):
    task = asyncio.ensure_future(coroutine)
    _BACKGROUND.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_BACKGROUND.discard)


_BACKGROUND: set = set()
PUSH_DELAY = 0.001  # seconds


async def _push_in_background(worker, address, entries, credentials):
    """Push ``entries`` — ((name, version, versions to keep), value) — to one reader
    (by bulk as ``credentials``' session, where there are some)."""
    # Let the step's completion messages leave this worker's event loop first:
    # writing megabytes to a socket there delays them (measured: 5.5 ms -> 2 ms
    # from the last partition's end to the scheduler knowing it).
    await asyncio.sleep(PUSH_DELAY)
    header, values = _push_message(entries)
    try:
        if bulk.eligible(values) and await bulk.send(worker.rpc, address, header, values, credentials):
            return
        rpc = worker.rpc(address)
        for (name, version, keep), value in entries:
            await rpc.daskflow_push(name=name, version=version, keep=keep, value=to_serialize(value))
    except Exception:  # noqa: BLE001 - the reader's worker is gone: recovery handles it
        names = ", ".join(name for (name, _, _), _ in entries)
        logger.warning("daskflow could not push variables %s to %s", names, address)


async def fail_consumers(worker, producer, sends):
    """Tell every consumer ``producer`` failed (best effort: it is failing already)."""
    for delivery in send_results(worker, Failed(producer), sends):
        try:
            await delivery
        except Exception:  # noqa: BLE001 - its consumer's worker is gone or unreachable
            logger.warning("daskflow could not tell a consumer that %s failed", producer)


DIRECT_FEED_BYTES = 64 * 1024  # feeds at least this big skip the scheduler


def posts_directly(value) -> bool:
    """Whether a fed value is big enough to send straight to its worker."""
    return getattr(value, "nbytes", 0) >= DIRECT_FEED_BYTES


def post(client, address, key, value):
    """From the client, put ``value`` in a worker's mailbox (without waiting).

    Fed batches go this way instead of inside the task graph, which would
    carry them through the scheduler: one hop and two copies more. Where the
    worker's bulk port is known, from this thread, leaving the client's event
    loop to send the step's graph.
    """
    where, credentials = bulk.known(address), bulk.credentials(None, key[0])
    if where is not None and credentials is not None and bulk.eligible((value,)):
        sent = bulk.submit(where, _mail(key, single=True), (value,), credentials)
        sent.add_done_callback(lambda done: _post_again(done, client, address, key, value))
        return
    client.loop.add_callback(_post, client, address, key, value)


def _post_again(done, client, address, key, value):
    if done.exception() is not None:  # the worker's port changed: look it up again
        bulk.forget(address)
        client.loop.add_callback(_post, client, address, key, value)


async def _post(client, address, key, value):
    try:
        by_bulk, credentials = bulk.eligible((value,)), bulk.credentials(None, key[0])
        if by_bulk and await bulk.send(client.rpc, address, _mail(key, single=True), (value,), credentials):
            return
        await client.rpc(address).daskflow_recv(key=key, value=to_serialize(value))
    except Exception:  # noqa: BLE001 - the consumer times out and names what it waited for
        logger.exception("daskflow could not send a fed value to %s", address)
