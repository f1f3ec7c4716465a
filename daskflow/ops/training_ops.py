"""Fused optimizer updates (TF1's ``training_ops``): Adam in one kernel instead of twelve.

Adam's update written as graph ops makes about twelve passes over arrays the
size of the variable, each reading two and writing one: for a large layer
the step is bound by memory, not arithmetic. This kernel does the same
arithmetic over cache-sized chunks, so each element of ``m``, ``v``, the
gradient and the variable crosses memory about once per step, as TF1's fused
``ApplyAdam`` does. The kernel returns the new variable, ``m`` and ``v`` as
fresh arrays, which three ``Assign`` s commit without copying (the runtime
hands an assignment a fresh value no one else reads). Embedded, where the
runtime says no one reads the old values after it, it updates large
variables in place as TF1's kernel does: an array written anew must first
be read into cache, which doubled the update of mnist_deep's dense layer
(``benchmarks/embedded_step.py``). On a GPU (any
namespace but numpy) the chunk is the whole array: there the device's
bandwidth makes chunking pointless.
"""

from __future__ import annotations

import numpy

from ..framework.apply import apply
from ..framework.primitive import Primitive
from ..kernels import loops
from ..kernels.buffers import writable
from ..kernels.compiled import plain
from .infer import check_same_dtype

CHUNK = 1 << 15  # elements per chunk (128 KB of float32 per operand): measured against 8K and 128K
IN_PLACE_MIN = 1 << 16  # elements: an update in place pays from here (making its views costs ~6 us)


def _chunks(xp, size):
    step = CHUNK if xp is numpy else max(size, 1)
    return [slice(start, min(start + step, size)) for start in range(0, size, step)] or [slice(0, 0)]


def _adam_infer(inputs):
    var, m, v, grad = inputs[:4]
    check_same_dtype([var, m, v, grad])
    return [(t._dims, t.dtype) for t in (var, m, v)]


def _adam_kernel(xp, var, m, v, grad, beta1, beta2, lr_t, epsilon, *, in_place=False):
    """``(var - lr_t * m' / (sqrt(v') + epsilon), m', v')`` with ``m' = beta1*m + (1-beta1)*g``
    and ``v' = beta2*v + (1-beta2)*g*g``: new arrays, or with ``in_place`` (the runtime's
    word that no one reads the old values any more) ``var``, ``m`` and ``v`` updated."""
    # float(): a device scalar's explicit read on a GPU; Python floats keep float32 float32.
    b1, b2, lr, eps = float(beta1), float(beta2), float(lr_t), float(epsilon)
    targets = _targets(var, m, v) if in_place else None
    outs = targets or tuple(xp.empty(a.shape, a.dtype) for a in (var, m, v))  # C order: flat views
    fvar, fm, fv, fg = (a.reshape(-1) for a in (var, m, v, grad))
    new_var, new_m, new_v = (a.reshape(-1) for a in outs)
    ready = xp is numpy and plain(var, m, v, grad)
    compiled = (loops.adam_in_place if targets else loops.adam).get() if ready else None
    if compiled is not None and targets:
        compiled(new_var, new_m, new_v, fg, b1, b2, lr, eps)
    elif compiled is not None:  # one pass instead of twelve: half the time on a large layer
        compiled(fvar, fm, fv, fg, b1, b2, lr, eps, new_var, new_m, new_v)
    else:
        _adam_chunks(xp, (fvar, fm, fv, fg), (new_var, new_m, new_v), b1, b2, lr, eps)
    return (var, m, v) if targets else outs


def _targets(var, m, v):
    """Writable arrays over ``var``, ``m`` and ``v``, or None: below ``IN_PLACE_MIN``
    elements a new array costs less than making them."""
    if var.size < IN_PLACE_MIN:
        return None
    targets = tuple(writable(a) for a in (var, m, v))
    return None if any(t is None for t in targets) else targets


def _adam_chunks(xp, inputs, outs, b1, b2, lr, eps):
    """The update by array operations, a cache-sized chunk at a time; each chunk reads
    its inputs before writing, so ``outs`` may be the inputs themselves."""
    fvar, fm, fv, fg = inputs
    new_var, new_m, new_v = outs
    tmp = xp.empty(min(fvar.size, CHUNK) if xp is numpy else fvar.size, fvar.dtype)
    for s in _chunks(xp, fvar.size):
        t, g, nm, nv = tmp[: s.stop - s.start], fg[s], new_m[s], new_v[s]
        xp.multiply(g, 1.0 - b1, out=t)
        xp.multiply(fm[s], b1, out=nm)
        nm += t
        xp.multiply(g, g, out=t)
        t *= 1.0 - b2
        xp.multiply(fv[s], b2, out=nv)
        nv += t
        xp.sqrt(nv, out=t)
        t += eps
        xp.divide(nm, t, out=t)
        t *= lr
        xp.subtract(fvar[s], t, out=new_var[s])


# fresh_output holds for its readers: in place, each output's only reader is the Assign
# that keeps it (compile.py), which returns a variable's own array as it is.
AdamUpdate = Primitive("AdamUpdate", _adam_infer, _adam_kernel, fresh_output=True, in_place=(0, 1, 2))


def adam_update(var, m, v, grad, beta1, beta2, lr_t, epsilon, name="AdamUpdate"):
    """Adam's new values of ``var`` and of its moments ``m`` and ``v``, for gradient ``grad``."""
    return apply(AdamUpdate, var, m, v, grad, beta1, beta2, lr_t, epsilon, name=name)
