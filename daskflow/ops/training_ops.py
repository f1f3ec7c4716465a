"""Fused optimizer updates (TF1's ``training_ops``): Adam in two kernels instead of twelve.

Adam's update written as graph ops makes about twelve passes over arrays the
size of the variable, each reading two and writing one: for a large layer
the step is bound by memory, not arithmetic. These kernels do the same
arithmetic over cache-sized chunks, so each element of ``m``, ``v``, the
gradient and the variable crosses memory about once per step, as TF1's fused
``ApplyAdam`` does. On a GPU (any namespace but numpy) the chunk is the whole
array: there the device's bandwidth makes chunking pointless.
"""

from __future__ import annotations

import numpy

from ..framework.apply import apply
from ..framework.primitive import Primitive
from .infer import check_same_dtype

CHUNK = 1 << 15  # elements per chunk: 128 KB of float32 per operand, so a chunk's five stay in L2


def _chunks(xp, size):
    step = CHUNK if xp is numpy else max(size, 1)
    return [slice(start, min(start + step, size)) for start in range(0, size, step)] or [slice(0, 0)]


def _flat(a):
    return a.reshape(-1)


def _moments_infer(inputs):
    m, v, grad, _, _ = inputs
    check_same_dtype([m, v, grad])
    return [(m._dims, m.dtype), (v._dims, v.dtype)]


def _moments_kernel(xp, m, v, grad, beta1, beta2):
    """``(beta1*m + (1-beta1)*g, beta2*v + (1-beta2)*g*g)``, new arrays."""
    new_m, new_v = xp.empty(m.shape, m.dtype), xp.empty(v.shape, v.dtype)  # C order: flat views
    b1, b2 = float(beta1), float(beta2)  # (a device scalar's float() is cupy's explicit read)
    fm, fv, fg, out_m, out_v = (_flat(a) for a in (m, v, grad, new_m, new_v))
    tmp = xp.empty(min(fm.size, CHUNK) if xp is numpy else fm.size, m.dtype)
    for s in _chunks(xp, fm.size):
        t, g = tmp[: s.stop - s.start], fg[s]
        xp.multiply(g, 1.0 - b1, out=t)
        xp.multiply(fm[s], b1, out=out_m[s])
        out_m[s] += t
        xp.multiply(g, g, out=t)
        t *= 1.0 - b2
        xp.multiply(fv[s], b2, out=out_v[s])
        out_v[s] += t
    return new_m, new_v


AdamMoments = Primitive("AdamMoments", _moments_infer, _moments_kernel, fresh_output=True)


def _apply_infer(inputs):
    var, m, v, _, _ = inputs
    check_same_dtype([var, m, v])
    return var._dims, var.dtype


def _apply_kernel(xp, var, m, v, lr_t, epsilon):
    """``var - lr_t * m / (sqrt(v) + epsilon)``, a new array."""
    new = xp.empty(var.shape, var.dtype)
    lr, eps = float(lr_t), float(epsilon)
    fvar, fm, fv, out = (_flat(a) for a in (var, m, v, new))
    tmp = xp.empty(min(fvar.size, CHUNK) if xp is numpy else fvar.size, var.dtype)
    for s in _chunks(xp, fvar.size):
        t = tmp[: s.stop - s.start]
        xp.sqrt(fv[s], out=t)
        t += eps
        xp.divide(fm[s], t, out=t)
        t *= lr
        xp.subtract(fvar[s], t, out=out[s])
    return new


ApplyAdam = Primitive("ApplyAdam", _apply_infer, _apply_kernel, stateful=True, updates_variable=True)


def adam_moments(m, v, grad, beta1, beta2, name="AdamMoments"):
    """Adam's new first and second moments of ``grad``, from their values ``m`` and ``v``."""
    return apply(AdamMoments, m, v, grad, beta1, beta2, name=name)


def apply_adam(var, m, v, lr_t, epsilon, name="ApplyAdam"):
    """Update variable ``var`` by ``lr_t * m / (sqrt(v) + epsilon)``; its new value."""
    return apply(ApplyAdam, var, m, v, lr_t, epsilon, name=name)
