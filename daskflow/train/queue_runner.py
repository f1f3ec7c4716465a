"""TF1's ``QueueRunner``, ``add_queue_runner`` and ``start_queue_runners``: threads that fill queues.

Each input producer and batch (:mod:`.input`) owns a queue and a
``QueueRunner`` whose threads keep it full, as in TF1: one thread per
enqueue op, each running its op in the session again and again (``Session.run``
may be called from several threads at once) until ``OutOfRangeError`` (its
input queue closed and empty), the last one then running ``close_op`` (the
queue's ``close()``); any other error stops the coordinator. With a
coordinator, one more thread waits for the stop and runs ``cancel_op`` (the
queue's ``close(cancel_pending_enqueues=True)``), which ends the enqueues still
waiting for room, so that ``coord.request_stop(); coord.join(threads)`` leaves
no thread behind.
"""

from __future__ import annotations

import logging
import threading
import weakref

from .. import errors
from .._namespaces import module_getattr as _module_getattr
from ..framework.graph import get_default_graph, get_default_session
from ..variables import GraphKeys

logger = logging.getLogger(__name__)


class QueueRunner:
    """Holds the ops that fill one queue, each to be run in a thread.

    Parameters
    ----------
    queue : QueueBase
        The queue the ops fill (its ``close()`` and ``close(cancel_pending_enqueues=True)``
        are the default ``close_op`` and ``cancel_op``).
    enqueue_ops : list of Operation or Tensor
        One thread each (the same op twice: two threads running it).
    close_op, cancel_op : Operation, optional
        Run when the last enqueue thread ends, and when the coordinator stops.
    queue_closed_exception_types : tuple of ``tf.errors`` types, optional
        Errors meaning "the queue is closed": the thread ends quietly.
        Default ``(tf.errors.OutOfRangeError,)``.

    Examples
    --------
    >>> import daskflow as tf
    >>> queue = tf.FIFOQueue(10, tf.int64, shapes=[[]])
    >>> n = tf.data.Dataset.range(5).make_one_shot_iterator().get_next()
    >>> qr = tf.train.QueueRunner(queue, [queue.enqueue(n)])
    >>> with tf.Session() as sess:
    ...     threads = qr.create_threads(sess, start=True)  # until the dataset ends: then it closes the queue
    ...     sess.run(queue.dequeue_up_to(10)).tolist()
    [0, 1, 2, 3, 4]
    """

    def __init__(
        self,
        queue=None,
        enqueue_ops=None,
        close_op=None,
        cancel_op=None,
        queue_closed_exception_types=None,
        queue_runner_def=None,
        import_scope=None,
    ):
        if queue_runner_def is not None:
            raise ValueError("QueueRunner: queue_runner_def (a QueueRunnerDef proto) is not supported")
        if queue is None or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        if queue_closed_exception_types is not None and not _are_error_types(queue_closed_exception_types):
            raise TypeError(
                "queue_closed_exception_types, when provided, must be a tuple of tf.error types, "
                f"but saw: {queue_closed_exception_types}"
            )
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        close = getattr(queue, "close", None)  # a queue; TF1 takes only those, daskflow anything named
        self._close_op = close_op if close_op is not None or close is None else close()
        if cancel_op is None and close is not None:
            cancel_op = close(cancel_pending_enqueues=True)
        self._cancel_op = cancel_op
        self._queue_closed_exception_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    def __getstate__(self):
        # A graph travels to workers with its collections; locks and per-session counts stay here.
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_runs_per_session")}

    def __setstate__(self, state):
        self.__dict__.update(state, _lock=threading.Lock(), _runs_per_session=weakref.WeakKeyDictionary())

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)

    @property
    def name(self):
        """The queue's name."""
        return getattr(self._queue, "name", str(self._queue))

    @property
    def exceptions_raised(self):
        """Errors the threads raised when run without a coordinator."""
        return self._exceptions_raised

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Threads running the enqueue ops in ``sess`` (none again while earlier ones still run).

        With ``coord``, the threads are registered with it, and one more runs
        ``cancel_op`` when it stops.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [
            threading.Thread(
                target=self._run, args=(sess, op, coord), name=f"QueueRunnerThread-{self.name}-{op.name}"
            )
            for op in self._enqueue_ops
        ]
        if coord is not None:
            name = f"QueueRunnerThread-{self.name}-close_on_stop"
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord), name=name))
        return _prepared(threads, coord, daemon, start)

    def _run(self, sess, op, coord):
        ended_by_close = False
        try:
            while not (coord and coord.should_stop()):
                try:
                    sess.run(op)
                except self._queue_closed_exception_types:
                    ended_by_close = True
                    self._finish_run(sess, last_closes=True)
                    return
        except Exception as e:
            if coord is None:
                logger.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
            coord.request_stop(e)
        finally:
            if not ended_by_close:
                self._finish_run(sess, last_closes=False)

    def _finish_run(self, sess, last_closes):
        with self._lock:
            self._runs_per_session[sess] -= 1
            if last_closes and self._runs_per_session[sess] == 0 and self._close_op is not None:
                _run_quietly(sess, self._close_op)

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        if self._cancel_op is not None:
            _run_quietly(sess, self._cancel_op)


def _prepared(threads, coord, daemon, start):
    for thread in threads:
        if coord is not None:
            coord.register_thread(thread)
        thread.daemon = daemon
        if start:
            thread.start()
    return threads


def _run_quietly(sess, op):
    try:
        sess.run(op)
    except Exception as e:  # noqa: BLE001 - closing a queue already closed is no error (as TF1)
        logger.debug("Ignored exception: %s", e)


def _are_error_types(types):
    return (
        isinstance(types, tuple)
        and bool(types)
        and all(isinstance(t, type) and issubclass(t, errors.OpError) for t in types)
    )


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Add ``qr`` to a collection of the default graph (where :func:`start_queue_runners` looks).

    Examples
    --------
    >>> import daskflow as tf
    >>> q = tf.train.string_input_producer(["a.csv"])  # adds its own runner
    >>> len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) >= 1
    True
    """
    get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS):
    """Start the threads of every queue runner in ``collection``; return them.

    A monitored session started its own: given one, this returns ``[]``.

    Raises
    ------
    ValueError
        If ``sess`` is None and no default session is registered.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> (x,) = tf.train.slice_input_producer([np.arange(4.0)], shuffle=False)
    >>> with tf.Session() as sess:
    ...     coord = tf.train.Coordinator()
    ...     threads = tf.train.start_queue_runners(sess, coord)
    ...     values = [float(sess.run(x)) for _ in range(6)]
    ...     coord.request_stop()
    ...     coord.join(threads)
    >>> values
    [0.0, 1.0, 2.0, 3.0, 0.0, 1.0]
    """
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with sess.as_default()` "
                "or pass an explicit session to tf.train.start_queue_runners(sess=sess)"
            )
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []  # as TF1: a monitored session started its queue runners itself
    graph = getattr(sess, "graph", None) or get_default_graph()
    threads = []
    for qr in graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


__getattr__ = _module_getattr("tf.train.queue_runner")  # TF1's other paths for a name, else a clear error
