"""``MonitoredTrainingSession``: TF1's training loop around a ``Session``.

A :class:`MonitoredSession` owns one plain ``Session`` (embedded, or on a
cluster when given a scheduler address) and a list of hooks. Making it
follows TF1's order::

    hooks' begin()          the last chance to add ops (the hooks make theirs)
    Scaffold.finalize()     build the initializers, then finalize the graph
    Session(master)         through a session creator (chief or worker)
    run init ops            the chief only
    hooks' after_create_session(session, coord)

Each ``run`` asks every hook's ``before_run`` for extra fetches and feeds and
merges them with the caller's into *one* ``Session.run`` — as the nested fetch
``{"caller": fetches, 0: hook 0's fetches, ...}`` — then hands each hook its
own results and the caller only the caller's. A hook stops the loop with
``run_context.request_stop()``; ``should_stop()`` reports it.

Leaving the ``with`` block runs the hooks' ``end`` and closes the session.
``OutOfRangeError`` (an input ran out) and ``StopIteration`` end the block
quietly, as in TF1; any other error propagates and skips ``end``.

With ``checkpoint_dir``, the chief restores the latest checkpoint there at
start (after running the init ops, so variables outside the checkpoint are
initialised too), saves the state it starts from, then every
``save_checkpoint_steps`` or ``save_checkpoint_secs`` (600 s when neither is
given, as TF1) and at the end, with ``graph.pbtxt`` and ``.meta`` files unless
``save_graph_def=False`` (:class:`CheckpointSaverHook`). With ``summary_dir`` (default: a local
``checkpoint_dir``) the chief writes the summaries (``Scaffold.summary_op``,
by default ``tf.summary.merge_all()``) every ``save_summaries_steps``
(100 by default) or ``save_summaries_secs``, and global steps/sec every
``log_step_count_steps``, to TensorBoard event files there. Not built yet:
TF1's ``_RecoverableSession`` restart loop. A non-chief session does not wait for
the chief: daskflow sessions do not share variables.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time

from ..errors import AbortedError, DataLossError, DeadlineExceededError, OutOfRangeError
from ..framework.graph import get_default_graph
from ..summary import merge_all
from ..variables import (
    GraphKeys,
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from .checkpoint_management import checkpoint_exists, checkpoints_in, get_checkpoint_state
from .coordinator import Coordinator
from .hooks import (
    CheckpointSaverHook,
    ProgressBarHook,
    SessionRunArgs,
    SessionRunContext,
    SessionRunValues,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from .optimizer import get_global_step
from .queue_runner import start_queue_runners
from .saver import Saver

logger = logging.getLogger("daskflow")

__all__ = [
    "ChiefSessionCreator",
    "Coordinator",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "Scaffold",
    "SingularMonitoredSession",
    "WorkerSessionCreator",
]

_USE_DEFAULT = object()  # TF1's sentinel: "not given" differs from an explicit None
_CALLER = "caller"  # the caller's entry in the merged fetches; hooks use their index


def _checkpoints_to_restore(checkpoint_dir, checkpoint_filename_with_path):
    """The checkpoints a chief may begin from, newest first: the one given; else those the
    folder's state file lists that are there; else, with no state file, every checkpoint
    in the folder by time (the state file lost: said in the log, not a fresh start)."""
    if checkpoint_filename_with_path is not None:
        return [checkpoint_filename_with_path]
    if checkpoint_dir is None:
        return []
    state = get_checkpoint_state(checkpoint_dir)
    if state is None:
        found = checkpoints_in(checkpoint_dir)
        if found:
            logger.warning(
                "%s has no checkpoint state file: restoring the newest checkpoint there", checkpoint_dir
            )
        return found
    listed = [state.model_checkpoint_path, *reversed(state.all_model_checkpoint_paths)]
    return [p for i, p in enumerate(listed) if p not in listed[:i] and checkpoint_exists(p)]


def _restore_newest_valid(saver, sess, candidates):
    """Restore the newest of ``candidates`` that reads back whole; a damaged or missing
    one is skipped, and the log says which and why. Returns the one restored; raises the
    newest one's error when none does."""
    first = None
    for path in candidates:
        try:
            saver.restore(sess, path)
            return path
        except (DataLossError, ValueError) as e:  # damaged, or its files gone
            logger.warning("checkpoint %s skipped: %s", path, e)
            first = first or e
    if first is not None:
        raise first
    return None


# -- scaffold and session creators -----------------------------------------------------------------


class Scaffold:
    """The ops a monitored session initialises with; missing ones are built in :meth:`finalize`.

    Parameters
    ----------
    init_op : Operation, optional
        Run by the chief on a new session; default
        ``tf.global_variables_initializer()``.
    init_feed_dict : dict, optional
        Feeds for ``init_op``.
    init_fn : callable, optional
        ``init_fn(scaffold, session)``, called after ``init_op``.
    local_init_op : Operation, optional
        Run on every new session; default ``tf.local_variables_initializer()``.
    summary_op : Tensor, optional
        What :class:`SummarySaverHook` runs; default ``tf.summary.merge_all()``
        (None when there are no summaries).
    saver : Saver, optional
    ready_op : Tensor, optional
        Names of variables still uninitialized: the session is ready when it
        is empty. Default ``tf.report_uninitialized_variables()``.
    ready_for_local_init_op : Tensor, optional
        The same, for what ``local_init_op`` needs: a non-chief worker of a
        between-graph job waits until it is empty (the chief has initialized
        the shared variables). Default: the global variables not initialized.
    copy_from_scaffold
        TF1's argument, not built yet; giving one raises NotImplementedError.
    local_init_feed_dict : dict, optional
        Feeds for ``local_init_op``.

    Examples
    --------
    >>> import daskflow as tf
    >>> w = tf.Variable(3.0)
    >>> scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: sess.load_variable(w, 5.0))
    >>> with tf.train.MonitoredTrainingSession(scaffold=scaffold, progress_bar=False) as sess:
    ...     float(sess.run(w))
    5.0
    """

    def __init__(
        self,
        init_op=None,
        init_feed_dict=None,
        init_fn=None,
        ready_op=None,
        ready_for_local_init_op=None,
        local_init_op=None,
        summary_op=None,
        saver=None,
        copy_from_scaffold=None,
        local_init_feed_dict=None,
    ):
        if copy_from_scaffold is not None:
            raise NotImplementedError("Scaffold: copy_from_scaffold not built yet in daskflow")
        self.init_op = init_op
        self.ready_op = ready_op
        self.ready_for_local_init_op = ready_for_local_init_op
        self.init_feed_dict = init_feed_dict
        self.init_fn = init_fn
        self.local_init_op = local_init_op
        self.local_init_feed_dict = local_init_feed_dict
        self.summary_op = summary_op
        self.saver = saver

    def finalize(self):
        """Build the default init ops, then finalize the default graph."""
        if self.init_op is None:
            self.init_op = global_variables_initializer()
        if self.local_init_op is None:
            self.local_init_op = local_variables_initializer()
        if self.ready_op is None:
            self.ready_op = report_uninitialized_variables()
        if self.ready_for_local_init_op is None:
            self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
        if self.summary_op is None:
            self.summary_op = _default_summary_op()
        get_default_graph().finalize()
        return self


def _default_summary_op():
    """TF1's default: the graph's ``summary_op`` collection, else ``merge_all()`` (kept there)."""
    graph = get_default_graph()
    existing = graph.get_collection(GraphKeys.SUMMARY_OP)
    if existing:
        return existing[0]
    op = merge_all()
    if op is not None:
        graph.add_to_collection(GraphKeys.SUMMARY_OP, op)
    return op


class ChiefSessionCreator:
    """Makes the chief's session: finalizes the scaffold and runs its init ops.

    Parameters
    ----------
    scaffold : Scaffold, optional
    master : str, distributed.Client or cluster, optional
        The ``Session`` target; empty runs embedded.
    config : ConfigProto, optional
    checkpoint_dir, checkpoint_filename_with_path : str, optional
        Restore the latest checkpoint in ``checkpoint_dir`` (or this one)
        after the init ops, when there is one.

    Examples
    --------
    >>> import daskflow as tf
    >>> creator = tf.train.ChiefSessionCreator(master="")
    """

    def __init__(
        self, scaffold=None, master="", config=None, checkpoint_dir=None, checkpoint_filename_with_path=None
    ):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._checkpoint = (checkpoint_dir, checkpoint_filename_with_path)

    def checkpoint_to_restore(self):
        """The checkpoint a (re)started chief session begins from, or None."""
        found = self.checkpoints_to_restore()
        return found[0] if found else None

    def checkpoints_to_restore(self):
        """The checkpoints a (re)started chief session may begin from, newest first."""
        return _checkpoints_to_restore(*self._checkpoint)

    def saver(self):
        if self._scaffold.saver is None:
            self._scaffold.saver = Saver()
        return self._scaffold.saver

    def create_session(self):
        self._scaffold.finalize()
        restore = self.checkpoints_to_restore()
        return _initialised(
            self._master, self._config, lambda sess: _chief_init(self._scaffold, sess, restore)
        )


class WorkerSessionCreator:
    """Makes a non-chief session: runs only the local init op.

    On a between-graph job's target (``tf.train.Server``), it waits, as
    TF1's workers do, up to ``max_wait_secs`` for the chief to initialise
    the shared variables (``scaffold.ready_for_local_init_op`` empty), then
    runs ``local_init_op``. Other sessions share no variables, so there is
    nothing to wait for: the session starts with its global variables
    uninitialised (a warning says so).

    Examples
    --------
    >>> import daskflow as tf
    >>> creator = tf.train.WorkerSessionCreator(master="")
    """

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return _initialised(
            self._master, self._config, lambda sess: _worker_init(self._scaffold, sess, self._max_wait_secs)
        )


def _initialised(master, config, init):
    """A new ``Session(master)`` after ``init(session)``, closed again if that fails."""
    from ..runtime.session import Session  # local import: the runtime loads dask, only for a session

    sess = Session(master, config=config)
    try:
        init(sess)
    except BaseException:
        sess.close()
        raise
    return sess


def _chief_init(scaffold, sess, restore=None):
    if sess.shares_variables and not len(sess.run(scaffold.ready_op)):
        # A restarted chief of a between-graph job: the job's variables live on, and
        # the other workers train them; continue from them, as a restarted worker does.
        _run_local_init(sess, scaffold)
        return
    _run_unless_none(sess, scaffold.init_op, scaffold.init_feed_dict)
    if restore:  # the checkpoints to begin from, newest first
        if scaffold.saver is None:
            scaffold.saver = Saver()
        _restore_newest_valid(scaffold.saver, sess, restore)
    elif scaffold.init_fn is not None:
        scaffold.init_fn(scaffold, sess)
    _run_local_init(sess, scaffold)


def _run_unless_none(sess, op, feed_dict=None):
    if op is not None:  # Supervisor(init_op=None): there is none to run
        sess.run(op, feed_dict=feed_dict)


def _run_local_init(sess, scaffold):
    # A Supervisor's stand-in scaffold may have no local_init_feed_dict.
    _run_unless_none(sess, scaffold.local_init_op, getattr(scaffold, "local_init_feed_dict", None))


def _worker_init(scaffold, sess, max_wait_secs=30 * 60):
    if sess.shares_variables:
        wait_until_ready(sess, scaffold.ready_for_local_init_op, max_wait_secs)
        _run_local_init(sess, scaffold)
        wait_until_ready(sess, scaffold.ready_op, max_wait_secs)
        return
    _run_local_init(sess, scaffold)
    missing = sess.uninitialized_variables()
    if missing:
        logger.warning(
            "non-chief session: %d variable(s) uninitialised (%s...); daskflow sessions do not share "
            "variables, so set them with Session.load_variable or make this session the chief",
            len(missing),
            ", ".join(missing[:3]),
        )


READY_POLL_SECS = 0.5  # how often a waiting worker asks again (TF1's waited 30 s between asks)


def wait_until_ready(sess, ready_op, max_wait_secs, poll_secs=READY_POLL_SECS):
    """Run ``ready_op`` every ``poll_secs`` until it names no variable; DeadlineExceededError
    after ``max_wait_secs``."""
    deadline = time.monotonic() + max_wait_secs
    while True:
        missing = [n.decode() if isinstance(n, bytes) else str(n) for n in sess.run(ready_op)]
        if not missing:
            return
        if time.monotonic() >= deadline:
            raise DeadlineExceededError(
                None,
                None,
                f"Session was not ready after waiting {max_wait_secs} secs: variables {missing[:5]} "
                "are still uninitialized (is the chief running?)",
            )
        time.sleep(poll_secs)


# -- the monitored session -------------------------------------------------------------------------


class MonitoredSession:
    """A session that runs hooks around every step and closes itself cleanly.

    Parameters
    ----------
    session_creator : ChiefSessionCreator or WorkerSessionCreator, optional
        Default: an embedded chief.
    hooks : list of SessionRunHook, optional
    stop_grace_period_secs : float
        How long closing waits for the queue runners' threads to end.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [])
    >>> y = x * 2  # ops are made before: the monitored session finalizes the graph
    >>> with tf.train.MonitoredSession() as sess:
    ...     float(sess.run(y, feed_dict={x: 3.0}))
    6.0
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        self._hooks = list(hooks or [])
        self._graph = get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        for hook in self._hooks:
            hook.begin()
        self._coord = Coordinator()
        self._stop_requested = False
        self._creator = session_creator or ChiefSessionCreator()
        self.recoveries: list = []  # each restore from a checkpoint after variables were lost
        try:
            self._sess = self._creator.create_session()
        except BaseException:
            self._reopen_graph()
            raise
        self._grace_secs, self._threads = stop_grace_period_secs, []
        try:
            # As TF1: the graph's queue runners start with the session, under its coordinator.
            self._threads = start_queue_runners(self._sess, coord=self._coord)
            for hook in self._hooks:
                hook.after_create_session(self._sess, self._coord)
        except BaseException:
            self._close(run_end_hooks=False)
            raise

    @property
    def graph(self):
        return self._graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Run ``fetches`` in one step together with the hooks' requests.

        Returns the results of ``fetches`` only; raises RuntimeError if a
        stop was already requested.
        """
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        requests = {}
        for i, hook in enumerate(self._hooks):
            args = hook.before_run(context)
            if args is not None:
                requests[i] = args
        merged_fetches, merged_feeds = _merge(self._graph, fetches, feed_dict, requests, self._hooks)
        try:
            with self._steps_limited():
                results = self._sess.run(merged_fetches, merged_feeds, options, run_metadata)
        except AbortedError:
            # Variables lost with no copy (ConfigProto(backup_variables=False), or copies lost too): as TF1's
            # recoverable session, go on from the latest checkpoint if there is one.
            if not self._restore_latest():
                raise
            with self._steps_limited():
                results = self._sess.run(merged_fetches, merged_feeds, options, run_metadata)
        for i, hook in enumerate(self._hooks):
            hook.after_run(context, SessionRunValues(results.get(i), options, run_metadata))
        self._stop_requested = self._stop_requested or context.stop_requested
        return results[_CALLER]

    @contextlib.contextmanager
    def _steps_limited(self):
        """With ``ConfigProto(steps_per_run=K)``: a run takes no more steps than a
        :class:`StopAtStepHook` has left, so training stops at its last step."""
        sess = self._sess
        if getattr(getattr(sess, "config", None), "steps_per_run", 1) == 1:
            yield
            return
        left = [h.steps_left(sess) for h in self._hooks if isinstance(h, StopAtStepHook)]
        with sess.limit_steps(min(left, default=None)):
            yield

    def _restore_latest(self):
        candidates = getattr(self._creator, "checkpoints_to_restore", lambda: [])()
        if not candidates:
            return False
        restore = _restore_newest_valid(self._creator.saver(), self._sess, candidates)
        self.recoveries.append({"checkpoint": restore})
        logger.warning("variables lost with their worker: training goes on from %s", restore)
        return True

    def should_stop(self):
        """True once a hook requested a stop (or the session is closed)."""
        if self._sess is None:
            return True
        self._coord.raise_requested_exception()  # an error a hook's thread handed in
        return self._stop_requested or self._coord.should_stop()

    def close(self):
        """Run the hooks' ``end`` and close the session (a no-op when closed)."""
        self._close(run_end_hooks=True)

    def _close(self, run_end_hooks):
        if self._sess is None:
            return
        try:
            if run_end_hooks:
                for hook in self._hooks:
                    hook.end(self._sess)
        finally:
            sess, self._sess = self._sess, None
            self._coord.request_stop()
            self._reopen_graph()
            try:  # the queue runners' threads end (their queues cancelled) before the session
                self._coord.join(self._threads, self._grace_secs, ignore_live_threads=True)
            finally:
                sess.close()

    def _reopen_graph(self):
        # As TF1 does: after training, the graph is open again (e.g. for evaluation ops).
        if not self._graph_was_finalized:
            self._graph._unsafe_unfinalize()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # An exhausted input is how a training loop often ends: a clean exit.
        clean = exc_type is None or issubclass(exc_type, (OutOfRangeError, StopIteration))
        self._close(run_end_hooks=clean)
        return clean


class SingularMonitoredSession(MonitoredSession):
    """A :class:`MonitoredSession` on a chief session, with access to the raw ``Session``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.train.SingularMonitoredSession() as sess:
    ...     raw = sess.raw_session()
    """

    def __init__(
        self,
        hooks=None,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        stop_grace_period_secs=120,
        checkpoint_filename_with_path=None,
    ):
        creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir, checkpoint_filename_with_path)
        super().__init__(creator, hooks, stop_grace_period_secs)

    def raw_session(self):
        """The underlying ``Session`` (runs without the hooks)."""
        return self._sess


# -- merging the hooks' requests -------------------------------------------------------------------


def _merge(graph, fetches, feed_dict, requests, hooks):
    """One ``(fetches, feed_dict)`` for the caller and every hook's ``SessionRunArgs``."""
    merged = {_CALLER: fetches}
    feeds = dict(feed_dict or {})
    feeder = {_feed_target(graph, key): "the caller" for key in feeds}
    for i, args in requests.items():
        if args.fetches is not None:
            merged[i] = args.fetches
        for key, value in (args.feed_dict or {}).items():
            target = _feed_target(graph, key)
            if target in feeder:
                raise RuntimeError(
                    f"Same tensor {_name(target)} is fed by {feeder[target]} and by hook "
                    f"{type(hooks[i]).__name__} (#{i}); only one may feed it"
                )
            feeder[target] = f"hook {type(hooks[i]).__name__} (#{i})"
            feeds[key] = value
    return merged, feeds


def _feed_target(graph, key):
    """The tensor a feed key names, so ``x`` and ``"x:0"`` count as the same feed."""
    try:
        return graph.as_graph_element(key, allow_operation=False)
    except (KeyError, ValueError, TypeError):
        return key  # Session.run reports a bad key better


def _name(target):
    return getattr(target, "name", target)


# -- MonitoredTrainingSession ----------------------------------------------------------------------


def MonitoredTrainingSession(  # noqa: N802 - TF1's public name
    master="",
    is_chief=True,
    checkpoint_dir=None,
    scaffold=None,
    hooks=None,
    chief_only_hooks=None,
    save_checkpoint_secs=None,
    save_summaries_steps=_USE_DEFAULT,
    save_summaries_secs=_USE_DEFAULT,
    config=None,
    stop_grace_period_secs=120,
    log_step_count_steps=100,
    max_wait_secs=7200,
    save_checkpoint_steps=None,
    summary_dir=None,
    save_graph_def=True,
    *,
    progress_bar=None,
):
    """A :class:`MonitoredSession` set up for training, as TF1 makes it.

    Parameters
    ----------
    master : str, distributed.Client or cluster
        The ``Session`` target: empty runs embedded; a scheduler address runs
        on that cluster.
    is_chief : bool
        The chief initialises the variables and runs ``chief_only_hooks``.
    checkpoint_dir : str, optional
        A folder or fsspec URL: the chief restores the latest checkpoint
        there at start, and saves there (``model.ckpt-<step>``).
    scaffold : Scaffold, optional
    hooks, chief_only_hooks : list of SessionRunHook, optional
    save_checkpoint_secs, save_checkpoint_steps : optional
        How often the chief saves to ``checkpoint_dir`` (600 s by default), and
        always at the end.
    save_summaries_steps, save_summaries_secs : int, optional
        How often the chief writes summaries to ``summary_dir`` (a
        :class:`SummarySaverHook`); every 100 steps when neither is given.
        None or 0 for both writes none.
    config : ConfigProto, optional
    stop_grace_period_secs, max_wait_secs
        Accepted for TF1 compatibility.
    log_step_count_steps : int
        With ``summary_dir``, the chief logs and writes global steps/sec this
        often (a :class:`StepCounterHook`, tag ``global_step/sec``).
    summary_dir : str, optional
        A local folder for the event files; default ``checkpoint_dir`` when
        that is a local path (the event writer writes local files only).
    save_graph_def : bool
        The checkpoint saver writes ``graph.pbtxt`` and a ``.meta`` file with
        each checkpoint (see :class:`CheckpointSaverHook`).
    progress_bar : bool, optional
        Add a :class:`ProgressBarHook` (ending at a :class:`StopAtStepHook`'s
        last step). Default: when run interactively (stderr is a terminal,
        or in IPython/Jupyter) and a global step exists.

    Returns
    -------
    MonitoredSession

    Examples
    --------
    >>> import daskflow as tf
    >>> step = tf.train.get_or_create_global_step()
    >>> x = tf.placeholder(tf.float32, [None])
    >>> w = tf.Variable(0.0)
    >>> loss = tf.reduce_mean(tf.square(x - w))
    >>> train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    >>> hooks = [tf.train.StopAtStepHook(last_step=20)]
    >>> with tf.train.MonitoredTrainingSession(hooks=hooks, progress_bar=False) as sess:
    ...     while not sess.should_stop():
    ...         w_value, _ = sess.run([w, train], feed_dict={x: [1.0, 3.0]})
    >>> round(float(w_value), 3)
    2.0
    """
    scaffold = scaffold or Scaffold()
    if is_chief:
        creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir)
        all_hooks = [*(chief_only_hooks or [])]
        summary_dir = _summary_dir(summary_dir, checkpoint_dir)
        if summary_dir is not None:
            all_hooks.extend(
                _summary_hooks(
                    summary_dir, scaffold, save_summaries_steps, save_summaries_secs, log_step_count_steps
                )
            )
        if checkpoint_dir is not None:
            if save_checkpoint_steps is None and save_checkpoint_secs is None:
                save_checkpoint_secs = 600
            saving = CheckpointSaverHook(
                checkpoint_dir,
                save_checkpoint_secs,
                save_checkpoint_steps,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
            all_hooks.append(saving)
    else:
        creator = WorkerSessionCreator(scaffold, master, config, max_wait_secs)
        all_hooks = []
    all_hooks.extend(hooks or [])
    if progress_bar or (progress_bar is None and _interactive() and get_global_step() is not None):
        # Last, so a StopAtStepHook has set its last step when the bar is made.
        stop = next((h for h in all_hooks if isinstance(h, StopAtStepHook)), None)
        all_hooks.append(ProgressBarHook(last_step=stop))
    return MonitoredSession(creator, all_hooks, stop_grace_period_secs)


def _summary_dir(summary_dir, checkpoint_dir):
    if summary_dir is not None:
        return summary_dir
    if checkpoint_dir is None:
        return None
    path = str(checkpoint_dir)
    if "://" in path and not path.startswith("file://"):
        logger.warning(
            "checkpoint_dir=%r is not a local folder: no summaries are written (give summary_dir)", path
        )
        return None
    return path.removeprefix("file://")


def _summary_hooks(summary_dir, scaffold, steps, secs, log_step_count_steps):
    """TF1's chief hooks for ``summary_dir``: the step counter, then the summary saver."""
    if steps is _USE_DEFAULT and secs is _USE_DEFAULT:
        steps, secs = 100, None
    steps = None if steps is _USE_DEFAULT else steps
    secs = None if secs is _USE_DEFAULT else secs
    hooks = []
    if log_step_count_steps and log_step_count_steps > 0:
        hooks.append(StepCounterHook(every_n_steps=log_step_count_steps, output_dir=summary_dir))
    if (steps and steps > 0) or (secs and secs > 0):
        hooks.append(
            SummarySaverHook(save_steps=steps, save_secs=secs, output_dir=summary_dir, scaffold=scaffold)
        )
    return hooks


def _interactive():
    """Whether a person is likely watching: stderr is a terminal, or IPython/Jupyter runs."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        pass
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None
