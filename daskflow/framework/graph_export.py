"""A daskflow graph as TF's ``GraphDef`` proto: what ``Graph.as_graph_def()`` returns,
TensorBoard's Graphs tab draws and TensorFlow imports.

One or more ``NodeDef`` s per op. An op whose form differs from TF's (an axis daskflow
keeps as an attribute where TF reads it as an input, an update TF does in one kernel)
is rewritten by its rule in :mod:`daskflow.ops.export_rules`; the rule may add helper
nodes named under the op's name (``sum/reduction_indices``). Then TF's signature of
the node's op type (:mod:`daskflow.framework.op_defs`) completes it: the type
attributes (``T``, ``Tidx``, ``N``...) from its inputs' and outputs' dtypes, TF's
defaults for the attributes it leaves out, and no attribute TF's op lacks. An op
type TF lacks (daskflow's own) is written with daskflow's attributes, for
TensorBoard to show; TF cannot import it.
Inputs are named as TF names them (``op`` for output 0, ``op:1`` for the others,
``^op`` for a control input).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from . import protos
from .op_defs import op_def
from .tensor_util import make_tensor_proto


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
    >>> from daskflow.framework.graph_export import graph_def
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     y = tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="y")
    >>> node = graph_def(g).node[2]
    >>> node.name, node.op, list(node.input)
    ('y', 'Add', ['a', 'b'])
    """
    ops = graph.get_operations()
    names = {op.name for op in ops}
    snapshots = {op: snapshot_name(op) for op in ops if op.primitive.is_variable}
    names.update(snapshots.values())
    after = {_snapshot_follows(op): op for op in snapshots}
    nodes = []
    for op in ops:
        nodes.extend(node_defs(op, names, add_shapes, snapshots))
        if op in after:
            nodes.append(_snapshot(after[op], snapshots[after[op]]))
    proto = protos.GraphDef(node=nodes)
    proto.versions.CopyFrom(graph.graph_def_versions)
    return proto


def node_defs(op, names=None, add_shapes=True, snapshots=None) -> list:
    """``op`` as ``NodeDef`` protos: its rule's helper nodes, then the op's own node.
    ``snapshots`` maps variables' ops to the names of their snapshots, which ``op`` reads
    them through unless it updates them or is an identity (see :func:`_snapshot`)."""
    # local import: a cycle, the export rules' ops build on framework/graph.py, which imports this module
    from ..ops import export_rules

    node = ExportedNode(op, names if names is not None else {op.name})
    if snapshots and not (
        op.primitive.updates_variable or op.primitive.accepts_uninitialized or op.type == "Identity"
    ):
        node.inputs = [(snapshots.get(t.op, text), dtype) for (text, dtype), t in zip(node.inputs, op.inputs)]
    rule = export_rules.RULES.get(op.type)
    if rule is not None:
        rule(node)
    own = _node_def(op.name, node.type, node.inputs, node.attrs, [t.dtype for t in op.outputs], op.device)
    own.input.extend(f"^{c.name}" for c in op.control_inputs)
    if op._gradient_op_type is not None:  # TF1 keeps a gradient_override_map's name in the node
        own.attr["_gradient_op_type"].s = op._gradient_op_type.encode()
    if add_shapes and op.outputs:
        shapes = [protos.shape_proto(t._dims) for t in op.outputs]
        own.attr["_output_shapes"].CopyFrom(protos.AttrValue(list=protos.AttrValue.ListValue(shape=shapes)))
    return [*node.helpers, own]


def snapshot_name(variable_op):
    """The name of a variable's snapshot: ``<variable>/read``, or ``read_1``... when the
    graph has an op of that name."""
    graph, name, count = variable_op.graph, f"{variable_op.name}/read", 0
    while name in graph._by_name:
        count += 1
        name = f"{variable_op.name}/read_{count}"
    return name


def _snapshot_follows(variable_op):
    """The op a variable's snapshot comes after: its initializer, as TF1 makes
    ``<variable>/read`` right after ``<variable>/Assign``; the variable itself when it
    has none (one imported without its ``VariableDef``)."""
    initializer = getattr(variable_op.attrs.get("variable"), "_initializer", None)
    if initializer is None or initializer.op.graph is not variable_op.graph:
        return variable_op
    return initializer.op


def _snapshot(variable_op, name):
    """The variable's value as the step's other ops read it: TF1's ``<variable>/read``, a
    ``Snapshot`` (a copy) rather than TF1's ``Identity``. daskflow's ops all read the value
    a variable had when the step began; in TF an op reading the variable itself, or an
    identity of it, could see an update made in place earlier in the step (TF1's own
    gradients order them with control dependencies instead)."""
    tensor = variable_op.outputs[0]
    node = _node_def(
        name, "Snapshot", [(variable_op.name, tensor.dtype)], {}, [tensor.dtype], variable_op.device
    )
    node.attr["_output_shapes"].CopyFrom(
        protos.AttrValue(list=protos.AttrValue.ListValue(shape=[protos.shape_proto(tensor._dims)]))
    )
    return node


def _unique(name, names):
    """``name``, or ``name_1``, ``name_2``... the first not in ``names`` (which it joins)."""
    found, count = name, 0
    while found in names:
        count += 1
        found = f"{name}_{count}"
    names.add(found)
    return found


class ExportedNode:
    """An op's ``NodeDef`` in the making, as an export rule edits it.

    ``type`` is TF's op type; ``inputs`` a list of ``(name, dtype)`` (TF's input names);
    ``attrs`` the attributes as Python values (dtypes, lists, numpy arrays).
    """

    def __init__(self, op, names):
        self.op = op
        self.type = op.type
        self.inputs = [(_input_name(t), t.dtype) for t in op.inputs]
        self.attrs = dict(op.attrs)
        self.helpers: list = []
        self._names = names

    def constant(self, suffix, value, dtype=dtypes.int32):
        """A helper ``Const`` node of ``value``; returns it as an input ``(name, dtype)``."""
        array = np.asarray(value, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
        return self.helper(suffix, "Const", [], {"value": array, "dtype": dtypes.as_dtype(dtype)}, dtype)

    def helper(self, suffix, op_type, inputs, attrs, dtype):
        """A helper node of TF's ``op_type`` with one output of ``dtype``, named under the op
        (``<op>/<suffix>``, made unique); returns its output as an input ``(name, dtype)``."""
        name = _unique(f"{self.op.name}/{suffix}", self._names)
        self.helpers.append(_node_def(name, op_type, inputs, attrs, [dtypes.as_dtype(dtype)], self.op.device))
        return name, dtypes.as_dtype(dtype)

    @property
    def rank(self):
        """The first input's static rank (None: unknown)."""
        dims = self.op.inputs[0]._dims
        return None if dims is None else len(dims)


def _node_def(name, op_type, inputs, attrs, output_dtypes, device):
    node = protos.NodeDef(name=name, op=op_type, device=device or "")
    node.input.extend(text for text, _ in inputs)
    signature = op_def(op_type)
    if signature is None:
        _daskflow_attrs(node, attrs, [d for _, d in inputs], output_dtypes)
    else:
        _tf_attrs(node, signature, attrs, [d for _, d in inputs], output_dtypes)
    return node


def _tf_attrs(node, signature, attrs, input_dtypes, output_dtypes):
    """TF's attributes of ``node``: ``attrs`` under TF's names, types from the dtypes of the
    inputs and outputs, TF's defaults for the rest."""
    attrs = dict(attrs)
    if "dims" in attrs and "shape" in signature.attrs and "shape" not in attrs:
        attrs["shape"] = attrs.pop("dims")  # daskflow's static shape is TF's ``shape``
    _types_from(signature.inputs, input_dtypes, attrs)
    _types_from(signature.outputs, output_dtypes, attrs)
    for key, (kind, _) in signature.attrs.items():
        value = attrs.get(key)
        given = value is not None or (kind == "shape" and key in attrs)  # None: unknown rank
        attr = _typed_attr(kind, value) if given else None
        # An attribute at TF's default is left out, as TF's strip_default_attrs leaves it:
        # TF's importers fill it in, and a TensorFlow older than the table's reads the node.
        if attr is not None and attr != signature.default(key):
            node.attr[key].CopyFrom(attr)


def _types_from(args, types, attrs):
    """Set the type, number and type-list attributes ``args`` take from ``types``: the
    tensors beyond the fixed arguments are shared evenly by the variadic ones whose
    number is not given (``DynamicStitch`` 's indices and data)."""
    variadic = [a for a in args if a.number_attr or a.type_list_attr]
    open_ended = [a for a in variadic if not (a.number_attr and a.number_attr in attrs)]
    given = sum(attrs[a.number_attr] for a in variadic if a not in open_ended)
    spare = max(len(types) - (len(args) - len(variadic)) - given, 0) // max(len(open_ended), 1)
    position = 0
    for arg in args:
        if arg.number_attr or arg.type_list_attr:
            count = attrs.get(arg.number_attr) if arg.number_attr and arg.number_attr in attrs else spare
            taken = types[position : position + count]
            if arg.number_attr:
                attrs.setdefault(arg.number_attr, count)
            if arg.type_list_attr:
                attrs.setdefault(arg.type_list_attr, list(taken))
            elif arg.type_attr and taken:
                attrs.setdefault(arg.type_attr, taken[0])
            position += count
            continue
        if arg.type_attr and position < len(types):
            attrs.setdefault(arg.type_attr, types[position])
        position += 1


def _typed_attr(kind, value):
    """``value`` as an ``AttrValue`` of TF's attribute ``kind`` (``"int"``, ``"list(type)"``...)."""
    AttrValue = protos.AttrValue  # noqa: N806 - the proto's class
    ListValue = AttrValue.ListValue  # noqa: N806
    if kind == "shape":
        return AttrValue(shape=protos.shape_proto(value))
    if kind == "type":
        return AttrValue(type=dtypes.as_dtype(value).as_datatype_enum)
    if kind == "tensor":
        return AttrValue(tensor=make_tensor_proto(np.asarray(value)))
    if kind == "list(type)":
        return AttrValue(list=ListValue(type=[dtypes.as_dtype(v).as_datatype_enum for v in value]))
    if kind == "list(shape)":
        return AttrValue(list=ListValue(shape=[protos.shape_proto(v) for v in value]))
    if kind == "list(int)":
        return AttrValue(list=ListValue(i=[int(v) for v in value]))
    if kind == "list(float)":
        return AttrValue(list=ListValue(f=[float(v) for v in value]))
    if kind == "list(string)":
        return AttrValue(list=ListValue(s=[_bytes(v) for v in value]))
    if kind == "string":
        return AttrValue(s=_bytes(value))
    return attr_value(value)


def _bytes(value):
    return value if isinstance(value, bytes) else str(value).encode()


def _daskflow_attrs(node, attrs, input_dtypes, output_dtypes):
    """A daskflow op's own attributes, for TensorBoard: the plain ones, and its element
    type as ``T``."""
    for key, value in attrs.items():
        if key == "dims" and _is_dims(value):
            key, attr = "shape", protos.AttrValue(shape=protos.shape_proto(value))
        else:
            attr = attr_value(value)
        if attr is not None:
            node.attr[key].CopyFrom(attr)
    element_type = (input_dtypes or output_dtypes or [None])[0]
    if element_type is not None and "T" not in node.attr:
        node.attr["T"].CopyFrom(protos.AttrValue(type=element_type.as_datatype_enum))


def _is_dims(value) -> bool:
    return value is None or (isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value))


def _input_name(tensor) -> str:
    return tensor.op.name if tensor.value_index == 0 else tensor.name


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
        return AttrValue(tensor=make_tensor_proto(value))
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
