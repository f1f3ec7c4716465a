"""What a queue is while a session runs: its elements, its waiting enqueues and dequeues.

A queue op's ``make_state`` gives each session one :class:`QueueState` (see
:mod:`.data_flow_ops`); the queue op's kernel returns it as the queue's
handle, and the enqueue, dequeue, close and size ops receive that handle as
their first input, as TF1's ``QueueEnqueueV2`` receives a resource. So the
state lives with the session that made it and dies with it.

Everything is guarded by one condition variable per queue. Blocked enqueues
and dequeues wait on it (the GIL is released), each in its turn: as TF1
serves its pending attempts in the order they came, a dequeue of many takes
elements as they come and no later dequeue overtakes it (two half-served
dequeues could otherwise starve each other). A closed queue fails what can
no longer be served with TF1's errors and messages; a cancelled one (its
session closed) fails everything still waiting with ``CancelledError``.

The kinds differ only in where an element goes and which one comes out:
:class:`QueueState` is FIFO, :class:`ShuffleState` takes a random element
while more than ``min_after_dequeue`` remain (or the queue is closed),
:class:`PriorityState` the lowest ``int64`` first component, and
:class:`PaddingState` pads a dequeue of many to its longest element.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading
import uuid
import weakref

import numpy as np

from ..errors import CancelledError, InvalidArgumentError, OutOfRangeError
from ..kernels import blocking

# The shared states of this process by key, so that the programs of one session share them.
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.RLock()


def _shared(kind, key, op):
    with _LIVE_LOCK:  # two programs arriving at once make one
        state = _LIVE.get(key)
        if state is None:
            state = kind(op, key)  # registers itself
        return state


def _cancel_all():
    """At interpreter exit, fail what still waits on a queue: a thread blocked in an
    enqueue to a full queue no one will read (a session never closed) would otherwise
    keep the interpreter from exiting, which waits for its threads."""
    for state in list(_LIVE.values()):
        cancel = getattr(state, "cancel", None)
        if cancel is not None:
            cancel()


# Run before the interpreter joins its threads (atexit would run after: too late).
getattr(threading, "_register_atexit", lambda fn: None)(_cancel_all)


class SessionShared:
    """An op's state that a session's programs share, in each process they run in.

    A program that runs on a Dask worker carries the state of its ops, and each
    compiled program is shipped with its own copy. A queue or a reader must not
    be copied: every program of the session that reaches one worker process
    finds the same one there, made on its first arrival (in the session's own
    process, the session's own).
    """

    def _share(self, op, key):
        self._op = op
        self._key = key or uuid.uuid4().hex
        with _LIVE_LOCK:
            _LIVE[self._key] = self

    def __reduce__(self):
        return _shared, (type(self), self._key, self._op)


class QueueState(SessionShared):
    """A FIFO queue of elements (tuples of numpy arrays), one per session."""

    kind = "FIFOQueue"

    def __init__(self, op, key=None):
        attrs = op.attrs
        self.name = op.name
        self._share(op, key)
        self.dtypes = attrs["component_types"]
        self.shapes = attrs["shapes"]  # a tuple of dims per component, or None (any shape)
        self.capacity = attrs["capacity"]  # -1: unbounded
        self._cond = threading.Condition()
        self._closed = False
        self._enqueues_cancelled = False
        self._session_closed = False
        self._tickets = {"enqueue": itertools.count(), "dequeue": itertools.count()}
        self._serving = {"enqueue": 0, "dequeue": 0}
        self._init_elements(attrs)

    # -- the kind's own storage (overridden) ---------------------------------------------------
    def _init_elements(self, attrs):
        self._elements = collections.deque()

    def _put(self, element):
        self._elements.append(element)

    def _take(self):
        return self._elements.popleft()

    def _put_back(self, taken):
        self._elements.extendleft(reversed(taken))

    def _can_take(self):
        return bool(self._elements)

    def _stack(self, elements, component):
        return np.stack([e[component] for e in elements])

    # -- what the ops call ---------------------------------------------------------------------
    def size(self):
        return len(self._elements)

    def is_closed(self):
        return self._closed

    def enqueue(self, elements, op_name):
        """Add ``elements`` (a list of tuples) in order, each waiting for room."""
        with self._cond, self._turn("enqueue", op_name):
            if self._closed:
                raise error(CancelledError, f"{self.kind} '{self.name}' is closed.", op_name)
            for element in elements:
                self._wait(lambda: self._full() is False, self._enqueue_cancelled, "Enqueue", op_name)
                self._put(element)
                self._cond.notify_all()

    def dequeue(self, n, up_to, op_name):
        """``n`` elements (a list), waiting for them; fewer only ``up_to`` a closed queue's end."""
        with self._cond, self._turn("dequeue", op_name):
            taken = []
            while len(taken) < n:
                self._wait(lambda: self._can_take() or self._closed, self._cancelled, "Dequeue", op_name)
                if self._can_take():
                    taken.append(self._take())
                    self._cond.notify_all()
                    continue
                self._put_back(taken)  # closed: as TF1, a dequeue that cannot finish takes nothing
                if up_to and self.size():
                    return [self._take() for _ in range(min(n, self.size()))]
                raise error(
                    OutOfRangeError,
                    f"{self.kind} '{self.name}' is closed and has insufficient elements "
                    f"(requested {n}, current size {self.size()})",
                    op_name,
                )
            return taken

    def close(self, cancel_pending_enqueues, op_name):
        """Close: at once, failing the enqueues still waiting, with ``cancel_pending_enqueues``;
        else, as TF1, in the enqueues' line: once those before it are in (it waits for them)."""
        with self._cond:
            if cancel_pending_enqueues:
                self._closed = self._enqueues_cancelled = True
                self._cond.notify_all()
                return
            with self._turn("enqueue", op_name):
                if self._closed:
                    raise error(CancelledError, f"Queue '{self.name}' is already closed.", op_name)
                self._closed = True

    def cancel(self):
        """The session is closing: every op still waiting fails with ``CancelledError``."""
        with self._cond:
            self._session_closed = True
            self._cond.notify_all()

    def batch(self, elements, op_name):
        """The components of ``elements`` stacked along a new first axis."""
        if self.shapes is None:
            raise error(
                InvalidArgumentError,
                f"{self.kind}'s DequeueMany and DequeueUpTo require the components to have specified shapes.",
                op_name,
            )
        if not elements:
            return tuple(np.zeros((0, *s), dt.np) for s, dt in zip(self.shapes, self.dtypes))
        return tuple(self._stack(elements, i) for i in range(len(self.dtypes)))

    # -- waiting ---------------------------------------------------------------------------------
    def _full(self):
        return self.capacity >= 0 and self.size() >= self.capacity

    def _cancelled(self):
        return self._session_closed

    def _enqueue_cancelled(self):
        return self._session_closed or self._enqueues_cancelled

    def _wait(self, ready, cancelled, what, op_name):
        while not ready():
            if cancelled():
                raise error(CancelledError, f"{what} operation was cancelled", op_name)
            blocking.waiting()  # a worker's thread is given up: the run serving it may need one
            self._cond.wait()
        if self._session_closed:
            raise error(CancelledError, f"{what} operation was cancelled", op_name)

    def _turn(self, side, op_name):
        """A context in which this call is the one ``side`` (enqueue or dequeue) serves."""
        return _Turn(self, side, op_name)


class _Turn:
    """Waits, holding the queue's condition, until its ticket is served; then serves the next."""

    def __init__(self, queue, side, op_name):
        self.queue, self.side, self.op_name = queue, side, op_name

    def __enter__(self):
        q = self.queue
        self.ticket = next(q._tickets[self.side])
        while q._serving[self.side] != self.ticket:
            if q._session_closed:
                q._serving[self.side] += 1  # so those behind may fail in turn
                raise error(CancelledError, f"{self.side.capitalize()} operation was cancelled", self.op_name)
            blocking.waiting()  # behind another enqueue (or dequeue) that waits for a run
            q._cond.wait()

    def __exit__(self, *exc):
        q = self.queue
        if q._serving[self.side] == self.ticket:
            q._serving[self.side] += 1
        q._cond.notify_all()
        return False


class ShuffleState(QueueState):
    """A ``RandomShuffleQueue``: a random element while more than ``min_after_dequeue`` remain."""

    kind = "RandomShuffleQueue"

    def _init_elements(self, attrs):
        self._elements = []
        self._min_after = attrs["min_after_dequeue"]
        seed = attrs["seed"]  # (graph seed, op seed) or None: a random order of its own
        self._rng = np.random.default_rng(None if seed is None else list(seed))

    def _put(self, element):
        self._elements.append(element)

    def _take(self):
        i = int(self._rng.integers(len(self._elements)))
        self._elements[i], self._elements[-1] = self._elements[-1], self._elements[i]
        return self._elements.pop()

    def _put_back(self, taken):
        self._elements.extend(taken)

    def _can_take(self):
        return len(self._elements) > (0 if self._closed else self._min_after)


class PriorityState(QueueState):
    """A ``PriorityQueue``: the element whose first component (an int64 scalar) is least."""

    kind = "PriorityQueue"

    def _init_elements(self, attrs):
        self._elements = []
        self._order = itertools.count()  # equal priorities leave in the order they came

    def _put(self, element):
        heapq.heappush(self._elements, (int(element[0]), next(self._order), element))

    def _take(self):
        return heapq.heappop(self._elements)[2]

    def _put_back(self, taken):
        for element in taken:
            self._put(element)


class PaddingState(QueueState):
    """A ``PaddingFIFOQueue``: a dequeue of many pads each component to its longest element."""

    kind = "PaddingFIFOQueue"

    def _stack(self, elements, component):
        parts = [e[component] for e in elements]
        shape = tuple(max(dims) for dims in zip(*(p.shape for p in parts)))
        fill = b"" if parts[0].dtype == object else 0
        out = np.full((len(parts), *shape), fill, dtype=parts[0].dtype)
        for i, part in enumerate(parts):
            out[(i, *(slice(0, d) for d in part.shape))] = part
        return out


def error(kind, message, op_name):
    """A ``tf.errors`` error of ``kind`` whose message ends naming the op, as TF1's do."""
    return kind(None, None, f"{message}\n\t [[{{{{node {op_name}}}}}]]")


def check_element(element, dtypes, shapes, many, op_name):
    """``element`` (arrays) converted to the queue's dtypes, each checked against its shape."""
    out = []
    for i, (value, dtype) in enumerate(zip(element, dtypes)):
        array = np.array(value, dtype=dtype.np, copy=True)  # the queue's own: no later step writes it
        if shapes is not None and not _fits(array.shape[1:] if many else array.shape, shapes[i]):
            expected = list(shapes[i]) if not many else ["?", *shapes[i]]
            raise error(
                InvalidArgumentError,
                f"Shape mismatch in tuple component {i}. Expected {_fmt(expected)}, got {list(array.shape)}",
                op_name,
            )
        out.append(array)
    return out


def split_many(arrays, op_name):
    """``enqueue_many``'s components cut along their first axis into elements."""
    sizes = {a.shape[0] if a.ndim else None for a in arrays}
    if None in sizes:
        raise error(InvalidArgumentError, "enqueue_many requires components with a first dimension", op_name)
    if len(sizes) > 1:
        listed = ", ".join(str(a.shape[0]) for a in arrays)
        raise error(
            InvalidArgumentError,
            f"enqueue_many: the components differ in their first dimension ({listed})",
            op_name,
        )
    (n,) = sizes
    return [tuple(a[i, ...] for a in arrays) for i in range(n)]  # [i, ...]: arrays, even of strings


def _fits(shape, dims):
    return len(shape) == len(dims) and all(d is None or d == s for s, d in zip(shape, dims))


def _fmt(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
