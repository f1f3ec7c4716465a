"""``TrainSpec``, ``EvalSpec`` and ``train_and_evaluate``.

As TF1's local mode: one ``train`` call to ``TrainSpec.max_steps``, with a
saving listener that evaluates after a checkpoint is saved (at most once
every ``throttle_secs``), and a last evaluation at the end unless the last
step was just evaluated. With ``TF_CONFIG`` naming a cluster, TF1's
distributed mode: this process runs its task (:mod:`.distributed`).
Exporters are not built.
"""

from __future__ import annotations

import collections
import logging
import time

from ..train.hooks import SessionRunHook
from ._hooks import CheckpointSaverListener
from .distributed import run_task
from .estimator import Estimator

__all__ = ["EvalSpec", "TrainSpec", "train_and_evaluate"]

logger = logging.getLogger("daskflow")


def _check_hooks(hooks, owner):
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r} (in {owner})")
    return hooks


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])):
    """The training half of :func:`train_and_evaluate`.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.estimator.TrainSpec(input_fn=lambda: None, max_steps=100).max_steps
    100
    """

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        listeners = tuple(saving_listeners or ())
        for listener in listeners:
            if not isinstance(listener, CheckpointSaverListener):
                raise TypeError(f"All saving_listeners must be CheckpointSaverListener, given: {listener!r}")
        return super().__new__(cls, input_fn, max_steps, _check_hooks(hooks, "TrainSpec"), listeners)


class EvalSpec(
    collections.namedtuple(
        "EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"]
    )
):
    """The evaluation half of :func:`train_and_evaluate`.

    ``exporters`` are not built (anything but None raises NotImplementedError);
    ``start_delay_secs`` is unused in one process.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.estimator.EvalSpec(input_fn=lambda: None, steps=10, throttle_secs=0).steps
    10
    """

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        if exporters:
            raise NotImplementedError("EvalSpec(exporters=...): exporting SavedModels is not built")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(
            cls, input_fn, steps, name, _check_hooks(hooks, "EvalSpec"), (), start_delay_secs, throttle_secs
        )


class _EvaluateOnSave(CheckpointSaverListener):
    """Evaluates after a checkpoint is saved, throttled, and once more at the end if needed."""

    def __init__(self, estimator, eval_spec):
        self._estimator = estimator
        self._spec = eval_spec
        self._last_time = None
        self._last_step = None
        self._first_save = True
        self.eval_result = None

    def after_save(self, session, global_step_value):
        if self._first_save:  # as TF1's: the save the session starts with has nothing new to evaluate
            self._first_save = False
            return
        due = self._last_time is None or time.monotonic() - self._last_time >= self._spec.throttle_secs
        if due and global_step_value != self._last_step:
            self._evaluate(global_step_value)

    def end(self, session, global_step_value):
        if global_step_value != self._last_step:
            self._evaluate(global_step_value)

    def _evaluate(self, step):
        self.eval_result = self._estimator.evaluate(
            self._spec.input_fn, steps=self._spec.steps, hooks=self._spec.hooks, name=self._spec.name
        )
        self._last_time, self._last_step = time.monotonic(), step


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Train ``estimator`` to ``train_spec.max_steps``, evaluating after checkpoints.

    Returns
    -------
    tuple
        ``(metrics of the last evaluation, [])`` (the second is TF1's export
        results; there are no exporters). In a between-graph job's tasks
        other than the evaluator, ``(None, [])``; a ps task serves until ended.

    Raises
    ------
    TypeError
        The arguments are not an Estimator, a TrainSpec and an EvalSpec.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> def model_fn(features, labels, mode):
    ...     w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    ...     loss = tf.reduce_mean(tf.square(w * features - labels))
    ...     step = tf.train.get_global_step()
    ...     train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    ...     return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    >>> x = np.arange(4, dtype=np.float32)
    >>> fn = lambda epochs: tf.estimator.inputs.numpy_input_fn(x, 2 * x, num_epochs=epochs, shuffle=False)
    >>> estimator = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(save_checkpoints_steps=5))
    >>> metrics, _ = tf.estimator.train_and_evaluate(
    ...     estimator,
    ...     tf.estimator.TrainSpec(fn(None), max_steps=10),
    ...     tf.estimator.EvalSpec(fn(1), steps=None, throttle_secs=0))
    >>> int(metrics["global_step"])
    10
    """
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`, given {type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`, given {type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`, given {type(eval_spec)}")
    config = estimator.config
    if config.cluster_spec is not None:
        return run_task(estimator, train_spec, eval_spec)
    logger.info(
        "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
        "Checkpoint frequency is determined based on RunConfig arguments: "
        "save_checkpoints_steps %s or save_checkpoints_secs %s.",
        config.save_checkpoints_steps,
        config.save_checkpoints_secs,
    )
    listener = _EvaluateOnSave(estimator, eval_spec)
    estimator.train(
        train_spec.input_fn,
        hooks=list(train_spec.hooks),
        max_steps=train_spec.max_steps,
        saving_listeners=[*train_spec.saving_listeners, listener],
    )
    if listener.eval_result is None:  # training was skipped: max_steps already reached
        listener.eval_result = estimator.evaluate(
            eval_spec.input_fn, steps=eval_spec.steps, hooks=list(eval_spec.hooks), name=eval_spec.name
        )
    return listener.eval_result, []
