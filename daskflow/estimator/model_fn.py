"""``ModeKeys`` and ``EstimatorSpec``: what a ``model_fn`` returns to an Estimator.

``EstimatorSpec`` checks its fields the way TF1's does, in TF1's order
(``train_op``, then ``loss``, then ``predictions``...), so the first problem
reported is the one TF1 reports: ``Missing train_op.``, ``Missing loss.``,
``Missing predictions.`` (ValueError), or a TypeError naming the field whose
value is not a tensor, an op, a hook or a scaffold.
"""

from __future__ import annotations

import collections

from ..framework.constant import convert_to_tensor
from ..framework.graph import Operation, Tensor, get_default_graph
from ..ops import array_ops
from ..train.hooks import SessionRunHook
from ..train.monitored_session import Scaffold
from ..variables import Variable

__all__ = ["EstimatorSpec", "ModeKeys"]

LOSS_METRIC_KEY = "loss"


class ModeKeys:
    """The three things a ``model_fn`` is called for.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL, tf.estimator.ModeKeys.PREDICT
    ('train', 'eval', 'infer')
    """

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_FIELDS = [
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metric_ops",
    "export_outputs",
    "training_chief_hooks",
    "training_hooks",
    "scaffold",
    "evaluation_hooks",
    "prediction_hooks",
]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """The ops a ``model_fn`` builds for one mode.

    Parameters
    ----------
    mode : str
        A :class:`ModeKeys` value.
    predictions : Tensor or dict of Tensor, optional
        Required for ``PREDICT``.
    loss : Tensor, optional
        A scalar (or one element, reshaped to a scalar); required for
        ``TRAIN`` and ``EVAL``.
    train_op : Operation or Tensor, optional
        Required for ``TRAIN``.
    eval_metric_ops : dict, optional
        ``{name: (value, update_op)}``, as ``tf.metrics.*`` return them.
    export_outputs : dict, optional
        Kept as given; daskflow has no SavedModel export.
    training_chief_hooks, training_hooks, evaluation_hooks, prediction_hooks : list of SessionRunHook
    scaffold : Scaffold, optional
        Default: a new ``tf.train.Scaffold()``.

    Raises
    ------
    ValueError
        A field the mode needs is missing, or the loss has more than one element.
    TypeError
        A field has the wrong type.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.constant([[1.0, 2.0]])
    >>> spec = tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT, predictions={"y": 2 * x})
    >>> sorted(spec.predictions)
    ['y']
    """

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_chief_hooks=None,
        training_hooks=None,
        scaffold=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"mode={mode!r} is not one of ModeKeys.TRAIN, EVAL, PREDICT")
        # TF1's order: with both missing, train_op is the one reported.
        train_op = _checked_train_op(train_op, mode)
        loss = _checked_loss(loss, mode)
        predictions = _checked_predictions(predictions, mode)
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=_checked_metric_ops(eval_metric_ops),
            export_outputs=export_outputs,
            training_chief_hooks=_checked_hooks(training_chief_hooks),
            training_hooks=_checked_hooks(training_hooks),
            scaffold=_checked_scaffold(scaffold),
            evaluation_hooks=_checked_hooks(evaluation_hooks),
            prediction_hooks=_checked_hooks(prediction_hooks),
        )

    def _replace(self, **kwargs):
        if "mode" in kwargs and kwargs["mode"] != self.mode:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**{**self._asdict(), **kwargs})


def _check_graph(value, field):
    if value.graph is not get_default_graph():
        raise ValueError(
            f'{field} with "{value.name}" must be from the default graph: it was made outside '
            "model_fn, or in an earlier call of model_fn"
        )
    return value


def _tensor(value, field):
    if isinstance(value, Variable):
        value = convert_to_tensor(value)
    if not isinstance(value, Tensor):
        raise TypeError(f"{field} must be Tensor, given: {value!r}")
    return _check_graph(value, field)


def _checked_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, Variable):
        train_op = train_op.op
    if not isinstance(train_op, (Operation, Tensor)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op!r}")
    return _check_graph(train_op, "train_op")


def _checked_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _tensor(loss, "loss")
    elements = loss.shape.num_elements()
    if elements not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss.name} of shape {loss.shape}")
    if loss.shape.ndims != 0:
        loss = array_ops.reshape(loss, [])
    return loss


def _checked_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        return {key: _tensor(value, f"predictions[{key}]") for key, value in predictions.items()}
    return _tensor(predictions, "predictions")


def _checked_metric_ops(eval_metric_ops):
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops!r}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(
                f"Values of eval_metric_ops must be (metric_value, update_op) tuples, given: {value!r} "
                f"for key: {key}"
            )
        for part in value:
            if isinstance(part, (Tensor, Operation)):
                _check_graph(part, f"eval_metric_ops[{key}]")
    return dict(eval_metric_ops)


def _checked_hooks(hooks):
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r}")
    return hooks


def _checked_scaffold(scaffold):
    scaffold = scaffold or Scaffold()
    if not isinstance(scaffold, Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold!r}")
    return scaffold
