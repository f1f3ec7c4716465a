"""TF1's ``tf.graph_util``: ``GraphDef`` surgery for deployment, on the protos themselves.

``extract_sub_graph`` keeps the nodes some outputs need; ``convert_variables_to_constants``
freezes a graph: each variable those outputs read becomes a ``Const`` node holding its
value in a session, so the GraphDef runs (here, under ``tf.import_graph_def``, or in
TensorFlow) without a checkpoint.
"""

from __future__ import annotations

import copy

import numpy as np

from . import protos

_VARIABLES = {"VariableV2", "Variable"}  # (resource variables' handles: not frozen here)


def _producer(text):
    return text.lstrip("^").split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes of ``graph_def`` that the nodes ``dest_nodes`` need, in their order.

    Parameters
    ----------
    graph_def : GraphDef
    dest_nodes : list of str
        Node names (not tensor names).

    Returns
    -------
    GraphDef
        A new GraphDef of those nodes (copies), with the same versions.

    Raises
    ------
    TypeError
        ``graph_def`` is no GraphDef, or ``dest_nodes`` no list of names.
    AssertionError
        A name in ``dest_nodes`` is not a node of the graph (TF1's type).
    """
    if not hasattr(graph_def, "node"):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    by_name = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        assert name in by_name, f"{name} is not in graph"
    needed, stack = set(), list(dest_nodes)
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            stack.extend(_producer(text) for text in by_name[name].input)
    out = type(graph_def)()
    out.versions.CopyFrom(graph_def.versions)
    out.node.extend(copy.deepcopy(node) for node in graph_def.node if node.name in needed)
    return out


def convert_variables_to_constants(
    sess, input_graph_def, output_node_names, variable_names_whitelist=None, variable_names_blacklist=None
):
    """``input_graph_def`` cut to ``output_node_names``, its variables made constants of
    their values in ``sess`` (TF1's function).

    Parameters
    ----------
    sess : Session
        Holds the variables' values.
    input_graph_def : GraphDef
        ``sess.graph.as_graph_def()``, typically.
    output_node_names : list of str
        The nodes the frozen graph must compute.
    variable_names_whitelist, variable_names_blacklist : list of str, optional
        Only these variables / not these (TF1's lists).

    Returns
    -------
    GraphDef
        The frozen graph.
    """
    graph = extract_sub_graph(input_graph_def, output_node_names)
    frozen = [
        node.name
        for node in graph.node
        if node.op in _VARIABLES
        and (variable_names_whitelist is None or node.name in variable_names_whitelist)
        and (variable_names_blacklist is None or node.name not in variable_names_blacklist)
    ]
    values = dict(zip(frozen, sess.run([f"{name}:0" for name in frozen]))) if frozen else {}
    out = type(graph)()
    out.versions.CopyFrom(graph.versions)
    for node in graph.node:
        if node.name not in values:
            out.node.add().CopyFrom(node)
            continue
        value = np.asarray(values[node.name])
        const = out.node.add(name=node.name, op="Const", device=node.device)
        const.attr["dtype"].CopyFrom(protos.AttrValue(type=node.attr["dtype"].type))
        const.attr["value"].CopyFrom(protos.AttrValue(tensor=protos.tensor_proto(value)))
    return out
