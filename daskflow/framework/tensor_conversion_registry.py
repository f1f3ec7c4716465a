"""Functions that turn other Python types into tensors, by type (TF1's registry of that name).

:func:`.constant.convert_to_tensor` asks the functions registered for a value's
type, in priority order, before it makes a constant of the value. Higher layers
register theirs: ``ops/array_ops.py`` registers list packing (a list or tuple
holding tensors becomes one packed tensor), as TF1's ``array_ops`` registers
``_autopacking_conversion_function``, so building a constant imports nothing
above ``framework/``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

# Python and numpy numbers and arrays always become constants: TF1 refuses to
# let their conversion be replaced.
_UNCONVERTIBLE = (int, float, complex, np.generic, np.ndarray)

_registry: dict[int, list[tuple[type | tuple, Callable]]] = {}  # priority -> (base type, function)
_cache: dict[type, list[Callable]] = {}  # a value's type -> its functions in priority order
_lock = threading.Lock()


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Register ``conversion_func`` for values of ``base_type`` (or its subclasses).

    Parameters
    ----------
    base_type : type or tuple of types
        The types it converts.
    conversion_func : callable
        ``conversion_func(value, dtype=None, name=None, as_ref=False)``: a Tensor, or
        ``NotImplemented`` to leave ``value`` to the next function.
    priority : int
        Lower runs first (TF1's default 100; its list packing, 99).

    Raises
    ------
    TypeError
        If ``base_type`` is not a type or a tuple of types, is a Python or numpy
        number or array type, or ``conversion_func`` is not callable.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not types or not all(isinstance(t, type) for t in types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
    if any(issubclass(t, _UNCONVERTIBLE) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    with _lock:
        _registry.setdefault(priority, []).append((base_type, conversion_func))
        _cache.clear()


def get(query: type) -> list[Callable]:
    """The functions registered for the type ``query``, in priority order (TF1's ``get``)."""
    found = _cache.get(query)
    if found is None:
        with _lock:
            found = [
                func
                for priority in sorted(_registry)
                for base_type, func in _registry[priority]
                if issubclass(query, base_type)
            ]
            _cache[query] = found
    return found
