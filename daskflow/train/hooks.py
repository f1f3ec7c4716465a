"""Session-run hooks: code that watches (and may stop) a training loop.

A :class:`SessionRunHook` rides along every ``MonitoredSession.run``:
``before_run`` may ask for extra fetches and feeds, which the monitored
session merges into the caller's *single* ``Session.run`` (so a hook costs no
extra step); ``after_run`` receives just its own results and may call
``run_context.request_stop()``. The life cycle, as in TF1::

    begin()                        graph still open: make any ops here
    after_create_session(sess, coord)
    loop: before_run(ctx) -> Session.run -> after_run(ctx, values)
    end(sess)                      on a clean exit only

The hooks here are TF1's, read off ``basic_session_run_hooks.py``:
:class:`StopAtStepHook`, :class:`LoggingTensorHook`, :class:`StepCounterHook`,
:class:`NanTensorHook`, :class:`SummarySaverHook`, :class:`FinalOpsHook`,
:class:`FeedFnHook` and :class:`GlobalStepWaiterHook`, plus :class:`ProgressBarHook`, a tqdm bar over
the global step (not in TF1). They log to Python's ``logging`` logger
``"daskflow"``.

A hook that reads the global step fetches it in ``before_run``; a variable
fetched in the same run as the training op reads as it was *before* the
step, so such hooks treat the value as "one behind" (exactly as TF1's do).
"""

from __future__ import annotations

import collections
import logging
import time

import numpy as np

from ..framework import protos
from ..framework.graph import get_default_graph
from ..summary import FileWriterCache
from ..variables import GraphKeys
from .graph_io import write_graph
from .optimizer import get_global_step
from .saver import Saver

logger = logging.getLogger("daskflow")

__all__ = [
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "SecondOrStepTimer",
    "SummarySaverHook",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProgressBarHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
]


# -- the hook protocol -----------------------------------------------------------------------------


class SessionRunHook:
    """Base class of hooks into ``MonitoredSession.run``; every method is a no-op.

    Examples
    --------
    A hook that counts the steps it has seen:

    >>> import daskflow as tf
    >>> class CountingHook(tf.train.SessionRunHook):
    ...     def begin(self):
    ...         self.count = 0
    ...
    ...     def after_run(self, run_context, run_values):
    ...         self.count += 1
    """

    def begin(self):
        """Called once before the session is made; the graph may still be changed."""

    def after_create_session(self, session, coord):
        """Called once the session exists and its variables are initialised."""

    def before_run(self, run_context):
        """Return a :class:`SessionRunArgs` to add fetches/feeds to this run, or None."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each run with this hook's own results in ``run_values.results``."""

    def end(self, session):
        """Called once when the monitored session closes cleanly."""


SessionRunArgs = collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])
SessionRunArgs.__new__.__defaults__ = (None, None)
SessionRunArgs.__doc__ = """What a hook adds to a run: fetches, and optionally feeds and options.

Examples
--------
>>> import daskflow as tf
>>> tf.train.SessionRunArgs("loss:0").feed_dict is None
True
"""

SessionRunValues = collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
SessionRunValues.__doc__ = """What a hook gets back: its own ``results`` (shaped like its fetches).

Examples
--------
>>> import daskflow as tf
>>> tf.train.SessionRunValues(results=3.0, options=None, run_metadata=None).results
3.0
"""


class SessionRunContext:
    """One run as hooks see it: the caller's arguments, the session, and a stop flag.

    Parameters
    ----------
    original_args : SessionRunArgs
        The caller's fetches, feed_dict and options.
    session : Session
        The underlying session; hooks may run it (outside the merged step).

    Examples
    --------
    >>> import daskflow as tf
    >>> ctx = tf.train.SessionRunContext(tf.train.SessionRunArgs(None), session=None)
    >>> ctx.request_stop()
    >>> ctx.stop_requested
    True
    """

    def __init__(self, original_args, session):
        self.original_args = original_args
        self.session = session
        self._stop_requested = False

    def request_stop(self):
        """Ask the monitored session to stop after this run."""
        self._stop_requested = True

    @property
    def stop_requested(self):
        return self._stop_requested


# -- shared helpers --------------------------------------------------------------------------------


def _global_step_of(hook_name):
    """The global step variable, which the step-counting hooks cannot do without."""
    step = get_global_step()
    if step is None:
        raise RuntimeError(
            f"Global step should be created to use {hook_name}: make it with "
            "tf.train.get_or_create_global_step() and pass it to minimize(global_step=...)."
        )
    return step


class _Timer:
    """Fires every ``every_steps`` steps or every ``every_secs`` seconds (TF1's SecondOrStepTimer).

    With neither it never fires (a hook that only acts at the end).
    """

    def __init__(self, every_secs=None, every_steps=None):
        self._every_secs = every_secs
        self._every_steps = every_steps
        self.reset()

    def reset(self):
        self._last_step = self._last_time = None

    def should_trigger_for_step(self, step):
        if self._every_secs is None and self._every_steps is None:
            return False
        if self._last_step is None:
            return True  # the first step sets the baseline
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.perf_counter() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Mark ``step`` as fired; ``(seconds, steps)`` since the previous firing, or (None, None)."""
        now = time.perf_counter()
        elapsed = (None, None) if self._last_step is None else (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed


class SecondOrStepTimer(_Timer):
    """Fires every ``every_secs`` seconds or every ``every_steps`` steps (give exactly one).

    Examples
    --------
    >>> import daskflow as tf
    >>> timer = tf.train.SecondOrStepTimer(every_steps=10)
    >>> timer.should_trigger_for_step(0)
    True
    >>> timer.update_last_triggered_step(0)
    (None, None)
    >>> timer.should_trigger_for_step(5), timer.should_trigger_for_step(10)
    (False, True)
    """

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("SecondOrStepTimer: exactly one of every_secs or every_steps should be provided")
        super().__init__(every_secs=every_secs, every_steps=every_steps)

    def last_triggered_step(self):
        """The step of the last firing, or None."""
        return self._last_step


def _check_exactly_one(names, values, allow_none=False):
    given = [n for n, v in zip(names, values) if v is not None]
    if len(given) > 1 or (not given and not allow_none):
        raise ValueError(f"exactly one of {' and '.join(names)} must be given, got {given or 'neither'}")


# -- StopAtStepHook --------------------------------------------------------------------------------


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step``.

    Parameters
    ----------
    num_steps : int, optional
        Steps to run from the global step found at session creation.
    last_step : int, optional
        The global step to stop at. Give exactly one of the two.

    Examples
    --------
    >>> import daskflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> w = tf.Variable(1.0)
    >>> train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=step)
    >>> hooks = [tf.train.StopAtStepHook(last_step=3)]
    >>> runs = 0
    >>> with tf.train.MonitoredTrainingSession(hooks=hooks, progress_bar=False) as sess:
    ...     while not sess.should_stop():
    ...         _ = sess.run(train)
    ...         runs += 1
    >>> runs
    3
    """

    def __init__(self, num_steps=None, last_step=None):
        _check_exactly_one(["num_steps", "last_step"], [num_steps, last_step])
        self._num_steps = num_steps
        self._last_step = last_step
        self._seen = None  # the global step as the last run left it, as far as known

    @property
    def last_step(self):
        """The step training stops at (None until the session exists, with ``num_steps``)."""
        return self._last_step

    def begin(self):
        self._global_step = _global_step_of("StopAtStepHook")

    def after_create_session(self, session, coord):
        self._seen = None
        if self._num_steps is not None:
            self._seen = int(session.run(self._global_step))
            self._last_step = self._seen + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        # The value read is from before this run's (last) increment, if it had one.
        self._seen = int(run_values.results) + 1
        if self._seen < self._last_step:
            return
        # Near the end, look again: this run may not have been a training step.
        self._seen = int(run_context.session.run(self._global_step))
        if self._seen >= self._last_step:
            run_context.request_stop()

    def steps_left(self, session):
        """Steps to ``last_step`` (at least 1): a run of several steps
        (``ConfigProto(steps_per_run=...)``) takes no more, so training stops on it."""
        if self._seen is None:
            self._seen = int(session.run(self._global_step))
        return max(1, self._last_step - self._seen)


# -- LoggingTensorHook -----------------------------------------------------------------------------


class LoggingTensorHook(SessionRunHook):
    """Logs the values of some tensors every N runs, every N seconds, and/or at the end.

    Parameters
    ----------
    tensors : dict or list
        ``{tag: tensor or name}``, or a list of tensors or names (tagged by
        their names).
    every_n_iter, every_n_secs : int or float, optional
        How often to log; give exactly one unless ``at_end`` alone.
    at_end : bool
        Also log when the session ends, by running the tensors once more
        without feeds (so they must not need a placeholder).
    formatter : callable, optional
        ``formatter({tag: value}) -> str`` replaces the default
        ``"tag = value, ..."`` line.

    Attributes
    ----------
    last_values : dict or None
        ``{tag: value}`` as last logged.

    Examples
    --------
    >>> import daskflow as tf
    >>> loss = tf.constant(0.5, name="loss")
    >>> hook = tf.train.LoggingTensorHook([loss], every_n_iter=10)
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end:
            _check_exactly_one(["every_n_iter", "every_n_secs"], [every_n_iter, every_n_secs])
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"every_n_iter must be positive, got {every_n_iter}")
        if isinstance(tensors, dict):
            self._tensors, self._tags = dict(tensors), sorted(tensors)
        else:
            self._tensors = {_tag(t): t for t in tensors}
            self._tags = list(self._tensors)
        self._timer = _Timer(every_secs=every_n_secs, every_steps=every_n_iter)
        self._at_end = at_end
        self._formatter = formatter
        self.last_values = None

    def begin(self):
        self._timer.reset()
        self._iter = 0
        graph = get_default_graph()
        self._fetches = {tag: graph.as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._trigger = self._timer.should_trigger_for_step(self._iter)
        return SessionRunArgs(self._fetches) if self._trigger else None

    def after_run(self, run_context, run_values):
        if self._trigger:
            self._log(run_values.results)
        self._iter += 1

    def end(self, session):
        if self._at_end:
            self._log(session.run(self._fetches))

    def _log(self, values):
        elapsed, _ = self._timer.update_last_triggered_step(self._iter)
        self.last_values = values
        if self._formatter is not None:
            logger.info("%s", self._formatter(values))
            return
        with np.printoptions(suppress=True):
            line = ", ".join(f"{tag} = {values[tag]}" for tag in self._tags)
        if elapsed is None:
            logger.info("%s", line)
        else:
            logger.info("%s (%.3f sec)", line, elapsed)


def _tag(tensor):
    return tensor if isinstance(tensor, str) else tensor.name


# -- CheckpointSaverHook ----------------------------------------------------------------------------


class CheckpointSaverListener:
    """Called around each checkpoint a :class:`CheckpointSaverHook` saves (TF1's listener).

    ``after_save`` may return True to stop training.

    Examples
    --------
    >>> import daskflow as tf
    >>> class Counting(tf.train.CheckpointSaverListener):
    ...     def after_save(self, session, global_step_value):
    ...         print("saved at", global_step_value)
    """

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Save a checkpoint when the session starts, every ``save_secs`` seconds or
    ``save_steps`` steps, and at the end (unless that step was just saved), as TF1's.

    Parameters
    ----------
    checkpoint_dir : str
        A folder or fsspec URL; checkpoints are ``<checkpoint_basename>-<step>``.
    save_secs, save_steps : int, optional
        Exactly one of them.
    saver : Saver, optional
        Default: the scaffold's, else the graph's ``savers`` collection's one,
        else a new ``Saver()``.
    scaffold : Scaffold, optional
        Not with ``saver``.
    listeners : list of CheckpointSaverListener, optional
        Their ``begin`` runs in :meth:`begin`, ``before_save`` / ``after_save``
        around every save (an ``after_save`` returning True stops training),
        ``end`` in :meth:`end`.
    save_graph_def : bool
        Write ``graph.pbtxt`` to ``checkpoint_dir`` once the session is made,
        and a ``<checkpoint>.meta`` with every checkpoint.

    Examples
    --------
    >>> import daskflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> hook = tf.train.CheckpointSaverHook("memory://hook-doctest", save_steps=100)
    """

    def __init__(
        self,
        checkpoint_dir,
        save_secs=None,
        save_steps=None,
        saver=None,
        checkpoint_basename="model.ckpt",
        scaffold=None,
        listeners=None,
        save_graph_def=True,
    ):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._checkpoint_dir = checkpoint_dir
        self._path = checkpoint_dir.rstrip("/") + "/" + checkpoint_basename
        self._saver, self._scaffold = saver, scaffold
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def

    def begin(self):
        self._global_step = _global_step_of("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        step = int(session.run(self._global_step))
        if self._save_graph_def:
            graph_def = get_default_graph().as_graph_def(add_shapes=True)
            write_graph(graph_def, self._checkpoint_dir, "graph.pbtxt")
        self._save(session, step)  # the state at the step the session starts from
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        # The fetched step was read before this run's update: one more is where it may
        # be now. Only then is the step read again, to save at the step it really is.
        if not self._timer.should_trigger_for_step(int(run_values.results) + 1):
            return
        step = int(run_context.session.run(self._global_step))
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._save(run_context.session, step):
                run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._global_step))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session, step):
        """Save at ``step``; whether a listener asked to stop."""
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._path, global_step=step, write_meta_graph=self._save_graph_def)
        logger.info("Saving checkpoints for %d into %s.", step, self._path)
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logger.info("A CheckpointSaverListener requested that training be stopped: %s", listener)
                stop = True
        return stop

    def _get_saver(self):
        if self._saver is None and self._scaffold is not None:
            self._saver = self._scaffold.saver
        if self._saver is None:
            savers = get_default_graph().get_collection(GraphKeys.SAVERS)
            if len(savers) > 1:
                raise RuntimeError(
                    f"More than one item in collection {GraphKeys.SAVERS}. "
                    "Please indicate which one to use by passing it to the constructor."
                )
            self._saver = savers[0] if savers else Saver()
        return self._saver


# -- StepCounterHook -------------------------------------------------------------------------------


class StepCounterHook(SessionRunHook):
    """Measures and logs global steps per second.

    Parameters
    ----------
    every_n_steps : int, optional
        Measure every this many global steps (default 100); set it to None
        to use ``every_n_secs`` instead.
    every_n_secs : float, optional
    output_dir : str, optional
        A local folder: each rate is also written there as the scalar summary
        ``global_step/sec`` (through ``tf.summary.FileWriterCache``).
    summary_writer : FileWriter, optional
        Write there instead.

    Attributes
    ----------
    steps_per_sec : list of float
        Every rate measured, in order.

    Examples
    --------
    >>> import daskflow as tf
    >>> hook = tf.train.StepCounterHook(every_n_steps=50)
    >>> hook.steps_per_sec
    []
    """

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        _check_exactly_one(["every_n_steps", "every_n_secs"], [every_n_steps, every_n_secs])
        self._output_dir, self._summary_writer = output_dir, summary_writer
        self._timer = _Timer(every_secs=every_n_secs, every_steps=every_n_steps)
        self.steps_per_sec = []

    def begin(self):
        self._global_step = _global_step_of("StepCounterHook")
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _writer_for(self._output_dir)
        # TF1's tag: the global step's op name + "/sec".
        self._summary_tag = self._global_step.op.name + "/sec"

    def after_create_session(self, session, coord):
        self._timer.reset()  # a new session starts a new measurement

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        # The value read is one behind; re-read the true step only when it may be time.
        if not self._timer.should_trigger_for_step(int(run_values.results) + 1):
            return
        step = int(run_context.session.run(self._global_step))
        if self._timer.should_trigger_for_step(step):
            secs, steps = self._timer.update_last_triggered_step(step)
            if secs:
                self.steps_per_sec.append(steps / secs)
                logger.info("global_step/sec: %g", self.steps_per_sec[-1])
                if self._summary_writer is not None:
                    _write_scalar(self._summary_writer, self._summary_tag, self.steps_per_sec[-1], step)


def _writer_for(output_dir):
    return FileWriterCache.get(output_dir)


def _write_scalar(writer, tag, value, step):
    writer.add_summary(protos.Summary(value=[protos.Summary.Value(tag=tag, simple_value=float(value))]), step)


# -- SummarySaverHook ------------------------------------------------------------------------------


class SummarySaverHook(SessionRunHook):
    """Runs a summary op every N steps or N seconds and writes it to an event file.

    Parameters
    ----------
    save_steps, save_secs : int, optional
        How often; give exactly one.
    output_dir : str, optional
        A local folder; its writer comes from ``tf.summary.FileWriterCache``.
    summary_writer : FileWriter, optional
        Write there instead of ``output_dir``.
    scaffold : Scaffold, optional
        Take the scaffold's ``summary_op`` (set when its session is made).
    summary_op : Tensor or list of Tensor, optional
        Serialized ``Summary`` tensors to run; give this or ``scaffold``.

    Examples
    --------
    >>> import tempfile
    >>> import daskflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> loss = tf.summary.scalar("loss", tf.constant(0.5))
    >>> hook = tf.train.SummarySaverHook(save_steps=10, output_dir=tempfile.mkdtemp(), summary_op=loss)
    """

    def __init__(
        self,
        save_steps=None,
        save_secs=None,
        output_dir=None,
        summary_writer=None,
        scaffold=None,
        summary_op=None,
    ):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("SummarySaverHook: exactly one of scaffold or summary_op must be provided")
        if output_dir is None and summary_writer is None:
            raise ValueError("SummarySaverHook: give output_dir or summary_writer")
        self._summary_op, self._scaffold = summary_op, scaffold
        self._output_dir, self._summary_writer = output_dir, summary_writer
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _writer_for(self._output_dir)
        self._next_step = None
        self._global_step = _global_step_of("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        requests = {"global_step": self._global_step}
        ops = self._summary_ops()
        if self._request_summary and ops:
            requests["summary"] = ops
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        results = run_values.results
        global_step = int(results["global_step"]) + 1  # read before this run's increment
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step))
        if self._next_step is None:
            start = protos.SessionLog(status=protos.SessionLog.START)
            self._summary_writer.add_session_log(start, global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer is not None:
            self._summary_writer.flush()

    def _summary_ops(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]


# -- FinalOpsHook, FeedFnHook, GlobalStepWaiterHook ------------------------------------------------


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are in :attr:`final_ops_values`.

    Examples
    --------
    >>> import daskflow as tf
    >>> total = tf.constant(7.0)
    >>> hook = tf.train.FinalOpsHook(total)
    >>> with tf.train.MonitoredSession(hooks=[hook]) as sess:
    ...     pass
    >>> float(hook.final_ops_values)
    7.0
    """

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s ``{tensor: value}`` to the feeds of every run.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [])
    >>> y = x * 3
    >>> hook = tf.train.FeedFnHook(lambda: {x: 2.0})
    >>> with tf.train.MonitoredSession(hooks=[hook]) as sess:
    ...     float(sess.run(y))
    6.0
    """

    def __init__(self, feed_fn):
        if not callable(feed_fn):
            raise TypeError(f"FeedFnHook: feed_fn must be callable, got {type(feed_fn).__name__}")
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Delays each run until the global step reaches ``wait_until_step`` (TF1's gradual start).

    The global step is polled every half second. daskflow workers do not
    share variables, so on a worker only a step it advances itself counts.
    """

    def __init__(self, wait_until_step):
        self._wait_until_step = int(wait_until_step)

    def begin(self):
        self._worker_is_started = False
        self._global_step = _global_step_of("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started or self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        last_logged = None
        while True:
            step = int(run_context.session.run(self._global_step))
            if step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if step != last_logged:
                logger.info(
                    "Waiting for global step %d before starting training (now %d)",
                    self._wait_until_step,
                    step,
                )
                last_logged = step
            time.sleep(0.5)


# -- NanTensorHook ---------------------------------------------------------------------------------


class NanLossDuringTrainingError(RuntimeError):
    """The loss watched by a :class:`NanTensorHook` became NaN."""

    def __init__(self, *args, **kwargs):  # RuntimeError's, spelled out as TF1's signature shows it
        super().__init__(*args, **kwargs)

    def __str__(self):
        # TF1's text, then what daskflow knows of the culprit.
        return "NaN loss during training." + (f" {self.args[0]}" if self.args else "")


class NanTensorHook(SessionRunHook):
    """Fails (or stops) training when the loss is NaN.

    The check runs after the step, so the step that produced the NaN has
    already updated the variables.

    Parameters
    ----------
    loss_tensor : Tensor or str
    fail_on_nan_loss : bool
        Raise :class:`NanLossDuringTrainingError` (default), or log a warning
        and request a stop.

    Examples
    --------
    >>> import daskflow as tf
    >>> loss = tf.constant(1.0, name="loss")
    >>> hook = tf.train.NanTensorHook(loss, fail_on_nan_loss=False)
    """

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss = loss_tensor
        self._fail = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if not np.any(np.isnan(run_values.results)):
            return
        message = f"Model diverged with loss = NaN: {_tag(self._loss)} is NaN"
        if self._fail:
            logger.error(message)
            raise NanLossDuringTrainingError(message)
        logger.warning("%s; stopping", message)
        run_context.request_stop()


# -- ProgressBarHook -------------------------------------------------------------------------------


class ProgressBarHook(SessionRunHook):
    """A tqdm progress bar over the global step.

    ``MonitoredTrainingSession`` adds one by default when run interactively
    (a terminal, IPython or Jupyter).

    Parameters
    ----------
    last_step : int or StopAtStepHook, optional
        Where the bar ends; given a :class:`StopAtStepHook`, its last step
        once known. None: a bar without a total.
    desc : str
        The bar's label.
    **tqdm_kwargs
        Passed to ``tqdm.auto.tqdm`` (``file``, ``leave``, ``mininterval``...).

    Attributes
    ----------
    bar : tqdm.tqdm or None
        The bar, made when the session is created.

    Examples
    --------
    >>> import daskflow as tf
    >>> stop = tf.train.StopAtStepHook(num_steps=100)
    >>> hooks = [stop, tf.train.ProgressBarHook(last_step=stop)]
    """

    def __init__(self, last_step=None, desc="global step", **tqdm_kwargs):
        self._last_step = last_step
        self._kwargs = {"desc": desc, "dynamic_ncols": True, **tqdm_kwargs}
        self.bar = None

    def _total(self):
        if isinstance(self._last_step, StopAtStepHook):
            return self._last_step.last_step
        return self._last_step

    def begin(self):
        self._global_step = _global_step_of("ProgressBarHook")

    def after_create_session(self, session, coord):
        from tqdm.auto import tqdm  # imported only when a bar is wanted

        self.bar = tqdm(total=self._total(), initial=int(session.run(self._global_step)), **self._kwargs)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if self.bar.total is None:
            self.bar.total = self._total()  # a StopAtStepHook placed after this hook knows it now
        # The value read is one behind; assume this run was a training step (end() corrects).
        step = self._within_total(int(run_values.results) + 1)
        if step > self.bar.n:
            self.bar.update(step - self.bar.n)

    def end(self, session):
        self.bar.n = self._within_total(int(session.run(self._global_step)))
        self.bar.close()

    def _within_total(self, step):
        """Asynchronous replicas may carry the global step past the last one (each run adds
        one per replica): the bar stops at its total instead of passing it."""
        total = self.bar.total
        return step if total is None else min(step, total)
