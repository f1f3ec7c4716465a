"""TF1's ``tf.metrics``: streaming metrics, each a ``(value, update_op)`` pair over local counters.

Examples
--------
>>> import daskflow as tf
>>> import daskflow.metrics
>>> labels = tf.placeholder(tf.int64, [None])
>>> predictions = tf.placeholder(tf.int64, [None])
>>> acc, update = tf.metrics.accuracy(labels, predictions)
>>> with tf.Session() as sess:
...     sess.run(tf.local_variables_initializer())
...     _ = sess.run(update, {labels: [1, 2], predictions: [1, 0]})
...     _ = sess.run(update, {labels: [3, 4], predictions: [3, 4]})
...     print(sess.run(acc))
0.75
"""

from .._namespaces import module_getattr as _module_getattr
from .metrics_impl import (
    accuracy,
    auc,
    false_negatives,
    false_negatives_at_thresholds,
    false_positives,
    false_positives_at_thresholds,
    mean,
    mean_absolute_error,
    mean_cosine_distance,
    mean_iou,
    mean_per_class_accuracy,
    mean_relative_error,
    mean_squared_error,
    mean_tensor,
    percentage_below,
    precision,
    precision_at_thresholds,
    recall,
    recall_at_thresholds,
    root_mean_squared_error,
    true_negatives,
    true_negatives_at_thresholds,
    true_positives,
    true_positives_at_thresholds,
)

__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_cosine_distance",
    "mean_iou",
    "mean_per_class_accuracy",
    "mean_relative_error",
    "mean_squared_error",
    "mean_tensor",
    "percentage_below",
    "precision",
    "precision_at_thresholds",
    "recall",
    "recall_at_thresholds",
    "root_mean_squared_error",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
]

__getattr__ = _module_getattr("tf.metrics")  # TF1's other paths for a name, else a clear error
