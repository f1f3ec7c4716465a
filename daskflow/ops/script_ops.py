"""``py_func`` and ``numpy_function``: a Python function as an op.

The kernel calls the function on the inputs' numpy values and converts each
result to its declared dtype (as TF1 does). The outputs' shapes are unknown
unless the caller ``set_shape``s them. There is no gradient (TF1 has none).
The function travels to workers inside the op's attributes (cloudpickle
handles lambdas and closures).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive


def _py_func_infer(inputs, *, func, Tout, name_hint):  # noqa: N803 - TF1's attr name
    return [(None, t) for t in Tout]


def _py_func_kernel(xp, *arrays, func, Tout, name_hint):  # noqa: N803
    result = func(*[np.asarray(a) for a in arrays])
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(Tout):
        raise ValueError(f"{name_hint} returned {len(results)} values, Tout declares {len(Tout)}")
    out = []
    for i, (value, dtype) in enumerate(zip(results, Tout)):
        try:
            out.append(np.asarray(value, dtype=dtype.np if dtype is not dtypes.string else object))
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"{i}-th value returned by {name_hint} does not convert to {dtype.name}: {e}"
            ) from None
    # One output is bound as a bare value by the runtime, several as a tuple.
    return out[0] if len(out) == 1 else tuple(out)


# The function takes and returns numpy values: it runs on the host, as in TF1.
PyFunc = Primitive(
    "PyFunc", _py_func_infer, _py_func_kernel, stateful=True, host_only=True, grad=NOT_DIFFERENTIABLE
)
PyFuncStateless = Primitive(
    "PyFuncStateless", _py_func_infer, _py_func_kernel, host_only=True, grad=NOT_DIFFERENTIABLE
)


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF1's names
    """An op computing ``func(*numpy inputs)``; ``Tout`` a dtype (one output) or a list of them.

    Examples
    --------
    >>> import daskflow as tf
    >>> import numpy as np
    >>> y = tf.py_func(lambda a: np.sort(a), [tf.constant([3.0, 1.0])], tf.float32)
    >>> tf.Session().run(y).tolist()
    [1.0, 3.0]
    """
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    single = not isinstance(Tout, (list, tuple))
    touts = tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    tensors = [convert_to_tensor(x) for x in inp]
    prim = PyFunc if stateful else PyFuncStateless
    hint = getattr(func, "__name__", "pyfunc")
    outs = apply(prim, *tensors, func=func, Tout=touts, name_hint=hint, name=name)
    outs = outs if isinstance(outs, tuple) else (outs,)
    return outs[0] if single else list(outs)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``py_func`` under its TF 1.14+ name."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)
