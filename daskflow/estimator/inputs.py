"""``tf.estimator.inputs``: input functions over numpy arrays, built on ``tf.data``.

TF1 fed these through queues and threads; here ``numpy_input_fn`` returns a
function that builds ``Dataset.from_tensor_slices(...)`` with the same
batches in the same order: without shuffling, the rows in order, epochs back
to back (a batch may span two epochs), and with ``num_epochs`` set a smaller
last batch. After the last epoch the iterator raises ``OutOfRangeError``,
which ends ``train``, ``evaluate`` and ``predict`` as in TF1. With
``shuffle=True`` the rows go through a ``queue_capacity``-element shuffle
buffer, seeded by the graph seed (``RunConfig.tf_random_seed``); the order
then differs from TF1's. ``num_threads`` is accepted and unused.

``pandas_input_fn`` is not provided.
"""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset

__all__ = ["numpy_input_fn"]

_TARGET_KEY = "__target_key__"


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An input function yielding batches of ``x`` (and ``y``).

    Parameters
    ----------
    x : numpy.ndarray or dict of numpy.ndarray
        Features: an array is one feature (returned as a tensor), a dict
        gives a dict of tensors with the same keys.
    y : numpy.ndarray or dict of numpy.ndarray, optional
        Labels, row for row with ``x``.
    batch_size : int
    num_epochs : int or None
        Passes over the data; None: forever.
    shuffle : bool
        Must be given (TF1 requires it too): True for training, False for
        evaluation and prediction.
    queue_capacity : int
        The shuffle buffer's size.
    num_threads : int
        Accepted for TF1 compatibility.

    Returns
    -------
    callable
        ``input_fn()`` returning ``features`` or ``(features, labels)``.

    Raises
    ------
    ValueError
        ``shuffle`` is not a bool; ``x`` or ``y`` is empty; their lengths
        differ; a key is in both ``x`` and ``y``.
    TypeError
        ``x`` is neither an array nor a dict.

    Examples
    --------
    >>> import numpy as np
    >>> import daskflow as tf
    >>> input_fn = tf.estimator.inputs.numpy_input_fn(
    ...     {"age": np.arange(4.0)}, np.arange(-4, 0), batch_size=3, shuffle=False)
    >>> features, labels = input_fn()
    >>> with tf.Session() as sess:
    ...     print(sess.run(labels), sess.run(labels))
    [-4 -3 -2] [-1]
    """
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended to set it as True for "
            f"training); got {shuffle}"
        )
    _check_positive("batch_size", batch_size)
    if num_epochs is not None:
        _check_positive("num_epochs", num_epochs)

    def input_fn():
        features = _features(x)
        columns = dict(features)
        labels_key = _add_labels(columns, y)
        lengths = {key: len(value) for key, value in columns.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(
                "Length of tensors in x and y is mismatched. All elements in x and y must have the same "
                f"length. Lengths: {lengths}"
            )
        dataset = Dataset.from_tensor_slices(columns)
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        batches = dataset.repeat(num_epochs).batch(batch_size)
        element = batches.make_one_shot_iterator().get_next()
        batch_features = (
            element[next(iter(features))]
            if isinstance(x, np.ndarray)
            else {key: element[key] for key in features}
        )
        if labels_key is None:
            return batch_features
        if isinstance(labels_key, str):
            return batch_features, element[labels_key]
        return batch_features, {key: element[key] for key in labels_key}

    return input_fn


def _check_positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"numpy_input_fn: {name} must be a positive integer, got {value!r}")


def _features(x):
    """``x`` as a dict in sorted key order (an array becomes one unnamed feature)."""
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return {key: np.asarray(x[key]) for key in sorted(x)}
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return {"__direct_np_input__": x}
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")


def _add_labels(columns, y):
    """Put ``y`` into ``columns``; return its key (a str), its keys (a list), or None."""
    if y is None:
        return None
    if isinstance(y, dict):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        duplicates = set(columns) & set(y)
        if duplicates:
            raise ValueError(f"{len(duplicates)} duplicate keys are found in both x and y: {duplicates}")
        keys = sorted(y)
        columns.update({key: np.asarray(y[key]) for key in keys})
        return keys
    key = _TARGET_KEY
    while key in columns:
        key += "_n"
    columns[key] = np.asarray(y)
    return key
