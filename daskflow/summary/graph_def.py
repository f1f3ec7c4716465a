"""A daskflow graph as TF's ``GraphDef`` proto, for TensorBoard's Graphs tab.

One ``NodeDef`` per op: its name, its type, its inputs named as TF names
them (``op`` for output 0, ``op:1`` for the others, ``^op`` for a control
input), its device, and the attributes TensorBoard shows: the element type
(``dtype`` on sources, ``T`` on the rest), ``_output_shapes``, and the op's
own plain attributes (numbers, strings, dtypes, a constant's value; ``dims``
becomes TF's ``shape``).
Attributes of other kinds (functions, datasets) are left out.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from . import protos

# Ops whose element type TF calls ``dtype``; every other op calls it ``T``.
_SOURCE_TYPES = {"Const", "Placeholder", "PlaceholderWithDefault", "VariableV2"}


def graph_def(graph, add_shapes=True) -> protos.GraphDef:
    """``graph`` as a ``GraphDef`` proto.

    Parameters
    ----------
    graph : Graph
        The daskflow graph.
    add_shapes : bool
        Record each op's static output shapes as ``_output_shapes``.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.summary.graph_def import graph_def
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     y = tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="y")
    >>> node = graph_def(g).node[2]
    >>> node.name, node.op, list(node.input)
    ('y', 'Add', ['a', 'b'])
    """
    proto = protos.GraphDef(node=[node_def(op, add_shapes) for op in graph.get_operations()])
    proto.versions.CopyFrom(graph.graph_def_versions)
    return proto


def node_def(op, add_shapes=True) -> protos.NodeDef:
    """One op as a ``NodeDef`` proto."""
    node = protos.NodeDef(name=op.name, op=op.type, device=op.device or "")
    node.input.extend(_input_name(t) for t in op.inputs)
    node.input.extend(f"^{c.name}" for c in op.control_inputs)
    for key, value in op.attrs.items():
        if key == "dims" and _is_dims(value):  # daskflow's static shape attribute is TF's ``shape``
            key, attr = "shape", protos.AttrValue(shape=protos.shape_proto(value))
        else:
            attr = attr_value(value)
        if attr is not None:
            node.attr[key].CopyFrom(attr)
    element_type = _element_type(op)
    type_key = "dtype" if op.type in _SOURCE_TYPES else "T"
    if element_type is not None and type_key not in node.attr:
        node.attr[type_key].CopyFrom(protos.AttrValue(type=element_type.as_datatype_enum))
    if add_shapes and op.outputs:
        shapes = [protos.shape_proto(t._dims) for t in op.outputs]
        node.attr["_output_shapes"].CopyFrom(protos.AttrValue(list=protos.AttrValue.ListValue(shape=shapes)))
    return node


def _is_dims(value) -> bool:
    return value is None or (isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value))


def _input_name(tensor) -> str:
    return tensor.op.name if tensor.value_index == 0 else tensor.name


def _element_type(op):
    """The dtype TF would put in ``T``: the first input's, else the first output's."""
    if op.inputs and op.type not in _SOURCE_TYPES:
        return op.inputs[0].dtype
    return op.outputs[0].dtype if op.outputs else None


def attr_value(value):
    """``value`` as an ``AttrValue`` proto, or None when it has no plain form."""
    AttrValue = protos.AttrValue  # noqa: N806 - the proto's class
    if isinstance(value, (bool, np.bool_)):
        return AttrValue(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return AttrValue(i=int(value))
    if isinstance(value, (float, np.floating)):
        return AttrValue(f=float(value))
    if isinstance(value, str):
        return AttrValue(s=value.encode())
    if isinstance(value, bytes):
        return AttrValue(s=value)
    if isinstance(value, dtypes.DType):
        return AttrValue(type=value.as_datatype_enum)
    if isinstance(value, np.ndarray):
        return AttrValue(tensor=protos.tensor_proto(value))
    if isinstance(value, (list, tuple)):
        return _list_value(value)
    return None


def _list_value(items):
    ListValue = protos.AttrValue.ListValue  # noqa: N806 - the proto's class
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        return protos.AttrValue(list=ListValue(i=[int(v) for v in items]))
    if all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in items):
        return protos.AttrValue(list=ListValue(f=[float(v) for v in items]))
    if all(isinstance(v, str) for v in items):
        return protos.AttrValue(list=ListValue(s=[v.encode() for v in items]))
    if all(isinstance(v, dtypes.DType) for v in items):
        return protos.AttrValue(list=ListValue(type=[v.as_datatype_enum for v in items]))
    return None
