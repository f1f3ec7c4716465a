"""The collectives of a job's ranks: ring all-reduce, ring all-gather, broadcast.

Every rank calls the same collectives in the same order (the ops of one
graph, run in its plan's order); each call takes the next sequence number,
which keys its messages, and names itself, so a rank that called another
collective fails with both names instead of mixing values.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
import zlib
from typing import TYPE_CHECKING

import numpy as np

from ...errors import FailedPreconditionError
from .transport import JOINED, AbandonedError, AbortedError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .transport import Transport

    Reduce = Callable[[np.ndarray, np.ndarray], None]  # reduce(into, other): into <- into (op) other


class CollectiveError(FailedPreconditionError):
    """The ranks disagree on a collective (its name, shapes or dtypes), or a rank is gone:
    Horovod's ``FailedPreconditionError``, on every rank."""

    def __init__(self, message: str) -> None:
        super().__init__(None, None, message)


class RanksChangedError(CollectiveError):
    """A rank of the ring is gone (or the job's ranks changed): the collective cannot finish.
    In an elastic job (:mod:`daskflow.horovod.elastic`) the ranks left form a new ring."""


class Communicator:
    """This process's rank among ``size`` ranks, and the collectives it runs with the others.

    Parameters
    ----------
    rank, size : int
        This rank and how many there are.
    transport : Transport or None
        Messages to the other ranks (None with one rank: nothing is sent).
    timeout : float
        Seconds a step waits for its message from another rank.
    elastic : bool
        A rank that does not answer in time counts as lost (:class:`RanksChangedError`: an
        elastic job forms its next ring) rather than as a failed collective.
    """

    def __init__(
        self, rank: int, size: int, transport: Transport | None, timeout: float = 300.0, elastic: bool = False
    ) -> None:
        self.rank, self.size = rank, size
        self.transport = transport
        self.timeout = timeout
        self.elastic = elastic
        self._seq = itertools.count()  # used on the collective thread only
        self._lock = threading.Lock()
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    # -- the collectives -------------------------------------------------------------------------
    def start(self, kind: str, *args) -> concurrent.futures.Future:
        """Collective ``kind`` (``"allreduce"``, ``"allgather"``, ``"broadcast"``) with ``args``,
        run on this rank's collective thread after those started before it: its future.

        Every collective goes through that one thread, so they run in the order this rank
        started them, the same order on every rank, whichever thread starts them; one
        started early (a bucket of gradients) runs while the caller goes on computing."""
        with self._lock:
            if self._thread is None:
                self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="daskflow-ring")
            return self._thread.submit(getattr(self, f"_{kind}_now"), *args)

    def allreduce(self, arrays: Sequence[np.ndarray], reduce: Reduce, name: str) -> list[np.ndarray]:
        """Each array reduced over the ranks (every rank gets the result). Arrays of one dtype
        travel fused, as one buffer."""
        return self.start("allreduce", arrays, reduce, name).result()

    def allgather(self, array: np.ndarray, name: str) -> np.ndarray:
        """The ranks' arrays concatenated along the first axis, in rank order (their first
        dimensions may differ; the rest must match)."""
        return self.start("allgather", array, name).result()

    def broadcast(self, array: np.ndarray, root: int, name: str) -> np.ndarray:
        """Rank ``root``'s array, on every rank (each must hold one of its shape and dtype)."""
        if not 0 <= root < self.size:
            raise ValueError(f"{name}: root_rank {root} is not a rank of {self.size}")
        return self.start("broadcast", array, root, name).result()

    def join(self) -> int:
        """This rank has no more data (Horovod's ``join``): until every rank has joined it
        serves the others' collectives giving nothing (its share of a sum counts as zero); the
        rank that joined last."""
        return self.start("join").result()

    def _allreduce_now(self, arrays, reduce, name):
        if self.size == 1:
            return [np.array(a, copy=True) for a in arrays]
        out: list[np.ndarray | None] = [None] * len(arrays)
        for dtype, positions in _by_dtype(arrays).items():
            seq = next(self._seq)  # each dtype's buffer a collective of its own
            flat = np.concatenate([np.ravel(arrays[i]) for i in positions]).astype(dtype, copy=False)
            shapes = [list(np.shape(arrays[i])) for i in positions]
            self._ring_allreduce(flat, reduce, seq, f"{name} ({dtype}{_short(shapes)})")
            for i, piece in zip(positions, _split(flat, [arrays[i] for i in positions])):
                out[i] = piece
        return out

    def _allgather_now(self, array, name):
        array = np.ascontiguousarray(array)
        return self._ring_allgather(array, next(self._seq), name)

    def _ring_allgather(self, array, seq, name):
        """The ranks' pieces around the ring; ``array`` None: this rank has joined (no piece)."""
        pieces: dict[int, np.ndarray | None] = {self.rank: array}
        held = array
        nxt = (self.rank + 1) % self.size
        for step in range(self.size - 1):
            sent = self.transport.send(
                nxt, (seq, step), name, [] if held is None else [held], {"t": "allgather"}
            )
            got = self._receive((seq, step), name)
            held = got[0] if got else None
            pieces[(self.rank - step - 1) % self.size] = held
            self._sent(sent, nxt, name)
        given = {rank: piece for rank, piece in pieces.items() if piece is not None}
        like = array if array is not None else next(iter(given.values()))
        for rank, piece in given.items():
            if piece.shape[1:] != like.shape[1:] or piece.dtype != like.dtype:
                self._give_up(
                    seq,
                    (
                        f"{name}: rank {rank} gathers {piece.dtype}{list(piece.shape)} while rank "
                        f"{self.rank} gathers {like.dtype}{list(like.shape)}: all but the first "
                        "dimension and the dtype must match"
                    ),
                )
        return np.concatenate([given[r] for r in sorted(given)], axis=0)

    def _broadcast_now(self, array, root, name):
        seq = next(self._seq)
        array = np.asarray(array)
        if self.rank == root:
            sent = {
                r: self.transport.send(r, (seq, 0), name, [array], {"t": "broadcast"})
                for r in range(self.size)
                if r != root
            }
            for r, s in sent.items():
                self._sent(s, r, name)
            return np.array(array, copy=True)
        value = self._receive((seq, 0), name)[0]
        if value.shape != array.shape or value.dtype != array.dtype:
            self._give_up(
                seq,
                (
                    f"{name}: rank {root} broadcasts {value.dtype}{list(value.shape)} to rank "
                    f"{self.rank}, which holds {array.dtype}{list(array.shape)}"
                ),
            )
        return value

    # -- a joined rank -------------------------------------------------------------------------
    def _join_now(self):
        """Tell every rank this one joined (at this collective's number), then serve each
        collective the others run, giving nothing, until every rank has said it joined."""
        seq = next(self._seq)
        if self.size == 1:
            return self.rank
        others = [p for p in range(self.size) if p != self.rank]
        told = {p: self.transport.send(p, (seq, JOINED + self.rank), "join", []) for p in others}
        joined = {self.rank: seq}
        while True:
            found = self._wait_joined(lambda keys, s=seq: self._news(keys, s, joined))
            if found == "all joined":
                break
            self._serve(seq, self.transport.header((seq, 0)))
            seq = next(self._seq)
        for p, sent in told.items():
            self._sent(sent, p, "join")
        self.transport.take([(s, JOINED + p) for p, s in joined.items() if p != self.rank])
        return max(joined, key=lambda p: (joined[p], p))

    def _wait_joined(self, ready):
        try:
            return self.transport.wait(ready, self.timeout)
        except AbandonedError as e:
            raise RanksChangedError(f"join: {e}") from None
        except TimeoutError:
            raise (RanksChangedError if self.elastic else CollectiveError)(
                f"join: rank {self.rank} waited {self.timeout:g} s for the other ranks to join or to "
                "run a collective (stopped, or gone)"
            ) from None

    def _news(self, keys, seq, joined):
        """What a joined rank waits for: every rank joined, or collective ``seq`` begun."""
        for s, step in keys:
            if step >= JOINED:
                joined.setdefault(step - JOINED, s)
        if (seq, 0) in keys:
            return "begun"  # served first: a rank may have run it just before it joined
        if len(joined) == self.size and seq >= max(joined.values()):
            return "all joined"
        return None

    def _serve(self, seq, header):
        """Run collective ``seq`` (as its first message describes it) giving nothing."""
        kind, name = header.get("k") or {}, header["n"]
        if kind.get("t") == "allreduce":
            flat = np.empty(int(kind["z"]), np.dtype(kind["d"]))
            self._ring_allreduce(flat, None, seq, name, have=[False] * self.size)
        elif kind.get("t") == "allgather":
            self._ring_allgather(None, seq, name)
        else:  # a broadcast: only to be received
            self._receive((seq, 0), name)

    # -- the ring ----------------------------------------------------------------------------
    def _ring_allreduce(
        self, flat: np.ndarray, reduce: Reduce | None, seq: int, name: str, have=None
    ) -> None:
        """``flat`` reduced in place: N - 1 steps of reduce-scatter (each rank ends holding
        one chunk reduced over all ranks), then N - 1 of all-gather (every chunk everywhere).

        ``have``: for a joined rank, which chunks hold something yet (none at first: it sends
        nothing for them, takes the first values it is sent, then reduces as the others)."""
        n, r = self.size, self.rank
        chunks = np.array_split(flat, n)
        nxt = (r + 1) % n
        kind = {"t": "allreduce", "d": flat.dtype.str, "z": int(flat.size)}
        for step in range(n - 1):
            out, into = (r - step) % n, (r - step - 1) % n
            given = have is None or have[out]
            sent = self.transport.send(nxt, (seq, step), name, [chunks[out]] if given else [], kind)
            got = self._receive((seq, step), name)
            if got:  # not from a rank that joined with nothing to give
                piece = self._check_chunk(got[0], chunks[into], name, seq)
                if have is None or have[into]:
                    reduce(chunks[into], piece)
                else:
                    chunks[into][...] = piece
                    have[into] = True
            self._sent(sent, nxt, name)  # the chunk sent is read in place until it is there
        for step in range(n - 1):
            sent = self.transport.send(nxt, (seq, n - 1 + step), name, [chunks[(r + 1 - step) % n]], kind)
            into = chunks[(r - step) % n]
            into[...] = self._check_chunk(self._receive((seq, n - 1 + step), name)[0], into, name, seq)
            self._sent(sent, nxt, name)

    def _receive(self, key, name) -> list:
        try:
            theirs, items = self.transport.receive(key, self.timeout)
        except AbandonedError as e:
            raise RanksChangedError(f"{name}: {e}") from None
        except AbortedError as e:
            raise CollectiveError(str(e)) from None
        except TimeoutError:
            raise (RanksChangedError if self.elastic else CollectiveError)(
                f"{name}: rank {self.rank} waited {self.timeout:g} s for rank "
                f"{(self.rank - 1) % self.size}, which did not run it (stopped, or gone)"
            ) from None
        if theirs != name and theirs.split(" (")[0] == name.split(" (")[0]:
            self._give_up(
                key[0],
                (
                    f"{name.split(' (')[0]}: rank {(self.rank - 1) % self.size} reduces tensors of other "
                    f"shapes or dtypes ({theirs.partition(' (')[2][:-1]}) than rank {self.rank} "
                    f"({name.partition(' (')[2][:-1]}): shapes and dtypes must match"
                ),
            )
        if theirs != name:
            self._give_up(
                key[0],
                (
                    f"rank {self.rank} ran {name} while another rank ran {theirs}: every rank must run "
                    "the same collectives in the same order"
                ),
            )
        return items

    def _sent(self, sent: concurrent.futures.Future, to: int, name: str) -> None:
        """Wait until a message is at rank ``to``; a rank that cannot be reached is gone."""
        try:
            sent.result(self.timeout)
        except (OSError, EOFError, concurrent.futures.TimeoutError) as e:
            raise RanksChangedError(f"{name}: rank {self.rank} cannot reach rank {to} ({e!r})") from None

    def _give_up(self, seq: int, why: str):
        """Fail collective ``seq`` here and on every other rank (each may wait on another)."""
        self.transport.abort([r for r in range(self.size) if r != self.rank], seq, why)
        raise CollectiveError(why)

    def _check_chunk(self, got, into, name, seq):
        if got.shape != into.shape or got.dtype != into.dtype:
            self._give_up(
                seq,
                (
                    f"{name}: rank {(self.rank - 1) % self.size} reduces a tensor of another shape or "
                    f"dtype than rank {self.rank} ({got.dtype}{list(got.shape)} against "
                    f"{into.dtype}{list(into.shape)} in one chunk): shapes and dtypes must match"
                ),
            )
        return got

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()  # a collective waiting on another rank fails now
        if self._thread is not None:
            self._thread.shutdown(wait=False)


def _by_dtype(arrays: Sequence[np.ndarray]) -> dict[np.dtype, list[int]]:
    groups: dict[np.dtype, list[int]] = {}
    for i, a in enumerate(arrays):
        groups.setdefault(np.asarray(a).dtype, []).append(i)
    return groups


def _short(shapes: list) -> str:
    """The shapes of a fused buffer, as a message names them: in full when short."""
    text = str(shapes)
    return text if len(text) <= 200 else f" {len(shapes)} tensors, {zlib.crc32(text.encode()):08x}"


def _split(flat: np.ndarray, like: Sequence[np.ndarray]) -> list[np.ndarray]:
    out, start = [], 0
    for a in like:
        size = int(np.size(a))
        out.append(flat[start : start + size].reshape(np.shape(a)))
        start += size
    return out
