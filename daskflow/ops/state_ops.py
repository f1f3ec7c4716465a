"""Variable ops: the variable node itself and the assignments that update it.

A ``VariableV2`` node's output stands for the variable's current value; the
runtime binds it from the session's variable store. The assign primitives
return the variable's new value, which the runtime writes back.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import compatible, fmt
from ..kernels.buffers import owned

VariableV2 = Primitive(
    "VariableV2",
    lambda inputs, *, dims, dtype, variable: (dims, dtype),
    None,
    stateful=True,
    is_variable=True,
)


def variable_of(ref, lifted_only=True):
    """The ``VariableV2`` op ``ref`` stands for: its own, or in a branch of ``tf.cond`` the
    variable a captured value stands for (``cond`` writes the branch's update back to it;
    with ``lifted_only=False``, in any body); None where ``ref`` is no such variable."""
    while ref.op.primitive is not VariableV2:
        source = getattr(ref.graph, "outer_tensor", None)
        if source is None or not ref.op.primitive.is_placeholder:
            return None
        if lifted_only and not ref.graph.lifts_updates:
            return None
        try:
            ref = source(ref)
        except KeyError:  # a placeholder of the body, not a capture
            return None
    return ref.op


def updated_variable(ref, what):
    """``variable_of(ref)``, or TypeError naming ``ref`` where it is no variable (or one that
    a loop body would assign)."""
    var = variable_of(ref)
    if var is None:
        var = variable_of(ref, lifted_only=False)
        if var is not None:
            raise TypeError(
                f"the variable {var.name} is assigned inside a tf.while_loop body, which daskflow does not "
                "support (tf.cond branches may assign); return the new value and assign it after the loop"
            )
        raise TypeError(f"{_outer(ref).name} is not a variable; {what}")
    return var


def _outer(ref):
    """The tensor of the enclosing graphs a body's captured value stands for (itself if none)."""
    while ref.op.primitive.is_placeholder and ref in getattr(ref.graph, "captures", {}).values():
        ref = ref.graph.outer_tensor(ref)
    return ref


def _assign_infer(inputs, **_):
    ref, value = inputs
    var = updated_variable(ref, "only variables can be assigned")
    if value.dtype is not ref.dtype:
        raise TypeError(
            f"cannot assign a {value.dtype.name} value to the {ref.dtype.name} variable {var.name}"
        )
    if not compatible(ref._dims, value._dims):
        raise ValueError(
            f"cannot assign a value of shape {value.shape} to variable {var.name} of shape {ref.shape}"
        )
    return ref._dims, ref.dtype


def _assign_kernel(xp, old, value, *, dims, donate=False):
    if len(value.shape) != len(dims) or any(d is not None and d != v for d, v in zip(dims, value.shape)):
        raise ValueError(f"value of shape {tuple(value.shape)} does not fit the variable's shape {fmt(dims)}")
    if value is old or (donate and owned(value)):  # its own array (updated in place), or a fresh one
        return value
    return xp.array(value, copy=True)  # the store must own its arrays


def _update_kernel(sign):
    def kernel(xp, old, delta, *, dims, donate=False):
        if old.shape != delta.shape:
            raise ValueError(
                f"update of shape {tuple(delta.shape)} does not fit the variable's shape {old.shape}"
            )
        if donate and owned(delta) and delta.dtype == old.dtype:
            # Write into the dead delta: saves allocating (and page-faulting) a
            # variable-sized array every step.
            return xp.add(old, delta, out=delta) if sign > 0 else xp.subtract(old, delta, out=delta)
        return old + delta if sign > 0 else old - delta

    return kernel


def _stateful(name, kernel, **flags):
    return Primitive(
        name,
        _assign_infer,
        kernel,
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
        updates_variable=True,
        can_donate=True,
        **flags,
    )


Assign = _stateful("Assign", _assign_kernel, ignores_old_value=True)
AssignAdd = _stateful("AssignAdd", _update_kernel(+1))
AssignSub = _stateful("AssignSub", _update_kernel(-1))


# -- asking whether variables have values (their kernels see None for those that do not) --

ReportUninitialized = Primitive(
    "ReportUninitializedVariables",
    lambda inputs, *, names: ((None,), dtypes.string),
    lambda xp, *values, names: np.array(
        [n.encode() for n, v in zip(names, values) if v is None], dtype=object
    ),
    stateful=True,
    accepts_uninitialized=True,
    host_only=True,  # a string tensor
)
IsVariableInitialized = Primitive(
    "IsVariableInitialized",
    lambda inputs: ((), dtypes.bool),
    lambda xp, value: xp.asarray(value is not None),
    stateful=True,
    accepts_uninitialized=True,
)


def _initialized_value_infer(inputs):
    ref, initial = inputs
    return (ref._dims if ref._dims is not None else initial._dims), ref.dtype


# ``Variable.initialized_value()``: TF1 builds it as ``cond(is_variable_initialized(v),
# v.read_value, lambda: v.initial_value)``; one op that sees None for a variable without a
# value does the same without handing the cond an uninitialized input.
InitializedValue = Primitive(
    "InitializedValue",
    _initialized_value_infer,
    lambda xp, value, initial: initial if value is None else xp.array(value, copy=True),
    # TF1's cond passes g to the branch taken: the variable's value once it has one, which is
    # when a gradient step can run at all (the initial value's branch gets none here).
    lambda op, g: [g, None],
    stateful=True,
    accepts_uninitialized=True,
)
