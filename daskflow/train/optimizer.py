"""Optimizers with TF1's update formulas and default hyper-parameters.

Each optimizer states its update once, as graph ops on slot variables
(``_apply``); :class:`Optimizer` does the rest: gradients, slot creation,
grouping, and the ``global_step`` increment that runs after every update.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import colocate_with, control_dependencies, name_scope
from ..gradients import gradients
from ..ops import array_ops, math_ops
from ..ops.control_flow_ops import group
from ..variables import GraphKeys, Variable, assign, assign_add, assign_sub, trainable_variables


class Optimizer:
    """Base class: ``minimize = compute_gradients + apply_gradients``."""

    def __init__(self, use_locking=False, name="Optimizer"):
        self._name = name
        self._slots: dict = {}

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
        grads_and_vars = self.compute_gradients(loss, var_list, grad_loss=grad_loss)
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
        """``[(gradient, variable)]`` of ``loss``; the gradient is None where unconnected."""
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        loss = convert_to_tensor(loss)
        grads = gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list, strict=True))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op applying each (gradient, variable); then increments ``global_step``."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}")
        with name_scope(name or self._name) as scope:
            self._prepare([v for _, v in pairs])
            for _, v in pairs:
                self._create_slots(v)
            updates = []
            for g, v in pairs:
                with name_scope("update_" + v.op.name.replace("/", "_")), colocate_with(v.op):
                    updates.append(self._apply(convert_to_tensor(g, dtype=v.dtype), v))
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

    # -- hooks for subclasses ------------------------------------------------------------
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
        return [v for v in self._slots.values()] + self._non_slot_variables()

    def _non_slot_variables(self):
        return []


def _is_tensor(value):
    return hasattr(value, "op") or hasattr(value, "_as_tensor")


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply(self, grad, var):
        return assign_sub(var, self._hyper(self._lr, var) * grad)


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
        self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"
    ):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon
        self._powers = None

    def _prepare(self, var_list):
        if self._powers is None:
            initial = lambda beta: beta if _is_tensor(beta) else float(beta)  # noqa: E731
            with control_dependencies(None), name_scope(None), colocate_with(var_list[0].op):
                self._powers = (
                    Variable(initial(self._beta1), name="beta1_power", trainable=False),
                    Variable(initial(self._beta2), name="beta2_power", trainable=False),
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
        new_m = assign(m, b1 * m + (1 - b1) * grad)
        new_v = assign(v, b2 * v + (1 - b2) * grad * grad)
        return assign_sub(var, lr_t * new_m / (math_ops.sqrt(new_v) + h(self._epsilon)))

    def _finish(self, updates):
        p1, p2 = self._powers
        with control_dependencies(updates), colocate_with(p1.op):
            return [
                assign(p1, p1 * self._hyper(self._beta1, p1)).op,
                assign(p2, p2 * self._hyper(self._beta2, p2)).op,
            ]

    def _non_slot_variables(self):
        return list(self._powers or ())


def get_global_step(graph=None):
    """The global step variable, or None."""
    from ..framework.graph import get_default_graph

    steps = (graph or get_default_graph()).get_collection(GraphKeys.GLOBAL_STEP)
    return steps[0] if steps else None


def get_or_create_global_step(graph=None):
    """The int64 scalar ``global_step`` variable, created on first use."""
    from ..framework.graph import get_default_graph

    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is not None:
        return step
    with graph.as_default(), control_dependencies(None), name_scope(None):
        return Variable(
            array_ops.zeros([], dtype=dtypes.int64),
            name="global_step",
            trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )


create_global_step = get_or_create_global_step
