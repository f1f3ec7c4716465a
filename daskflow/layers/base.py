"""``Layer``: TF1's ``tf.layers.Layer``, the base of every layer in ``tf.layers``.

A layer owns variables made with ``get_variable`` in a variable scope of its
own, chosen the first time it is called (``dense``, then ``dense_1``...; a
``name`` is made unique the same way unless ``reuse`` asks for the existing
scope). Its ops go in the name scope that variable scope opened first, so a
layer called twice puts both calls' ops in ``dense/`` (``dense/MatMul``,
``dense/MatMul_1``) and reads the same variables. ``build(input_shape)`` runs
once, on the first call, and makes the variables; ``call(inputs, ...)``
builds the ops on every call.

Where TF1 chooses between two subgraphs with ``smart_cond`` (``training``
given as a tensor), so do the layers here (:func:`smart_select`): a
``tf.cond`` that runs only the branch picked; a Python bool builds only the
branch needed.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, get_default_graph, name_scope
from ..ops import array_ops, functional_ops, math_ops
from ..variable_scope import get_variable, variable_scope
from ..variables import GraphKeys, VariableAggregation, VariableSynchronization, global_variables


class InputSpec:
    """What a layer accepts: rank (``ndim``, ``min_ndim``, ``max_ndim``) and fixed ``axes`` sizes."""

    def __init__(
        self,
        dtype=None,
        shape=None,
        ndim=None,
        max_ndim=None,
        min_ndim=None,
        axes=None,
        allow_last_axis_squeeze=False,
        name=None,
        optional=False,
    ):
        self.allow_last_axis_squeeze, self.name, self.optional = allow_last_axis_squeeze, name, optional
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    def __repr__(self):
        return f"InputSpec(ndim={self.ndim}, min_ndim={self.min_ndim}, axes={self.axes})"


def _shape_tuple(shape):
    return "<unknown>" if shape.dims is None else str(tuple(shape.dims))


def check_input(spec, x, layer_name):
    """Raise TF1's ValueError where ``x`` does not fit ``spec`` (TF1 skips an unknown rank)."""
    if spec is None or x.shape.ndims is None:
        return
    rank, head = x.shape.ndims, f'Input 0 of layer "{layer_name}" is incompatible with the layer: '
    full = f"Full shape received: {_shape_tuple(x.shape)}"
    if spec.ndim is not None and rank != spec.ndim:
        raise ValueError(f"{head}expected ndim={spec.ndim}, found ndim={rank}. {full}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{head}expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{head}expected min_ndim={spec.min_ndim}, found ndim={rank}. {full}")
    for axis, value in spec.axes.items():
        if value is not None and x.shape.dims[axis] not in (value, None):
            raise ValueError(
                f"{head}expected axis {axis} of input shape to have value {value}, "
                f"but received input with shape {_shape_tuple(x.shape)}"
            )


def constant_value(pred):
    """``pred`` as a Python bool where it is known while building, else None (a tensor)."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    pred = convert_to_tensor(pred)
    if not pred.dtype.is_bool:
        raise TypeError(
            f"`training` must be a Python bool or a bool tensor, got {pred.dtype.name} ({pred.name})"
        )
    if pred.op.type == "Const":
        return bool(pred.op.attrs["value"])
    return None


def smart_select(pred, true_fn, false_fn):
    """TF1's ``smart_cond``: a Python bool (or a constant) builds only the branch
    it picks; a bool tensor builds a ``tf.cond`` of both, which runs only the
    branch the tensor picks, and whose static shape is what the branches share.
    """
    known = constant_value(pred)
    if known is not None:
        return true_fn() if known else false_fn()
    return functional_ops.cond(convert_to_tensor(pred), true_fn, false_fn)


def to_snake_case(name):
    """``Conv2DTranspose`` -> ``conv2d_transpose``, as Keras names layers."""
    snake = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", snake).lower()


def _unique_layer_name(base):
    """``dense``, ``dense_1``...: one counter per graph and base name."""
    graph = get_default_graph()
    uids = getattr(graph, "_layer_name_uids", None)
    if uids is None:
        uids = graph._layer_name_uids = {}
    n = uids.get(base, 0)
    uids[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


_KNOWN_KWARGS = {"_scope", "_reuse", "activity_regularizer", "input_shape", "batch_input_shape", "batch_size"}


class Layer:
    """Base class of TF1's layers: variables in a scope of their own, built on first call.

    Parameters
    ----------
    trainable : bool
        Whether the layer's variables join ``TRAINABLE_VARIABLES``.
    name : str, optional
        The layer's name, and the base of its variable scope's name.
    dtype : DType, optional
        The variables' dtype; by default the dtype of the first input.

    Attributes
    ----------
    built : bool
        Whether ``build`` has made the variables.
    variables, trainable_variables, non_trainable_variables, weights, updates, losses
        As in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> class Scale(tf.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight("w", [input_shape[-1]], initializer=tf.ones_initializer())
    ...         self.built = True
    ...     def call(self, inputs):
    ...         return inputs * self.w
    >>> with tf.Graph().as_default():
    ...     y = Scale()(tf.placeholder(tf.float32, [None, 3]))
    ...     [v.name for v in tf.global_variables()]
    ['scale/w:0']
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        for key in kwargs:
            if key not in _KNOWN_KWARGS:
                raise TypeError(f"Keyword argument not understood: {key!r} ({type(self).__name__})")
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._base_name = name or to_snake_case(type(self).__name__)
        self._name = name or _unique_layer_name(self._base_name)
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self.input_spec = None
        self._scope = None
        self._current_scope = None
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured

    # -- TF1's properties ------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    activity_regularizer = property(lambda self: self._activity_regularizer)

    @property
    def scope_name(self):
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has not been used '
                "yet. The scope name is determined the first time the layer instance is called. You "
                "must therefore call the layer before querying `scope_name`."
            )
        return self._scope.name

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    @property
    def updates(self):
        # TF1: a frozen layer's updates (batch norm's moving averages) do not run.
        return list(self._updates) if self.trainable else []

    @property
    def losses(self):
        return list(self._losses)

    # -- what subclasses define ------------------------------------------------------
    def build(self, input_shape):
        """Make the variables, knowing the input's static shape."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation; ``inputs`` is a Tensor."""
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__} does not define compute_output_shape")

    # -- building -------------------------------------------------------------------
    def add_weight(
        self,
        name,
        shape,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable=None,
        constraint=None,
        use_resource=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
        partitioner=None,
        **kwargs,
    ):
        """A variable of this layer, made (or, with reuse, found) by ``get_variable``.

        ``initializer`` defaults to the variable scope's, else Glorot uniform
        for floats. A ``regularizer``'s loss joins ``losses`` and
        ``REGULARIZATION_LOSSES`` when the variable is new.
        """
        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError(f"Unknown keyword argument: {key!r} ({self._name}.add_weight)")
        trainable = True if trainable is None else trainable
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        existing = set(map(id, global_variables()))
        self._set_scope(None)
        with self._enter_scope(reuse=self.built or self._reuse):
            scope = self._current_scope
            variable = get_variable(
                name,
                shape,
                dtype=dtype,
                initializer=initializer if initializer is not None else scope.initializer,
                trainable=trainable and self.trainable,
                constraint=constraint,
                partitioner=partitioner,
                synchronization=synchronization,
                aggregation=aggregation,
            )
            if regularizer is not None and id(variable) not in existing:
                with name_scope(f"{name}/Regularizer"):
                    self.add_loss(regularizer(variable))
        tracked = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in tracked):
            tracked.append(variable)
        return variable

    def add_loss(self, losses, inputs=None):
        """Add loss tensors to ``losses`` and to ``REGULARIZATION_LOSSES`` (TF1's layers do both)."""
        graph = get_default_graph()
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if loss is None:
                continue
            self._losses.append(loss)
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates, *, inputs=None):  # inputs: TF 1.x's, dropped by TF 2's compat.v1
        """Add update ops; ``__call__`` puts them in ``UPDATE_OPS`` (as operations, like TF1)."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            self._updates.append(update.op if isinstance(update, Tensor) else update)

    # -- calling ------------------------------------------------------------------------
    def _set_scope(self, scope=None):
        if self._scope is not None:
            return
        if self._reuse:
            opened = variable_scope(scope if scope is not None else self._base_name)
        else:
            opened = variable_scope(scope, default_name=self._base_name)
        with opened as captured:
            self._scope = captured

    @contextlib.contextmanager
    def _enter_scope(self, reuse):
        """The layer's variable scope and the name scope it first opened, re-entered."""
        with variable_scope(self._scope, reuse=reuse or None, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(scope.original_name_scope):
                yield scope

    def __call__(self, inputs, *args, **kwargs):
        """Build the layer on its first call, then apply ``call`` to ``inputs``."""
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        with self._enter_scope(reuse=True if self.built else self._reuse):
            inputs = _as_input(inputs, self._name)
            check_input(self.input_spec, inputs, self._name)
            if not self.built:
                if self._dtype is None:
                    self._dtype = inputs.dtype  # TF1: the first input's dtype
                self.build(inputs.shape)
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError(
                    f"A layer's `call` method should return a Tensor; {self._name}'s returned None"
                )
            if self._activity_regularizer is not None:
                self._regularize_activity(outputs)
        collection = get_default_graph().get_collection_ref(GraphKeys.UPDATE_OPS)
        for update in self.updates:
            if all(update is not u for u in collection):
                collection.append(update)
        return outputs

    def apply(self, *args, **kwargs):
        """TF1's old name for calling the layer."""
        return self.__call__(*args, **kwargs)

    def _regularize_activity(self, outputs):
        # TF1 divides the activity loss by the batch size: it regularizes the mean example.
        with name_scope("ActivityRegularizer"):
            loss = self._activity_regularizer(outputs)
            batch = math_ops.cast(_dim(outputs, 0), loss.dtype)
            self.add_loss(math_ops.truediv(loss, batch))

    def __repr__(self):
        return f"<{type(self).__name__} {self._name!r}>"


def _as_input(inputs, layer_name):
    try:
        return convert_to_tensor(inputs)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Inputs to a layer should be tensors. Got {inputs!r} as input for layer '{layer_name}'."
        ) from e


def _dim(x, axis):
    """A dimension of ``x``: its static size if known, else a scalar int32 tensor."""
    d = x.shape.dims[axis] if x.shape.dims is not None else None
    return d if d is not None else array_ops.shape(x)[axis]
