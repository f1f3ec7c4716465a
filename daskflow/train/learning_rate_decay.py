"""Learning-rate schedules: ``tf.train.exponential_decay`` and its kin.

Each schedule is a small graph of existing ops (casts, ``pow``, ``floor``,
``minimum``, ``where``, ``cos``) that reads the global step, so the rate a
training step uses is computed in the same ``Session.run`` as the step itself.
Formulas, rounding order and result names follow TF1 (as
``tensorflow.compat.v1.train`` builds them): everything is computed in the
learning rate's dtype (float32 for a Python float), and the result op of
``exponential_decay`` is named ``ExponentialDecay`` (or ``name``), opened as a
name scope so a second schedule gets ``ExponentialDecay_1``.

Examples
--------
>>> import daskflow as tf
>>> from daskflow.train.learning_rate_decay import exponential_decay
>>> step = tf.train.get_or_create_global_step()
>>> lr = exponential_decay(0.1, step, decay_steps=100, decay_rate=0.5, staircase=True)
>>> lr.name
'ExponentialDecay:0'
"""

from __future__ import annotations

import math

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..ops import array_ops, math_ops


def _check_step(global_step, schedule):
    if global_step is None:
        raise ValueError(f"global_step is required for {schedule}.")


def _initial_rate(learning_rate, schedule):
    """The learning rate as a float tensor; every other input is cast to its dtype."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    if not lr.dtype.is_floating:
        raise TypeError(f"{schedule}: learning_rate must be a float tensor or number, got {lr.dtype.name}")
    return lr


def _as(value, dtype):
    """A Python number straight in ``dtype`` (no float32 detour); a tensor cast to it."""
    if hasattr(value, "op") or hasattr(value, "_as_tensor"):
        return math_ops.cast(value, dtype)
    return convert_to_tensor(value, dtype=dtype)


def _pi(dtype):
    return convert_to_tensor(math.pi, dtype=dtype)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)``.

    Parameters
    ----------
    learning_rate : float or Tensor
        The initial rate; its dtype (float32 for a Python float) is the result's.
    global_step : Tensor or int
        Usually ``tf.train.get_or_create_global_step()``.
    decay_steps, decay_rate : number or Tensor
    staircase : bool
        Decay at discrete intervals: the exponent is ``floor(global_step / decay_steps)``.
    name : str, optional
        The result op's name (default ``ExponentialDecay``).

    Raises
    ------
    ValueError
        If ``global_step`` is None.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.learning_rate_decay import exponential_decay
    >>> lr = exponential_decay(0.1, tf.train.get_or_create_global_step(), 1000, 0.96)
    """
    _check_step(global_step, "exponential_decay")
    return _exponential(
        learning_rate, global_step, decay_steps, decay_rate, staircase, name, "exponential_decay"
    )


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name, schedule):
    with name_scope(name or "ExponentialDecay") as scope:
        lr = _initial_rate(learning_rate, schedule)
        p = math_ops.cast(global_step, lr.dtype) / _as(decay_steps, lr.dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(_as(decay_rate, lr.dtype), p), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``.

    Built as TF1 builds it: :func:`exponential_decay` with base ``exp(-decay_rate)``,
    so the result is named ``ExponentialDecay`` unless ``name`` is given.
    ``staircase`` floors ``global_step / decay_steps``.

    Raises
    ------
    ValueError
        If ``global_step`` is None.
    """
    _check_step(global_step, "natural_exp_decay")
    base = math_ops.exp(math_ops.negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, base, staircase, name, "natural_exp_decay")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``.

    ``staircase`` floors ``global_step / decay_steps``; the result is named
    ``InverseTimeDecay`` unless ``name`` is given.

    Raises
    ------
    ValueError
        If ``global_step`` is None.
    """
    _check_step(global_step, "inverse_time_decay")
    with name_scope(name or "InverseTimeDecay") as scope:
        lr = _initial_rate(learning_rate, "inverse_time_decay")
        p = math_ops.cast(global_step, lr.dtype) / _as(decay_steps, lr.dtype)
        if staircase:
            p = math_ops.floor(p)
        denom = math_ops.add(_as(1, lr.dtype), math_ops.multiply(_as(decay_rate, lr.dtype), p))
        return math_ops.truediv(lr, denom, name=scope)


def polynomial_decay(
    learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False, name=None
):
    """Decay from ``learning_rate`` to ``end_learning_rate`` along ``(1 - t) ** power``.

    ``t = min(global_step, decay_steps) / decay_steps``; with ``cycle`` the
    schedule restarts instead of holding: ``decay_steps`` becomes its first
    multiple not below ``global_step``. The result is named ``PolynomialDecay``
    unless ``name`` is given.

    Raises
    ------
    ValueError
        If ``global_step`` is None.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.learning_rate_decay import polynomial_decay
    >>> step = tf.train.get_or_create_global_step()
    >>> lr = polynomial_decay(0.1, step, 10000, end_learning_rate=0.01, power=0.5)
    """
    _check_step(global_step, "polynomial_decay")
    with name_scope(name or "PolynomialDecay") as scope:
        lr = _initial_rate(learning_rate, "polynomial_decay")
        end_lr, power = _as(end_learning_rate, lr.dtype), _as(power, lr.dtype)
        step = math_ops.cast(global_step, lr.dtype)
        steps = _as(decay_steps, lr.dtype)
        if cycle:
            # Step 0 would give a zero multiple (0 / 0 below); TF1 uses one period there.
            multiple = math_ops.where(
                math_ops.equal(step, 0), _as(1.0, lr.dtype), math_ops.ceil(step / steps)
            )
            steps = math_ops.multiply(steps, multiple)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.truediv(step, steps)
        return math_ops.add(math_ops.multiply(lr - end_lr, math_ops.pow(1 - p, power)), end_lr, name=scope)


def _one_plus_cos(fraction):
    """``1 + cos(pi * fraction)``: from 2 at 0 down to 0 at 1 (halved by the caller, in TF1's order)."""
    return 1.0 + math_ops.cos(_pi(fraction.dtype) * fraction)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """Cosine annealing from ``learning_rate`` to ``alpha * learning_rate`` over ``decay_steps``.

    ``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) + alpha)`` with
    ``t = min(global_step, decay_steps) / decay_steps``; built in the name scope
    ``CosineDecay`` (or ``name``).

    Raises
    ------
    ValueError
        If ``global_step`` is None.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.learning_rate_decay import cosine_decay
    >>> lr = cosine_decay(0.1, tf.train.get_or_create_global_step(), 1000)
    """
    _check_step(global_step, "cosine_decay")
    with name_scope(name or "CosineDecay"):
        lr = _initial_rate(learning_rate, "cosine_decay")
        steps = _as(decay_steps, lr.dtype)
        step = math_ops.minimum(math_ops.cast(global_step, lr.dtype), steps)
        decayed = (1 - alpha) * (0.5 * _one_plus_cos(step / steps)) + alpha
        return math_ops.multiply(lr, decayed)


def cosine_decay_restarts(
    learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None
):
    """Cosine annealing with warm restarts (SGDR).

    The first period lasts ``first_decay_steps``; each next one is ``t_mul``
    times longer and starts from ``m_mul`` times the previous peak. Within a
    period the multiplier falls from its peak to ``alpha`` as in
    :func:`cosine_decay`. The result is named ``SGDRDecay`` unless ``name`` is given.

    Raises
    ------
    ValueError
        If ``global_step`` is None.
    """
    _check_step(global_step, "cosine_decay_restarts")
    with name_scope(name or "SGDRDecay") as scope:
        lr = _initial_rate(learning_rate, "cosine_decay_restarts")
        alpha, t_mul_t, m_mul = (_as(v, lr.dtype) for v in (alpha, t_mul, m_mul))
        fraction = math_ops.cast(global_step, lr.dtype) / _as(first_decay_steps, lr.dtype)
        if isinstance(t_mul, int | float):
            restart, fraction = _restart_and_fraction(fraction, t_mul_t, geometric=t_mul != 1.0)
        else:
            restart, fraction = _restart_either_way(fraction, t_mul_t)
        decayed = (1 - alpha) * (0.5 * m_mul**restart * _one_plus_cos(fraction)) + alpha
        return math_ops.multiply(lr, decayed, name=scope)


def _restart_and_fraction(fraction, t_mul, geometric):
    """Which period ``fraction`` (in first periods) falls in, and how far into it."""
    if not geometric:
        restart = math_ops.floor(fraction)
        return restart, fraction - restart
    # Periods 1, t, t**2, ... end at (1 - t**i) / (1 - t): invert that sum.
    restart = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul)) / math_ops.log(t_mul))
    done = (1.0 - t_mul**restart) / (1.0 - t_mul)
    return restart, (fraction - done) / t_mul**restart


def _restart_either_way(fraction, t_mul):
    """For a tensor ``t_mul``, where TF1 has a ``cond``: both forms, one selected."""
    constant = math_ops.equal(t_mul, 1.0)
    r1, f1 = _restart_and_fraction(fraction, t_mul, geometric=False)
    # The geometric form divides by log(t_mul): give it a harmless t_mul where it is not used.
    safe_t_mul = math_ops.where(constant, 2.0 * array_ops.ones_like(t_mul), t_mul)
    r2, f2 = _restart_and_fraction(fraction, safe_t_mul, geometric=True)
    return math_ops.where(constant, r1, r2), math_ops.where(constant, f1, f2)


def linear_cosine_decay(
    learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None
):
    """Linear times cosine decay (Bello et al., 2017).

    ``learning_rate * ((alpha + (1 - t)) * 0.5 * (1 + cos(2 pi num_periods t)) + beta)``
    with ``t = min(global_step, decay_steps) / decay_steps``; the result is
    named ``LinearCosineDecay`` unless ``name`` is given.

    Raises
    ------
    ValueError
        If ``global_step`` is None.
    """
    _check_step(global_step, "linear_cosine_decay")
    with name_scope(name or "LinearCosineDecay") as scope:
        lr = _initial_rate(learning_rate, "linear_cosine_decay")
        steps = _as(decay_steps, lr.dtype)
        num_periods, alpha, beta = (_as(v, lr.dtype) for v in (num_periods, alpha, beta))
        step = math_ops.minimum(math_ops.cast(global_step, lr.dtype), steps)
        linear = (steps - step) / steps
        cosine = 0.5 * _one_plus_cos(2.0 * num_periods * (step / steps))
        return math_ops.multiply(lr, (alpha + linear) * cosine + beta, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[i]`` on the interval ``boundaries[i-1] < x <= boundaries[i]``.

    ``values[0]`` for ``x <= boundaries[0]``, ``values[-1]`` for
    ``x > boundaries[-1]``. Boundaries take ``x``'s dtype (an int32 one is cast
    to an int64 ``x``, a Python number to a float ``x``); the values share one
    dtype, which is the result's.

    Raises
    ------
    ValueError
        If there is not exactly one more value than boundaries, a boundary's
        dtype differs from ``x``'s, or the values' dtypes differ.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.learning_rate_decay import piecewise_constant
    >>> step = tf.train.get_or_create_global_step()
    >>> lr = piecewise_constant(step, [100000, 110000], [1.0, 0.5, 0.1])
    """
    boundaries, values = list(boundaries), list(values)
    if len(boundaries) != len(values) - 1:
        raise ValueError(
            "piecewise_constant: the length of boundaries should be 1 less than the length of values, "
            f"got {len(boundaries)} boundaries and {len(values)} values"
        )
    x = convert_to_tensor(x)
    boundaries = [_boundary(b, x) for b in boundaries]
    values = [convert_to_tensor(v) for v in values]
    for v in values[1:]:
        if v.dtype is not values[0].dtype:
            raise ValueError(
                "piecewise_constant: values must have elements all with the same dtype "
                f"({values[0].dtype.name} vs {v.dtype.name})"
            )
    with name_scope(name or "PiecewiseConstant"):
        result = values[-1]
        for b, v in zip(reversed(boundaries), reversed(values[:-1]), strict=True):
            result = math_ops.where(math_ops.less_equal(x, b), v, result)
        return result


piecewise_constant_decay = piecewise_constant


def _boundary(b, x):
    if x.dtype.is_floating and not (hasattr(b, "op") or hasattr(b, "_as_tensor")):
        return convert_to_tensor(b, dtype=x.dtype)
    b = convert_to_tensor(b)
    if b.dtype is x.dtype:
        return b
    if b.dtype is dtypes.int32 and x.dtype is dtypes.int64:
        return math_ops.cast(b, dtypes.int64)
    raise ValueError(
        f"piecewise_constant: boundaries ({b.dtype.name}) must have the same dtype as x ({x.dtype.name})"
    )
