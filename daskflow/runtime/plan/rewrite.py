"""Graph rewrites at plan time (TF1's grappler): each a pass, each switchable, none
changing a result.

The passes never touch the user's graph. They record, per op of the plan,
the inputs it reads instead of its own (a tensor found equal to another) and
the primitive it runs instead of its own (a fused kernel); planning then
prunes again, so ops no one reads any more drop out of the step.

- **Common subexpressions** (``OptimizerOptions.do_common_subexpression_elimination``):
  two ops of one kind, device, attributes, inputs and control inputs, with no
  state, compute the same values; readers of the second read the first.
- **Arithmetic** (``RewriterConfig.arithmetic_optimization``): identities a
  primitive declares (``Primitive.simplify``) where they are exact: ``x * 1``,
  ``x / 1``, ``x - 0``, a transpose undoing a transpose...
- **Remapping** (``RewriterConfig.remapping``): chains a primitive declares it
  can run as one kernel (``Primitive.fuse``), such as a bias add and its ReLU,
  or a chain of elementwise float ops, where the intermediate values have no
  other reader.

This module knows no individual op: the rules live with the ops' declarations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...framework.graph import Tensor

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Sequence

    from ...framework.graph import Operation
    from ..graph_options import Passes


class View:
    """What a rule may ask about the plan while rewriting."""

    def __init__(self, folded: dict[Tensor, Any], readers: dict[Tensor, int], protected: set[Tensor]) -> None:
        self._folded, self._readers, self._protected = folded, readers, protected
        self._reader: dict = {}  # tensor -> an op reading it (the one, for a sole reader)
        self._planned: set = set()  # the plan's ops
        self.inputs: dict = {}  # op -> the tensors it reads now
        self.alias: dict = {}  # tensor -> an equal tensor its readers read instead
        self.fused: set = set()  # ops a fuse rule has already made part of a fused kernel

    def inputs_of(self, op: Operation) -> Sequence[Tensor]:
        return self.inputs.get(op, op.inputs)

    def resolve(self, t: Tensor) -> Tensor:
        while t in self.alias:
            t = self.alias[t]
        return t

    def constant(self, t: Tensor) -> Any:
        """``t``'s value where it is known before the step (folded), else None."""
        return self._folded.get(t)

    def producer_of(self, t: Tensor) -> tuple[Operation, Sequence[Tensor]]:
        """The op making ``t``, as rewritten so far: ``(op, its inputs)``."""
        return t.op, self.inputs_of(t.op)

    def recount_readers(self, order: Iterable[Operation]) -> None:
        """Count readers again, as the ops of ``order`` read after rewiring."""
        self._readers = _readers(order, self)
        self._reader = {t: op for op in order for t in self.inputs_of(op)}
        self._planned = set(order)

    def computed(self, t: Tensor) -> bool:
        """Whether the step computes ``t`` (neither fed nor folded)."""
        return t.op in self._planned and t not in self._folded

    def reader_of(self, t: Tensor) -> Operation | None:
        """The op reading ``t`` where it has one reader and nothing fetches it, else None."""
        return self._reader.get(t) if self.sole_reader(t) else None

    def sole_reader(self, t: Tensor) -> bool:
        """Whether one op reads ``t`` and nothing fetches or exports it."""
        return self._readers.get(t, 0) == 1 and t not in self._protected


def rewrite(
    order: list[Operation], folded: dict[Tensor, Any], fetches: Iterable[Tensor], options: Passes
) -> tuple[dict, dict, dict]:
    """Return ``(inputs, primitives, attrs)``: per op, the inputs, primitive and attributes
    it runs with where a pass changed them. ``order`` is the plan's ops in execution order."""
    readers = _readers(order)
    view = View(folded, readers, set(fetches))
    seen: dict = {}
    for op in order:
        _rewire(view, op)
        if all(t in folded for t in op.outputs) and op.outputs:
            continue
        if options.common_subexpressions and _merge_duplicate(view, op, seen):
            continue
        if options.arithmetic and op.primitive.simplify is not None:
            same = op.primitive.simplify(view, op, *view.inputs_of(op))
            if type(same) is tuple:  # the same op, from other inputs
                view.inputs[op] = tuple(view.resolve(t) for t in same)
            elif same is not None and same is not op.outputs[0]:
                view.alias[op.outputs[0]] = view.resolve(same)
    primitives: dict = {}
    attrs: dict = {}
    if options.remapping:
        view.recount_readers(order)
        for op in order:
            fused = op.primitive.fuse(view, op, *view.inputs_of(op)) if op.primitive.fuse else None
            if fused is not None:  # (primitive, inputs), or (primitive, inputs, attributes)
                primitives[op], view.inputs[op] = fused[:2]
                if len(fused) > 2:
                    attrs[op] = fused[2]
                view.fused.add(op)
    return view.inputs, primitives, attrs


def _rewire(view: View, op: Operation) -> None:
    inputs = tuple(view.resolve(t) for t in view.inputs_of(op))
    if inputs != tuple(op.inputs):
        view.inputs[op] = inputs


def _readers(order: Iterable[Operation], view: View | None = None) -> dict[Tensor, int]:
    counts: dict = {}
    for op in order:
        for t in view.inputs_of(op) if view else op.inputs:
            counts[t] = counts.get(t, 0) + 1
    return counts


def _merge_duplicate(view: View, op: Operation, seen: dict) -> bool:
    key = _cse_key(view, op)
    if key is None:
        return False
    first = seen.setdefault(key, op)
    if first is op:
        return False
    view.alias.update(zip(op.outputs, first.outputs))
    return True


def _cse_key(view: View, op: Operation) -> tuple | None:
    prim = op.primitive
    if (
        prim.stateful
        or prim.make_state
        or prim.is_variable
        or prim.is_placeholder
        or prim.updates_variable
        or prim.forwards_input
        or prim.kernel is None
        or not op.outputs
    ):
        return None
    attrs = _frozen(op.attrs)
    if attrs is _NO_KEY:
        return None
    inputs = tuple(_input_key(view, t) for t in view.inputs_of(op))
    return (prim, op.device, attrs, inputs, tuple(op.control_inputs))


_CONSTANT_KEY_MAX = 1024  # elements: equal small constants (2.0, an axis) make equal inputs


def _input_key(view: View, t: Tensor) -> Hashable:
    """``t``, or for a small constant its value: two ``Const`` ops of one value are one input."""
    value = view.constant(t)
    if isinstance(value, np.ndarray | np.generic) and value.size <= _CONSTANT_KEY_MAX:
        return ("constant", t.dtype, value.dtype.str, value.shape, value.tobytes())
    return t


_NO_KEY = object()  # an attribute value with no exact hashable form


def _frozen(value: object) -> Hashable:
    """A hashable, exact form of an attribute value, or ``_NO_KEY``."""
    if isinstance(value, dict):
        items = tuple((k, _frozen(v)) for k, v in sorted(value.items()))
        return _NO_KEY if any(v is _NO_KEY for _, v in items) else ("dict", items)
    if isinstance(value, (list, tuple)):
        elements = tuple(_frozen(v) for v in value)
        return _NO_KEY if any(v is _NO_KEY for v in elements) else (type(value), elements)
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, Tensor):
        return ("tensor", value)
    try:
        hash(value)
    except TypeError:
        return _NO_KEY
    return (type(value), value)  # 1, 1.0 and True are different attributes
