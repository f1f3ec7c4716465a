"""TF1's streaming ``tf.metrics``: a value and an update op over local counters.

Each metric opens a variable scope (``accuracy/``), makes its counters as
local variables (``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``, zero-initialised,
never trainable) and returns ``(value, update_op)``: running ``update_op`` on a
batch adds that batch to the counters and returns the metric so far; ``value``
reads the counters alone. ``tf.local_variables_initializer()`` resets them.

The counters are plain variables named by the name scope, as TF1 makes them,
so a second ``accuracy`` gets ``accuracy_1/total`` and shares nothing.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import get_default_graph
from ..losses.util import (
    broadcast_weights,
    cast,
    check_compatible,
    div_no_nan,
    remove_squeezable_dimensions,
    squared_difference,
)
from ..ops import array_ops, math_ops
from ..variable_scope import variable_scope
from ..variables import GraphKeys, Variable, assign_add


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialised local counter in ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``."""
    return Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
        name=name,
    )


def _collect(collections, value):
    if collections:
        get_default_graph().add_to_collections(collections, value)


def _remove_squeezable_dimensions(predictions, labels, weights):
    """Align ranks as TF1 does: a trailing 1 squeezed, weights squeezed or expanded by one."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        check_compatible(predictions, labels, "predictions", "labels", "metrics")
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank, p_rank = weights.shape.ndims, predictions.shape.ndims
    if w_rank == 0 or w_rank is None or p_rank is None:
        return predictions, labels, weights
    if w_rank - p_rank == 1:
        weights = array_ops.squeeze(weights, [-1])
    elif p_rank - w_rank == 1:
        weights = array_ops.expand_dims(weights, -1)
    return predictions, labels, weights


# -- means ---------------------------------------------------------------------------------


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of all ``values`` seen so far.

    Parameters
    ----------
    values : Tensor
        Any shape.
    weights : Tensor, optional
        Broadcastable to ``values`` (a trailing dimension may differ by one).
    metrics_collections, updates_collections : list of str, optional
        Collections to add the value and the update op to.
    name : str, optional
        The variable scope (default ``"mean"``).

    Returns
    -------
    (Tensor, Tensor)
        ``total / count`` from the counters, and the op that updates them
        with a batch and returns the new mean.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.metrics
    >>> x = tf.placeholder(tf.float32, [None])
    >>> value, update = tf.metrics.mean(x)
    >>> with tf.Session() as sess:
    ...     sess.run(tf.local_variables_initializer())
    ...     _ = sess.run(update, {x: [1.0, 2.0]})
    ...     _ = sess.run(update, {x: [6.0]})
    ...     print(sess.run(value))
    3.0
    """
    with variable_scope(name, "mean", (values, weights)):
        values = cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        # TF1 orders the count's update after ``values`` with a control dependency, for its
        # reference variables; here each update is a value of its own and needs no ordering.
        update_total = assign_add(total, math_ops.reduce_sum(values))
        update_count = assign_add(count, num_values)
        value = div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _collect(metrics_collections, value)
        update_op = div_no_nan(update_total, math_ops.maximum(update_count, 0), name="update_op")
        _collect(updates_collections, update_op)
        return value, update_op


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The elementwise (weighted) mean of ``values`` over the batches; their shape must be static."""
    with variable_scope(name, "mean", (values, weights)):
        values = cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total = assign_add(total, values)
        update_count = assign_add(count, num_values)
        value = div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _collect(metrics_collections, value)
        update_op = div_no_nan(update_total, math_ops.maximum(update_count, 0), name="update_op")
        _collect(updates_collections, update_op)
        return value, update_op


def accuracy(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """How often ``predictions`` equals ``labels`` (weighted), over all batches so far.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.metrics
    >>> with tf.Graph().as_default():
    ...     acc, update = tf.metrics.accuracy([1, 2, 3], [1, 2, 0])
    >>> acc.name, update.name
    ('accuracy/value:0', 'accuracy/update_op:0')
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype is not predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _float_errors(labels, predictions, weights):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype is not predictions.dtype:
        raise TypeError(
            f"labels {labels.name} ({labels.dtype.name}) and predictions {predictions.name} "
            f"({predictions.dtype.name}) must have the same dtype"
        )
    return labels, predictions, weights


def mean_absolute_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The mean of ``|predictions - labels|`` over all batches so far."""
    labels, predictions, weights = _float_errors(labels, predictions, weights)
    errors = math_ops.abs(predictions - labels)
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The mean of ``(labels - predictions) ** 2`` over all batches so far."""
    labels, predictions, weights = _float_errors(labels, predictions, weights)
    errors = squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def root_mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The square root of :func:`mean_squared_error`."""
    labels, predictions, weights = _float_errors(labels, predictions, weights)
    mse, update_mse = mean_squared_error(
        labels, predictions, weights, None, None, name or "root_mean_squared_error"
    )
    rmse = math_ops.sqrt(mse)
    _collect(metrics_collections, rmse)
    update_op = math_ops.sqrt(update_mse)
    _collect(updates_collections, update_op)
    return rmse, update_op


def mean_relative_error(
    labels,
    predictions,
    normalizer,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean of ``|labels - predictions| / normalizer`` (0 where the normalizer is 0)."""
    labels, predictions, weights = _float_errors(labels, predictions, weights)
    normalizer, predictions = remove_squeezable_dimensions(normalizer, predictions)
    check_compatible(predictions, normalizer, "predictions", "normalizer", "mean_relative_error")
    relative = math_ops.where(
        math_ops.equal(normalizer, 0.0),
        array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer),
    )
    return mean(relative, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def mean_cosine_distance(
    labels, predictions, dim, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """``1 - mean(sum(labels * predictions, dim))`` of unit-normalised inputs."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial = math_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=[dim], keepdims=True)
    distance, update = mean(radial, weights, None, None, name or "mean_cosine_distance")
    distance = math_ops.subtract(1.0, distance)
    update_op = math_ops.subtract(1.0, update)
    _collect(metrics_collections, distance)
    _collect(updates_collections, update_op)
    return distance, update_op


def percentage_below(
    values, threshold, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The fraction of ``values`` below ``threshold``."""
    below = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(
        below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold"
    )


# -- counts of a condition -----------------------------------------------------------------


def _count_condition(values, weights, metrics_collections, updates_collections):
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        weights = convert_to_tensor(weights)
        if weights.shape.ndims not in (None, 0, values.shape.ndims):
            raise ValueError(
                f"weights {weights.name} of shape {weights.shape} must be a scalar or have the rank of "
                f"the values, shape {values.shape}"
            )
        values = math_ops.multiply(values, math_ops.cast(weights, dtypes.float32))
    value = array_ops.identity(count)
    _collect(metrics_collections, value)
    update_op = assign_add(count, math_ops.reduce_sum(values))
    _collect(updates_collections, update_op)
    return value, update_op


def _bool_pair(labels, predictions, weights):
    return _remove_squeezable_dimensions(
        math_ops.cast(predictions, dtypes.bool), math_ops.cast(labels, dtypes.bool), weights
    )


def _condition_metric(scope, label_is, prediction_is):
    def metric(
        labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
    ):
        with variable_scope(name, scope, (predictions, labels, weights)):
            predictions, labels, weights = _bool_pair(labels, predictions, weights)
            hit = math_ops.logical_and(
                math_ops.equal(labels, label_is), math_ops.equal(predictions, prediction_is)
            )
            return _count_condition(hit, weights, metrics_collections, updates_collections)

    metric.__name__ = scope
    metric.__doc__ = (
        f"The (weighted) number of {scope.replace('_', ' ')}: label {label_is}, prediction {prediction_is}; "
        "both are cast to bool."
    )
    return metric


true_positives = _condition_metric("true_positives", True, True)
false_positives = _condition_metric("false_positives", False, True)
true_negatives = _condition_metric("true_negatives", False, False)
false_negatives = _condition_metric("false_negatives", True, False)


def _ratio_metric(scope, other):
    """``tp / (tp + other)``, 0 while both counts are 0 (precision and recall)."""

    def metric(
        labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
    ):
        with variable_scope(name, scope, (predictions, labels, weights)):
            predictions, labels, weights = _bool_pair(labels, predictions, weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            rest, rest_update = other(labels, predictions, weights)

            def ratio(t, r, name):
                # Dividing by 1, not 0, where nothing was counted keeps numpy from warning of 0 / 0.
                counted = math_ops.greater(t + r, 0)
                safe = math_ops.where(counted, t + r, array_ops.ones_like(t))
                return math_ops.where(counted, math_ops.divide(t, safe), 0, name=name)

            value = ratio(tp, rest, "value")
            _collect(metrics_collections, value)
            update_op = ratio(tp_update, rest_update, "update_op")
            _collect(updates_collections, update_op)
            return value, update_op

    metric.__name__ = scope
    return metric


precision = _ratio_metric("precision", false_positives)
precision.__doc__ = """``tp / (tp + fp)`` over all batches so far; labels and predictions are cast to bool.

Examples
--------
>>> import daskflow as tf
>>> import daskflow.metrics
>>> with tf.Graph().as_default():
...     p, update = tf.metrics.precision([1, 0, 1], [1, 1, 1])
>>> p.name
'precision/value:0'
"""
recall = _ratio_metric("recall", false_negatives)
recall.__doc__ = "``tp / (tp + fn)`` over all batches so far; labels and predictions are cast to bool."


# -- counts at thresholds and the area under a curve ----------------------------------------

_INCLUDES = ("tp", "fn", "tn", "fp")
_COUNTER = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives", "fp": "false_positives"}


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=_INCLUDES):
    """Per threshold t, the (weighted) counts of each kind for ``prediction > t``.

    TF1 tiles everything to ``[thresholds, examples]``; broadcasting a column of
    thresholds against a row of examples gives the same counts.
    """
    for include in includes:
        if include not in _INCLUDES:
            raise ValueError(f"Invalid key: {include}")
    predictions, labels, weights = _remove_squeezable_dimensions(
        math_ops.cast(predictions, dtypes.float32), math_ops.cast(labels, dtypes.bool), weights
    )
    column = constant(np.asarray(thresholds, np.float32)[:, None])
    pred_is_pos = math_ops.greater(array_ops.reshape(predictions, [1, -1]), column)
    label_is_pos = array_ops.reshape(labels, [1, -1])
    label_is = {True: label_is_pos, False: math_ops.logical_not(label_is_pos)}
    pred_is = {True: pred_is_pos, False: math_ops.logical_not(pred_is_pos)}
    if weights is not None:
        weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights = array_ops.reshape(weights, [1, -1])
    values, update_ops = {}, {}
    for kind in includes:
        counter = metric_variable([len(thresholds)], dtypes.float32, name=_COUNTER[kind])
        hit = math_ops.logical_and(label_is[kind in ("tp", "fn")], pred_is[kind in ("tp", "fp")])
        hit = math_ops.cast(hit, dtypes.float32)
        if weights is not None:
            hit = hit * weights
        update_ops[kind] = assign_add(counter, math_ops.reduce_sum(hit, 1))
        values[kind] = counter
    return values, update_ops


def _curve_thresholds(num_thresholds, thresholds):
    kepsilon = 1e-7  # so that predictions of exactly 0 and 1 fall inside the outer thresholds
    if thresholds is not None:
        inner = sorted(thresholds)
    else:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + inner + [1.0 + kepsilon]


def _interpolate_pr_auc(tp, fp, fn, n):
    """The PR curve's area with precision interpolated between thresholds (Davis & Goadrich)."""
    dtp = tp[: n - 1] - tp[1:]
    p = tp + fp
    prec_slope = div_no_nan(dtp, math_ops.maximum(p[: n - 1] - p[1:], 0), name="prec_slope")
    intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
    safe_p_ratio = math_ops.where(
        math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
        div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"),
        array_ops.ones_like(p[1:]),
    )
    increments = div_no_nan(
        prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
        math_ops.maximum(tp[1:] + fn[1:], 0),
        name="pr_auc_increment",
    )
    return math_ops.reduce_sum(increments, name="interpolate_pr_auc")


_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def _area(counts, curve, summation_method, n, name):
    tp, fn, tn, fp = (counts[k] for k in _INCLUDES)
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, n)
    epsilon = 1.0e-6
    rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
    if curve == "ROC":
        x, y = math_ops.divide(fp, fp + tn + epsilon), rec
    else:
        x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
    width = x[: n - 1] - x[1:]
    if summation_method == "minoring":
        height = math_ops.minimum(y[: n - 1], y[1:])
    elif summation_method == "majoring":
        height = math_ops.maximum(y[: n - 1], y[1:])
    else:
        height = (y[: n - 1] + y[1:]) / 2.0
    return math_ops.reduce_sum(math_ops.multiply(width, height), name=name)


def auc(
    labels,
    predictions,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    curve="ROC",
    name=None,
    summation_method="trapezoidal",
    thresholds=None,
):
    """The area under the ROC or PR curve, from confusion matrices at ``num_thresholds`` thresholds.

    Parameters
    ----------
    labels : Tensor
        Cast to bool.
    predictions : Tensor
        Scores in [0, 1].
    num_thresholds : int
        Thresholds evenly spaced over [0, 1] (with the ends just outside it).
    curve : {"ROC", "PR"}
    summation_method : {"trapezoidal", "careful_interpolation", "minoring", "majoring"}
    thresholds : list of float, optional
        Inner thresholds to use instead of ``num_thresholds`` evenly spaced ones.

    Raises
    ------
    ValueError
        An unknown ``curve`` or ``summation_method``.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.metrics
    >>> value, update = tf.metrics.auc([0, 1, 1], [0.2, 0.7, 0.4])
    >>> with tf.Session() as sess:
    ...     sess.run(tf.local_variables_initializer())
    ...     print(round(float(sess.run(update)), 4))
    1.0
    """
    if curve not in ("ROC", "PR"):
        raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
    if summation_method not in _SUMMATIONS:
        raise ValueError(
            f"Invalid summation_method: {summation_method} summation_method should be 'trapezoidal', "
            "'careful_interpolation', 'minoring', or 'majoring'."
        )
    with variable_scope(name, "auc", (labels, predictions, weights)):
        edges = _curve_thresholds(num_thresholds, thresholds)
        n = len(edges)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, edges, weights)
        value = _area(values, curve, summation_method, n, "value")
        _collect(metrics_collections, value)
        update_op = _area(update_ops, curve, summation_method, n, "update_op")
        _collect(updates_collections, update_op)
        return value, update_op


def _at_thresholds(kind):
    scope = _COUNTER[kind]

    def metric(
        labels,
        predictions,
        thresholds,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with variable_scope(name, scope, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(kind,)
            )
            value = array_ops.identity(values[kind])
            _collect(metrics_collections, value)
            _collect(updates_collections, update_ops[kind])
            return value, update_ops[kind]

    metric.__name__ = f"{scope}_at_thresholds"
    metric.__doc__ = (
        f"The (weighted) number of {scope.replace('_', ' ')} for ``predictions > t``, per threshold t."
    )
    return metric


true_positives_at_thresholds = _at_thresholds("tp")
false_positives_at_thresholds = _at_thresholds("fp")
true_negatives_at_thresholds = _at_thresholds("tn")
false_negatives_at_thresholds = _at_thresholds("fn")


def _ratio_at_thresholds(scope, other, prefix):
    def metric(
        labels,
        predictions,
        thresholds,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with variable_scope(name, scope, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights, includes=("tp", other)
            )
            epsilon = 1e-7

            def ratio(counts, name):
                tp = counts["tp"]
                return math_ops.divide(tp, epsilon + tp + counts[other], name=f"{prefix}_{name}")

            value = ratio(values, "value")
            _collect(metrics_collections, value)
            update_op = ratio(update_ops, "update_op")
            _collect(updates_collections, update_op)
            return value, update_op

    metric.__name__ = scope
    metric.__doc__ = f"The {prefix} for ``predictions > t``, per threshold t."
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp", "precision")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn", "recall")


# -- per class -----------------------------------------------------------------------------


def _flat(t):
    t = convert_to_tensor(t)
    return array_ops.reshape(t, [-1]) if (t.shape.ndims or 0) > 1 else t


def _per_class_sums(labels, values, num_classes):
    """``sums[c]`` = the sum of ``values`` where ``labels == c`` (TF1's scatter_add, composed)."""
    onehot = array_ops.one_hot(labels, num_classes, dtype=values.dtype)
    return math_ops.reduce_sum(onehot * array_ops.expand_dims(values, -1), 0)


def mean_per_class_accuracy(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean over classes of each class's accuracy.

    The update op returns the per-class accuracies (a vector), the value their
    mean, as in TF1.
    """
    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = _flat(math_ops.cast(labels, dtypes.int64))
        predictions = _flat(predictions)
        check_compatible(predictions, labels, "predictions", "labels", "mean_per_class_accuracy")
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones_like(labels, dtype=dtypes.float32)
        if labels.dtype is not predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = math_ops.cast(_flat(weights), dtypes.float32)
            is_correct = is_correct * weights
            ones = ones * weights
        update_total = assign_add(total, _per_class_sums(labels, ones, num_classes))
        update_count = assign_add(count, _per_class_sums(labels, is_correct, num_classes))
        per_class = div_no_nan(count, math_ops.maximum(total, 0))
        value = math_ops.reduce_mean(per_class, name="mean_accuracy")
        _collect(metrics_collections, value)
        update_op = div_no_nan(update_count, math_ops.maximum(update_total, 0), name="update_op")
        _collect(updates_collections, update_op)
        return value, update_op


def _confusion_matrix(labels, predictions, num_classes, weights):
    """``cm[i, j]``: the (weighted) count of label i predicted as j, in float64."""
    rows = array_ops.one_hot(labels, num_classes, dtype=dtypes.float64)
    if weights is not None:
        rows = rows * array_ops.expand_dims(math_ops.cast(weights, dtypes.float64), -1)
    columns = array_ops.one_hot(predictions, num_classes, dtype=dtypes.float64)
    return math_ops.matmul(rows, columns, transpose_a=True)


def _mean_iou_value(total_cm, num_classes):
    sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
    sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
    diag = math_ops.reduce_sum(total_cm * constant(np.eye(num_classes)), 1)
    cm_diag = math_ops.cast(diag, dtypes.float32)
    denominator = sum_over_row + sum_over_col - cm_diag
    num_valid = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0), dtypes.float32))
    denominator = math_ops.where(
        math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator)
    )
    iou = math_ops.divide(cm_diag, denominator)
    # With no valid class every iou is 0; dividing by 1 instead of 0 gives TF1's 0 without 0 / 0.
    mean_iou_v = math_ops.reduce_sum(iou, name="mean_iou") / math_ops.maximum(num_valid, 1.0)
    return math_ops.where(math_ops.greater(num_valid, 0), mean_iou_v, 0)


def mean_iou(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean over classes of intersection over union, from a running confusion matrix.

    ``num_classes`` is a Python int. The update op returns the confusion
    matrix (float64), as in TF1.
    """
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        check_compatible(predictions, labels, "predictions", "labels", "mean_iou")
        total_cm = metric_variable([num_classes, num_classes], dtypes.float64, name="total_confusion_matrix")
        predictions = _flat(math_ops.cast(predictions, dtypes.int64))
        labels = _flat(math_ops.cast(labels, dtypes.int64))
        if weights is not None:
            weights = _flat(weights)
        update_op = assign_add(total_cm, _confusion_matrix(labels, predictions, num_classes, weights))
        value = _mean_iou_value(total_cm, num_classes)
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op
