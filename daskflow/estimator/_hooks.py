"""The hooks an Estimator adds to its loops, beside ``tf.train``'s own.

- :class:`CheckpointSaverListener` and :class:`ListeningSaverHook`: TF1's
  ``saving_listeners``, called around each checkpoint the training loop writes
  (``train_and_evaluate`` evaluates from one).
- :class:`SummarySaverHook`: writes the merged ``tf.summary`` ops to the model
  folder every ``save_summary_steps`` global steps.
- :class:`StopAfterNEvalsHook` and :class:`FinalOpsHook`: the evaluation loop's
  ``steps`` limit, and the metric values read once the loop ends.
"""

from __future__ import annotations

import logging

from ..train.hooks import CheckpointSaverHook, SessionRunHook

logger = logging.getLogger("daskflow")


class CheckpointSaverListener:
    """Called before and after each checkpoint a training loop saves (TF1's listener).

    ``after_save`` may return True to stop training.

    Examples
    --------
    >>> import daskflow as tf
    >>> class Counting(tf.estimator.CheckpointSaverListener):
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


class ListeningSaverHook(CheckpointSaverHook):
    """A :class:`CheckpointSaverHook` that tells ``listeners`` about each save."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, scaffold=None, listeners=()):
        super().__init__(checkpoint_dir, save_secs, save_steps, scaffold=scaffold)
        self._listeners = list(listeners)
        self._stop = False

    def begin(self):
        super().begin()
        for listener in self._listeners:
            listener.begin()

    def after_run(self, run_context, run_values):
        super().after_run(run_context, run_values)
        if self._stop:
            run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._global_step))
        if step != self._last_step:  # as TF1: no second save of a step just saved
            self._save(session)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session):
        step = int(session.run(self._global_step))
        for listener in self._listeners:
            listener.before_save(session, step)
        super()._save(session)
        for listener in self._listeners:
            if listener.after_save(session, step):
                logger.info("A CheckpointSaverListener requested that training be stopped.")
                self._stop = True


class StopAfterNEvalsHook(SessionRunHook):
    """Stops an evaluation loop after ``num_evals`` runs, logging progress as TF1 does."""

    def __init__(self, num_evals):
        self._num_evals = num_evals
        self._every = max(num_evals // 10, 1)

    def after_create_session(self, session, coord):
        self._done = 0

    def after_run(self, run_context, run_values):
        self._done += 1
        if self._done % self._every == 0 or self._done == self._num_evals:
            logger.info("Evaluation [%d/%d]", self._done, self._num_evals)
        if self._done >= self._num_evals:
            run_context.request_stop()
