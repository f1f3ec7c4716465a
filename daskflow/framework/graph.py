"""Graphs, operations and tensors — the dataflow graph a Session runs.

A :class:`Graph` owns its operations and the scope stacks that decorate new
ops (name scopes, device scopes, control dependencies, colocation). An
:class:`Operation` is one application of a primitive; its outputs are
:class:`Tensor` objects, symbolic handles that carry a static shape and dtype.
This module imports no dask: running a graph is the runtime's business.
"""

from __future__ import annotations

import contextlib
import re
import threading
import warnings
from typing import TYPE_CHECKING

from ..dtypes import as_dtype
from . import protos
from .device_spec import merge_device
from .graph_export import graph_def
from .primitive import PRIMITIVES
from .tensor_shape import TensorShape
from .versions import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER

if TYPE_CHECKING:
    from ..dtypes import DType

GRADIENT_OP_TYPE = "_gradient_op_type"  # TF1's attribute naming the gradient an override gave
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class Tensor:
    """A symbolic handle to one output of an :class:`Operation`.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 3], name="x")
    >>> x.name, x.shape.as_list()
    ('x:0', [None, 3])
    """

    # Equality and hashing stay object identity (tensors are graph nodes, as
    # in TF1), using the C defaults: session keys hash tensors every step.
    __slots__ = ("op", "value_index", "dtype", "_dims", "__weakref__")
    # The slots' types, for type checkers (annotations only: slots hold the values).
    op: Operation
    value_index: int
    dtype: DType
    _dims: tuple[int | None, ...] | None  # None: unknown rank

    def __init__(self):
        # TF1's tf.Tensor() takes no arguments and makes nothing usable: tensors
        # come from ops (made with _output below).
        raise TypeError(
            "tf.Tensor cannot be made directly: a tensor is an output of an operation "
            "(tf.constant, tf.placeholder, tf.convert_to_tensor...)"
        )

    @classmethod
    def _output(cls, op, value_index, dims, dtype):
        """Output ``value_index`` of ``op``, of static shape ``dims``."""
        tensor = object.__new__(cls)
        tensor.op = op
        tensor.value_index = value_index
        tensor.dtype = dtype
        tensor._dims = dims
        return tensor

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._dims)

    @property
    def device(self) -> str:
        return self.op.device

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape):
        """Refine the static shape; raises if it contradicts what is known."""
        self._dims = self.shape.merge_with(shape).dims

    def consumers(self) -> list:
        return [op for op in self.graph._ops if self in op.inputs]

    def eval(self, feed_dict=None, session=None):
        """Run the default (or given) session to compute this tensor."""
        return _session_for(session, self.graph).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __bool__(self):
        raise TypeError(
            f"using a tf.Tensor ({self.name}) as a Python bool is not allowed; "
            "run it in a Session, or use tf.where / tf.cond-like ops"
        )

    def __iter__(self):
        dims = self._dims
        if dims is None or not dims or dims[0] is None:
            raise TypeError(f"cannot iterate over {self.name}: its first dimension is unknown")
        return iter(self[i] for i in range(dims[0]))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"{self.name} is symbolic: run it in a Session to get a numpy array")


class Operation:
    """A node of the graph: a primitive applied to input tensors.

    Attributes
    ----------
    name, type, inputs, outputs, control_inputs, device, graph
        As in TF1; ``type`` is the primitive's name.
    """

    def __init__(self, graph, prim, name, inputs, attrs, specs):
        self.graph = graph
        self.primitive = prim
        self.name = name
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self._single_output = not isinstance(specs, list)
        specs = [specs] if self._single_output else specs
        self.outputs = tuple(Tensor._output(self, i, d, dt) for i, (d, dt) in enumerate(specs))
        self.control_inputs: list[Operation] = []
        self.device = ""
        self.colocation: Operation = self
        self._id = len(graph._ops)
        self._gradient_op_type: str | None = None  # Graph.gradient_override_map's name for it

    @property
    def type(self) -> str:
        return self.primitive.name

    @property
    def node_def(self):
        inputs = [t.name for t in self.inputs] + ["^" + c.name for c in self.control_inputs]
        attrs = self.attrs
        if self._gradient_op_type is not None:
            attrs = {**attrs, GRADIENT_OP_TYPE: self._gradient_op_type.encode()}
        return NodeDef(self.name, self.type, self.device, attrs, inputs)

    def values(self):
        return self.outputs

    def get_attr(self, name):
        if name == GRADIENT_OP_TYPE and self._gradient_op_type is not None:
            return self._gradient_op_type.encode()  # bytes, as TF1's string attributes
        if name not in self.attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        return self.attrs[name]

    def _add_control_input(self, op):
        self.control_inputs.append(_as_op(op))
        self.graph._mutations += 1  # existing ops changed: cached plans are stale

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def run(self, feed_dict=None, session=None):
        """Run this op in the default (or given) session; returns None."""
        _session_for(session, self.graph).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class NodeDef:
    """An op's description as TF1's ``NodeDef`` shows it: ``name``, ``op``, ``device``, ``attr``.

    Device functions read ``op.node_def.op`` to place by op type.
    """

    __slots__ = ("name", "op", "device", "attr", "input", "experimental_debug_info", "experimental_type")

    def __init__(
        self,
        name="",
        op="",
        device="",
        attr=None,
        input=(),  # noqa: A002 - TF1's field
        experimental_debug_info=None,
        experimental_type=None,
    ):
        self.name, self.op, self.device = name, op, device
        self.attr = dict(attr or {})
        self.input = list(input)
        # TF1's fields for where a node came from and its full type; daskflow fills neither.
        self.experimental_debug_info = experimental_debug_info
        self.experimental_type = experimental_type

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, device={self.device!r})"


class Graph:
    """A TF1 dataflow graph and its scopes.

    Examples
    --------
    >>> import daskflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     c = tf.constant(1.0, name="c")
    >>> c.graph is g
    True
    """

    def __init__(self):
        self._ops: list[Operation] = []
        self._by_name: dict[str, Operation] = {}
        self._used_names: dict[str, int] = {}
        self._name_scope = ""
        self._devices: list = []
        self._control_deps: list[list[Operation]] = []
        self._colocate: list[Operation | None] = []
        self._collections: dict[str, list] = {}
        self._finalized = False
        self.seed = None
        self.version = 0
        self._mutations = 0
        self._gradient_override_map: dict[str, str] = {}

    # -- building -----------------------------------------------------------
    def create_op(
        self,
        op_type,
        inputs,
        dtypes=None,
        input_types=None,
        name=None,
        attrs=None,
        op_def=None,
        compute_shapes=True,
        compute_device=True,
    ):
        """Add an op of ``op_type`` (a primitive, or its name) to this graph.

        As TF1's: ``dtypes`` and ``input_types``, when given, must be the
        outputs' and inputs' types (daskflow infers them and checks);
        ``compute_shapes`` has no effect (shapes are always inferred);
        ``compute_device=False`` leaves the op's device unset. ``attrs`` are the
        primitive's own attributes (Python values, not ``AttrValue`` protos).
        """
        if isinstance(dtypes, dict) and attrs is None:
            # daskflow's own ops call create_op(prim, inputs, attrs, name=...).
            return self._create_op(op_type, inputs, dtypes, name=name)
        if op_def is not None:
            raise NotImplementedError(
                "Graph.create_op(op_def=...): daskflow's ops are declared as primitives, not OpDefs; "
                "leave op_def None"
            )
        prim = _primitive(op_type)
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"Input #{i} is not a tensor: {t!r}")
        _check_types("input", [t.dtype for t in inputs], input_types, prim.name)
        op = self._create_op(prim, inputs, dict(attrs or {}), name=name, compute_device=compute_device)
        _check_types("output", [t.dtype for t in op.outputs], dtypes, prim.name)
        return op

    def _create_op(self, prim, inputs, attrs, name=None, compute_device=True):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified")
        for t in inputs:
            if t.graph is not self:
                raise ValueError(f"tensor {t.name} is from another graph than the op being built")
        if name and name.endswith("/"):
            name = name[:-1]  # a scope name, taken exactly (how TF names a variable's op)
        else:
            name = self.unique_name(name or prim.name)
        try:
            specs = prim.infer(inputs, **attrs)
        except (ValueError, TypeError) as e:
            raise type(e)(f"{name} ({prim.name}): {e}") from None
        op = Operation(self, prim, name, inputs, attrs, specs)
        op._gradient_op_type = self._gradient_override(prim.name)
        self._apply_scopes(op, compute_device)
        self._ops.append(op)
        self._by_name[name] = op
        self.version += 1
        return op

    def _apply_scopes(self, op, compute_device=True):
        for deps in self._control_deps:
            op.control_inputs.extend(d for d in deps if d not in op.control_inputs)
        if not compute_device:
            return
        target = self._colocate[-1] if self._colocate else None
        if target is not None:
            op.colocation = target.colocation
            op.device = target.colocation.device
            return
        device = ""
        for entry in self._devices:
            if entry is None:
                device = ""
            elif callable(entry):
                op.device = device  # a device function sees the device set so far, as in TF1
                device = merge_device(device, entry(op))
            else:
                device = merge_device(device, entry)
        op.device = device

    def unique_name(self, name, mark_as_used=True):
        """TF1's rule: the first ``a`` is ``a``, then ``a_1``, ``a_2``..."""
        if not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid op name")
        name = f"{self._name_scope}/{name}" if self._name_scope else name
        used = self._used_names
        key = name.lower()
        i = used.get(key, 0)
        if mark_as_used:
            used[key] = i + 1
        if i == 0:
            return name
        while f"{key}_{i}" in used:
            i += 1
        if mark_as_used:
            used[f"{key}_{i}"] = 1
        return f"{name}_{i}"

    # -- scopes -------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        _stack().append(self)
        try:
            yield self
        finally:
            _stack().pop()

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._name_scope
        if name is None or name == "":
            scope = ""
        elif name.endswith("/"):
            scope = name[:-1]  # re-entering an existing scope exactly
        else:
            saved, self._name_scope = self._name_scope, old
            scope = self.unique_name(name)
            self._name_scope = saved
        self._name_scope = scope
        try:
            yield (scope + "/") if scope else ""
        finally:
            self._name_scope = old

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        spec = device_name_or_function
        if spec is not None and not callable(spec):
            merge_device("", spec)  # validate now, naming the bad string
        self._devices.append(spec)
        try:
            yield
        finally:
            self._devices.pop()

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            saved, self._control_deps = self._control_deps, []
            try:
                yield
            finally:
                self._control_deps = saved
            return
        ops = [_as_op(c) for c in control_inputs]
        self._control_deps.append(ops)
        try:
            yield
        finally:
            self._control_deps.pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Within the block, ops of the types in ``op_type_map`` take their gradient from the
        function registered (:class:`RegisterGradient`) under the name it maps them to.

        Parameters
        ----------
        op_type_map : dict
            Op type -> registered name, both strings (``{"Identity": "ReverseGrad"}``).

        Raises
        ------
        TypeError
            ``op_type_map`` is not a dict of strings to strings.
        """
        if not isinstance(op_type_map, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()
        ):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        unknown = sorted(k for k in op_type_map if k not in PRIMITIVES)
        if unknown:  # a TF op type daskflow builds from others (BiasAdd is an Add): nothing to map
            warnings.warn(
                f"gradient_override_map: daskflow makes no op of type {', '.join(map(repr, unknown))}; "
                "the override applies to none of its ops",
                stacklevel=3,
            )
        saved = {k: self._gradient_override_map.get(k) for k in op_type_map}
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:  # only this block's own keys, as TF1 restores them
            for k, v in saved.items():
                if v is None:
                    self._gradient_override_map.pop(k, None)
                else:
                    self._gradient_override_map[k] = v

    def _gradient_override(self, op_type):
        """The name an enclosing ``gradient_override_map`` gives ops of ``op_type``: this
        graph's, else that of the graph a branch or loop body is built in."""
        graph = self
        while graph is not None:
            name = graph._gradient_override_map.get(op_type)
            if name is not None:
                return name
            graph = getattr(graph, "outer", None)
        return None

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        target = None if op is None else _as_op(op)
        saved = self._colocate
        if ignore_existing:
            self._colocate = []
        self._colocate.append(target)
        try:
            yield
        finally:
            self._colocate = saved if ignore_existing else self._colocate[:-1]

    # -- lookup ---------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name) -> Operation:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"the graph has no operation named {name!r}") from None

    def get_tensor_by_name(self, name) -> Tensor:
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(f"{name!r} is not a tensor name (expected 'op_name:index')")
        op = self.get_operation_by_name(op_name)
        if int(index) >= len(op.outputs):
            raise KeyError(f"operation {op_name!r} has only {len(op.outputs)} output(s)")
        return op.outputs[int(index)]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            return self.get_operation_by_name(obj)
        element = getattr(obj, "_as_graph_element", lambda: obj)()
        if not isinstance(element, (Tensor, Operation)):
            raise TypeError(f"cannot interpret {obj!r} as a graph element")
        if element.graph is not self:
            raise ValueError(f"{element.name} is not an element of this graph")
        return element

    # -- collections ----------------------------------------------------------
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for name in [names] if isinstance(names, str) else names:
            self.add_to_collection(name, value)

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [i for i in items if pattern.match(getattr(i, "name", ""))]

    def get_all_collection_keys(self):
        """The names of the collections that hold something."""
        return [name for name, items in self._collections.items() if items]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def as_graph_def(self, from_version=None, add_shapes=False, use_pybind11_proto=False):
        """The graph as TF's ``GraphDef`` proto (what TensorBoard's Graphs tab draws).

        Every node, whatever ``from_version`` says, as TensorFlow 2's TF1 API
        does; ``use_pybind11_proto`` (how TF gets the proto from C++) changes nothing.
        """
        return graph_def(self, add_shapes)

    @property
    def graph_def_versions(self):
        """The ``VersionDef`` of this graph's ``GraphDef``: see :mod:`daskflow.framework.versions`."""
        versions = protos.GraphDef().versions
        versions.producer, versions.min_consumer = GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER
        return versions

    def finalize(self):
        self._finalized = True

    def _unsafe_unfinalize(self):
        """Allow new ops again (TF1's name: what a closing MonitoredSession does)."""
        self._finalized = False

    @property
    def finalized(self):
        return self._finalized


def prepend_name_scope(name, import_scope):
    """``name`` under ``import_scope`` (TF1's ``ops.prepend_name_scope``; None: unchanged)."""
    return f"{import_scope}/{name}" if import_scope and name else name


def strip_name_scope(name, export_scope):
    """``name`` without a leading ``export_scope/`` (TF1's ``ops.strip_name_scope``)."""
    prefix = f"{export_scope}/" if export_scope else None
    return name[len(prefix) :] if prefix and name.startswith(prefix) else name


def _primitive(op_type):
    if not isinstance(op_type, str):
        return op_type
    found = PRIMITIVES.get(op_type)
    if found is None:
        raise ValueError(f"Graph.create_op: no op type named {op_type!r} in daskflow")
    return found


def _check_types(which, actual, expected, op_type):
    if expected is None:
        return

    expected = [as_dtype(t) for t in expected]
    if expected != list(actual):
        names = lambda ts: [t.name for t in ts]  # noqa: E731
        raise TypeError(
            f"In op {op_type!r}, {which} types ({names(actual)}) are not compatible "
            f"with expected types ({names(expected)})"
        )


def _as_op(x) -> Operation:
    x = getattr(x, "_as_graph_element", lambda: x)()
    if isinstance(x, Operation):
        return x
    if isinstance(x, Tensor):
        return x.op
    raise TypeError(f"expected an Operation or Tensor, got {x!r}")


# -- the default graph and default session stacks (thread-local, as in TF1) --
_local = threading.local()
_global_default_graph = None


def _stack() -> list:
    if not hasattr(_local, "graphs"):
        _local.graphs = []
    return _local.graphs


def get_default_graph() -> Graph:
    """The innermost graph of ``as_default`` scopes, else the global graph."""
    stack = _stack()
    if stack:
        return stack[-1]
    global _global_default_graph
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph():
    """Replace the global default graph with a new, empty one."""
    if _stack():
        raise AssertionError("do not reset the default graph inside a Graph.as_default() block")
    global _global_default_graph
    _global_default_graph = Graph()


def session_stack() -> list:
    if not hasattr(_local, "sessions"):
        _local.sessions = []
    return _local.sessions


def get_default_session():
    stack = session_stack()
    return stack[-1] if stack else None


def _session_for(session, graph):
    session = session or get_default_session()
    if session is None:
        raise ValueError(
            "no default session is registered: use `with sess.as_default():` or pass session= to eval()/run()"
        )
    if session.graph is not graph:
        raise ValueError("the session's graph is not the graph of this tensor or operation")
    return session


def name_scope(name, default_name=None, values=None):
    """Open a name scope in the default graph (TF1 ``tf.name_scope``)."""
    return get_default_graph().name_scope(name if name is not None else default_name)


def device(device_name_or_function):
    """Set the device (string, DeviceSpec or function of the op) for new ops."""
    return get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    """New ops in this scope run only after ``control_inputs``."""
    return get_default_graph().control_dependencies(control_inputs)


def colocate_with(op, ignore_existing=False):
    """New ops in this scope are placed with ``op``."""
    return get_default_graph().colocate_with(op, ignore_existing)
