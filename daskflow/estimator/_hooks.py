"""The hooks an Estimator adds to its loops, beside ``tf.train``'s own.

- :class:`ListeningSaverHook`: TF1's ``saving_listeners`` (``tf.train``'s
  :class:`CheckpointSaverListener`), called around each checkpoint the
  training loop writes (``train_and_evaluate`` evaluates from one).
- :class:`SummarySaverHook`: writes the merged ``tf.summary`` ops to the model
  folder every ``save_summary_steps`` global steps.
- :class:`StopAfterNEvalsHook` and :class:`FinalOpsHook`: the evaluation loop's
  ``steps`` limit, and the metric values read once the loop ends.
"""

from __future__ import annotations

import logging

from ..train.hooks import CheckpointSaverHook, CheckpointSaverListener, SessionRunHook  # noqa: F401 - tf.estimator re-exports the listener

logger = logging.getLogger("daskflow")


class ListeningSaverHook(CheckpointSaverHook):
    """The :class:`CheckpointSaverHook` an Estimator adds, telling ``listeners`` about each save."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, scaffold=None, listeners=()):
        super().__init__(checkpoint_dir, save_secs, save_steps, scaffold=scaffold, listeners=listeners)


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
