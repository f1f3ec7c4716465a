"""A worker's mailbox: values sent to a step's partitions, held until they are taken.

A step's producers send their results straight to each consumer's worker
(:mod:`.rendezvous`), where they wait under a key
``(plan id, step, producer, consumer)`` for the consumer's task to take
them, whichever comes first. Nothing in the mailbox is a Dask task, so Dask
never forgets what nobody takes: the mailbox does.

A value that stays unclaimed for ``daskflow.mailbox-ttl`` seconds is dropped
only once nobody can still take it: its plan is no longer installed on the
worker, or its consumer has already taken a later step's value (it moved
on). A step may legitimately wait longer than the TTL — with no operation
timeout (``ConfigProto(operation_timeout_in_ms=0)``) a consumer waits as
long as another of its inputs takes — and its values must still be there.
A consumer that comes for a dropped value is told so, not left waiting.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable, Container
from time import monotonic
from typing import Any, NamedTuple

from dask.utils import parse_timedelta

from ...errors import DeadlineExceededError
from ..defaults import setting

logger = logging.getLogger(__name__)

EXPIRED_KEPT = 10_000  # keys of dropped values remembered, to tell a late consumer
_ABSENT = object()


class MailKey(NamedTuple):
    """Where a value waits in a mailbox: sent in ``plan``'s step ``step`` by ``producer`` (a
    partition instance, or ``feed-<i>``) to ``consumer`` (an instance, or a taker's name).

    It crosses processes as a plain list (msgpack) or as itself (pickle), and equals the
    tuple of its fields: a key read off the wire finds a value filed under a ``MailKey``.
    """

    plan: str
    step: int
    producer: str
    consumer: str


Key = tuple  # a MailKey, or the plain tuple of one (a key read off the wire, a between-graph read's)
Release = Callable[[], None] | None  # uncounts a delivered value's bytes (trust.Unclaimed.reserve)


def ttl() -> float:
    """``daskflow.mailbox-ttl`` in seconds (Dask config: a number or a string like ``"10m"``)."""
    return float(parse_timedelta(setting("daskflow.mailbox-ttl"), default="seconds"))


class Mailbox:
    """Values received on one worker, by key, until their consumer takes them.

    Used only from the worker's event loop (comm handlers and coroutine
    tasks), so it needs no lock. A value's ``release`` (from :mod:`.bulk`) is
    called once it is claimed or dropped.

    Parameters
    ----------
    installed : container of str, optional
        The plans installed on the worker (``plan in installed``), read at
        each :meth:`sweep`; a value of a plan not in it is dropped once
        unclaimed for ``daskflow.mailbox-ttl`` seconds. By default none is.

    Examples
    --------
    >>> import asyncio
    >>> box = Mailbox(installed={"p"})
    >>> box.put(("p", 1, "producer", "consumer"), (1.0,))
    >>> asyncio.run(box.take(("p", 1, "producer", "consumer")))
    (1.0,)
    """

    def __init__(self, installed: Container[str] = frozenset()) -> None:
        self._installed = installed
        self._box: dict = {}
        self._arrived: dict = {}  # key -> (when, release) of what _box holds, oldest first
        self._waiting: dict = {}  # key -> asyncio.Future of a consumer that came first
        self._discarded: dict = {}  # key -> when its consumer stopped waiting (late replicas)
        self._expired: collections.OrderedDict = collections.OrderedDict()  # keys dropped unclaimed
        self._taken: dict = {}  # (plan, consumer) -> the latest step it took a value of

    def put(self, key: Key, value: Any, release: Release = None) -> None:
        """File ``value`` under ``key``: for a consumer waiting for it, or until one comes."""
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

    def ready(self, key: Key) -> bool:
        return key in self._box

    async def take(self, key: Key, timeout: float | None = None) -> Any:
        """The value under ``key``, once it has arrived."""
        if key in self._box:
            self._moved_on(key)
            return self._pop(key)
        if key in self._expired:
            raise TimeoutError(
                f"the results of partition {key[2]} came but were dropped, unclaimed for "
                f"{ttl():g} s (the Dask config daskflow.mailbox-ttl sets this limit)"
            )
        waiter = self._waiting[key] = asyncio.get_running_loop().create_future()
        try:
            value = await asyncio.wait_for(waiter, timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError) as e:
            self._discarded[key] = monotonic()  # nobody waits for it now: drop it when it comes
            if isinstance(e, asyncio.CancelledError):
                raise
            # TF1's error for a blocking operation past operation_timeout_in_ms.
            raise DeadlineExceededError(
                None,
                None,
                f"waited {timeout:g} s for the results of partition {key[2]}, which did not come "
                "(ConfigProto(operation_timeout_in_ms=...) sets this limit)",
            ) from None
        finally:
            self._waiting.pop(key, None)
        self._moved_on(key)
        return value

    def discard(self, key: Key) -> None:
        """Nobody will take ``key``: drop its value, now or when it comes."""
        if key in self._box:
            self._drop(key)
        else:
            self._discarded[key] = monotonic()

    def __len__(self) -> int:
        return len(self._box) + len(self._discarded)

    def clear(self, prefix: str) -> None:
        """Drop what is left for a plan (a failed step's undelivered values); its tasks still
        waiting (a staged step's) stop."""
        for key in [k for k in self._box if k[0] == prefix]:
            self._drop(key)
        for key, waiter in list(self._waiting.items()):
            if key[0] == prefix:
                waiter.cancel()
        for table in (self._discarded, self._expired, self._taken):
            for key in [k for k in table if k[0] == prefix]:
                del table[key]

    def close(self) -> None:
        """Drop every value (releasing its bytes) and forget every key: the worker is closing."""
        for key in list(self._box):
            self._drop(key)
        for table in (self._discarded, self._expired, self._taken):
            table.clear()

    def sweep(self) -> None:
        """Drop the values unclaimed for ``daskflow.mailbox-ttl`` seconds that nobody can
        take any more (see :meth:`abandoned`), and forget the keys whose consumers stopped
        waiting that long ago."""
        cutoff = monotonic() - ttl()
        old = []
        for key, (when, _) in self._arrived.items():  # oldest first
            if when >= cutoff:
                break
            old.append(key)
        dropped = [key for key in old if self.abandoned(key)]
        for key in dropped:
            self._drop(key)
            self._expired[key] = None
        while self._discarded and next(iter(self._discarded.values())) < cutoff:
            del self._discarded[next(iter(self._discarded))]
        while len(self._expired) > EXPIRED_KEPT:
            self._expired.popitem(last=False)
        if dropped:
            logger.warning(
                "daskflow dropped %d values unclaimed for %g s (daskflow.mailbox-ttl), the first for %r",
                len(dropped),
                ttl(),
                dropped[0],
            )

    def abandoned(self, key: Key) -> bool:
        """Whether nobody can take ``key`` any more: its plan is not installed here, or its
        consumer has taken a later step's value of the same plan.

        A later step taken by *another* consumer says nothing: steps of one plan
        overlap on a worker, and this consumer may still be waiting for an input.
        """
        if len(key) < 2 or type(key[1]) is not int or key[0] not in self._installed:
            return True
        return self._taken.get(_consumer(key), -1) > key[1]

    def _moved_on(self, key: Key) -> None:
        """Note that ``key``'s consumer took its value: older steps' values for it are stale."""
        if len(key) > 1 and type(key[1]) is int:
            consumer = _consumer(key)
            if key[1] > self._taken.get(consumer, -1):
                self._taken[consumer] = key[1]

    def _pop(self, key: Key) -> Any:
        _, release = self._arrived.pop(key, (None, None))
        _release(release)
        return self._box.pop(key)

    def _drop(self, key: Key) -> None:
        if key in self._box:
            self._pop(key)


def _consumer(key: Key) -> tuple:
    """``(plan id, consumer)`` of a mailbox key ``(plan id, step, producer, consumer)``."""
    return key[:1] + key[3:]


def _release(release: Release) -> None:
    if release is not None:
        release()
