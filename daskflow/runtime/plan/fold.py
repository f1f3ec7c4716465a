"""Constant folding at plan time.

An op whose inputs are all known before the step runs (constants, shapes
known statically, folded results) and which holds no state is evaluated once
when the plan is built, so ``ones_like(loss)``, ``1 / batch_size`` and the
like cost nothing per step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Container, Iterable

    from ...framework.graph import Operation, Tensor


def fold_constants(ops: Iterable[Operation], fed: Container[Tensor], xp: Any) -> dict[Tensor, Any]:
    """Return ``{tensor: value}`` for every output that can be computed now."""
    folded: dict[Tensor, Any] = {}
    for op in ops:
        if not _foldable(op, fed, folded):
            continue
        try:
            out = op.primitive.kernel(xp, *(folded[t] for t in op.inputs), **op.attrs)
        except Exception:  # noqa: BLE001 - leave it to the step, which names the op
            continue
        values = out if len(op.outputs) > 1 else (out,)
        for t, v in zip(op.outputs, values):
            folded[t] = _read_only(v)
    return folded


def _foldable(op: Operation, fed: Container[Tensor], folded: Container[Tensor]) -> bool:
    prim = op.primitive
    return bool(
        prim.kernel is not None
        and not prim.stateful
        and not op.control_inputs
        and op.outputs
        and not any(t in fed for t in op.outputs)
        and all(t in folded for t in op.inputs)
    )


def _read_only(value: Any) -> Any:
    try:
        value.flags.writeable = False  # shared by every step: no one may write to it
    except (AttributeError, ValueError):
        pass  # scalars and non-numpy arrays
    return value
