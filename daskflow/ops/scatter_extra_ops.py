"""TF1's scatters: ``tensor_scatter_nd_update/add/sub/min/max`` (a new tensor, with TF1's
gradients), and the variable updates ``scatter_nd_update/add/sub`` and
``scatter_sub/mul/div/min/max``.

The variable updates are ``updates_variable`` primitives like :mod:`.segment_ops`'
``scatter_update``: the kernel gets the variable's value and returns its new one.
Repeated indices combine as TF1's do: added, subtracted, multiplied, divided in
turn (integers truncated), or their minimum/maximum kept.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from . import array_ops, math_ops
from .segment_ops import (
    _checked_index,
    _default_policy,
    _scatter_var,
    _scatter_var_infer,
    gather_nd,
    nd_fit,
    scatter_nd,
)
from .state_ops import updated_variable


def _combine(xp, ufunc, out, index, updates):
    """``out[index] = ufunc(out[index], updates)`` for each update in turn (repeats combine)."""
    at = getattr(getattr(xp, ufunc), "at", None)
    integer_divide = ufunc == "divide" and out.dtype.kind in "iu"
    if at is not None and not integer_divide:
        try:
            at(out, index, updates)
            return out
        except NotImplementedError:  # cupy has multiply.at and divide.at, but they refuse to run
            pass
    if integer_divide:  # truncated division by the repeats' product is the same
        prod = _combine(xp, "multiply", xp.ones_like(out), index, updates)
        quotient = xp.abs(out) // xp.abs(prod) * xp.sign(out) * xp.sign(prod)
        return quotient.astype(out.dtype)
    depth = len(index) if isinstance(index, tuple) else 1
    rows = (
        xp.stack([i.reshape(-1) for i in index], -1)
        if depth > 1 or isinstance(index, tuple)
        else index.reshape(-1, 1)
    )
    flat = updates.reshape((rows.shape[0],) + out.shape[depth:])
    for k in range(rows.shape[0]):  # an array library without this ufunc's .at
        at_k = tuple(int(v) for v in rows[k])
        out[at_k] = getattr(xp, ufunc)(out[at_k], flat[k])
    return out


# -- tensor_scatter_nd_* ---------------------------------------------------------------------------


def _tensor_scatter_infer(inputs, *, mode):
    tensor, indices, updates = inputs
    if updates.dtype is not tensor.dtype:
        raise TypeError(
            f"tensor_scatter_nd_{mode}: updates {updates.name} are {updates.dtype.name}, tensor "
            f"{tensor.name} is {tensor.dtype.name}"
        )
    nd_fit(f"tensor_scatter_nd_{mode}", tensor._dims, indices, updates)
    return tensor._dims, tensor.dtype


_UFUNC = {"add": "add", "sub": "subtract", "min": "minimum", "max": "maximum"}


def _tensor_scatter_kernel(xp, tensor, indices, updates, *, mode):
    out = xp.array(tensor, copy=True)
    index = _checked_index(xp, indices, tensor.shape, f"tensor_scatter_nd_{mode}")
    if mode == "update":
        out[index] = updates
        return out
    return _combine(xp, _UFUNC[mode], out, index, updates)


def _tensor_scatter_grad(op, g):
    tensor, indices, updates = op.inputs
    mode = op.attrs["mode"]
    if mode == "update":
        cleared = apply(TensorScatterNd, g, indices, array_ops.zeros_like(updates), mode="update")
        return [cleared, None, gather_nd(g, indices)]
    if mode in ("add", "sub"):
        picked = gather_nd(g, indices)
        return [g, None, picked if mode == "add" else -picked]
    # TF1's rule for min/max: the gradient is shared among the tensor entry and the
    # updates that equal the result.
    out = op.outputs[0]
    x_hit = math_ops.cast(math_ops.equal(tensor, out), g.dtype)
    y_hit = math_ops.cast(math_ops.equal(updates, gather_nd(out, indices)), g.dtype)
    hits = x_hit + scatter_nd(indices, y_hit, array_ops.shape(tensor, out_type=indices.dtype))
    return [g * x_hit / hits, None, gather_nd(g / hits, indices) * y_hit]


TensorScatterNd = Primitive(
    "TensorScatterNd", _tensor_scatter_infer, _tensor_scatter_kernel, _tensor_scatter_grad
)


def _tensor_scatter(mode, tensor, indices, updates, bad_indices_policy, name):
    _default_policy(f"tensor_scatter_nd_{mode}", bad_indices_policy)
    tensor = convert_to_tensor(tensor, name="tensor")
    indices = convert_to_tensor(indices, name="indices")
    updates = convert_to_tensor(
        updates, dtype=None if hasattr(updates, "dtype") else tensor.dtype, name="updates"
    )
    return apply(TensorScatterNd, tensor, indices, updates, mode=mode, name=name)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the slices at ``indices`` replaced by ``updates``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.tensor_scatter_nd_update([1, 2, 3], [[0], [2]], [7, 9])).tolist()
    [7, 2, 9]
    """
    return _tensor_scatter("update", tensor, indices, updates, "", name)


def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` added at ``indices`` (repeats add up)."""
    return _tensor_scatter("add", tensor, indices, updates, bad_indices_policy, name)


def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` subtracted at ``indices`` (repeats add up)."""
    return _tensor_scatter("sub", tensor, indices, updates, bad_indices_policy, name)


def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with each entry at ``indices`` the minimum of itself and its updates."""
    return _tensor_scatter("min", tensor, indices, updates, bad_indices_policy, name)


def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with each entry at ``indices`` the maximum of itself and its updates."""
    return _tensor_scatter("max", tensor, indices, updates, bad_indices_policy, name)


# TF1's older names are the same functions.
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub


# -- variable updates ------------------------------------------------------------------------------


def _var_kernel(ufunc, nd):
    def kernel(xp, old, indices, updates, *, donate=False):
        new = xp.array(old, copy=True)  # the old value may still be read elsewhere in the step
        if nd:
            index = _checked_index(xp, indices, old.shape, "scatter_nd update")
        else:
            bad = (indices < 0) | (indices >= old.shape[0])
            if bool(bad.any()):
                raise ValueError(
                    f"indices[{int(xp.argmax(bad.reshape(-1)))}] is out of range [0, {old.shape[0]})"
                )
            index = indices
        if ufunc is None:
            new[index] = updates
            return new
        return _combine(xp, ufunc, new, index, updates)

    return kernel


def _scatter_nd_var_infer(inputs):
    ref, indices, updates = inputs
    var = updated_variable(ref, "scatter_nd updates need a variable")
    if updates.dtype is not ref.dtype:
        raise TypeError(
            f"cannot scatter {updates.dtype.name} updates into the {ref.dtype.name} variable {var.name}"
        )
    nd_fit(f"scatter_nd update of {var.name}", ref._dims, indices, updates)
    return ref._dims, ref.dtype


def _var_prim(name, ufunc, nd, grad=NOT_DIFFERENTIABLE):
    infer = _scatter_nd_var_infer if nd else _scatter_var_infer
    return Primitive(name, infer, _var_kernel(ufunc, nd), grad, stateful=True, updates_variable=True)


ScatterSub = _var_prim("ScatterSub", "subtract", False)
ScatterMul = _var_prim("ScatterMul", "multiply", False)
ScatterDiv = _var_prim("ScatterDiv", "divide", False)
ScatterMin = _var_prim("ScatterMin", "minimum", False, None)  # TF1 registers none
ScatterMax = _var_prim("ScatterMax", "maximum", False, None)
ScatterNdUpdate = _var_prim("ScatterNdUpdate", None, True)
ScatterNdAdd = _var_prim("ScatterNdAdd", "add", True)
ScatterNdSub = _var_prim("ScatterNdSub", "subtract", True)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """Subtract ``updates`` from rows ``indices`` of the variable ``ref``; returns the new value.

    Examples
    --------
    >>> import daskflow as tf
    >>> v = tf.Variable([1.0, 2.0, 3.0])
    >>> with tf.Session() as sess:
    ...     _ = sess.run(v.initializer)
    ...     sess.run(tf.scatter_sub(v, [0, 2], [1.0, 1.0])).tolist()
    [0.0, 2.0, 2.0]
    """
    return _scatter_var(ScatterSub, ref, indices, updates, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """Multiply rows ``indices`` of the variable ``ref`` by ``updates``; returns the new value."""
    return _scatter_var(ScatterMul, ref, indices, updates, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """Divide rows ``indices`` of the variable ``ref`` by ``updates`` (integers truncate)."""
    return _scatter_var(ScatterDiv, ref, indices, updates, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """Rows ``indices`` of the variable ``ref`` become their minimum with ``updates``."""
    return _scatter_var(ScatterMin, ref, indices, updates, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """Rows ``indices`` of the variable ``ref`` become their maximum with ``updates``."""
    return _scatter_var(ScatterMax, ref, indices, updates, name)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """Set the slices of the variable ``ref`` at ``indices`` (``[..., depth]``) to ``updates``."""
    return _scatter_var(ScatterNdUpdate, ref, convert_to_tensor(indices), updates, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """Add ``updates`` to the slices of the variable ``ref`` at ``indices`` (repeats add up)."""
    return _scatter_var(ScatterNdAdd, ref, convert_to_tensor(indices), updates, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """Subtract ``updates`` from the slices of the variable ``ref`` at ``indices``."""
    return _scatter_var(ScatterNdSub, ref, convert_to_tensor(indices), updates, name)
