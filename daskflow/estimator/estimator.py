"""``tf.estimator.Estimator``: train, evaluate and predict with one ``model_fn``.

Each call builds a fresh graph: the global step, the ``input_fn``'s tensors,
then the ``model_fn``'s :class:`EstimatorSpec` for the mode. It then runs that
graph in a ``tf.train.MonitoredSession`` on a chief session (embedded, or on
``RunConfig.master``), with hooks doing the rest, as TF1 does:

- train: restore the latest checkpoint in ``model_dir`` (or warm-start),
  stop at ``steps``/``max_steps`` (:class:`~daskflow.train.StopAtStepHook`),
  log ``loss`` and ``step`` and global steps/sec every
  ``log_step_count_steps``, write summaries every ``save_summary_steps``,
  save checkpoints on the ``RunConfig`` cadence and at the end;
- evaluate: restore a checkpoint, run the metrics' update ops until the input
  ends (or ``steps`` batches), then read the metric values, the mean batch
  ``loss`` and ``global_step``, and write them to ``model_dir/eval[_name]``;
- predict: restore a checkpoint and yield the predictions, one example (or
  one batch) at a time, until the input ends.

An input that runs out (``OutOfRangeError``) ends any of the three quietly.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import tempfile
import time

import numpy as np

from ..data.dataset import Dataset
from ..framework import protos
from ..framework.graph import Graph, device, get_default_graph
from ..losses.util import add_loss
from ..metrics.metrics_impl import mean as mean_metric
from ..ops.control_flow_ops import group
from ..ops.random_ops import set_random_seed
from ..summary.summary_ops import scalar as scalar_summary
from ..summary.writer import FileWriterCache
from ..train.device_setter import replica_device_setter
from ..train.hooks import (
    CheckpointSaverHook,
    FinalOpsHook,
    LoggingTensorHook,
    NanTensorHook,
    SessionRunHook,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from ..train.monitored_session import ChiefSessionCreator, MonitoredSession, WorkerSessionCreator
from ..train.optimizer import get_or_create_global_step
from ..train.saver import Saver, latest_checkpoint
from ..variables import GraphKeys, local_variables_initializer, trainable_variables
from . import _checkpoint, export
from ._hooks import CheckpointSaverListener, ListeningSaverHook, StopAfterNEvalsHook
from .model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from .run_config import RunConfig

__all__ = ["Estimator"]

logger = logging.getLogger("daskflow")

_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


class Estimator:
    """Trains, evaluates and predicts with a ``model_fn``, keeping checkpoints in ``model_dir``.

    Parameters
    ----------
    model_fn : callable
        ``model_fn(features, labels, mode, params, config)`` returning an
        :class:`EstimatorSpec`; it must take ``features``, and may take any of
        the others (each is passed only if taken).
    model_dir : str or os.PathLike, optional
        Checkpoints and summaries; default ``config.model_dir``, else a new
        temporary folder.
    config : RunConfig, optional
    params : dict, optional
        Passed to ``model_fn`` (and to ``input_fn``\\s taking ``params``).
    warm_start_from : str, optional
        A checkpoint (or folder of checkpoints) whose values start the
        trainable variables when ``model_dir`` has no checkpoint yet.

    Raises
    ------
    ValueError
        ``model_fn`` lacks ``features``, takes an argument an Estimator does
        not pass, or does not take ``params`` while ``params`` is given; or
        ``model_dir`` and ``config.model_dir`` differ.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> def model_fn(features, labels, mode):
    ...     w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    ...     prediction = w * features["x"]
    ...     loss = tf.reduce_mean(tf.square(prediction - labels))
    ...     step = tf.train.get_global_step()
    ...     train_op = tf.train.GradientDescentOptimizer(0.02).minimize(loss, global_step=step)
    ...     return tf.estimator.EstimatorSpec(mode, {"y": prediction}, loss, train_op)
    >>> x = np.arange(8, dtype=np.float32)
    >>> input_fn = tf.estimator.inputs.numpy_input_fn(
    ...     {"x": x}, 2 * x, batch_size=8, num_epochs=None, shuffle=False
    ... )
    >>> estimator = tf.estimator.Estimator(model_fn)
    >>> estimator = estimator.train(input_fn, steps=20)
    >>> round(float(estimator.get_variable_value("w")), 3)
    2.0
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        self._config = _config_with_model_dir(config, model_dir)
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = dict(params or {})
        if warm_start_from is not None and not isinstance(warm_start_from, (str, os.PathLike)):
            raise NotImplementedError(
                "Estimator(warm_start_from=...): only a checkpoint path is supported, not "
                f"{type(warm_start_from).__name__}"
            )
        self._warm_start_from = None if warm_start_from is None else os.fspath(warm_start_from)

    # -- properties ----------------------------------------------------------------------
    @property
    def model_dir(self):
        return self._config.model_dir

    @property
    def config(self):
        return self._config

    @property
    def params(self):
        return dict(self._params)

    @property
    def model_fn(self):
        """The ``model_fn``, called with ``features, labels, mode, config``."""

        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    # -- checkpoints ---------------------------------------------------------------------
    def latest_checkpoint(self):
        """The newest checkpoint in ``model_dir``, or None."""
        return latest_checkpoint(self.model_dir)

    def get_variable_names(self):
        """Names of every variable in the latest checkpoint.

        Raises
        ------
        ValueError
            If ``model_dir`` has no checkpoint yet.
        """
        return [name for name, _ in _checkpoint.list_variables(self._checkpoint_or_raise())]

    def get_variable_value(self, name):
        """The value of variable ``name`` in the latest checkpoint, as numpy.

        Raises
        ------
        ValueError
            If ``model_dir`` has no checkpoint yet.
        NotFoundError
            If the checkpoint has no variable ``name``.
        """
        name = name[:-2] if name.endswith(":0") else name
        return _checkpoint.load_variables(self._checkpoint_or_raise(), [name])[name]

    def eval_dir(self, name=None):
        """The folder evaluation summaries go to: ``model_dir/eval`` or ``model_dir/eval_<name>``."""
        return os.path.join(self.model_dir, "eval" if not name else "eval_" + name)

    def _checkpoint_or_raise(self):
        path = self.latest_checkpoint()
        if path is None:
            raise ValueError(f"Could not find trained model in model_dir: {self.model_dir}.")
        return path

    # -- train ---------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Train on ``input_fn``'s batches; returns ``self``.

        Parameters
        ----------
        input_fn : callable
            Returns a ``Dataset`` of ``(features, labels)``, or a
            ``(features, labels)`` pair of tensors (or dicts of tensors).
        hooks : list of SessionRunHook, optional
        steps : int, optional
            Train this many more steps (counted from the checkpoint's global step).
        max_steps : int, optional
            Train until the global step reaches this; nothing happens when the
            latest checkpoint is already there. Give at most one of the two;
            with neither, train until the input ends.
        saving_listeners : list of CheckpointSaverListener, optional

        Raises
        ------
        ValueError
            Both ``steps`` and ``max_steps``, or one of them not positive.
        """
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None and max_steps <= _checkpoint.global_step_in(self.model_dir):
            logger.info("Skipping training since max_steps has already saved.")
            return self
        hooks = _checked_hooks(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(steps, max_steps))
        listeners = _checked_listeners(saving_listeners)
        loss = self._train_model(input_fn, hooks, listeners)
        logger.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, listeners):
        with Graph().as_default() as graph, device(self._training_device_fn()):
            set_random_seed(self._config.tf_random_seed)
            global_step = get_or_create_global_step(graph)
            features, labels = self._features_and_labels(input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self._config)
            return self._train_with_spec(spec, hooks, listeners, global_step)

    def _train_with_spec(self, spec, hooks, listeners, global_step):
        scaffold = spec.scaffold
        if not any(s.op.name == "loss" for s in get_default_graph().get_collection(GraphKeys.SUMMARIES)):
            scalar_summary("loss", spec.loss)
        add_loss(spec.loss)
        if scaffold.saver is None:
            scaffold.saver = Saver(max_to_keep=self._config.keep_checkpoint_max)
        if self._warm_start_from is not None and self.latest_checkpoint() is None:
            scaffold.init_fn = _warm_starter(self._warm_start_from, scaffold.init_fn)
        worker_hooks = [*hooks, NanTensorHook(spec.loss)]
        every = self._config.log_step_count_steps
        if every:
            worker_hooks.append(
                LoggingTensorHook({"loss": spec.loss, "step": global_step}, every_n_iter=every)
            )
        worker_hooks.extend(spec.training_hooks)
        chief_hooks = [*self._saver_hooks(hooks, spec, listeners), *spec.training_chief_hooks]
        config = self._config
        if self._config.save_summary_steps:
            chief_hooks.append(
                SummarySaverHook(
                    save_steps=self._config.save_summary_steps, output_dir=self.model_dir, scaffold=scaffold
                )
            )
        if every:
            chief_hooks.append(StepCounterHook(every_n_steps=every))
        if config.is_chief:
            creator = ChiefSessionCreator(
                scaffold, config.master, config.session_config, checkpoint_dir=self.model_dir
            )
        else:  # a worker of a between-graph job: the chief initializes, saves and summarizes
            creator = WorkerSessionCreator(scaffold, config.master, config.session_config)
            chief_hooks = []
        loss, steps_run = None, 0
        with MonitoredSession(creator, [*chief_hooks, *worker_hooks]) as sess:
            while not sess.should_stop():
                _, loss = sess.run([spec.train_op, spec.loss])
                steps_run += 1
        if steps_run == 0:
            logger.warning("Training with estimator made no steps. Perhaps input is empty or misspecified.")
        return loss

    def _saver_hooks(self, hooks, spec, listeners):
        """The checkpoint-saving hook the chief adds (none when the caller brought one)."""
        given = [h for h in [*hooks, *spec.training_chief_hooks] if isinstance(h, CheckpointSaverHook)]
        secs, steps = self._config.save_checkpoints_secs, self._config.save_checkpoints_steps
        if given or not (secs or steps):
            if listeners and not isinstance(next(iter(given), None), ListeningSaverHook):
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. Please set one of the "
                    "RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs."
                )
            return []
        return [ListeningSaverHook(self.model_dir, secs, steps, scaffold=spec.scaffold, listeners=listeners)]

    # -- evaluate ------------------------------------------------------------------------
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluate the metrics of the latest (or a given) checkpoint on ``input_fn``'s batches.

        Runs until the input ends, or for ``steps`` batches.

        Returns
        -------
        dict
            Each metric of ``eval_metric_ops``, ``loss`` (the mean of the
            batches' losses) and ``global_step`` (the checkpoint's). They are
            also written as summaries to :meth:`eval_dir` (``name`` picks it).

        Raises
        ------
        ValueError
            ``steps`` not positive, or ``eval_metric_ops`` naming ``loss`` or
            ``global_step``.
        """
        hooks = _checked_hooks(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError(f"Must specify steps > 0, given: {steps}")
            hooks.append(StopAfterNEvalsHook(steps))
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if checkpoint_path is None:
                logger.info(
                    "Could not find trained model in model_dir: %s, running initialization to evaluate.",
                    self.model_dir,
                )
        with Graph().as_default() as graph, device(self._config.device_fn):
            set_random_seed(self._config.tf_random_seed)
            global_step = get_or_create_global_step(graph)
            features, labels = self._features_and_labels(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self._config)
            update_op, final_ops = _metric_ops(spec, global_step)
            hooks.extend(spec.evaluation_hooks)
            results = self._evaluate_once(spec.scaffold, checkpoint_path, update_op, final_ops, hooks)
        _write_dict_to_summary(self.eval_dir(name), results, int(results[GraphKeys.GLOBAL_STEP]))
        return results

    def _evaluate_once(self, scaffold, checkpoint_path, update_op, final_ops, hooks):
        final = FinalOpsHook(final_ops)
        logger.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
        start = time.time()
        with self._monitored(scaffold, checkpoint_path, [*hooks, final], evaluation=True) as sess:
            while not sess.should_stop():
                sess.run(update_op)
        logger.info("Inference Time : %.5fs", time.time() - start)
        logger.info("Finished evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
        return final.final_ops_values

    # -- predict -------------------------------------------------------------------------
    def predict(
        self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True
    ):
        """Yield the predictions of the latest (or a given) checkpoint on ``input_fn``'s features.

        Parameters
        ----------
        input_fn : callable
            Returns features, ``(features, labels)`` (labels are ignored), or
            a ``Dataset`` of either.
        predict_keys : list of str, optional
            Keep only these keys of a dict of predictions.
        hooks : list of SessionRunHook, optional
        checkpoint_path : str, optional
        yield_single_examples : bool
            Yield one example at a time (default), or whole batches.

        Yields
        ------
        dict or numpy.ndarray
            Shaped like ``EstimatorSpec.predictions``.

        Raises
        ------
        ValueError
            (on the first ``next``) ``model_dir`` has no checkpoint and none
            is given; ``predict_keys`` names no prediction or predictions are
            not a dict; the predictions' batch sizes differ.
        """
        hooks = _checked_hooks(hooks)
        if not checkpoint_path:
            checkpoint_path = self._checkpoint_or_raise()
        graph = Graph()
        with graph.as_default(), device(self._config.device_fn):
            set_random_seed(self._config.tf_random_seed)
            get_or_create_global_step(graph)
            features, _ = self._features_and_labels(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self._config)
            predictions = _extract_keys(spec.predictions, predict_keys)
            # Made inside the graph; run outside it, so the caller's code between
            # two yields does not build into this graph.
            monitored = self._monitored(spec.scaffold, checkpoint_path, [*hooks, *spec.prediction_hooks])
        with monitored as sess:
            while not sess.should_stop():
                values = sess.run(predictions)
                if not yield_single_examples:
                    yield values
                elif not isinstance(values, dict):
                    yield from values
                else:
                    for i in range(_batch_length(values)):
                        yield {key: value[i] for key, value in values.items()}

    def export_saved_model(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        experimental_mode=ModeKeys.PREDICT,
    ):
        """Write the model of the latest (or a given) checkpoint as a SavedModel for serving,
        in a new folder of ``export_dir_base`` named by the time; return its path (bytes).

        ``serving_input_receiver_fn`` builds the inputs (a
        :class:`~daskflow.estimator.export.ServingInputReceiver`); the ``model_fn`` 's
        ``export_outputs`` (default: its predictions) become the signatures, tagged
        ``serve``. ``assets_extra`` is not supported (no files are copied).
        """
        # local import: dask (the runtime) and saved_model/ load on first use, not with daskflow
        from ..runtime.session import Session
        from ..saved_model.builder import SavedModelBuilder
        from ..saved_model.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY

        if experimental_mode != ModeKeys.PREDICT:
            raise ValueError(
                f"export_saved_model exports the {ModeKeys.PREDICT!r} mode; got {experimental_mode!r}"
            )
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            raise ValueError(f"Couldn't find trained model at {self.model_dir}.")
        graph = Graph()
        with graph.as_default():
            set_random_seed(self._config.tf_random_seed)
            get_or_create_global_step(graph)
            receiver = serving_input_receiver_fn()
            spec = self._call_model_fn(receiver.features, None, ModeKeys.PREDICT, self._config)
            outputs = spec.export_outputs or {
                DEFAULT_SERVING_SIGNATURE_DEF_KEY: export.PredictOutput(spec.predictions)
            }
            if len(outputs) == 1:
                outputs = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: next(iter(outputs.values())), **outputs}
            elif DEFAULT_SERVING_SIGNATURE_DEF_KEY not in outputs:
                raise ValueError(  # TF1's words
                    "Multiple export_outputs were provided, but none of them is specified as the "
                    "default.  Do this by naming one of them with "
                    "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY."
                )
            signatures = {
                key: out.as_signature_def(receiver.receiver_tensors) for key, out in outputs.items()
            }
            export_dir = _timestamped_dir(os.fspath(export_dir_base))
            temporary = os.path.join(os.path.dirname(export_dir), f"temp-{os.path.basename(export_dir)}")
            with Session(None) as sess:  # in this process (as TF1); written under a temporary name
                Saver().restore(sess, checkpoint_path)
                builder = SavedModelBuilder(temporary)
                builder.add_meta_graph_and_variables(sess, ["serve"], signatures, main_op=_local_init_op())
                builder.save(as_text)
            os.rename(temporary, export_dir)
        return export_dir.encode()

    export_savedmodel = export_saved_model  # TF1's earlier name

    # -- shared pieces -------------------------------------------------------------------
    def _training_device_fn(self):
        """``RunConfig.device_fn``; for a task of a between-graph job with ps tasks, TF1's
        default: variables on the ps, the rest on this task."""
        config = self._config
        if config.device_fn is not None or not config.num_ps_replicas:
            return config.device_fn
        return replica_device_setter(
            ps_tasks=config.num_ps_replicas,
            worker_device=f"/job:{config.task_type}/task:{config.task_id}",
            merge_devices=True,
            cluster=config.cluster_spec,
        )

    def _monitored(self, scaffold, checkpoint_path, hooks, evaluation=False):
        """A monitored chief session restoring ``checkpoint_path`` (when given) over the graph's variables."""
        if scaffold.saver is None:
            scaffold.saver = Saver()
        master = self._config.evaluation_master if evaluation else self._config.master
        creator = ChiefSessionCreator(
            scaffold, master, self._config.session_config, checkpoint_filename_with_path=checkpoint_path
        )
        return MonitoredSession(creator, hooks)

    def _call_input_fn(self, input_fn, mode):
        args = _fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self._config
        return input_fn(**kwargs)

    def _features_and_labels(self, input_fn, mode):
        result = self._call_input_fn(input_fn, mode)
        if isinstance(result, Dataset):
            result = result.make_one_shot_iterator().get_next()
        if isinstance(result, (list, tuple)):
            if len(result) != 2:
                raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
            features, labels = result
            return features, (None if mode == ModeKeys.PREDICT else labels)
        return result, None

    def _call_model_fn(self, features, labels, mode, config):
        args = _fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logger.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        logger.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec, got {type(spec).__name__}.")
        return spec


# -- helpers ---------------------------------------------------------------------------------------


def _timestamped_dir(base):
    """``base/<seconds since the epoch>``, a folder not made yet (TF1's export folders)."""
    stamp = int(time.time())
    while os.path.exists(os.path.join(base, str(stamp))):
        stamp += 1
    return os.path.join(base, str(stamp))


def _local_init_op():
    return local_variables_initializer()


def _config_with_model_dir(config, model_dir):
    if config is None:
        config = RunConfig()
        logger.info("Using default config.")
    if not isinstance(config, RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config!r}.")
    model_dir = None if model_dir is None else os.fspath(model_dir)
    if model_dir is not None and config.model_dir is not None and config.model_dir != model_dir:
        raise ValueError(
            "`model_dir` are set both in constructor and `RunConfig`, but with different values. "
            f"In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' "
        )
    if model_dir:
        return config.replace(model_dir=model_dir)
    if config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logger.warning("Using temporary folder as model directory: %s", model_dir)
        return config.replace(model_dir=model_dir)
    return config


def _fn_args(fn):
    """The argument names ``fn`` can take by name (a partial's bound ones excluded), as TF1's fn_args."""
    bound = set(fn.keywords or {}) if isinstance(fn, functools.partial) else set()
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(p.name for p in parameters if p.kind in kinds and p.name not in bound)


def _verify_model_fn_args(model_fn, params):
    args = set(_fn_args(model_fn))
    name = getattr(model_fn, "__name__", repr(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({name}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({name}) does not include params argument, "
            f"but params ({params}) is passed to Estimator."
        )
    if params is None and "params" in args:
        logger.warning("Estimator's model_fn (%s) includes params argument, but params are not passed.", name)
    unexpected = sorted(args - _MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({name}) has following not expected args: {unexpected}")


def _checked_hooks(hooks):
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook!r}")
    return hooks


def _checked_listeners(listeners):
    listeners = list(listeners or [])
    for listener in listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError(
                f"saving_listeners must be a list of CheckpointSaverListener, given: {listener!r}"
            )
    return listeners


def _warm_starter(source, init_fn):
    """A scaffold ``init_fn`` setting the trainable variables from ``source``, then calling ``init_fn``."""
    variables = trainable_variables()

    def warm_start(scaffold, sess):
        path = _checkpoint.resolve(source)
        if path is None:
            raise ValueError(f"warm_start_from={source!r}: no checkpoint there")
        logger.info("Warm-starting from: %s", path)
        Saver(var_list=variables).restore(sess, path)
        if init_fn is not None:
            init_fn(scaffold, sess)

    return warm_start


def _metric_ops(spec, global_step):
    """``(update_op, final_ops)``: one op updating every metric, and their values with ``global_step``."""
    metrics = dict(spec.eval_metric_ops)
    for reserved in (LOSS_METRIC_KEY, GraphKeys.GLOBAL_STEP):
        if reserved in metrics:
            raise ValueError(
                f'Metric with name "{reserved}" is not allowed, because Estimator already defines a default '
                "metric with the same name."
            )
    metrics[LOSS_METRIC_KEY] = mean_metric(spec.loss)
    names = sorted(metrics)  # sorted, so the graph is the same every time (as TF1)
    update_op = group(*[metrics[name][1] for name in names])
    final_ops = {name: metrics[name][0] for name in names}
    final_ops[GraphKeys.GLOBAL_STEP] = global_step
    return update_op, final_ops


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    kept = {key: value for key, value in predictions.items() if key in predict_keys}
    if not kept:
        raise ValueError(
            f"Expected to run at least one output from {list(predictions)}, provided {predict_keys}."
        )
    return kept


def _batch_length(values):
    length = None
    for key, value in values.items():
        length = length or value.shape[0]
        if value.shape[0] != length:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch length than others."
            )
    return length


def _is_number(value):
    return isinstance(value, (float, int, np.number)) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiub"
    )


def _write_dict_to_summary(output_dir, results, global_step):
    """Log the results and write each number as a scalar summary at ``global_step`` (as TF1)."""
    line = ", ".join(f"{key} = {results[key]}" for key in sorted(results))
    logger.info("Saving dict for global step %d: %s", global_step, line)
    summary = protos.Summary()
    for key, value in results.items():
        if key == GraphKeys.GLOBAL_STEP or value is None:
            continue
        if _is_number(value):
            summary.value.add(tag=key, simple_value=float(value))
        else:
            logger.warning("Skipping summary for %s, must be a float or an int.", key)
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, global_step)
    writer.flush()
