"""TF1's ``tf.losses``: per-example losses, weighted and reduced to one number.

Every loss opens a name scope (``mean_squared_error/``), computes its
per-element losses in float32 and hands them to
:func:`compute_weighted_loss`, which multiplies by the weights, reduces as
``reduction`` says, names the result ``<scope>/value`` (or ``Mul``/``Sum`` for
``NONE``/``SUM``) and adds it to the ``LOSSES`` collection, as TF1 does.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..ops import array_ops, math_ops, nn_ops
from ..variables import GraphKeys
from . import util
from .util import cast, check_compatible, div_no_nan


class Reduction:
    """How :func:`compute_weighted_loss` reduces the weighted losses.

    ``NONE`` keeps their shape; ``SUM`` adds them up; ``MEAN`` divides the sum
    by the sum of the weights; ``SUM_OVER_BATCH_SIZE`` by the number of
    elements; ``SUM_BY_NONZERO_WEIGHTS`` (the default) by the number of
    elements with a nonzero weight.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (
            cls.NONE,
            cls.SUM,
            cls.MEAN,
            cls.SUM_OVER_BATCH_SIZE,
            cls.SUM_OVER_NONZERO_WEIGHTS,
            cls.SUM_BY_NONZERO_WEIGHTS,
        )

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


def _num_present(losses, weights):
    """How many elements of ``losses`` have a nonzero weight."""
    with name_scope("num_present") as scope:
        weights = cast(weights, dtypes.float32)
        is_zero = math_ops.equal(weights, 0.0)
        present = math_ops.where(is_zero, array_ops.zeros_like(weights), array_ops.ones_like(weights))
        present = util.broadcast_weights(present, losses)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with name_scope("num_elements") as scope:
        return cast(array_ops.size(losses, name=scope), losses.dtype)


def _safe_mean(loss, count):
    # TF1 sums the already-summed loss once more here; kept so op names follow TF1's.
    return div_no_nan(math_ops.reduce_sum(loss), count, name="value")


def _reduce(weighted, losses, weights, reduction):
    if reduction == Reduction.NONE:
        return weighted
    loss = math_ops.reduce_sum(weighted)
    if reduction == Reduction.MEAN:
        return _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
    if reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
        return _safe_mean(loss, _num_present(losses, weights))
    if reduction == Reduction.SUM_OVER_BATCH_SIZE:
        return _safe_mean(loss, _num_elements(losses))
    return loss


def compute_weighted_loss(
    losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT
):
    """Weight ``losses``, reduce them as ``reduction`` says and add the result to ``loss_collection``.

    Parameters
    ----------
    losses : Tensor
        Per-element losses.
    weights : float or Tensor
        A scalar, or a tensor of the same rank as ``losses`` whose dimensions
        are 1 or those of ``losses``.
    reduction : str
        A :class:`Reduction` key; by default the mean over the elements with a
        nonzero weight.

    Returns
    -------
    Tensor
        Of the dtype of ``losses``: a scalar, or the shape of ``losses`` with
        ``Reduction.NONE``.

    Raises
    ------
    ValueError
        An unknown ``reduction``, or weights that do not broadcast to ``losses``.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.losses
    >>> with tf.Graph().as_default():
    ...     loss = tf.losses.compute_weighted_loss([1.0, 3.0], weights=[1.0, 0.0])
    >>> loss.name
    'weighted_loss/value:0'
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = convert_to_tensor(losses)
        weights_t = convert_to_tensor(weights)
        util.assert_broadcastable(weights_t, losses)
        input_dtype = losses.dtype
        losses = cast(losses, dtypes.float32)
        weights = cast(weights_t, dtypes.float32)
        weighted = math_ops.multiply(losses, weights)
        loss = cast(_reduce(weighted, losses, weights, reduction), input_dtype)
        util.add_loss(loss, loss_collection)
        return loss


def _required(**args):
    for arg, value in args.items():
        if value is None:
            raise ValueError(f"Argument `{arg}` must not be None.")


def _float_pair(labels, predictions, labels_arg, predictions_arg, where):
    predictions = cast(predictions, dtypes.float32)
    labels = cast(labels, dtypes.float32)
    check_compatible(predictions, labels, predictions_arg, labels_arg, where)
    return labels, predictions


def absolute_difference(
    labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT
):
    """Weighted ``|predictions - labels|``, reduced (TF1's ``tf.losses.absolute_difference``)."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "absolute_difference") as scope:
        labels, predictions = _float_pair(labels, predictions, "labels", "predictions", scope)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_squared_error(
    labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT
):
    """Weighted ``(predictions - labels) ** 2``, reduced.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.losses
    >>> with tf.Graph().as_default():
    ...     loss = tf.losses.mean_squared_error([[1.0], [2.0]], [[1.5], [2.0]])
    ...     print(loss.name, tf.Session().run(loss))
    mean_squared_error/value:0 0.125
    """
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_squared_error") as scope:
        labels, predictions = _float_pair(labels, predictions, "labels", "predictions", scope)
        losses = util.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(
    labels,
    predictions,
    weights=1.0,
    delta=1.0,
    scope=None,
    loss_collection=GraphKeys.LOSSES,
    reduction=_DEFAULT,
):
    """Quadratic within ``delta`` of the label, linear beyond, reduced."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "huber_loss") as scope:
        labels, predictions = _float_pair(labels, predictions, "labels", "predictions", scope)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        # abs_error - quadratic, not relu(abs_error - delta): its gradient at |error| == delta is 0,
        # so the quadratic term's gradient there is not counted twice (TF1's reasoning).
        linear = math_ops.subtract(abs_error, quadratic)
        half_square = math_ops.multiply(0.5, math_ops.multiply(quadratic, quadratic))
        losses = math_ops.add(half_square, math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(
    labels,
    predictions,
    weights=1.0,
    epsilon=1e-7,
    scope=None,
    loss_collection=GraphKeys.LOSSES,
    reduction=_DEFAULT,
):
    """Binary cross-entropy of probabilities ``predictions``; ``epsilon`` keeps the logs finite."""
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "log_loss") as scope:
        labels, predictions = _float_pair(labels, predictions, "labels", "predictions", scope)
        positive = math_ops.multiply(labels, math_ops.log(predictions + epsilon))
        negative = math_ops.multiply(1 - labels, math_ops.log(1 - predictions + epsilon))
        losses = -positive - negative
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT):
    """``max(0, 1 - y * logits)`` with 0/1 ``labels`` mapped to y = -1/+1, reduced."""
    _required(labels=labels, logits=logits)
    with name_scope(scope, "hinge_loss") as scope:
        labels, logits = _float_pair(labels, logits, "labels", "logits", scope)
        all_ones = array_ops.ones_like(labels)
        signs = math_ops.subtract(2 * labels, all_ones)
        losses = math_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(signs, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(
    labels,
    predictions,
    axis=None,
    weights=1.0,
    scope=None,
    loss_collection=GraphKeys.LOSSES,
    reduction=_DEFAULT,
    dim=None,
):
    """``1 - sum(labels * predictions, axis)`` of unit-normalised inputs, reduced."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _required(labels=labels, predictions=predictions)
    with name_scope(scope, "cosine_distance_loss") as scope:
        labels, predictions = _float_pair(labels, predictions, "labels", "predictions", scope)
        radial = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(
    multi_class_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=GraphKeys.LOSSES,
    reduction=_DEFAULT,
):
    """Elementwise logistic loss of ``logits`` against 0/1 labels, reduced.

    ``label_smoothing`` moves the labels towards 1/2: ``z * (1 - s) + s / 2``.
    """
    _required(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope, "sigmoid_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        util.require_float(logits, "logits", scope)
        labels = cast(multi_class_labels, logits.dtype)
        check_compatible(logits, labels, "logits", "multi_class_labels", scope)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(
    onehot_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=GraphKeys.LOSSES,
    reduction=_DEFAULT,
):
    """Cross-entropy of ``softmax(logits)`` against one-hot labels, per row, reduced.

    ``label_smoothing`` mixes the labels with the uniform distribution:
    ``onehot * (1 - s) + s / num_classes``. No gradient flows into the labels.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.losses
    >>> with tf.Graph().as_default():
    ...     loss = tf.losses.softmax_cross_entropy([[0.0, 1.0]], [[0.0, 0.0]], label_smoothing=0.1)
    >>> loss.name
    'softmax_cross_entropy_loss/value:0'
    """
    _required(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope, "softmax_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        util.require_float(logits, "logits", scope)
        labels = cast(onehot_labels, logits.dtype)
        check_compatible(logits, labels, "logits", "onehot_labels", scope)
        if label_smoothing > 0:
            num_classes = cast(array_ops.shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _squeeze_sparse(labels, logits, weights, where):
    """Labels one rank below logits, and weights of the labels' rank (TF1's squeezes)."""
    labels, logits = util.remove_squeezable_dimensions(labels, logits, expected_rank_diff=1)
    if labels.shape.ndims is not None and logits.shape.ndims is not None:
        if labels.shape.ndims != logits.shape.ndims - 1:
            raise ValueError(
                f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels {labels.name} "
                f"of shape {labels.shape} and logits {logits.name} of shape {logits.shape} "
                f"in {where.rstrip('/')}"
            )
    weights = convert_to_tensor(weights)
    if labels.shape.ndims is not None and weights.shape.ndims == labels.shape.ndims + 1:
        weights = array_ops.squeeze(weights, [-1])
    return labels, logits, weights


def sparse_softmax_cross_entropy(
    labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES, reduction=_DEFAULT
):
    """Cross-entropy of ``softmax(logits)`` against integer class ``labels``, reduced.

    ``labels`` has one dimension less than ``logits`` (a trailing dimension of
    1 is squeezed away), and integer dtype.
    """
    _required(labels=labels, logits=logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as scope:
        labels, logits, weights = _squeeze_sparse(labels, logits, weights, scope)
        util.require_float(logits, "logits", scope)
        if labels.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(
                f"{scope.rstrip('/')}: labels {labels.name} must be int32 or int64, got {labels.dtype.name}"
            )
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
