"""Candidate sampling: TF1's log-uniform sampler and the sampled losses built on it.

``sampled_softmax_loss`` and ``nce_loss`` score each example's true classes
and ``num_sampled`` classes drawn for the whole batch, instead of every
class. Draws come from the op's own random stream (``random_ops._Streams``),
so they follow the graph and op seeds as other random ops do. Everything
after the draw is composed from other ops, TF1's ``_compute_sampled_logits``
step by step, so gradients come for free.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import Primitive
from . import array_ops, embedding_ops, math_ops, nn_ops
from .random_ops import _Streams, get_seed

__all__ = ["log_uniform_candidate_sampler", "nce_loss", "sampled_softmax_loss"]

_FLOAT32_MIN = float(np.finfo(np.float32).min)  # TF1 adds it to accidental hits' logits


def _log_uniform_probability(classes, range_max):
    """Zipfian ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``."""
    classes = np.asarray(classes, dtype=np.float64)
    return np.log1p(1.0 / (classes + 1.0)) / np.log(range_max + 1.0)


def _expected_count(p, num_sampled, num_tries):
    """TF1's ``ExpectedCountHelper``: how often a class shows up among the draws."""
    if num_tries == num_sampled:
        return p * num_sampled
    return -np.expm1(num_tries * np.log1p(-p))


def _sampler_infer(inputs, *, num_true, num_sampled, unique, range_max, seed):
    true_classes = inputs[0]
    dims = true_classes._dims
    if dims is not None and (len(dims) != 2 or dims[1] not in (None, num_true)):
        raise ValueError(
            f"true_classes {true_classes.name} must be [batch_size, num_true={num_true}], "
            f"got shape {true_classes.shape}"
        )
    batch = None if dims is None else dims[0]
    return [
        ((num_sampled,), dtypes.int64),
        ((batch, num_true), dtypes.float32),
        ((num_sampled,), dtypes.float32),
    ]


def _sampler_kernel(xp, streams, true_classes, *, num_true, num_sampled, unique, range_max, seed):
    rng = streams.generator()
    log_range = np.log(range_max + 1.0)

    def draw(n):  # inverse CDF of the log-uniform distribution
        return np.minimum((np.exp(rng.random(n) * log_range) - 1.0).astype(np.int64), range_max - 1)

    if unique:
        picked, seen, tries = [], set(), 0
        while len(picked) < num_sampled:  # TF1 rejects repeats and counts every try
            value = int(draw(1)[0])
            tries += 1
            if value not in seen:
                seen.add(value)
                picked.append(value)
        sampled = np.asarray(picked, dtype=np.int64)
    else:
        sampled, tries = draw(num_sampled), num_sampled
    true_classes = np.asarray(true_classes)
    true_expected = _expected_count(_log_uniform_probability(true_classes, range_max), num_sampled, tries)
    sampled_expected = _expected_count(_log_uniform_probability(sampled, range_max), num_sampled, tries)
    return (
        xp.asarray(sampled),
        xp.asarray(true_expected.astype(np.float32)),
        xp.asarray(sampled_expected.astype(np.float32)),
    )


# Rejection sampling of unique classes is a Python loop: a host op, as in TF1.
LogUniformCandidateSampler = Primitive(
    "LogUniformCandidateSampler",
    _sampler_infer,
    _sampler_kernel,
    stateful=True,
    make_state=_Streams,
    host_only=True,
)


def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Draw ``num_sampled`` classes in ``[0, range_max)`` with ``P(k) ~ log((k + 2) / (k + 1))``.

    Returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``:
    int64 ``[num_sampled]`` and the float32 expected number of times each
    true and sampled class is drawn. With ``unique`` the draws are distinct.

    Examples
    --------
    >>> import daskflow as tf
    >>> labels = tf.constant([[1], [5]], dtype=tf.int64)
    >>> sampled, _, _ = tf.nn.log_uniform_candidate_sampler(labels, 1, 4, True, 10, seed=1)
    >>> sampled.shape.as_list()
    [4]
    """
    num_true, num_sampled, range_max = int(num_true), int(num_sampled), int(range_max)
    if unique and num_sampled > range_max:
        raise ValueError(
            f"log_uniform_candidate_sampler: cannot draw num_sampled={num_sampled} unique classes "
            f"from range_max={range_max}"
        )
    if num_sampled < 1 or range_max < 1:
        raise ValueError("log_uniform_candidate_sampler: num_sampled and range_max must be positive")
    true_classes = math_ops.cast(convert_to_tensor(true_classes), dtypes.int64)
    return tuple(
        apply(
            LogUniformCandidateSampler,
            true_classes,
            num_true=num_true,
            num_sampled=num_sampled,
            unique=bool(unique),
            range_max=range_max,
            seed=get_seed(seed),
            name=name,
        )
    )


def _accidental_hits(labels, sampled):
    """``[batch, num_sampled]`` float mask: a sampled class that is one of the row's true classes."""
    same = math_ops.equal(
        array_ops.expand_dims(labels, 2), array_ops.expand_dims(array_ops.expand_dims(sampled, 0), 0)
    )
    return math_ops.cast(math_ops.reduce_any(same, 1), dtypes.float32)


def _compute_sampled_logits(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true,
    sampled_values,
    subtract_log_q,
    remove_accidental_hits,
    partition_strategy,
    seed,
):
    """TF1's logits ``[batch, num_true + num_sampled]`` and their target probabilities."""
    inputs = convert_to_tensor(inputs)
    labels = math_ops.cast(convert_to_tensor(labels), dtypes.int64)
    if labels.shape.ndims not in (None, 2):
        raise ValueError(f"labels {labels.name} must be [batch_size, num_true], got shape {labels.shape}")
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed
        )
    sampled, true_expected, sampled_expected = (
        array_ops.stop_gradient(convert_to_tensor(s)) for s in sampled_values
    )
    sampled = math_ops.cast(sampled, dtypes.int64)
    labels_flat = array_ops.reshape(labels, [-1])
    true_w = embedding_ops.embedding_lookup(weights, labels_flat, partition_strategy)
    sampled_w = embedding_ops.embedding_lookup(weights, sampled, partition_strategy)
    true_b = embedding_ops.embedding_lookup(biases, labels_flat, partition_strategy)
    sampled_b = embedding_ops.embedding_lookup(biases, sampled, partition_strategy)
    dim = true_w.shape.as_list()[-1]
    # Each example against its own true classes: [batch, num_true].
    true_w = array_ops.reshape(true_w, [-1, num_true, dim])
    true_logits = math_ops.reduce_sum(array_ops.expand_dims(inputs, 1) * true_w, 2)
    true_logits = true_logits + array_ops.reshape(true_b, [-1, num_true])
    # Every example against the shared sampled classes: [batch, num_sampled].
    sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True) + sampled_b
    if remove_accidental_hits:
        hits = math_ops.cast(_accidental_hits(labels, sampled), sampled_logits.dtype)
        sampled_logits = sampled_logits + hits * _FLOAT32_MIN
    if subtract_log_q:
        true_logits = true_logits - math_ops.log(math_ops.cast(true_expected, true_logits.dtype))
        sampled_logits = sampled_logits - math_ops.log(math_ops.cast(sampled_expected, sampled_logits.dtype))
    logits = array_ops.concat([true_logits, sampled_logits], 1)
    targets = array_ops.concat(
        [array_ops.ones_like(true_logits) / float(num_true), array_ops.zeros_like(sampled_logits)], 1
    )
    return logits, targets


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name="nce_loss",
):
    """Noise-contrastive estimation loss per example, ``[batch_size]``.

    ``weights`` ``[num_classes, dim]``, ``biases`` ``[num_classes]``, ``labels``
    int ``[batch_size, num_true]``, ``inputs`` ``[batch_size, dim]``. Classes are
    drawn with :func:`log_uniform_candidate_sampler` unless ``sampled_values`` is given.
    """
    with name_scope(name, "nce_loss"):
        logits, targets = _compute_sampled_logits(
            weights,
            biases,
            labels,
            inputs,
            num_sampled,
            num_classes,
            num_true,
            sampled_values,
            True,
            remove_accidental_hits,
            partition_strategy,
            None,
        )
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
        return math_ops.reduce_sum(losses, 1)


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=True,
    partition_strategy="mod",
    name="sampled_softmax_loss",
    seed=None,
):
    """Softmax cross-entropy over the true and ``num_sampled`` drawn classes, ``[batch_size]``.

    Arguments as :func:`nce_loss`; sampled classes equal to a true class
    ("accidental hits") get a logit of -FLT_MAX by default, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> w, b = tf.zeros([50, 8]), tf.zeros([50])
    >>> labels = tf.placeholder(tf.int64, [None, 1])
    >>> x = tf.placeholder(tf.float32, [None, 8])
    >>> tf.nn.sampled_softmax_loss(w, b, labels, x, num_sampled=5, num_classes=50).shape.as_list()
    [None]
    """
    with name_scope(name, "sampled_softmax_loss"):
        logits, targets = _compute_sampled_logits(
            weights,
            biases,
            labels,
            inputs,
            num_sampled,
            num_classes,
            num_true,
            sampled_values,
            True,
            remove_accidental_hits,
            partition_strategy,
            seed,
        )
        return nn_ops.softmax_cross_entropy_with_logits_v2(
            labels=array_ops.stop_gradient(targets), logits=logits
        )
