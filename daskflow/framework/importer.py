"""``tf.import_graph_def``: a ``GraphDef`` (TensorFlow's, or one daskflow wrote) into the
default graph.

Each ``NodeDef`` becomes daskflow ops by its op type's rule
(:mod:`daskflow.ops.import_rules`), named ``<name>/<node name>`` so that
``graph.get_tensor_by_name("import/logits:0")`` finds it, on the node's device, after its
control inputs. Nodes are taken in dependency order, whatever their order in the proto.
``input_map`` replaces a node's output by a tensor of this graph (``"x:0"`` or ``"x"``);
``return_elements`` names what to return (``"logits:0"``: a tensor, ``"train"``: an op).
A node whose op type has no rule is a ``ValueError`` naming it, before anything is added.
"""

from __future__ import annotations

import functools
import re

from .. import dtypes
from ..ops.array_ops import identity
from .apply import apply
from .graph import Tensor, control_dependencies, device, get_default_graph, name_scope
from .op_defs import op_def
from .primitive import PRIMITIVES
from .tensor_util import make_ndarray

_INPUT = re.compile(r"^(\^)?([^:]+)(?::(\d+))?$")


def _decode_attr(value):
    """A proto ``AttrValue`` as a Python value: dtypes, shapes as lists (None: unknown),
    tensors as numpy arrays, lists of those."""
    kind = value.WhichOneof("value")
    if kind == "list":
        items = value.list
        for name in ("s", "i", "f", "b", "type", "shape", "tensor"):
            entries = getattr(items, name)
            if len(entries):
                return [_scalar(name, e) for e in entries]
        return []
    return None if kind is None else _scalar(kind, getattr(value, kind))


def _scalar(kind, value):
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape":
        return None if value.unknown_rank else [None if d.size < 0 else d.size for d in value.dim]
    if kind == "tensor":
        return make_ndarray(value)
    if kind == "s":
        return value.decode()
    if kind in ("i", "f", "b"):
        return value
    return None  # functions, placeholders of attrs: no rule reads them


def _ordered(nodes):
    """The nodes, each after the nodes it reads (``ValueError`` for a cycle or a missing one)."""
    by_name = {n.name: n for n in nodes}
    done, visiting, order = set(), set(), []
    for root in nodes:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                visiting.discard(node.name)
                done.add(node.name)
                order.append(node)
                continue
            if node.name in done:
                continue
            if node.name in visiting:
                raise ValueError(f"import_graph_def: the GraphDef has a cycle through node {node.name!r}")
            visiting.add(node.name)
            stack.append((node, True))
            for text in node.input:
                producer = _INPUT.match(text).group(2)
                if producer not in by_name:
                    raise ValueError(
                        f"import_graph_def: node {node.name!r} reads {text!r}, which the GraphDef lacks"
                    )
                if producer not in done:
                    stack.append((by_name[producer], False))
    return order


def import_graph_def(
    graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None
):
    """Import ``graph_def``'s nodes into the default graph (TF1's ``tf.import_graph_def``).

    Parameters
    ----------
    graph_def : GraphDef
        TF's proto (``tf.GraphDef``, read from a ``.pb`` file with ``ParseFromString``).
    input_map : dict, optional
        Names in ``graph_def`` (``"x:0"``, ``"x"``) to tensors of the default graph used
        instead of those outputs.
    return_elements : list of str, optional
        Names in ``graph_def`` to return: ``"op"`` an operation, ``"op:0"`` a tensor.
    name : str, optional
        The prefix of the imported names (``"import"``; ``""`` for none).
    op_dict, producer_op_list
        TF1's, ignored (TF ignores ``op_dict`` too).

    Returns
    -------
    list or None
        The ``return_elements``, in order.

    Raises
    ------
    ValueError
        A node of an op type daskflow cannot import (naming the node and the type), an
        ``input_map`` or ``return_elements`` name the GraphDef lacks.
    TypeError
        ``graph_def`` is no GraphDef, or ``input_map`` maps to something other than tensors.
    """
    # local import: the import rules (and the ops they build) load with the first imported graph
    from ..ops import import_rules

    if not hasattr(graph_def, "node"):
        raise TypeError(f"graph_def must be a GraphDef proto; got {type(graph_def).__name__}")
    if not import_rules.RULES:
        import_rules.install()
    mapped = _input_map(input_map)
    missing = [n for n in graph_def.node if not _importable(n)]
    if missing:
        kinds = sorted({n.op for n in missing})
        raise ValueError(
            f"import_graph_def: node {missing[0].name!r} is a {missing[0].op!r} op, which daskflow cannot "
            f"import (op types without a rule: {kinds})"
        )
    outputs = {}
    graph = get_default_graph()
    scope = name_scope(None) if name == "" else name_scope(name, "import")
    with scope:
        for node in _ordered(list(graph_def.node)):
            outputs[node.name] = _import_node(node, outputs, mapped, _rule(node.op))
    unused = sorted(set(mapped) - {f"{n}:{i}" for n, outs in outputs.items() for i in range(len(outs))})
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(unused)}]")
    return None if return_elements is None else [_element(e, outputs, graph) for e in return_elements]


@functools.cache  # the tables are filled before the first import and fixed after
def _rule(op_type):
    """How to import a node of ``op_type``: its rule, else, for an op daskflow writes in
    TF's form unchanged (no export rule) or as its own, its primitive applied to the
    attributes it takes; None when there is neither."""
    from ..ops import export_rules, import_rules  # local import: as in import_graph_def

    found = import_rules.RULES.get(op_type)
    if found is None and op_type in PRIMITIVES and op_type not in export_rules.RULES:
        found = _primitive_rule(PRIMITIVES[op_type])
    return found


def _importable(node):
    """Whether ``node`` has a rule, and the attributes a primitive's own rule needs."""
    found = _rule(node.op)
    needs, attrs = getattr(found, "needs", set()), _with_defaults(node)
    return found is not None and all(k in attrs or (k == "dims" and "shape" in attrs) for k in needs)


def _with_defaults(node):
    """``node`` 's attributes, and TF's defaults of those it leaves out (as TF imports it)."""
    attrs = dict(node.attr.items())
    signature = op_def(node.op)
    for key in signature.attrs if signature is not None else ():
        if key not in attrs:
            default = signature.default(key)
            if default is not None:
                attrs[key] = default
    return attrs


def _primitive_rule(prim):
    import inspect

    takes, needs = set(), set()
    for fn in (prim.infer, prim.kernel):
        if fn is not None:
            params = [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY
            ]
            takes |= {p.name for p in params}
            needs |= {p.name for p in params if p.default is inspect.Parameter.empty}

    def build(inputs, attrs, name):
        if "dims" in takes and "dims" not in attrs and "shape" in attrs:
            attrs = {**attrs, "dims": attrs["shape"]}  # the export's name of daskflow's dims
        kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items() if k in takes}
        return apply(prim, *inputs, name=name, **kwargs)

    build.needs = needs
    return build


def _input_map(input_map):
    mapped = {}
    for key, value in (input_map or {}).items():
        if not isinstance(value, Tensor):
            raise TypeError(f"input_map[{key!r}] must be a Tensor; got {type(value).__name__}")
        mapped[key if ":" in key else f"{key}:0"] = value
    return mapped


def _import_node(node, outputs, mapped, build):
    from ..ops.import_rules import COMPOSITE  # local import: as in import_graph_def

    inputs, controls = [], []
    for text in node.input:
        control, producer, index = _INPUT.match(text).groups()
        if control:
            controls.append(outputs[producer][0].op if outputs[producer] else None)
            continue
        key = f"{producer}:{int(index or 0)}"
        inputs.append(mapped[key] if key in mapped else outputs[producer][int(index or 0)])
    attrs = {key: _decode_attr(value) for key, value in _with_defaults(node).items()}
    composite = node.op in COMPOSITE
    with device(node.device or None), control_dependencies([c for c in controls if c is not None]):
        made = build(inputs, attrs, f"{node.name}_parts" if composite else node.name)
        if composite:  # its output 0 under the node's own name (the others pass through)
            made = list(made) if isinstance(made, (list, tuple)) else [made]
            made[0] = identity(made[0], name=node.name)
    if made is None or hasattr(made, "outputs") and not made.outputs:  # an op of no outputs (NoOp)
        return [_NoOutput(made)]
    made = list(made) if isinstance(made, (list, tuple)) else [made]
    if "_gradient_op_type" in node.attr:  # a gradient_override_map's name, as TF1 keeps it
        made[0].op._gradient_op_type = node.attr["_gradient_op_type"].s.decode()
    return made


class _NoOutput:
    """Stands for an op without outputs, so its control dependants find it."""

    def __init__(self, op):
        self.op = op


def _element(text, outputs, graph):
    match = _INPUT.match(text)
    if match is None or match.group(2) not in outputs:
        raise ValueError(f"Requested return_element {text!r} not found in graph_def.")
    made = outputs[match.group(2)]
    if match.group(3) is None:
        return made[0].op
    return made[int(match.group(3))]
