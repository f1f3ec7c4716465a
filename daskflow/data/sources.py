"""Where a dataset's elements come from: tensors, ranges, generators.

A source's arguments are numpy arrays known when the graph is built, or
:class:`Captured` graph tensors (a placeholder, typically) whose values an
iterator's initializer supplies: TF1's ``from_tensor_slices(placeholder)``
fed at ``sess.run(iterator.initializer, feed_dict=...)``. A constant tensor is
read at once, as a known array.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.graph import Tensor
from . import nest
from .dataset import Dataset
from .spec import Captured, Spec, specs_from

# TF1's types for Python values; numpy values keep theirs.
_PYTHON_DTYPES = {"f": np.float32, "i": np.int32, "u": np.int32}


def component(value):
    """A source argument: a known read-only array, or a :class:`Captured` tensor."""
    convert = getattr(value, "_as_tensor", None)
    if convert is not None:
        value = convert()
    if isinstance(value, Tensor):
        if value.op.type == "Const":  # known now: no need to wait for an initializer
            return _read_only(np.array(value.op.attrs["value"], dtype=value.dtype.np))
        return Captured(value)
    if isinstance(value, (np.ndarray, np.generic)):
        array = dtypes.as_string_array(value) if value.dtype.kind in "SUO" else np.array(value)
    else:
        raw = np.asarray(value)
        if raw.dtype.kind in "SUO":
            array = dtypes.as_string_array(value)
        else:
            array = raw.astype(_PYTHON_DTYPES.get(raw.dtype.kind, raw.dtype))
    dtypes.as_dtype(array.dtype)  # TypeError for what no tensor can hold
    return _read_only(array)


def _read_only(array):
    array.flags.writeable = False
    return array


def spec_of(c) -> Spec:
    """The static spec of a component."""
    if isinstance(c, Captured):
        return c.spec
    dtype = dtypes.string if c.dtype == object else dtypes.as_dtype(c.dtype)
    return Spec(c.shape, dtype)


class _Tensors(Dataset):
    def __init__(self, tensors):
        self._components = [component(t) for t in nest.flatten(tensors)]
        self._structure = nest.pack(tensors, [spec_of(c) for c in self._components])

    def _iterate(self, state):
        yield tuple(state.value(c) for c in self._components)


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        self._components = comps = [component(t) for t in nest.flatten(tensors)]
        specs = [spec_of(c) for c in comps]
        _check_slices([s.dims for s in specs], ValueError)
        self._structure = nest.pack(tensors, [Spec(_slice_dims(s.dims), s.dtype) for s in specs])

    def _validate(self, captured):
        values = [captured[c.key] if isinstance(c, Captured) else c for c in self._components]
        _check_slices([np.shape(v) for v in values], ValueError)

    def _iterate(self, state):
        arrays = [state.value(c) for c in self._components]
        index, count = state.shard
        for i in range(index, len(arrays[0]), count):
            yield tuple(np.asarray(a[i]) for a in arrays)  # asarray: 0-d arrays, not scalars


def _slice_dims(dims):
    return None if dims is None else tuple(dims[1:])


def _check_slices(shapes, error):
    if not shapes:
        raise error("from_tensor_slices needs at least one component")
    scalars = [i for i, s in enumerate(shapes) if s is not None and len(s) == 0]
    if scalars:
        raise error(f"from_tensor_slices cannot slice scalars (components {scalars})")
    sizes = [None if s is None else s[0] for s in shapes]
    if len({n for n in sizes if n is not None}) > 1:
        raise error(
            f"from_tensor_slices: all components must have the same size in the 0th dimension, sizes {sizes}"
        )


class _Range(Dataset):
    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Dataset.range takes 1 to 3 arguments (start, stop, step), got {len(args)}")
        self._components = [component(a) for a in args]  # tensors too: flat_map(lambda n: range(n))
        for c in self._components:
            if spec_of(c).dims not in ((), None) or not spec_of(c).dtype.is_integer:
                raise TypeError(f"Dataset.range takes integer scalars, got {c}")
        if len(args) == 3 and not isinstance(self._components[2], Captured) and int(self._components[2]) == 0:
            raise InvalidArgumentError(None, None, "step size cannot be 0")
        self._structure = Spec((), dtypes.as_dtype(output_type))

    def _iterate(self, state):
        numbers = range(*(int(state.value(c)) for c in self._components))
        index, count = state.shard
        dtype = self._structure.dtype.np
        return ((np.asarray(i, dtype=dtype),) for i in numbers[index::count])


class _Counter(Dataset):
    def __init__(self, start, step, dtype):
        self._start, self._step = int(start), int(step)
        self._structure = Spec((), dtypes.as_dtype(dtype))

    def _iterate(self, state):
        dtype = self._structure.dtype.np
        return ((np.asarray(i, dtype=dtype),) for i in itertools.count(self._start, self._step))


class _Generator(Dataset):
    """``from_generator``: elements from a Python generator, checked against the declared types."""

    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        self._generator = generator
        self._structure = specs_from(output_types, output_shapes)
        self._args = [component(a) for a in (args or ())]

    def _arguments(self):
        return self._args

    def _iterate(self, state):
        args = [_generator_arg(state.value(a)) for a in self._args]
        specs = nest.flatten(self._structure)
        for element in self._generator(*args):
            yield tuple(_check_yielded(v, s) for v, s in zip(_flat_yielded(element, self._structure), specs))


def _generator_arg(value):
    return (
        value.item() if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0 else value
    )


def _flat_yielded(element, structure):
    if isinstance(structure, tuple) and isinstance(element, list):
        element = tuple(element)  # TF reads a yielded list as a tuple here
    try:
        return _leaves_as(structure, element)
    except (TypeError, KeyError):
        raise TypeError(
            "`generator` yielded an element that did not match the expected structure. The expected "
            f"structure was {structure}, but the yielded element was {element!r}."
        ) from None


def _leaves_as(structure, element):
    if isinstance(structure, dict):
        if not isinstance(element, dict):
            raise TypeError("structure")
        return [leaf for k in sorted(structure) for leaf in _leaves_as(structure[k], element[k])]
    if isinstance(structure, tuple):
        if not isinstance(element, tuple) or len(element) != len(structure):
            raise TypeError("structure")
        return [leaf for s, e in zip(structure, element) for leaf in _leaves_as(s, e)]
    return [element]


def _check_yielded(value, spec):
    try:
        if spec.dtype is dtypes.string:
            array = dtypes.as_string_array(value)
        else:
            array = np.asarray(value)
            if array.dtype.kind in "SUO" or (
                array.dtype.kind == "f" and array.size and not spec.dtype.is_floating
            ):
                raise TypeError
            array = array.astype(spec.dtype.np)
    except (TypeError, ValueError):
        raise TypeError(
            "`generator` yielded an element that could not be converted to the expected type. The expected "
            f"type was {spec.dtype.name}, but the yielded element was {value!r}."
        ) from None
    dims = spec.dims
    if dims is not None and (
        len(dims) != array.ndim or any(d is not None and d != n for d, n in zip(dims, array.shape))
    ):
        expected = tuple(dims)
        raise TypeError(
            f"`generator` yielded an element of shape {array.shape} where an element of shape "
            f"{expected} was expected."
        )
    return array
