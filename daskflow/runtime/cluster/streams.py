"""Sending a session's control messages at once instead of every few milliseconds.

Dask batches the messages on its streams (client->scheduler every 10 ms,
scheduler->worker 5 ms, worker->scheduler and scheduler->client 2 ms): good
for the throughput of many small tasks, but each daskflow step is a short
chain of dependent messages, and every link of it would wait out a batch
window. Message order is unchanged; only the flush timing is.

Each stream is unbatched on behalf of the sessions that asked
(:func:`unbatch`) and gets its own interval back when the last of them lets
go (:func:`release`), so the streams of other clients keep Dask's batching,
and the shared ones (between the scheduler and its workers) do once no
daskflow session is open. The bookkeeping is per process: the client, the
scheduler and each worker keep their own.
"""

from __future__ import annotations

import weakref

from .. import dask_compat

_ORIGINAL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # stream -> its interval
_WANTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # stream -> tokens unbatching it


def unbatch(stream, token: str) -> None:
    """Flush ``stream`` (a ``distributed.batched.BatchedSend``) at once, for session ``token``."""
    if stream is None:
        return
    _ORIGINAL.setdefault(stream, dask_compat.stream_interval(stream))
    _WANTED.setdefault(stream, set()).add(token)
    dask_compat.set_stream_interval(stream, 0)


def release(token: str) -> None:
    """Session ``token`` no longer needs its streams unbatched: give back what nobody else needs."""
    for stream, tokens in list(_WANTED.items()):
        tokens.discard(token)
        if not tokens:
            original = _ORIGINAL.pop(stream, None)
            if original is not None:
                dask_compat.set_stream_interval(stream, original)
            del _WANTED[stream]


def unbatched_for(stream) -> frozenset:
    """The sessions keeping ``stream`` unbatched (none: it has Dask's interval)."""
    return frozenset(_WANTED.get(stream, ()))
