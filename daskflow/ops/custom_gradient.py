"""``tf.custom_gradient``: a function that brings its own gradient.

As TF1's graph mode builds it: the function's outputs, its arguments and the variables it
reads pass through one ``IdentityN``, whose gradient (registered under a name of its own
and given by :meth:`~daskflow.framework.graph.Graph.gradient_override_map`) calls the
user's ``grad_fn`` — so the function's own ops pass no gradient back, and ``grad_fn``
decides what the arguments and variables get.
"""

from __future__ import annotations

import functools
import inspect
import itertools

from ..framework import nest
from ..framework.constant import convert_to_tensor
from ..framework.gradient_registry import RegisterGradient, rule_of
from ..framework.graph import get_default_graph
from .array_extra_ops import identity_n

_names = itertools.count(1)


def custom_gradient(f=None):
    """Decorate ``f(*x) -> (y, grad_fn)`` so that gradients through ``y`` come from ``grad_fn``.

    ``grad_fn(*dy)`` returns the gradients of ``x`` (one, or a list); where ``f`` reads
    variables that are not among ``x``, ``grad_fn(*dy, variables=...)`` returns
    ``(gradients of x, gradients of the variables)``.

    Parameters
    ----------
    f : callable
        Takes tensors as positional arguments; returns ``(y, grad_fn)``.

    Returns
    -------
    callable
        ``f`` 's outputs, with the gradient ``grad_fn`` gives.

    Raises
    ------
    ValueError
        Called with keyword arguments (TF1's graph mode takes none), or ``grad_fn``
        gives the wrong number of gradients.
    TypeError
        ``f`` reads variables and ``grad_fn`` takes no ``variables`` argument.

    Examples
    --------
    >>> import daskflow as tf
    >>> @tf.custom_gradient
    ... def clip_gradient(x):
    ...     def grad(dy):
    ...         return tf.clip_by_value(dy, -0.5, 0.5)
    ...     return tf.identity(x), grad
    >>> x = tf.constant([1.0, 2.0])
    >>> tf.Session().run(tf.gradients(clip_gradient(x) * 3.0, x))
    [array([0.5, 0.5], dtype=float32)]
    """
    if f is None:
        return custom_gradient
    return _CustomGradient(f)


class _CustomGradient:
    """``f`` decorated; bound to an instance when ``f`` is a method, as TF1's decorator is."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner=None):
        return self if instance is None else _CustomGradient(functools.partial(self._f, instance))

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments only when eager "
                "execution is enabled."
            )
        return _graph_mode(self._f, args)


def _graph_mode(f, args):
    args = nest.map_structure(convert_to_tensor, args)
    result, grad_fn = f(*args)
    result = nest.map_structure(convert_to_tensor, result)
    flat_args, flat_result = nest.flatten(args), nest.flatten(result)
    variables = _variables_between(flat_args, flat_result)
    takes_variables = _takes_variables(grad_fn)
    if variables and not takes_variables:
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses "
            f"variables: {variables}"
        )
    n = len(flat_result)

    def gradient(op, *result_grads):
        result_grads = result_grads[:n]
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*result_grads), []
        return [None] * n + nest.flatten(input_grads) + list(variable_grads)

    name = f"CustomGradient-{next(_names)}"
    RegisterGradient(name)(gradient)
    with get_default_graph().gradient_override_map({"IdentityN": name}):
        passed = identity_n(flat_result + flat_args + [v.value() for v in variables])
    return nest.pack_sequence_as(result, passed[:n])


def _takes_variables(grad_fn) -> bool:
    params = inspect.signature(grad_fn).parameters.values()
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _variables_between(inputs, outputs) -> list:
    """The variables (sorted by name) whose ops the outputs read, walking back through ops a
    gradient passes (any input of an op with a gradient, none of one without) and stopping at
    the inputs, as TF1 finds those ``f`` uses."""
    stop = {id(t) for t in inputs}
    seen, stack, found = set(), [t.op for t in outputs if id(t) not in stop], []
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.primitive.is_variable:
            found.append(op)
        elif rule_of(op, strict=False)[0] is not None:  # a gradient passes it
            stack.extend(t.op for t in op.inputs if id(t) not in stop)
    if not found:
        return []
    graph = found[0].graph
    by_op = {}
    for v in graph.get_collection("variables") + graph.get_collection("local_variables"):
        by_op.setdefault(v.op, v)
    return sorted((by_op[op] for op in found if op in by_op), key=lambda v: v.name)
