"""The LOSSES collection, and the weight and shape helpers losses and metrics share.

TF1 checks at run time (``Assert`` ops, ``tf.cond``) what it cannot check
while building; daskflow checks what the static shapes tell and lets the
kernels' own broadcasting refuse the rest at run time.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph, name_scope
from ..ops import array_ops, math_ops
from ..variables import GraphKeys

# -- the collections ----------------------------------------------------------------------


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Add ``loss`` to ``loss_collection`` (nothing when it is None)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in ``loss_collection`` whose names start with ``scope``."""
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The regularizers' losses (``REGULARIZATION_LOSSES``) under ``scope``."""
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses under ``scope``, or a constant 0.0 without any."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return convert_to_tensor(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses (and, by default, the regularization losses) under ``scope``.

    Raises
    ------
    ValueError
        When there is no loss at all.

    Examples
    --------
    >>> import daskflow as tf
    >>> import daskflow.losses
    >>> with tf.Graph().as_default():
    ...     _ = tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.0])
    ...     print(tf.losses.get_total_loss().name)
    total_loss:0
    """
    losses = list(get_losses(scope=scope))
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError(f"get_total_loss: no losses in the LOSSES collection (scope {scope!r})")
    return math_ops.add_n(losses, name=name)


# -- ops TF1 has as kernels, composed --------------------------------------------------------


def cast(x, dtype):
    """TF1's ``cast``: inside a ``Cast`` name scope even when nothing changes.

    TF1 opens the scope either way, so the names of the ops after it depend on
    it; ops named like TF1's keep ``loss.name`` and collections equal to TF1's.
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope("Cast") as scope:
        x = convert_to_tensor(x)
        if x.dtype is dtype:
            return x
        return apply(math_ops.Cast, x, dtype=dtype, name=scope)


def div_no_nan(x, y, name=None):
    """``x / y``, and 0 where ``y`` is 0 (TF's ``div_no_nan``)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    is_zero = math_ops.equal(y, 0)
    quotient = x / math_ops.where(is_zero, array_ops.ones_like(y), y)
    return math_ops.where(is_zero, array_ops.zeros_like(quotient), quotient, name=name)


def squared_difference(x, y, name="SquaredDifference"):
    """``(x - y) ** 2``."""
    return math_ops.square(math_ops.subtract(x, y), name=name)


# -- shapes ----------------------------------------------------------------------------------


def check_compatible(a, b, a_arg, b_arg, where):
    """TF1's ``a.shape.assert_is_compatible_with(b.shape)``, naming both arguments."""
    if not a.shape.is_compatible_with(b.shape):
        culprits = f"{a_arg} {a.name} and {b_arg} {b.name}"
        raise ValueError(
            f"Shapes {a.shape} and {b.shape} are incompatible: {culprits} in {where.rstrip('/')}"
        )


def require_float(x, arg, where):
    """TF1's kernels refuse integer logits; say which argument it was."""
    if not x.dtype.is_floating:
        raise TypeError(f"{where.rstrip('/')}: {arg} {x.name} must be a float tensor, got {x.dtype.name}")


def _last_is_one(t):
    return t.shape.ndims and t.shape.dims[-1] in (1, None)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0):
    """Squeeze the last dimension of the one whose rank is one too many (static ranks only)."""
    predictions = convert_to_tensor(predictions)
    labels = convert_to_tensor(labels)
    p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
    if p_rank is None or l_rank is None:
        return labels, predictions
    diff = p_rank - l_rank
    if diff == expected_rank_diff + 1 and _last_is_one(predictions):
        predictions = array_ops.squeeze(predictions, [-1])
    elif diff == expected_rank_diff - 1 and _last_is_one(labels):
        labels = array_ops.squeeze(labels, [-1])
    return labels, predictions


def _weights_error(detail, weights, values):
    return ValueError(
        f"weights can not be broadcast to values. {detail} Received weights={weights.name} "
        f"(shape {weights.shape}), values={values.name} (shape {values.shape})"
    )


def assert_broadcastable(weights, values):
    """Refuse ``weights`` that TF1 would not broadcast to ``values``.

    TF1 asks for a scalar, or the same rank with each dimension 1 or equal to
    the value's; what is unknown now is left to the kernels at run time.
    """
    w_dims, v_dims = weights.shape.dims, values.shape.dims
    if w_dims is None or v_dims is None or len(w_dims) == 0:
        return
    if len(w_dims) != len(v_dims):
        detail = f"values.rank={len(v_dims)}. weights.rank={len(w_dims)}."
        raise _weights_error(detail, weights, values)
    for i, (w, v) in enumerate(zip(w_dims, v_dims)):
        if w is not None and v is not None and w not in (1, v):
            raise _weights_error(f"Mismatch at dim {i}.", weights, values)


def broadcast_weights(weights, values):
    """``weights`` broadcast to the shape of ``values`` (TF1's ``broadcast_weights``)."""
    with name_scope("broadcast_weights") as scope:
        values = convert_to_tensor(values)
        weights = convert_to_tensor(weights, dtype=values.dtype)
        same = weights.shape.is_fully_defined() and values.shape.is_fully_defined()
        if same and weights.shape.is_compatible_with(values.shape):
            return weights
        assert_broadcastable(weights, values)
        return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)
