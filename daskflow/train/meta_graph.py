"""TF1's meta graphs: ``export_meta_graph`` and ``import_meta_graph``.

A ``MetaGraphDef`` (TF's proto, as tensorboard ships it) holds the graph
(:mod:`daskflow.framework.graph_export`), the collections and the saver. ``Saver.save``
writes one beside each checkpoint (``<prefix>.meta``) unless ``write_meta_graph=False``.

What is written is what TensorFlow's ``import_meta_graph`` reads: variables in their
collections as ``VariableDef`` s, tensors and operations by name, numbers and strings
as lists; the saver as TF's save and restore nodes (``save/SaveV2``,
``save/restore_all``) named by the ``SaverDef``, so that TF's ``Saver`` restores a
daskflow checkpoint into the imported graph and training goes on there. A collection
of other Python objects (queue runners, control flow contexts) is left out, as TF
leaves out what it cannot serialize.

``import_meta_graph`` reads TF's meta graphs and daskflow's alike: the graph through
``import_graph_def`` (without the saver's nodes, which daskflow's ``Saver`` replaces),
then the collections, then a ``Saver`` over the variables the saver's nodes restored.
"""

from __future__ import annotations

import os

import fsspec

from .. import __version__, dtypes
from ..errors import UnimplementedError
from ..framework import protos
from ..framework.graph import Operation, Tensor, get_default_graph, prepend_name_scope, strip_name_scope
from ..framework.graph_export import _node_def
from ..framework.importer import import_graph_def
from ..framework.op_defs import tensorflow_version
from ..framework.tensor_util import make_ndarray
from ..variables import Variable, global_variables

__all__ = ["export_meta_graph", "import_meta_graph"]

# Collections whose items are variables, written as ``VariableDef`` s (TF's list).
VARIABLE_COLLECTIONS = (
    "variables",
    "trainable_variables",
    "local_variables",
    "model_variables",
    "moving_average_variables",
    "global_step",
    "metric_variables",
    "concatenated_variables",
)


def _protos():
    from tensorboard.compat.proto import meta_graph_pb2, saver_pb2

    return meta_graph_pb2, saver_pb2


def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text=False,
    graph=None,
    export_scope=None,
    clear_devices=False,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """The graph (default: the default graph) as TF's ``MetaGraphDef``; written to
    ``filename`` if given, as TF's bytes or, with ``as_text``, its text format.

    Parameters
    ----------
    filename : str or path, optional
        Where to write it (any fsspec URL).
    meta_info_def : MetaInfoDef, optional
        Its ``tags`` are written.
    graph_def : GraphDef, optional
        Written instead of the graph's own.
    saver_def : SaverDef, optional
        A ``Saver`` 's: its save and restore nodes are added to the graph.
    collection_list : list of str, optional
        The collections to write (default: all).
    clear_devices : bool
        Leave devices out of the nodes.
    graph, as_text
        As TF1's. Attributes at TF's defaults are always left out (``strip_default_attrs``);
        ``clear_extraneous_savers`` and ``save_debug_info`` are accepted; an ``export_scope``
        is refused (``UnimplementedError``).

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     v = tf.Variable(1.0, name="v")
    ...     meta = tf.train.export_meta_graph()
    >>> [node.name for node in meta.graph_def.node]
    ['v/initial_value', 'v', 'v/Assign', 'v/read']
    >>> sorted(meta.collection_def)
    ['trainable_variables', 'variables']
    """
    if export_scope:
        raise UnimplementedError(
            None, None, f"export_meta_graph: export_scope={export_scope!r} is not supported yet"
        )
    meta_graph_pb2, _ = _protos()
    graph = graph if graph is not None else get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tags.extend(getattr(meta_info_def, "tags", []) or [])
    # TF parses the version: the TensorFlow whose op signatures the nodes follow.
    meta.meta_info_def.tensorflow_version = tensorflow_version()
    meta.meta_info_def.tensorflow_git_version = f"daskflow-{__version__}"
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    else:  # a copy, of daskflow's GraphDef class (the saver's nodes are added to it)
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
    if saver_def is not None:
        with graph.as_default():
            meta.saver_def.CopyFrom(_saver_nodes(graph_def, saver_def, kwargs.get("saved_variables")))
    meta.graph_def.ParseFromString(graph_def.SerializeToString())
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    for key in sorted(collection_list if collection_list is not None else graph.get_all_collection_keys()):
        _add_collection(meta, key, graph.get_collection(key))
    if filename is not None:
        _write(os.fspath(filename), meta, as_text)
    return meta


def _write(filename, meta, as_text):
    from google.protobuf import text_format

    fs, path = fsspec.core.url_to_fs(filename)
    parent = os.path.dirname(path)
    if parent:
        fs.makedirs(parent, exist_ok=True)
    with fs.open(path, "w" if as_text else "wb") as f:
        f.write(text_format.MessageToString(meta) if as_text else meta.SerializeToString())


def _add_collection(meta, key, items):
    """Collection ``key`` as TF writes it; left out if it holds something TF cannot write."""
    if not items:
        return
    entry = meta.collection_def[key]
    if key in VARIABLE_COLLECTIONS and all(hasattr(v, "to_proto") for v in items):
        entry.bytes_list.value.extend(v.to_proto().SerializeToString() for v in items)
    elif all(isinstance(v, (Tensor, Operation)) or hasattr(v, "_as_graph_element") for v in items):
        entry.node_list.value.extend(_element_name(v) for v in items)
    elif all(isinstance(v, (str, bytes)) for v in items):
        entry.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in items)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        entry.int64_list.value.extend(items)
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        entry.float_list.value.extend(items)
    else:
        del meta.collection_def[key]


def _element_name(item):
    element = item._as_graph_element() if hasattr(item, "_as_graph_element") else item
    return element.name


def _saver_nodes(graph_def, saver_def, saved):
    """Add TF1's save and restore nodes for ``saved`` (``{checkpoint name: variable}``;
    default: the global variables by name) to ``graph_def``; return TF's ``SaverDef``
    naming them."""
    _, saver_pb2 = _protos()
    if saved is None:
        saved = {v.op.name: v for v in global_variables()}
    taken = {node.name for node in graph_def.node}
    scope = next(
        s for s in ("save", *(f"save_{i}" for i in range(1, len(taken) + 2))) if f"{s}/Const" not in taken
    )
    names = sorted(saved)
    variables = [saved[n] for n in names]
    string = dtypes.string

    def add(name, op_type, inputs, attrs, dtype=string):
        graph_def.node.append(_node_def(f"{scope}/{name}", op_type, inputs, attrs, [dtype], ""))
        return f"{scope}/{name}", dtype

    default = add("filename/input", "Const", [], {"value": _strings(["model"], ()), "dtype": string})
    filename = add("filename", "PlaceholderWithDefault", [default], {"shape": ()})
    path = add("Const", "PlaceholderWithDefault", [filename], {"shape": ()})
    tensor_names = add("SaveV2/tensor_names", "Const", [], {"value": _strings(names), "dtype": string})
    slices = add(
        "SaveV2/shape_and_slices", "Const", [], {"value": _strings([""] * len(names)), "dtype": string}
    )
    values = [(v.op.name, v.dtype) for v in variables]
    add("SaveV2", "SaveV2", [path, tensor_names, slices, *values], {})
    add("control_dependency", "Identity", [path, (f"^{scope}/SaveV2", string)], {})
    restore_names = add("RestoreV2/tensor_names", "Const", [], {"value": _strings(names), "dtype": string})
    restore_slices = add(
        "RestoreV2/shape_and_slices", "Const", [], {"value": _strings([""] * len(names)), "dtype": string}
    )
    restore = graph_def.node.add()
    restore.CopyFrom(
        _node_def(
            f"{scope}/RestoreV2",
            "RestoreV2",
            [path, restore_names, restore_slices],
            {"dtypes": [v.dtype for v in variables]},
            [v.dtype for v in variables],
            "",
        )
    )
    assigns = []
    for i, v in enumerate(variables):
        suffix = f"Assign_{i}" if i else "Assign"
        add(
            suffix,
            "Assign",
            [(v.op.name, v.dtype), (f"{scope}/RestoreV2:{i}" if i else f"{scope}/RestoreV2", v.dtype)],
            {},
            v.dtype,
        )
        assigns.append((f"^{scope}/{suffix}", v.dtype))
    add("restore_all", "NoOp", assigns, {})
    return saver_pb2.SaverDef(
        filename_tensor_name=f"{scope}/Const:0",
        save_tensor_name=f"{scope}/control_dependency:0",
        restore_op_name=f"{scope}/restore_all",
        max_to_keep=saver_def.max_to_keep,
        sharded=saver_def.sharded,
        keep_checkpoint_every_n_hours=saver_def.keep_checkpoint_every_n_hours,
        version=saver_pb2.SaverDef.V2,
    )


def _strings(values, shape=None):
    import numpy as np

    array = np.array([v.encode() for v in values], dtype=object)
    return array.reshape(shape) if shape is not None else array


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Import a meta graph (a ``MetaGraphDef`` or its file, TF's or daskflow's) into the
    default graph: its nodes, its collections; return a ``Saver`` of its variables.

    Parameters
    ----------
    meta_graph_or_file : MetaGraphDef or str
        The proto, or the path (any fsspec URL) of its file in TF's bytes or text format.
    clear_devices : bool
        Drop the nodes' devices (place them afresh).
    import_scope : str, optional
        A name scope for everything imported.

    Returns
    -------
    Saver or None
        A saver of the variables the meta graph's saver restores (or, without one, of
        its variables); None when it has no variables.

    Raises
    ------
    ValueError
        A node of an op type daskflow cannot import, named (``import_graph_def``'s error).
    """
    meta = _read(meta_graph_or_file)
    saver_nodes = _saver_nodes_of(meta.graph_def)
    graph_def = type(meta.graph_def)()
    graph_def.versions.CopyFrom(meta.graph_def.versions)
    graph_def.node.extend(n for n in meta.graph_def.node if n.name not in saver_nodes)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    import_graph_def(graph_def, name=import_scope or "")
    graph = get_default_graph()
    before = set(graph.get_collection("variables"))
    for key in sorted(meta.collection_def):
        _import_collection(graph, key, meta.collection_def[key], import_scope)
    imported = [v for v in graph.get_collection("variables") if v not in before]
    saved = _restored_variables(list(saver_nodes.values()), graph, import_scope)
    if saved is None:  # no saver: the variables the meta graph lists, by their own names
        saved = {strip_name_scope(v.op.name, import_scope): v for v in imported}
    if not saved:
        return None
    # local import: a cycle, saver.py imports this module (a Saver writes its meta graph)
    from .saver import Saver

    return Saver(var_list=saved, saver_def=meta.saver_def if meta.HasField("saver_def") else None)


# Collections of TF protos daskflow has no objects for (TF rebuilds savers, queue runners
# and control-flow contexts from them): left out, not kept as bytes code would misread.
PROTO_COLLECTIONS = {
    "savers",
    "queue_runners",
    "cond_context",
    "while_context",
    "local_resources",
    "resources",
}

# TF's ops that write and read checkpoints: the nodes a TF ``Saver`` builds hold them.
CHECKPOINT_OPS = {
    "SaveV2",
    "RestoreV2",
    "Save",
    "SaveSlices",
    "Restore",
    "RestoreSlice",
    "MergeV2Checkpoints",
}


def _saver_nodes_of(graph_def):
    """``{name: node}`` of the savers' nodes, which daskflow's ``Saver`` replaces: the
    checkpoint ops, the nodes after them (the restoring assignments, ``restore_all``) and
    the nodes only they read (names, slices, the filename); never a variable."""
    nodes = {n.name: n for n in graph_def.node}
    readers: dict = {}
    for node in graph_def.node:
        for text in node.input:
            readers.setdefault(text.lstrip("^").split(":")[0], []).append(node.name)
    found = {name for name, node in nodes.items() if node.op in CHECKPOINT_OPS}
    pending = list(found)
    while pending:  # what reads them
        for reader in readers.get(pending.pop(), ()):
            if reader not in found:
                found.add(reader)
                pending.append(reader)
    changed = True
    while changed:  # what only they read
        changed = False
        for name, node in nodes.items():
            users = readers.get(name)
            if name not in found and users and node.op != "VariableV2" and all(u in found for u in users):
                found.add(name)
                changed = True
    return {name: nodes[name] for name in found}


def _read(meta_graph_or_file):
    meta_graph_pb2, _ = _protos()
    if hasattr(meta_graph_or_file, "graph_def"):
        meta = meta_graph_pb2.MetaGraphDef()
        meta.ParseFromString(meta_graph_or_file.SerializeToString())
        return meta
    from google.protobuf import message, text_format

    path = os.fspath(meta_graph_or_file)
    fs, stripped = fsspec.core.url_to_fs(path)
    if not fs.exists(stripped):
        raise OSError(f"File {path} does not exist.")  # TF1's IOError
    with fs.open(stripped, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
    except message.DecodeError:
        try:
            text_format.Merge(data.decode(), meta)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise OSError(f"Cannot parse file {path}: {e}") from None
    return meta


def _import_collection(graph, key, entry, scope):
    def scoped(name):
        return prepend_name_scope(name, scope)

    kind = entry.WhichOneof("kind")
    if kind == "node_list":
        for name in entry.node_list.value:
            try:
                graph.add_to_collection(key, graph.as_graph_element(scoped(name)))
            except (KeyError, ValueError):  # a node the import left out (a saver's)
                continue
    elif kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
        from tensorboard.compat.proto.variable_pb2 import VariableDef

        for data in entry.bytes_list.value:
            graph.add_to_collection(key, Variable.from_proto(VariableDef.FromString(data), scope))
    elif kind == "bytes_list" and key not in PROTO_COLLECTIONS:
        graph.get_collection_ref(key).extend(entry.bytes_list.value)
    elif kind in ("int64_list", "float_list"):
        graph.get_collection_ref(key).extend(getattr(entry, kind).value)


def _restored_variables(saver_nodes, graph, scope):
    """``{checkpoint name: variable}`` as the saver's ``RestoreV2`` nodes read them into
    variables (through ``Assign``, or a resource variable's ``AssignVariableOp`` of an
    ``Identity``); None when there are none. A sliced restore (a partitioned variable's
    part) is refused by name: daskflow's variables are whole."""
    by_name = {n.name: n for n in saver_nodes}
    saved = {}
    for node in saver_nodes:
        if node.op not in ("Assign", "AssignVariableOp") or len(node.input) < 2:
            continue
        source, index = _restored_from(node.input[1], by_name)
        if source is None:
            continue
        names_node, slices_node = (by_name.get(source.input[k]) for k in (1, 2))
        if names_node is None or names_node.op != "Const":
            continue
        names = make_ndarray(names_node.attr["value"].tensor).reshape(-1)
        if slices_node is not None and slices_node.op == "Const":
            part = _text(make_ndarray(slices_node.attr["value"].tensor).reshape(-1)[index])
            if part:
                raise ValueError(f"import_meta_graph: {_text(names[index])} is restored in parts ({part})")
        variable_name = prepend_name_scope(node.input[0], scope)
        variable = graph.get_operation_by_name(variable_name).attrs.get("variable")
        saved[_text(names[index])] = variable
    return saved or None


def _restored_from(text, by_name):
    """The ``RestoreV2`` node and output index a value comes from (through identities)."""
    name, _, index = text.partition(":")
    node = by_name.get(name)
    while node is not None and node.op == "Identity" and node.input:
        name, _, index = node.input[0].partition(":")
        node = by_name.get(name)
    if node is None or node.op != "RestoreV2":
        return None, 0
    return node, int(index or 0)


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)
