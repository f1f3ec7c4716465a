"""Ops TF1's gradients use that daskflow's own gradients do not: ``BroadcastGradientArgs``
and ``ConcatOffset``. Graphs TF wrote hold them (:mod:`daskflow.ops.import_rules`), and
daskflow writes ``BroadcastGradientArgs`` where TF1 would (:mod:`daskflow.ops.export_rules`).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive


def _vectors(count):
    return lambda inputs: [((None,), inputs[-1].dtype)] * count


def _broadcast_gradient_args_kernel(xp, s0, s1):
    """The axes to sum each of two broadcast inputs' gradients over: where its shape
    (padded with leading ones) is 1."""
    dtype = np.asarray(s0).dtype
    s0, s1 = [int(d) for d in np.asarray(s0)], [int(d) for d in np.asarray(s1)]
    rank = max(len(s0), len(s1))
    a, b = [1] * (rank - len(s0)) + s0, [1] * (rank - len(s1)) + s1
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise InvalidArgumentError(None, None, f"Incompatible shapes: {s0} vs. {s1} (axis {i})")
    return tuple(np.array([i for i in range(rank) if dims[i] == 1], dtype=dtype) for dims in (a, b))


BroadcastGradientArgs = Primitive(
    "BroadcastGradientArgs", _vectors(2), _broadcast_gradient_args_kernel, NOT_DIFFERENTIABLE, host_only=True
)


def _concat_offset_infer(inputs):
    return [(t._dims, t.dtype) for t in inputs[1:]]


def _concat_offset_kernel(xp, axis, *shapes):
    """Where each input of a concatenation along ``axis`` starts in its output."""
    rank = len(shapes[0])
    if not -rank <= int(axis) < rank:
        raise InvalidArgumentError(None, None, f"Concat dim is out of range: {int(axis)} vs {rank}")
    axis = int(axis) % rank
    offsets, start = [], 0
    for shape in shapes:
        offset = np.zeros_like(np.asarray(shape))
        offset[axis] = start
        start += int(shape[axis])
        offsets.append(offset)
    return tuple(offsets)


ConcatOffset = Primitive(
    "ConcatOffset", _concat_offset_infer, _concat_offset_kernel, NOT_DIFFERENTIABLE, host_only=True
)
