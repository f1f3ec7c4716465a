"""``Variable``: state that persists across ``Session.run`` calls.

A variable is a ``VariableV2`` node (its value lives in the session, not the
graph), an initial-value subgraph, and an ``Assign`` initializer. Converting a
variable to a tensor yields the node's output, so every reader and
``gradients`` see the same tensor.
"""

from __future__ import annotations

import enum

from . import dtypes
from .framework.apply import apply
from .framework.constant import constant, convert_to_tensor
from .framework.function import init_scope
from .framework.graph import (
    _session_for,
    control_dependencies,
    get_default_graph,
    name_scope,
    prepend_name_scope,
    strip_name_scope,
)
from .framework.graph_export import snapshot_name
from .framework.tensor_shape import TensorShape, as_dims
from .ops import state_ops
from .ops.array_ops import identity
from .ops.control_flow_ops import group


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies agree (TF1's enum; daskflow keeps one value)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (TF1's enum; daskflow keeps one value)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class GraphKeys:
    """Standard collection names (TF1)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    GLOBAL_STEP = "global_step"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    SUMMARY_OP = "summary_op"
    TRAIN_OP = "train_op"
    QUEUE_RUNNERS = "queue_runners"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    METRIC_VARIABLES = "metric_variables"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
    SAVERS = "savers"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    EVAL_STEP = "eval_step"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    CONCATENATED_VARIABLES = "concatenated_variables"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    SAVEABLE_OBJECTS = "saveable_objects"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"


class Variable:
    """A tensor whose value persists across ``Session.run`` calls.

    Parameters
    ----------
    initial_value : array-like, Tensor or callable
        The value the initializer assigns; a callable is called to build it.
    trainable : bool
        Whether the variable joins ``TRAINABLE_VARIABLES`` (what optimizers
        update by default).

    Examples
    --------
    >>> import daskflow as tf
    >>> w = tf.Variable(tf.zeros([3, 2]), name="w")
    >>> with tf.Session() as sess:
    ...     sess.run(w.initializer)
    ...     sess.run(w.assign_add(tf.ones([3, 2]))).sum()
    np.float32(6.0)
    """

    def __init__(
        self,
        initial_value=None,
        trainable=None,
        collections=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        expected_shape=None,
        import_scope=None,
        constraint=None,
        use_resource=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
        shape=None,
    ):
        if initial_value is None:
            raise ValueError("Variable needs an initial_value")
        synchronization = VariableSynchronization(synchronization)
        if trainable is None:  # TF1: a variable synchronised on read is not trained unless asked
            trainable = synchronization is not VariableSynchronization.ON_READ
        # Like TF1's init_scope: a variable and its initializer never inherit the
        # control dependencies around their creation, and one made inside a loop
        # body or branch lives in the outermost graph.
        with init_scope(), control_dependencies(None), name_scope(name or "Variable") as scope:
            self._initial_value = _initial_tensor(initial_value, dtype)
            dims = as_dims(shape) if shape is not None else self._initial_value._dims
            if not validate_shape:
                dims = None
            self._ref = apply(
                state_ops.VariableV2,
                dims=dims,
                dtype=self._initial_value.dtype,
                variable=self,
                name=scope,
            )
            with get_default_graph().colocate_with(self._ref.op):
                self._initializer = _update(state_ops.Assign, self._ref, self._initial_value, "Assign")
            self.trainable = trainable
            collections = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
            if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
                collections.append(GraphKeys.TRAINABLE_VARIABLES)
            get_default_graph().add_to_collections(collections, self)

        self._set_tf1_attributes(constraint, synchronization, aggregation)

    def _set_tf1_attributes(self, constraint, synchronization, aggregation):
        self._constraint = constraint
        self._synchronization = VariableSynchronization(synchronization or VariableSynchronization.AUTO)
        self._aggregation = VariableAggregation(aggregation or VariableAggregation.NONE)

    # -- TF1 attributes ---------------------------------------------------------------
    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def name(self):
        return self._ref.name

    @property
    def op(self):
        return self._ref.op

    @property
    def graph(self):
        return self._ref.graph

    @property
    def dtype(self):
        return self._ref.dtype

    @property
    def shape(self) -> TensorShape:
        return self._ref.shape

    @property
    def device(self):
        return self._ref.op.device

    @property
    def initializer(self):
        return self._initializer.op

    @property
    def initial_value(self):
        return self._initial_value

    def get_shape(self):
        return self.shape

    def value(self):
        return self._ref

    def read_value(self):
        return identity(self._ref)

    def initialized_value(self):
        """This variable's value once initialized: its value if it has one, else its initial
        value (TF1's ``cond(is_variable_initialized(v), v.read_value, lambda: initial_value)``),
        so another variable's initial value can be made from it in any initialization order.
        """
        with init_scope():
            return apply(state_ops.InitializedValue, self._ref, self._initial_value, name="initialized_value")

    def _as_tensor(self):
        return self._ref

    def _as_graph_element(self):
        return self._ref

    def eval(self, session=None):
        return self._ref.eval(session=session)

    def load(self, value, session=None):
        """Assign ``value`` (numpy) to this variable in the session."""
        _session_for(session, self.graph).load_variable(self, value)

    # -- updates -------------------------------------------------------------------------------
    # TF1: the new value, or with ``read_value=False`` the assign op itself
    def assign(self, value, use_locking=False, name=None, read_value=True):
        return _read_or_op(assign(self, value, name=name), read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return _read_or_op(assign_add(self, delta, name=name), read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return _read_or_op(assign_sub(self, delta, name=name), read_value)

    def to_proto(self, export_scope=None):
        """This variable as TF's ``VariableDef`` proto (what a meta graph's collections hold).

        Its snapshot is ``<name>/read``, which ``Graph.as_graph_def`` writes
        (:mod:`daskflow.framework.graph_export`).
        """
        from tensorboard.compat.proto.variable_pb2 import VariableDef

        def scoped(name):
            return strip_name_scope(name, export_scope)

        proto = VariableDef(
            variable_name=scoped(self.name),
            snapshot_name=scoped(f"{snapshot_name(self.op)}:0"),
            trainable=self.trainable,
        )
        if self._initializer is not None:
            proto.initializer_name = scoped(self.initializer.name)
        if self._initial_value is not None:
            proto.initial_value_name = scoped(self._initial_value.name)
        return proto

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """The variable a ``VariableDef`` names in the default graph (one imported by
        ``import_graph_def``), given the initializer and initial value it names."""
        graph = get_default_graph()

        def scoped(name):
            return prepend_name_scope(name, import_scope)

        variable = graph.get_tensor_by_name(scoped(variable_def.variable_name)).op.attrs.get("variable")
        if not isinstance(variable, Variable):
            raise ValueError(f"{variable_def.variable_name} is not a variable of this graph")
        if variable_def.initializer_name:
            variable._initializer = graph.get_operation_by_name(
                scoped(variable_def.initializer_name)
            ).outputs[0]
        if variable_def.initial_value_name:
            variable._initial_value = graph.get_tensor_by_name(scoped(variable_def.initial_value_name))
        variable.trainable = variable_def.trainable
        return variable

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def imported_variable(dims, dtype, name):
    """A variable a ``GraphDef`` declares (``import_graph_def``'s ``VariableV2`` node), in
    no collection and with no initializer yet: ``import_meta_graph`` gives it those its
    ``VariableDef`` names (:meth:`Variable.from_proto`)."""
    variable = object.__new__(Variable)
    variable._initializer = variable._initial_value = None
    variable.trainable = False
    variable._set_tf1_attributes(None, VariableSynchronization.AUTO, VariableAggregation.NONE)
    variable._ref = apply(state_ops.VariableV2, dims=dims, dtype=dtype, variable=variable, name=name)
    return variable


def _initial_tensor(initial_value, dtype):
    # TF1's names: a value made here is ``<variable>/initial_value``, or under
    # ``<variable>/Initializer/`` when a callable gives it; a tensor keeps its own name.
    dtype = dtype and dtypes.as_dtype(dtype)
    if callable(initial_value):
        with name_scope("Initializer"), control_dependencies(None):
            return convert_to_tensor(initial_value(), dtype=dtype, name="initial_value")
    return convert_to_tensor(initial_value, dtype=dtype, name="initial_value")


def _read_or_op(update, read_value):
    return update if read_value else update.op


def _update(prim, ref, value, name):
    ref = convert_to_tensor(ref)
    value = (
        convert_to_tensor(value, dtype=ref.dtype) if not hasattr(value, "op") else convert_to_tensor(value)
    )
    with get_default_graph().colocate_with(ref.op):
        return apply(prim, ref, value, dims=ref._dims, name=name)


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Set the variable ``ref`` to ``value``; returns the new value."""
    return _update(state_ops.Assign, ref, value, name)


def assign_add(ref, value, use_locking=None, name=None):
    """Add ``value`` to the variable ``ref``; returns the new value."""
    return _update(state_ops.AssignAdd, ref, value, name)


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtract ``value`` from the variable ``ref``; returns the new value."""
    return _update(state_ops.AssignSub, ref, value, name)


def global_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    """TF1's old name for :func:`global_variables` (it takes no scope)."""
    return global_variables()


def trainable_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of ``var_list``."""
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    """An op that initialises every global variable."""
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init_local")


def is_variable_initialized(variable):
    """A bool scalar: whether ``variable`` has a value in the session that runs it."""
    return apply(state_ops.IsVariableInitialized, variable, name="IsVariableInitialized")


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables of ``var_list`` (default: global
    and local variables) that have no value in the session that runs it."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    names = tuple(v.op.name for v in var_list)
    with control_dependencies(None):
        if not var_list:  # TF1's answer: an empty constant, of static shape [0]
            return constant([], dtype=dtypes.string, name=name)
        return apply(state_ops.ReportUninitialized, *var_list, names=names, name=name)
