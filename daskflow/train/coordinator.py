"""TF1's ``tf.train.Coordinator`` and ``tf.train.LooperThread``: stopping threads together.

Queue runners, a monitored session's hooks and a user's own threads share one
coordinator: any of them may ask all to stop (``request_stop``, with the error
that made it stop), each checks ``should_stop()`` between steps, and the main
thread waits for all (``join``), which re-raises the first error reported. As
in TF1, ``OutOfRangeError`` (the input ran out) counts as a clean stop.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from ..errors import OutOfRangeError

logger = logging.getLogger("daskflow")


class Coordinator:
    """A stop flag shared by threads: a monitored session, its hooks, queue runners.

    Parameters
    ----------
    clean_stop_exception_types : tuple of exception types, optional
        Errors that, reported to :meth:`request_stop`, mean a clean stop (not
        re-raised). Default ``(tf.errors.OutOfRangeError,)``: the end of the input.

    Examples
    --------
    >>> import threading
    >>> import daskflow as tf
    >>> coord = tf.train.Coordinator()
    >>> def work():
    ...     with coord.stop_on_exception():
    ...         raise ValueError("bad record")
    >>> thread = threading.Thread(target=work)
    >>> thread.start()
    >>> try:
    ...     coord.join([thread])
    ... except ValueError as e:
    ...     print(e)
    bad record
    >>> coord.should_stop()
    True
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._exception = None
        self._joined = False
        self._registered_threads: set = set()

    def request_stop(self, ex=None):
        """Ask everyone to stop.

        ``ex`` (an exception, or a ``sys.exc_info()`` tuple) is kept if it is the
        first one reported, and re-raised by :meth:`join` and
        :meth:`raise_requested_exception`; a clean-stop type counts as none.
        After :meth:`join`, an exception reported is raised at once (as TF1).
        """
        ex = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex, self._clean_stop_exception_types):
            ex = None
        with self._lock:
            if self._joined and ex is not None:
                raise ex
            if not self._stop.is_set() and ex is not None and self._exception is None:
                self._exception = ex
            self._stop.set()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop.is_set()

    def clear_stop(self):
        """Forget the stop request, its exception and a previous :meth:`join`."""
        with self._lock:
            self._joined = False
            self._exception = None
            self._stop.clear()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context that reports any exception raised in it to :meth:`request_stop`."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - reported, as TF1's bare except: the thread ends quietly
            self.request_stop(sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Wait up to ``timeout`` seconds (None: forever) for a stop; True if one was requested."""
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        """Add ``thread`` to those :meth:`join` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for ``threads`` (and the registered ones) to end; re-raise a reported exception.

        Waits until every thread ended or a stop is requested; then gives the
        threads still alive ``stop_grace_period_secs`` to end.

        Raises
        ------
        Exception
            The first exception given to :meth:`request_stop`.
        RuntimeError
            If threads outlive the grace period (unless ``ignore_live_threads``);
            the message names them.
        """
        with self._lock:
            threads = list(self._registered_threads.union(threads or ()))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for thread in threads:
            if thread.is_alive():  # never started ones are skipped (join would raise)
                thread.join(max(deadline - time.monotonic(), 0.0))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exception is not None:
                raise self._exception
        if stragglers and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self):
        """True after :meth:`join` returned (until :meth:`clear_stop`)."""
        return self._joined

    def raise_requested_exception(self):
        """Raise the exception given to :meth:`request_stop`, if any."""
        with self._lock:
            if self._exception is not None:
                raise self._exception

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Start a :class:`LooperThread` calling ``target`` every ``timer_interval_secs``."""
        return LooperThread.loop(self, timer_interval_secs, target, args, kwargs)


class LooperThread(threading.Thread):
    """A thread that calls ``target(*args, **kwargs)`` every ``timer_interval_secs``
    (or, with no interval, once, then ``run_loop`` repeatedly when subclassed) until
    the coordinator stops; an error it raises stops the coordinator.

    Examples
    --------
    >>> import daskflow as tf
    >>> coord = tf.train.Coordinator()
    >>> ticks = []
    >>> thread = tf.train.LooperThread.loop(coord, 0.001, target=lambda: ticks.append(1))
    >>> while not ticks:
    ...     pass
    >>> coord.request_stop(); coord.join([thread])
    """

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args, self._kwargs = args or (), kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Start a LooperThread calling ``target`` every ``timer_interval_secs``; return it."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():  # no interval: as often as possible
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(max(next_timer_time - time.time(), 0)):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once before the thread ends."""

    def run_loop(self):
        """One turn of the loop: calls the target."""
        if self._target:
            self._target(*self._args, **self._kwargs)
