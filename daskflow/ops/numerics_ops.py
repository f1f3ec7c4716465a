"""Stopping at the first NaN or Inf: ``check_numerics`` and ``add_check_numerics_ops``."""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.graph import get_default_graph
from ..framework.primitive import Primitive
from .control_flow_ops import group
from .infer import same_float


def _check(xp, x, *, message):
    finite = xp.isfinite(x)
    if not bool(finite.all()):
        kinds = [k for k, bad in (("NaN", xp.isnan(x).any()), ("Inf", xp.isinf(x).any())) if bool(bad)]
        # A ValueError: the session reports it as InvalidArgumentError naming this op.
        raise ValueError(f"{message} : Tensor had {' and '.join(kinds)} values")
    return x


CheckNumerics = Primitive(
    "CheckNumerics", same_float, _check, lambda op, g: [g], stateful=True, forwards_input=False
)


def check_numerics(tensor, message, name=None):
    """``tensor`` itself, after checking it holds no NaN or Inf (else the run fails naming this op).

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32)
    >>> y = tf.debugging.check_numerics(tf.log(x), "log of x")
    >>> tf.Session().run(y, {x: 1.0})
    np.float32(0.0)
    """
    return apply(CheckNumerics, tensor, name=name, message=str(message))


def add_check_numerics_ops():
    """One op checking every floating-point tensor of the default graph; run it with the step.

    Each tensor's message names the op that made it, so the first NaN or Inf
    stops the run naming its source.
    """
    graph = get_default_graph()
    checks = []
    for op in list(graph.get_operations()):
        if op.type == "CheckNumerics":
            continue
        for t in op.outputs:
            if t.dtype.is_floating:
                checks.append(check_numerics(t, f"{op.name}:{t.value_index}"))
    return group(*checks, name="CheckNumerics")
