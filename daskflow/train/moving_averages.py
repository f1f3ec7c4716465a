"""Moving averages of variables: ``tf.train.ExponentialMovingAverage``.

Each averaged variable gets a shadow variable, ``<var>/ExponentialMovingAverage``
(the object's name), that is not trainable, sits with its variable (so the
update runs where both live, on the parameter server under replication), and
starts at the variable's initial value. ``apply`` returns one op that moves
every shadow towards its variable::

    shadow -= (1 - decay) * (shadow - variable)

With ``num_updates`` the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``,
so early averages follow the variable closely. Names, collections and the
float32 arithmetic of the decay follow TF1.

Examples
--------
>>> import daskflow as tf
>>> from daskflow.train.moving_averages import ExponentialMovingAverage
>>> w = tf.Variable([1.0, 2.0], name="w")
>>> ema = ExponentialMovingAverage(0.99)
>>> update = ema.apply([w])
>>> ema.average(w).op.name
'w/ExponentialMovingAverage'
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, colocate_with, control_dependencies, get_default_graph, name_scope
from ..ops import array_ops, math_ops
from ..ops.control_flow_ops import group
from ..variables import (
    GraphKeys,
    Variable,
    assign,
    assign_add,
    assign_sub,
    global_variables,
    trainable_variables,
)

_AVERAGEABLE = (dtypes.float16, dtypes.float32, dtypes.float64)


def moving_average_variables(scope=None):
    """The variables that an :class:`ExponentialMovingAverage` averages (TF1's collection)."""
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """Move ``variable`` towards ``value``: ``variable -= (variable - value) * (1 - decay)``.

    Parameters
    ----------
    variable : Variable
        The average, updated in place.
    value : Tensor or Variable
        The new observation.
    decay : float or Tensor
        How much of the old average stays.
    zero_debias : bool
        Divide out the bias of an average that starts at zero (Adam's
        ``1 - decay ** t``), keeping the biased average in
        ``<variable>/biased`` and the count in ``<variable>/local_step``.
    name : str, optional
        The update op's name (default ``AssignMovingAvg``).

    Returns
    -------
    Tensor
        The new value of ``variable``.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.moving_averages import assign_moving_average
    >>> mean = tf.Variable(0.0, trainable=False)
    >>> update = assign_moving_average(mean, tf.constant(4.0), 0.9, zero_debias=False)
    """
    with name_scope(name or "AssignMovingAvg") as scope:
        # 1 - decay is rounded once, in decay's dtype, then cast: TF1's arithmetic.
        keep = convert_to_tensor(1.0 - decay, name="decay")
        if keep.dtype is not variable.dtype:
            keep = math_ops.cast(keep, variable.dtype)
        with colocate_with(variable.op):
            if zero_debias:
                return _zero_debiased_update(variable, value, keep, scope)
            return assign_sub(variable, (variable - value) * keep, name=scope)


def _zero_debiased_update(unbiased, value, keep, scope):
    dims = unbiased.shape.as_list()
    with control_dependencies(None), name_scope(None), name_scope(unbiased.op.name + "/"):
        biased = Variable(lambda: array_ops.zeros(dims, unbiased.dtype), name="biased", trainable=False)
        local_step = Variable(lambda: array_ops.zeros([], unbiased.dtype), name="local_step", trainable=False)
    new_biased = assign_sub(biased, (biased - value) * keep)
    steps = assign_add(local_step, 1)
    bias_factor = 1 - math_ops.pow(1.0 - keep, steps)
    return assign(unbiased, new_biased / bias_factor, name=scope)


class ExponentialMovingAverage:
    """Shadow variables holding exponential moving averages of variables or tensors.

    Parameters
    ----------
    decay : float or Tensor
        How much of the old average stays each update (0.999, 0.9999...).
    num_updates : int or Tensor, optional
        Usually the global step: the decay is then
        ``min(decay, (1 + num_updates) / (10 + num_updates))``.
    zero_debias : bool
        Zero-debias the averages of tensors (not of variables, whose shadows
        start at the variable's value), as TF1 does.
    name : str
        The suffix of the shadows' names and the name of the ``apply`` op.

    Examples
    --------
    >>> import daskflow as tf
    >>> from daskflow.train.moving_averages import ExponentialMovingAverage
    >>> w = tf.Variable(0.0, name="w")
    >>> step = tf.train.get_or_create_global_step()
    >>> ema = ExponentialMovingAverage(0.999, num_updates=step)
    >>> update = ema.apply([w])
    >>> sorted(ema.variables_to_restore())
    ['global_step', 'w/ExponentialMovingAverage']
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}  # variable or tensor -> shadow; both hash by identity

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Create missing shadows; return an op that updates the shadows of ``var_list``.

        Parameters
        ----------
        var_list : list of Variable or Tensor, optional
            Float variables or tensors; default: the trainable variables.

        Raises
        ------
        TypeError
            If an entry is not of a float dtype (or not a variable or tensor).
        """
        var_list = list(var_list) if var_list is not None else trainable_variables()
        for var in var_list:
            _check_averageable(var)
        debiased = set()  # like TF1: only shadows of tensors made in this call
        for var in var_list:
            if var not in self._averages:
                self._averages[var] = self._make_shadow(var)
                if self._zero_debias and not isinstance(var, Variable):
                    debiased.add(var)
        with name_scope(self._name) as scope:
            decay = self._decay_tensor()
            updates = [
                assign_moving_average(self._averages[var], var, decay, zero_debias=var in debiased)
                for var in var_list
            ]
            return group(*updates, name=scope)

    def _decay_tensor(self):
        decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
        if self._num_updates is None:
            return decay
        n = math_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
        return math_ops.minimum(decay, (1.0 + n) / (10.0 + n))

    def _make_shadow(self, var):
        # Like TF1's init_scope: a shadow made inside control_dependencies must not inherit them.
        with control_dependencies(None), name_scope(None), name_scope(var.op.name + "/"):
            if isinstance(var, Variable):
                with colocate_with(var.op):
                    shadow = Variable(var.initial_value, name=self._name, trainable=False)
                get_default_graph().add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                return shadow
            return self._zeros_shadow(var)

    def _zeros_shadow(self, tensor):
        if tensor.shape.is_fully_defined():
            dims = tensor.shape.as_list()
            return Variable(lambda: array_ops.zeros(dims, tensor.dtype), name=self._name, trainable=False)
        return Variable(
            lambda: array_ops.zeros_like(tensor), name=self._name, trainable=False, validate_shape=False
        )

    def average(self, var):
        """The shadow variable of ``var``, or None if ``apply`` has not seen it."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name of ``var``'s shadow, or the name one would get now.

        Use it to map checkpoint names to variables, e.g. to restore averages
        into the model's own variables.
        """
        if var in self._averages:
            return self._averages[var].op.name
        return get_default_graph().unique_name(f"{var.op.name}/{self._name}", mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """A name -> variable map for ``Saver`` that loads the averages into the variables.

        Each of ``moving_avg_variables`` (default: the trainable variables and
        those in the ``moving_average_variables`` collection) is restored from
        its shadow's name; every other global variable from its own name.
        """
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


def _check_averageable(var):
    if not isinstance(var, Variable | Tensor):
        raise TypeError(f"ExponentialMovingAverage.apply takes variables and tensors, got {var!r}")
    if var.dtype.base_dtype not in _AVERAGEABLE:
        raise TypeError(f"The variables must be half, float, or double: {var.name}")
