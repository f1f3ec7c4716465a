"""``tf.train.Supervisor``: TF1's older training loop helper, still in many scripts.

It makes the session (the chief initializes or restores from ``logdir``; a
non-chief waits until the chief has initialized the shared variables), and
keeps the standard services: summaries, checkpoints and a steps/sec count,
written to ``logdir``. TF1 ran the services on background threads; here
they run when the training loop calls :meth:`Supervisor.should_stop` (which
every Supervisor loop does, once per step), so a session is never used by
two threads at once. The timing is the same to within one step.
"""

from __future__ import annotations

import contextlib
import os
import time

from ..framework.graph import get_default_graph
from ..summary import merge_all
from ..summary.writer import FileWriterCache
from ..variables import (
    GraphKeys,
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from .hooks import _write_scalar
from .monitored_session import Coordinator, _checkpoints_to_restore, _chief_init, wait_until_ready
from .optimizer import get_global_step
from .queue_runner import start_queue_runners
from .saver import Saver

USE_DEFAULT = 0  # TF1's marker: "build the default for this argument"


class Supervisor:
    """Session, coordinator and standard services for a training loop (TF1's ``Supervisor``).

    Parameters
    ----------
    graph : Graph, optional
        Default: the default graph.
    ready_op, ready_for_local_init_op, init_op, local_init_op, summary_op, saver, global_step
        ``USE_DEFAULT`` (the default) builds TF1's default; ``None`` means none.
    is_chief : bool
        The chief initializes (or restores) and runs the services.
    init_feed_dict : dict, optional
    logdir : str, optional
        Where checkpoints and summaries go; None: neither.
    save_summaries_secs, save_model_secs : float
        How often the chief writes summaries and checkpoints (0: never).
    recovery_wait_secs : float
        How often a non-chief asks whether the variables are ready (at least
        every second: TF1's default of 30 s made every worker wait that long).
    checkpoint_basename : str
    summary_writer : FileWriter, optional
    init_fn : callable, optional
        ``init_fn(sess)``, after ``init_op`` on a new (not restored) chief session.

    Examples
    --------
    >>> import daskflow as tf
    >>> w = tf.Variable(0.0)
    >>> step = tf.train.get_or_create_global_step()
    >>> train = tf.assign_add(w, 1.0)
    >>> sv = tf.train.Supervisor(logdir=None)
    >>> with sv.managed_session() as sess:
    ...     while not sv.should_stop() and sess.run(w) < 3:
    ...         _ = sess.run(train)
    >>> sv.should_stop()
    True
    """

    def __init__(
        self,
        graph=None,
        ready_op=USE_DEFAULT,
        ready_for_local_init_op=USE_DEFAULT,
        is_chief=True,
        init_op=USE_DEFAULT,
        init_feed_dict=None,
        local_init_op=USE_DEFAULT,
        logdir=None,
        summary_op=USE_DEFAULT,
        saver=USE_DEFAULT,
        global_step=USE_DEFAULT,
        save_summaries_secs=120,
        save_model_secs=600,
        recovery_wait_secs=30,
        stop_grace_secs=120,
        checkpoint_basename="model.ckpt",
        session_manager=None,
        summary_writer=USE_DEFAULT,
        init_fn=None,
        local_init_run_options=None,
    ):
        if session_manager is not None:
            raise NotImplementedError("Supervisor(session_manager=...) is not built in daskflow")
        self._graph = graph if graph is not None else get_default_graph()
        self._is_chief = is_chief
        self._logdir = logdir
        self._save_summaries_secs = save_summaries_secs
        self._save_model_secs = save_model_secs
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_feed_dict = init_feed_dict
        self._init_fn = init_fn
        self._coord = Coordinator()
        self._sess = None
        self._threads: list = []
        with self._graph.as_default():
            self._ready_op = _default(ready_op, report_uninitialized_variables)
            self._ready_for_local_init_op = _default(
                ready_for_local_init_op, lambda: report_uninitialized_variables(global_variables())
            )
            self._init_op = _default(init_op, global_variables_initializer)
            self._local_init_op = _default(local_init_op, local_variables_initializer)
            self._global_step = _default(global_step, get_global_step)
            self._summary_op = _default(summary_op, _merged_summaries)
            self._saver = _default(saver, lambda: Saver() if logdir else None)
        self._save_path = None if logdir is None else os.path.join(logdir, checkpoint_basename)
        self._summary_writer = summary_writer
        if summary_writer is USE_DEFAULT:
            self._summary_writer = self._writer() if is_chief and logdir else None
        self._graph.finalize()
        self._services = _Services(self)

    def _writer(self):
        return FileWriterCache.get(self._logdir)

    # -- TF1's properties -----------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    coord = property(lambda self: self._coord)
    logdir = property(lambda self: self._logdir)
    saver = property(lambda self: self._saver)
    global_step = property(lambda self: self._global_step)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_op = property(lambda self: self._summary_op)
    summary_writer = property(lambda self: self._summary_writer)
    save_path = property(lambda self: self._save_path)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)

    # -- the session ----------------------------------------------------------------------------
    def prepare_or_wait_for_session(
        self,
        master="",
        config=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        start_standard_services=True,
    ):
        """A session ready to train: the chief restores the latest checkpoint in ``logdir`` or
        runs ``init_op``; a non-chief waits (up to ``max_wait_secs``) for the chief."""
        from ..runtime.session import Session  # local import: the runtime loads dask, only for a session

        self._coord.clear_stop()
        sess = Session(master, graph=self._graph, config=config)
        try:
            if self._is_chief:
                self._prepare_chief(sess)
            else:
                poll = min(self._recovery_wait_secs, 1.0)
                wait_until_ready(sess, self._ready_for_local_init_op, max_wait_secs, poll)
                if self._local_init_op is not None:
                    sess.run(self._local_init_op)
                wait_until_ready(sess, self._ready_op, max_wait_secs, poll)
        except BaseException:
            sess.close()
            raise
        self._sess = sess
        if start_standard_services and self._is_chief:
            self.start_standard_services(sess)
        self._threads.extend(start_queue_runners(sess, coord=self._coord))
        return sess

    def _prepare_chief(self, sess):
        restore = _checkpoints_to_restore(self._logdir, None) if self._logdir else []
        scaffold = _Ops(self)
        _chief_init(scaffold, sess, restore)
        if not restore and self._init_fn is not None:
            self._init_fn(sess)

    @contextlib.contextmanager
    def managed_session(
        self, master="", config=None, start_standard_services=True, close_summary_writer=True
    ):
        """A context giving the prepared session; on exit the services stop, a last
        checkpoint is written (chief), and the session closes. An exception in the block
        stops the supervisor and is raised again (``OutOfRangeError``: a clean stop)."""
        sess = self.prepare_or_wait_for_session(
            master=master, config=config, start_standard_services=start_standard_services
        )
        try:
            yield sess
        except BaseException as e:  # noqa: BLE001 - reported to the coordinator, raised by stop()
            self._coord.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                sess.close()
                self._sess = None

    # -- stopping --------------------------------------------------------------------------------
    def should_stop(self):
        """Whether to stop; runs the standard services that are due."""
        if self._sess is not None and not self._coord.should_stop():
            self._services.run_due(self._sess)
        return self._coord.should_stop()

    def request_stop(self, ex=None):
        self._coord.request_stop(ex)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stop the services (a last checkpoint and summary from the chief) and the threads;
        raise an exception reported to :meth:`request_stop`."""
        self._coord.request_stop()
        try:
            if self._sess is not None:
                self._services.finish(self._sess)
        finally:
            if close_summary_writer and self._summary_writer is not None:
                self._summary_writer.flush()
            self._coord.join(
                list(threads or []) + self._threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
            self._threads = []

    @contextlib.contextmanager
    def stop_on_exception(self):
        with self._coord.stop_on_exception():
            yield

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    # -- services ------------------------------------------------------------------------------
    def start_standard_services(self, sess):
        """Start the chief's summaries, checkpoints and step counter (they run from
        :meth:`should_stop`)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services")
        self._services.start(sess)
        return []

    def start_queue_runners(self, sess, queue_runners=None):
        """Start the threads of ``queue_runners`` (default: the graph's collection)."""
        if queue_runners is None:
            threads = start_queue_runners(sess, coord=self._coord)
        else:
            threads = [
                t for qr in queue_runners for t in qr.create_threads(sess, coord=self._coord, start=True)
            ]
        self._threads.extend(threads)
        return threads

    def summary_computed(self, sess, summary, global_step=None):
        """Write a summary the loop computed itself to ``logdir``."""
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer (give Supervisor a logdir)")
        if global_step is None and self._global_step is not None:
            global_step = sess.run(self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Call ``target(*args, **kwargs)`` every ``timer_interval_secs`` from :meth:`should_stop`."""
        self._services.add_timer(timer_interval_secs, lambda _sess: target(*(args or ()), **(kwargs or {})))


class _Ops:
    """The init ops :func:`_chief_init` runs, from a supervisor."""

    def __init__(self, sv):
        self.init_op = sv.init_op  # restored over, when there is a checkpoint
        self.init_feed_dict = sv._init_feed_dict
        self.init_fn = None
        self.local_init_op = sv._local_init_op
        self.ready_op = sv.ready_op
        self.saver = sv.saver


class _Services:
    """The chief's timed work: summaries, checkpoints, steps/sec; and :meth:`Supervisor.loop`'s."""

    def __init__(self, sv):
        self._sv = sv
        self._timers: list = []  # [interval, next due time, function of the session]
        self._last_step = None

    def add_timer(self, interval, fn):
        if interval and interval > 0:
            self._timers.append([interval, time.monotonic() + interval, fn])

    def start(self, sess):
        sv = self._sv
        if sv.logdir is None:
            return
        if sv.summary_op is not None and sv.summary_writer is not None:
            self.add_timer(sv.save_summaries_secs, self._summarize)
            self.add_timer(sv.save_summaries_secs, self._count_steps)
        if sv.saver is not None:
            self.add_timer(sv.save_model_secs, self._checkpoint)

    def run_due(self, sess):
        now = time.monotonic()
        for timer in self._timers:
            if now >= timer[1]:
                timer[1] = now + timer[0]
                timer[2](sess)

    def finish(self, sess):
        """At stop: the chief's last checkpoint and summary."""
        sv = self._sv
        if sv.is_chief and sv.logdir is not None and sv.saver is not None and sv.save_model_secs:
            self._checkpoint(sess)
        self._timers.clear()

    def _summarize(self, sess):
        sv = self._sv
        fetches = [sv.summary_op] + ([sv.global_step] if sv.global_step is not None else [])
        values = sess.run(fetches)
        sv.summary_writer.add_summary(values[0], values[1] if len(values) > 1 else None)

    def _count_steps(self, sess):
        sv = self._sv
        if sv.global_step is None:
            return
        step, now = int(sess.run(sv.global_step)), time.monotonic()
        if self._last_step is not None and now > self._last_step[1]:
            rate = (step - self._last_step[0]) / (now - self._last_step[1])
            _write_scalar(sv.summary_writer, f"{sv.global_step.op.name}/sec", rate, step)
        self._last_step = (step, now)

    def _checkpoint(self, sess):
        sv = self._sv
        sv.saver.save(sess, sv.save_path, global_step=sv.global_step)


def _default(value, make):
    return make() if value is USE_DEFAULT else value


def _merged_summaries():
    found = get_default_graph().get_collection(GraphKeys.SUMMARY_OP)
    return found[0] if found else merge_all()
