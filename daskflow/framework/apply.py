"""Adding an op of a primitive to the default graph, from Python and numpy values too."""

from __future__ import annotations

from .constant import convert_to_tensor
from .graph import get_default_graph
from .primitive import Primitive


def apply(prim: Primitive, *inputs, name=None, **attrs):
    """Add an op of kind ``prim`` to the default graph; return its output(s).

    Inputs are converted to tensors (Python and numpy values become
    constants). Returns a Tensor, or a tuple of them for multi-output ops.
    """
    graph = get_default_graph()
    tensors = [convert_to_tensor(x, graph=graph) for x in inputs]
    op = graph._create_op(prim, tensors, attrs, name=name)
    return op.outputs[0] if op._single_output else tuple(op.outputs)
