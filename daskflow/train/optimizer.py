"""Optimizers with TF1's update formulas and default hyper-parameters.

Each optimizer states its update once, as graph ops on slot variables
(``_apply``); :class:`Optimizer` does the rest: gradients, slot creation,
a variable's ``constraint`` applied after its update, grouping, and the
``global_step`` increment that runs after every update.
"""

from __future__ import annotations

import logging

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, colocate_with, control_dependencies, get_default_graph, name_scope
from ..framework.indexed_slices import IndexedSlices
from ..gradients import gradients
from ..ops import array_ops, math_ops, segment_ops, training_ops, unique_ops
from ..ops.control_flow_ops import group
from ..ops.scatter_extra_ops import scatter_sub
from ..ops.segment_ops import scatter_update
from ..variable_scope import get_variable, variable_scope
from ..variables import GraphKeys, Variable, assign, assign_add, assign_sub, trainable_variables

logger = logging.getLogger(__name__)


class Optimizer:
    """Base class: ``minimize = compute_gradients + apply_gradients``.

    Parameters
    ----------
    use_locking : bool
        TF1's lock around each update; daskflow's updates of one step never
        race (each variable's new value is committed once the step is done).
    name : str
        Names the training op and the slot variables (``w/Adam``); not empty.
    use_own_namescope_for_non_slot_vars : bool
        Put the optimizer's non-slot variables (Adam's ``beta1_power``) in a
        variable scope of their own, made here (``Adam/beta1_power``), as TF1.
    """

    # How compute_gradients orders the gradients' computation (TF1's values).
    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name, use_own_namescope_for_non_slot_vars=False):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict = {}
        self._non_slot_scope = None
        if use_own_namescope_for_non_slot_vars:
            with variable_scope(None, default_name=name) as scope:
                self._non_slot_scope = scope

    def get_name(self):
        return self._name

    def minimize(
        self,
        loss,
        global_step=None,
        var_list=None,
        gate_gradients=1,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
    ):
        """Add ops that update ``var_list`` to reduce ``loss``; return the training op.

        Examples
        --------
        >>> import daskflow as tf
        >>> w = tf.Variable(1.0)
        >>> step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w))
        """
        grads_and_vars = self.compute_gradients(
            loss,
            var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        if not any(g is not None for g, _ in grads_and_vars):
            names = [v.name for _, v in grads_and_vars]
            raise ValueError(f"No gradients provided for any variable, check your graph: {names}")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss,
        var_list=None,
        gate_gradients=1,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        grad_loss=None,
    ):
        """``[(gradient, variable)]`` of ``loss``; the gradient is None where unconnected.

        ``gate_gradients``, ``aggregation_method`` and
        ``colocate_gradients_with_ops`` are passed on to :func:`gradients`
        (``GATE_OP`` and ``GATE_GRAPH`` give the same numbers as ``GATE_NONE``:
        a step reads every variable before it updates any).
        """
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        loss = convert_to_tensor(loss)
        grads = gradients(
            loss,
            var_list,
            grad_ys=None if grad_loss is None else [grad_loss],
            gate_gradients=gate_gradients == Optimizer.GATE_OP,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
        )
        return list(zip(grads, var_list, strict=True))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, skip_gradients_aggregation=False):
        """An op applying each (gradient, variable); then increments ``global_step``.

        A variable with a ``constraint`` is set to ``constraint(variable)``
        after its update, in the same op group, as TF1 does.
        ``skip_gradients_aggregation`` matters to TF1 only under a
        distribution strategy, which daskflow has not: it changes nothing.
        """
        grads_and_vars = tuple(grads_and_vars)  # iterated more than once
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}")
        var_list = [v for _, v in pairs]
        # As TF1's init_scope: slots and non-slot variables are made outside any control
        # dependencies, in the caller's name scope, before the optimizer's own.
        with control_dependencies(None):
            self._prepare(var_list)
            for v in var_list:
                self._create_slots(v)
        with name_scope(name or self._name) as scope:
            updates = []
            for g, v in pairs:
                with name_scope("update_" + v.op.name.replace("/", "_")), colocate_with(v.op):
                    updates.append(self._constrained(self._apply_any(g, v), v))
            updates.extend(self._finish(updates))
            # TF1 names the training op after the optimizer ("Adam", "GradientDescent", ...).
            if global_step is None:
                return group(*updates, name=scope)
            # The step's NoOp too sits with the global step (TF1 leaves it on the current
            # device): then, under replication, updates and increment run together on the ps.
            with colocate_with(global_step.op):
                done = group(*updates, name="update")
                with control_dependencies([done]):
                    return assign_add(global_step, 1, name=scope).op

    @staticmethod
    def _constrained(update, var):
        """TF1's processor: ``var = constraint(var)`` once the update has run."""
        constraint = getattr(var, "constraint", None)
        if constraint is None:
            return update
        with control_dependencies([update]):
            return assign(var, constraint(var))

    def _apply_any(self, grad, var):
        """A dense gradient's update, or rows' (``IndexedSlices``): TF1's sparse update where
        the optimizer has one (its rows only), else the rows made dense here, beside the
        variable, so only the rows travel to it."""
        if isinstance(grad, IndexedSlices):
            if self._apply_sparse is not None:
                return self._apply_sparse(grad, var)
            grad = convert_to_tensor(grad)
        return self._apply(convert_to_tensor(grad, dtype=var.dtype), var)

    # -- hooks for subclasses ------------------------------------------------------------
    _apply_sparse = None  # ``_apply_sparse(rows, var)``: an update of only the rows given

    def _prepare(self, var_list):
        pass

    def _create_slots(self, var):
        pass

    def _apply(self, grad, var):
        raise NotImplementedError

    def _finish(self, updates):
        return []

    # -- slots -------------------------------------------------------------------------------
    def _slot(self, var, slot_name, init=0.0):
        key = (var, slot_name)
        if key not in self._slots:
            dims = var.shape.as_list()
            # Like TF1's init_scope: a slot made inside control_dependencies must not inherit them.
            with (
                control_dependencies(None),
                name_scope(None),
                name_scope(var.op.name + "/"),
                colocate_with(var.op),
            ):
                self._slots[key] = Variable(
                    lambda: array_ops.fill(dims, convert_to_tensor(init, dtype=var.dtype)),
                    name=self._name,  # TF1's names: w/Adam, w/Adam_1
                    trainable=False,
                )
        return self._slots[key]

    def get_slot(self, var, name):
        return self._slots.get((var, name))

    def get_slot_names(self):
        return sorted({name for _, name in self._slots})

    def _hyper(self, value, var):
        """A hyper-parameter as a tensor of the variable's dtype."""
        if _is_tensor(value):
            return math_ops.cast(value, var.dtype)
        return convert_to_tensor(value, dtype=var.dtype)

    def variables(self):
        """The optimizer's slot and non-slot variables, sorted by name as TF1's."""
        return sorted([*self._slots.values(), *self._non_slot_variables()], key=lambda v: v.name)

    def _non_slot_variable(self, initial_value, name, colocate):
        """A non-trainable variable of the optimizer's own (Adam's ``beta1_power``)."""
        with colocate_with(colocate.op):
            if self._non_slot_scope is None:
                return Variable(initial_value, name=name, trainable=False)

            with name_scope(None), variable_scope(self._non_slot_scope):
                return get_variable(name, initializer=initial_value, trainable=False)

    def _non_slot_variables(self):
        return []


def _deduplicated(rows):
    """``(unique indices, summed rows)`` of ``IndexedSlices`` (TF1's ``_deduplicate_indexed_slices``)."""
    unique, position = unique_ops.unique(rows.indices)
    return unique, segment_ops.unsorted_segment_sum(rows.values, position, array_ops.size(unique))


def _is_tensor(value):
    return hasattr(value, "op") or hasattr(value, "_as_tensor")


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply(self, grad, var):
        return assign_sub(var, self._hyper(self._lr, var) * grad)

    def _apply_sparse(self, rows, var):
        """TF1's: the rows subtracted (a repeated row's gradients add up)."""
        return scatter_sub(var, rows.indices, self._hyper(self._lr, var) * rows.values)


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + grad; var -= lr * accum`` (Nesterov:
    ``var -= lr * grad + lr * momentum * accum``)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov

    def _create_slots(self, var):
        self._slot(var, "momentum", 0.0)

    def _apply(self, grad, var):
        lr, mu = self._hyper(self._lr, var), self._hyper(self._momentum, var)
        accum = self._slot(var, "momentum")
        new_accum = assign(accum, accum * mu + grad)
        step = grad * lr + new_accum * mu * lr if self._nesterov else new_accum * lr
        return assign_sub(var, step)

    def _apply_sparse(self, rows, var):
        """TF1's sparse momentum: only the rows given (a repeated row's gradients summed)
        decay and move; the other rows' accumulators and values stay as they are."""
        lr, mu = self._hyper(self._lr, var), self._hyper(self._momentum, var)
        accum = self._slot(var, "momentum")
        indices, grad = _deduplicated(rows)
        new_accum = array_ops.gather(accum, indices) * mu + grad
        step = grad * lr + new_accum * mu * lr if self._nesterov else new_accum * lr
        with control_dependencies([scatter_update(accum, indices, new_accum)]):
            return scatter_sub(var, indices, step)


class AdagradOptimizer(Optimizer):
    """``accum += grad**2; var -= lr * grad / sqrt(accum)``."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        super().__init__(use_locking, name)
        self._lr, self._init = learning_rate, initial_accumulator_value

    def _create_slots(self, var):
        self._slot(var, "accumulator", self._init)

    def _apply(self, grad, var):
        accum = self._slot(var, "accumulator")
        new_accum = assign_add(accum, grad * grad)
        return assign_sub(var, self._hyper(self._lr, var) * grad * math_ops.rsqrt(new_accum))


class RMSPropOptimizer(Optimizer):
    """TF1's RMSProp: ``ms = decay*ms + (1-decay)*grad**2``;
    ``mom = momentum*mom + lr*grad/sqrt(ms + epsilon)``; ``var -= mom``.
    The ``rms`` slot starts at one, as in TF1."""

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        super().__init__(use_locking, name)
        self._lr, self._decay, self._momentum = learning_rate, decay, momentum
        self._epsilon, self._centered = epsilon, centered

    def _create_slots(self, var):
        # TF1's creation order, hence its names: rms, [mg,] momentum -> w/RMSProp, w/RMSProp_1, ...
        self._slot(var, "rms", 1.0)
        if self._centered:
            self._slot(var, "mg", 0.0)
        self._slot(var, "momentum", 0.0)

    def _apply(self, grad, var):
        h = lambda v: self._hyper(v, var)  # noqa: E731
        rho, eps = h(self._decay), h(self._epsilon)
        ms = self._slot(var, "rms")
        new_ms = assign(ms, rho * ms + (1 - rho) * grad * grad)
        denom = new_ms
        if self._centered:
            mg = self._slot(var, "mg")
            new_mg = assign(mg, rho * mg + (1 - rho) * grad)
            denom = new_ms - new_mg * new_mg
        mom = self._slot(var, "momentum")
        new_mom = assign(mom, h(self._momentum) * mom + h(self._lr) * grad * math_ops.rsqrt(denom + eps))
        return assign_sub(var, new_mom)


class AdamOptimizer(Optimizer):
    """TF1's Adam: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``;
    ``m = beta1*m + (1-beta1)*g``; ``v = beta2*v + (1-beta2)*g**2``;
    ``var -= lr_t * m / (sqrt(v) + epsilon)``."""

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="Adam",
        use_own_namescope_for_non_slot_vars=False,
    ):
        super().__init__(use_locking, name, use_own_namescope_for_non_slot_vars)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon
        self._powers = None

    def _prepare(self, var_list):
        if self._powers is None:
            initial = lambda beta: beta if _is_tensor(beta) else float(beta)  # noqa: E731
            first = min(var_list, key=lambda v: v.name)  # TF1 colocates them with this one
            self._powers = (
                self._non_slot_variable(initial(self._beta1), "beta1_power", first),
                self._non_slot_variable(initial(self._beta2), "beta2_power", first),
            )

    def _create_slots(self, var):
        self._slot(var, "m", 0.0)
        self._slot(var, "v", 0.0)

    def _apply(self, grad, var):
        h = lambda v: self._hyper(v, var)  # noqa: E731
        b1, b2 = h(self._beta1), h(self._beta2)
        p1, p2 = (math_ops.cast(p, var.dtype) for p in self._powers)
        lr_t = h(self._lr) * math_ops.sqrt(1 - p2) / (1 - p1)
        m, v = self._slot(var, "m"), self._slot(var, "v")
        # One fused kernel (training_ops) computes all three; the assignments commit them.
        new_var, new_m, new_v = training_ops.adam_update(var, m, v, grad, b1, b2, lr_t, h(self._epsilon))
        with control_dependencies([assign(m, new_m), assign(v, new_v)]):
            return assign(var, new_var)

    def _finish(self, updates):
        p1, p2 = self._powers
        with control_dependencies(updates), colocate_with(p1.op):
            return [
                assign(p1, p1 * self._hyper(self._beta1, p1)).op,
                assign(p2, p2 * self._hyper(self._beta2, p2)).op,
            ]

    def _non_slot_variables(self):
        return list(self._powers or ())


class AdadeltaOptimizer(Optimizer):
    """TF1's Adadelta: ``accum = rho*accum + (1-rho)*g**2``;
    ``update = sqrt(accum_update + eps) / sqrt(accum + eps) * g``;
    ``accum_update = rho*accum_update + (1-rho)*update**2``; ``var -= lr * update``."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var):
        self._slot(var, "accum", 0.0)  # w/Adadelta
        self._slot(var, "accum_update", 0.0)  # w/Adadelta_1

    def _apply(self, grad, var):
        h = lambda v: self._hyper(v, var)  # noqa: E731
        rho, eps = h(self._rho), h(self._epsilon)
        accum, accum_update = self._slot(var, "accum"), self._slot(var, "accum_update")
        new_accum = assign(accum, rho * accum + (1 - rho) * grad * grad)
        update = math_ops.sqrt(accum_update + eps) * math_ops.rsqrt(new_accum + eps) * grad
        new_update = assign(accum_update, rho * accum_update + (1 - rho) * update * update)
        with control_dependencies([new_update]):
            return assign_sub(var, h(self._lr) * update)


def _shrink(prox, l1_step, l2_step):
    """TF1's proximal step: soft-threshold by ``l1_step``, then shrink by ``1 + l2_step``."""
    return math_ops.sign(prox) * math_ops.maximum(math_ops.abs(prox) - l1_step, 0.0) / (1.0 + l2_step)


def _check_nonnegative(optimizer, **values):
    for name, value in values.items():
        if not _is_tensor(value) and value < 0.0:
            raise ValueError(f"{optimizer}: {name} {value} needs to be positive or zero")


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent, then the proximal step of ``l1 * |w| + l2 / 2 * w**2``:
    ``prox = var - lr*g``; ``var = sign(prox) * max(|prox| - lr*l1, 0) / (1 + lr*l2)``."""

    def __init__(
        self,
        learning_rate,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalGradientDescent",
    ):
        super().__init__(use_locking, name)
        _check_nonnegative(
            name,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
        )
        self._lr, self._l1, self._l2 = learning_rate, l1_regularization_strength, l2_regularization_strength

    def _apply(self, grad, var):
        lr = self._hyper(self._lr, var)
        prox = var - lr * grad
        return assign(var, _shrink(prox, lr * self._hyper(self._l1, var), lr * self._hyper(self._l2, var)))


class ProximalAdagradOptimizer(Optimizer):
    """Adagrad, then the proximal step: ``accum += g**2``; ``lr_t = lr / sqrt(accum)``;
    ``prox = var - lr_t*g``; ``var = sign(prox) * max(|prox| - lr_t*l1, 0) / (1 + lr_t*l2)``."""

    def __init__(
        self,
        learning_rate,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalAdagrad",
    ):
        super().__init__(use_locking, name)
        if not _is_tensor(initial_accumulator_value) and initial_accumulator_value <= 0.0:
            raise ValueError(
                f"{name}: initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        _check_nonnegative(
            name,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
        )
        self._lr, self._init = learning_rate, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var):
        self._slot(var, "accumulator", self._init)

    def _apply(self, grad, var):
        accum = self._slot(var, "accumulator")
        lr_t = self._hyper(self._lr, var) * math_ops.rsqrt(assign_add(accum, grad * grad))
        prox = var - lr_t * grad
        return assign(
            var, _shrink(prox, lr_t * self._hyper(self._l1, var), lr_t * self._hyper(self._l2, var))
        )


class FtrlOptimizer(Optimizer):
    """TF1's FTRL-Proximal (McMahan et al., 2013), with ``p = -learning_rate_power``:
    ``accum_new = accum + g**2``;
    ``linear += g' - (accum_new**p - accum**p) / lr * var`` (``g' = g + 2*l2_shrinkage*var``);
    ``quadratic = accum_new**p / lr + 2*l2``;
    ``var = (sign(linear)*l1 - linear) / quadratic`` where ``|linear| > l1``, else 0."""

    def __init__(
        self,
        learning_rate,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="Ftrl",
        accum_name=None,
        linear_name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=None,
    ):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"{name}: initial_accumulator_value {initial_accumulator_value} needs to be positive or zero"
            )
        if learning_rate_power > 0.0:
            raise ValueError(
                f"{name}: learning_rate_power {learning_rate_power} needs to be negative or zero"
            )
        _check_nonnegative(
            name,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
            l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
        )
        self._lr, self._power, self._init = learning_rate, learning_rate_power, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._shrinkage, self._beta = l2_shrinkage_regularization_strength, beta or 0.0

    def _create_slots(self, var):
        self._slot(var, "accum", self._init)  # w/Ftrl
        self._slot(var, "linear", 0.0)  # w/Ftrl_1

    def _apply(self, grad, var):
        h = lambda v: self._hyper(v, var)  # noqa: E731
        lr = h(self._lr)
        # TF1 folds beta into l2 (beta / (2 lr)), so beta = 0 is plain FTRL.
        l2 = h(self._l2) + h(self._beta) / (2.0 * lr)
        accum, linear = self._slot(var, "accum"), self._slot(var, "linear")
        power = lambda a: math_ops.sqrt(a) if self._power == -0.5 else math_ops.pow(a, h(-self._power))  # noqa: E731
        new_accum = accum + grad * grad
        shrunk_grad = grad + 2.0 * h(self._shrinkage) * var if self._shrinkage else grad
        sigma = (power(new_accum) - power(accum)) / lr
        new_linear = assign(linear, linear + shrunk_grad - sigma * var)
        quadratic = power(new_accum) / lr + 2.0 * l2
        l1 = h(self._l1)
        solution = (math_ops.sign(new_linear) * l1 - new_linear) / quadratic
        new_var = math_ops.where(math_ops.abs(new_linear) > l1, solution, array_ops.zeros_like(var))
        with control_dependencies([new_linear]):
            # var and accum change only after linear has read their old values.
            return group(assign(var, new_var), assign(accum, new_accum))


def get_global_step(graph=None):
    """The global step: the one in the ``GLOBAL_STEP`` collection, else the tensor
    ``global_step:0``, else None (TF1's look-up).

    Raises
    ------
    TypeError
        If what is found is not an integer scalar variable or tensor (TF1's words).
    """
    graph = graph or get_default_graph()
    steps = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        logger.error("Multiple tensors in global_step collection.")
        return None
    if steps:
        step = steps[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    _assert_global_step(step)
    return step


def _assert_global_step(step):
    if not isinstance(step, (Variable, Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {step}.')
    if not step.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {step.dtype}')
    if step.get_shape().ndims != 0 and step.get_shape().is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {step.get_shape()}')


def get_or_create_global_step(graph=None):
    """The int64 scalar ``global_step`` variable, created on first use."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def create_global_step(graph=None):
    """Create the int64 scalar ``global_step`` variable in ``graph``.

    Raises
    ------
    ValueError
        If the graph already has a global step (TF1's ``'"global_step" already exists.'``).
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), control_dependencies(None), name_scope(None):
        return Variable(
            lambda: array_ops.zeros([], dtype=dtypes.int64),  # TF1's global_step/Initializer/zeros
            name="global_step",
            trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )
