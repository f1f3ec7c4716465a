"""``variable_scope`` and ``get_variable``: variables shared by name.

A graph keeps a store of the variables ``get_variable`` made, by full name,
and a stack of :class:`VariableScope` objects. A variable's name depends only
on the variable scopes around it (``foo/v``), never on name scopes; the ops
built inside a variable scope get a name scope of the same name, made unique
as TF1 makes it (the second ``variable_scope("foo")`` shares ``foo/v`` but
names its ops ``foo_1/...``). Reuse is inherited by inner scopes.
"""

from __future__ import annotations

import contextlib
import enum

from . import dtypes
from .framework.constant import convert_to_tensor
from .framework.graph import colocate_with, get_default_graph, name_scope
from .framework.tensor_shape import TensorShape
from .ops import init_ops
from .variables import GraphKeys, Variable, VariableAggregation, VariableSynchronization


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """The defaults ``get_variable`` uses inside a ``variable_scope``.

    Attributes
    ----------
    name : str
        The full scope name (``"outer/inner"``).
    original_name_scope : str
        The name scope its ops were built in (``"outer/inner_1/"``).
    reuse : bool or AUTO_REUSE
    """

    def __init__(
        self,
        reuse,
        name="",
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        name_scope="",
        dtype=dtypes.float32,
        use_resource=None,
        constraint=None,
    ):
        self._name = name
        self._name_scope = name_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._dtype = dtypes.as_dtype(dtype)
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtypes.as_dtype(dtype)

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def global_variables(self):
        return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, self._prefix())

    def trainable_variables(self):
        return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, self._prefix())

    def local_variables(self):
        return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, self._prefix())

    def _prefix(self):
        return self._name + "/" if self._name else None

    def _copy(self, **changes):
        fields = {
            "reuse": self._reuse,
            "name": self._name,
            "initializer": self._initializer,
            "regularizer": self._regularizer,
            "caching_device": self._caching_device,
            "partitioner": self._partitioner,
            "custom_getter": self._custom_getter,
            "name_scope": self._name_scope,
            "dtype": self._dtype,
            "use_resource": self._use_resource,
            "constraint": self._constraint,
        }
        fields.update(changes)
        return VariableScope(**fields)

    def get_variable(
        self,
        var_store,
        name,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        use_resource=None,
        custom_getter=None,
        constraint=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
    ):
        """``get_variable`` with this scope's defaults (``var_store`` is ignored)."""
        scope = self if reuse is None else self._copy(reuse=reuse)
        extra = dict(
            regularizer=regularizer,
            trainable=_trainable(trainable, synchronization),
            collections=collections,
            validate_shape=validate_shape,
            custom_getter=custom_getter,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        return _get_variable(scope, name, shape, dtype, initializer, **extra)

    def __repr__(self):
        return f"<VariableScope {self._name!r} reuse={self._reuse}>"


class _ScopeState:
    """A graph's variable store and scope stack (kept on the graph)."""

    def __init__(self):
        self.variables: dict = {}  # full name -> Variable made by get_variable
        self.stack = [VariableScope(False)]  # the root scope: name "", no reuse
        self.opened: dict = {}  # scope name -> times opened, for unique default names

    def close_subscopes(self, name):
        prefix = name + "/"
        for key in self.opened:
            if key.startswith(prefix):
                self.opened[key] = 0


def _state(graph=None) -> _ScopeState:
    graph = graph or get_default_graph()
    graph = getattr(graph, "outermost", graph)  # loop bodies share their graph's scopes
    state = getattr(graph, "_variable_scopes", None)
    if state is None:
        state = graph._variable_scopes = _ScopeState()
    return state


def get_variable_scope() -> VariableScope:
    """The innermost variable scope (the root scope, named "", outside any)."""
    return _state().stack[-1]


def _unique_scope_name(state, parent, prefix):
    base = f"{parent.name}/{prefix}" if parent.name else prefix
    if not state.opened.get(base):
        return prefix
    i = 1
    while state.opened.get(f"{base}_{i}"):
        i += 1
    return f"{prefix}_{i}"


@contextlib.contextmanager
def variable_scope(
    name_or_scope,
    default_name=None,
    values=None,
    initializer=None,
    regularizer=None,
    caching_device=None,
    partitioner=None,
    custom_getter=None,
    reuse=None,
    dtype=None,
    use_resource=None,
    constraint=None,
    auxiliary_name_scope=True,
):
    """A scope for ``get_variable``: names, reuse and defaults for the variables made in it.

    Parameters
    ----------
    name_or_scope : str, VariableScope or None
        The scope's name (relative to the current one), or a scope to re-enter.
    default_name : str, optional
        With ``name_or_scope=None``: a name made unique (``dense``, ``dense_1``...).
    reuse : bool, AUTO_REUSE or None
        True: only existing variables; AUTO_REUSE: existing or new; None:
        inherited from the enclosing scope.
    initializer, regularizer, dtype, custom_getter
        Defaults for ``get_variable`` in this scope and the scopes in it.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.variable_scope("layer1"):
    ...     w = tf.get_variable("w", [3, 2])
    >>> with tf.variable_scope("layer1", reuse=True):
    ...     w2 = tf.get_variable("w")
    >>> w2 is w, w.name
    (True, 'layer1/w:0')
    """
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
        raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
    if name_or_scope is None and reuse:
        raise ValueError("reuse=True cannot be used without a name_or_scope")
    if reuse is False:
        reuse = None  # TF1: False means "inherit", like None
    state = _state()
    parent = state.stack[-1]
    if isinstance(name_or_scope, VariableScope):
        ns_name = name_or_scope.name.split("/")[-1]
    else:
        ns_name = name_or_scope if name_or_scope is not None else default_name
    with _name_scope_for(ns_name, auxiliary_name_scope) as ns:
        scope = _new_scope(state, parent, name_or_scope, default_name, reuse, ns)
        changes = {
            "initializer": initializer,
            "regularizer": regularizer,
            "caching_device": caching_device,
            "partitioner": partitioner,
            "custom_getter": _chain_getters(custom_getter, scope.custom_getter),
            "dtype": dtype and dtypes.as_dtype(dtype),
            "use_resource": use_resource,
        }
        scope = scope._copy(**{k: v for k, v in changes.items() if v is not None})
        saved_counts = dict(state.opened) if isinstance(name_or_scope, VariableScope) else None
        state.opened[scope.name] = state.opened.get(scope.name, 0) + 1
        state.stack.append(scope)
        try:
            yield scope
        finally:
            state.stack.pop()
            if saved_counts is not None:
                state.opened = saved_counts
            else:
                state.close_subscopes(scope.name)


def _name_scope_for(name, auxiliary):
    if auxiliary:
        return name_scope(name)
    current = get_default_graph()._name_scope
    return name_scope(current + "/" if current else "")


def _new_scope(state, parent, name_or_scope, default_name, reuse, ns):
    if isinstance(name_or_scope, VariableScope):
        return name_or_scope._copy(reuse=reuse or name_or_scope.reuse)
    if name_or_scope is None:
        name_or_scope = _unique_scope_name(state, parent, default_name)
        reuse = None
    full = f"{parent.name}/{name_or_scope}" if parent.name else name_or_scope
    return parent._copy(reuse=reuse or parent.reuse, name=full, name_scope=ns, constraint=None)


def _chain_getters(new, old):
    """A new custom getter calls the enclosing scope's, which calls the real one."""
    if new is None or old is None:
        return new

    def chained(getter, *args, **kwargs):
        return new(lambda *a, **k: old(getter, *a, **k), *args, **kwargs)

    return chained


def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=None,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=VariableSynchronization.AUTO,
    aggregation=VariableAggregation.NONE,
):
    """An existing variable of this name, or a new one (TF1's ``tf.get_variable``).

    The full name is the variable scope's name and ``name``. With reuse,
    the variable must exist (and its shape and dtype must agree); without,
    it must not. The default initializer is Glorot uniform for floats and
    zeros for other types.

    A ``partitioner`` (``tf.fixed_size_partitioner(3)``) is accepted, and the variable
    stays one: its checkpoint entry is the whole tensor, which TF restores into a
    partitioned variable, and a TF checkpoint of a partitioned variable restores into it.

    Raises
    ------
    ValueError
        A variable that exists without reuse, is missing with ``reuse=True``,
        or does not match ``shape`` / ``dtype``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.variable_scope("model"):
    ...     b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
    >>> b.name
    'model/b:0'
    """
    scope = get_variable_scope()
    extra = dict(
        regularizer=regularizer,
        trainable=_trainable(trainable, synchronization),
        collections=collections,
        validate_shape=validate_shape,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )
    return _get_variable(scope, name, shape, dtype, initializer, **extra)


def _trainable(trainable, synchronization):
    # TF1: a variable synchronised on read is not trainable unless asked for.
    if trainable is None and VariableSynchronization(synchronization) is VariableSynchronization.ON_READ:
        return False
    return trainable


def _get_variable(scope, name, shape, dtype, initializer, custom_getter=None, regularizer=None, **kw):
    full = f"{scope.name}/{name}" if scope.name else name
    if dtype is not None and initializer is not None and not callable(initializer):
        init_dtype = convert_to_tensor(initializer).dtype
        if init_dtype is not dtypes.as_dtype(dtype):
            raise ValueError(f"Initializer type '{init_dtype!r}' and explicit dtype '{dtype!r}' don't match.")
    args = dict(
        shape=shape,
        dtype=dtypes.as_dtype(dtype) if dtype is not None else scope.dtype,
        initializer=initializer if initializer is not None else scope.initializer,
        regularizer=regularizer if regularizer is not None else scope.regularizer,
        reuse=scope.reuse,
        **kw,
    )
    getter = custom_getter or scope.custom_getter
    with name_scope(None):
        if getter is not None:
            return getter(_true_getter, full, **args)
        return _true_getter(full, **args)


def _true_getter(
    name,
    shape=None,
    dtype=dtypes.float32,
    initializer=None,
    regularizer=None,
    reuse=None,
    trainable=None,
    collections=None,
    validate_shape=True,
    constraint=None,
    synchronization=None,
    aggregation=None,
    **_,  # a custom getter may pass what TF's true getter takes (caching_device, partitioner, ...)
):
    state = _state()
    shape = TensorShape(shape)
    dtype = dtypes.as_dtype(dtype)
    found = state.variables.get(name)
    if found is not None:
        if reuse is None or reuse is False:
            raise ValueError(
                f"Variable {name} already exists, disallowed. Did you mean to set reuse=True "
                "or reuse=tf.AUTO_REUSE in VarScope?"
            )
        return _checked_reuse(found, name, shape, dtype)
    if reuse is True:
        raise ValueError(
            f"Variable {name} does not exist, or was not created with tf.get_variable(). "
            "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
        )
    variable = _create(name, shape, dtype, initializer, trainable, collections, validate_shape)
    variable._set_tf1_attributes(constraint, synchronization, aggregation)
    state.variables[name] = variable
    if regularizer is not None:
        _regularize(variable, name, regularizer)
    return variable


def _checked_reuse(found, name, shape, dtype):
    if not shape.is_compatible_with(found.shape):
        raise ValueError(
            f"Trying to share variable {name}, but specified shape {_tuple(shape)} "
            f"and found shape {_tuple(found.shape)}."
        )
    if dtype is not found.dtype:
        raise ValueError(
            f"Trying to share variable {name}, but specified dtype {dtype.name} "
            f"and found dtype {found.dtype.name}_ref."
        )
    return found


def _tuple(shape):
    return "<unknown>" if shape.dims is None else str(tuple(shape.dims))


def _create(name, shape, dtype, initializer, trainable, collections, validate_shape):
    if initializer is None:
        if not shape.is_fully_defined():
            raise ValueError(
                f"Variable {name} did not get an initializer, so its `shape` argument must be specified."
            )
        initializer = init_ops.default_initializer(name, shape, dtype)
    if isinstance(initializer, type):
        initializer = initializer()
    if callable(initializer):
        if not shape.is_fully_defined():
            raise ValueError(
                f"Shape of a new variable ({name}) must be fully defined, but instead was {shape}."
            )
        dims = shape.as_list()
        initial = lambda: initializer(dims, dtype=dtype)  # noqa: E731 - called in the Initializer scope
        init_dtype = dtype
    else:
        initial, init_dtype = initializer, None
        if shape.dims is not None and validate_shape:
            value_shape = convert_to_tensor(initializer).shape
            if not value_shape.is_compatible_with(shape):
                raise ValueError(
                    f"The initializer's shape {value_shape} does not match {name}'s shape {shape}"
                )
    trainable = True if trainable is None else trainable
    return Variable(
        initial,
        trainable=trainable,
        collections=collections,
        validate_shape=validate_shape,
        name=name,
        dtype=init_dtype,
    )


def _regularize(variable, name, regularizer):
    with colocate_with(variable.op), name_scope(name + "/Regularizer/"):
        loss = regularizer(variable)
    if loss is not None:
        get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)


def get_local_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=False,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=VariableSynchronization.AUTO,
    aggregation=VariableAggregation.NONE,
):
    """``get_variable`` for a variable in ``LOCAL_VARIABLES`` (metrics' counters); as in TF1,
    ``trainable`` is taken and ignored: a local variable is never trained."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape,
        dtype,
        initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def no_regularizer(_):
    """A regularizer that adds no loss (to turn off a scope's default)."""
    return None


def fixed_size_partitioner(num_shards, axis=0):
    """TF1's partitioner into ``num_shards`` parts along ``axis``: called with a shape and a
    dtype, it gives the number of parts of each dimension. daskflow keeps a partitioned
    variable whole (see :func:`get_variable`)."""

    def partitioner(shape, dtype=None):
        dims = TensorShape(shape).as_list()
        if not 0 <= axis < len(dims):
            raise ValueError(f"axis {axis} is out of range for a variable of shape {dims}")
        parts = [1] * len(dims)
        parts[axis] = min(num_shards, dims[axis] or num_shards)
        return parts

    return partitioner
