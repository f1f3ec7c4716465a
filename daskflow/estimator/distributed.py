"""``train_and_evaluate`` as one task of a between-graph job (``TF_CONFIG`` names it).

TF1's distributed mode: the same program runs once per task, and the task
type says what it does. ``ps`` tasks serve the variables (``server.join()``);
the ``chief`` trains, initializes or restores the variables, writes
checkpoints and summaries; each ``worker`` trains the same variables;
the ``evaluator`` evaluates each new checkpoint in ``model_dir``, at most
every ``throttle_secs``, until one reaches ``max_steps``. Every task but the
evaluator starts its ``tf.train.Server``, whose target is ``RunConfig.master``.
"""

from __future__ import annotations

import logging
import time

from ..train.saver import latest_checkpoint
from ..train.server import Server

logger = logging.getLogger("daskflow")

POLL_SECS = 1.0  # how often the evaluator looks for a new checkpoint


def run_task(estimator, train_spec, eval_spec):
    """Run this process's task; ``(metrics, [])`` for the evaluator, ``(None, [])`` otherwise."""
    config = estimator.config
    if config.task_type == "evaluator":
        return _evaluate_checkpoints(estimator, train_spec, eval_spec), []
    server = Server(config.cluster_spec, config.task_type, config.task_id, config=config.session_config)
    if config.task_type == "ps":
        server.join()
        return None, []
    estimator.train(
        train_spec.input_fn,
        hooks=list(train_spec.hooks),
        max_steps=train_spec.max_steps,
        saving_listeners=list(train_spec.saving_listeners) if config.is_chief else None,
    )
    return None, []


def _evaluate_checkpoints(estimator, train_spec, eval_spec):
    """Evaluate each new checkpoint until one reaches ``train_spec.max_steps``."""
    time.sleep(eval_spec.start_delay_secs)
    last_path, result = None, None
    while True:
        path = latest_checkpoint(estimator.model_dir)
        if path is None or path == last_path:
            time.sleep(POLL_SECS)
            continue
        started = time.monotonic()
        result = estimator.evaluate(
            eval_spec.input_fn,
            steps=eval_spec.steps,
            hooks=list(eval_spec.hooks),
            checkpoint_path=path,
            name=eval_spec.name,
        )
        last_path, step = path, int(result["global_step"])
        logger.info("Evaluated the checkpoint of step %d: %s", step, result)
        if train_spec.max_steps is not None and step >= train_spec.max_steps:
            return result
        time.sleep(max(0.0, eval_spec.throttle_secs - (time.monotonic() - started)))
