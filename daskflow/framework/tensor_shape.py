"""Static shapes with unknown (``None``) dimensions.

A shape is stored as a tuple of ints and ``None`` (``dims``), or ``None`` when
even the rank is unknown. :class:`TensorShape` is the user-facing wrapper with
TF1's methods; inference rules work on the plain tuples.
"""

from __future__ import annotations


class Dimension(int):
    """One known dimension of a static shape: an ``int`` with TF1's ``.value``.

    TF1's ``shape[i]`` is a ``Dimension``; being an ``int`` here, a known one
    works wherever an int does (indexing, ``range``, hashing, numpy shapes).
    Arithmetic on it gives a ``Dimension``. An unknown dimension is ``None``
    in a shape's ``dims`` and ``as_list()``; indexing or iterating a shape gives
    TF1's ``Dimension(None)`` for it (``.value`` None, false, equal to nothing).

    Examples
    --------
    >>> TensorShape([None, 3])[1].value
    3
    """

    def __new__(cls, value):
        if value is None or getattr(value, "value", 0) is None:
            return _UnknownDimension()
        value = value.value if hasattr(value, "value") else value
        if int(value) != value or value < 0:
            raise ValueError(f"Dimension {value} must be a non-negative integer")
        return super().__new__(cls, int(value))

    @property
    def value(self):
        return int(self)

    def __repr__(self):
        return f"Dimension({int(self)})"

    __str__ = int.__repr__  # "3", as TF1 prints a known dimension

    def is_compatible_with(self, other):
        other = dimension_value(other)
        return other is None or other == int(self)

    def merge_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {dimension_value(other)} are not compatible")
        return self


def _dimension_op(name):
    op = getattr(int, name)

    def method(self, other):
        if dimension_value(other) is None and (other is None or hasattr(other, "value")):
            return _UnknownDimension()
        out = op(self, dimension_value(other))
        return Dimension(out) if isinstance(out, int) and out >= 0 else out

    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__mod__"):
    setattr(Dimension, _name, _dimension_op(_name))


class _UnknownDimension:
    """TF1's ``Dimension(None)``: arithmetic with it and comparisons give unknown."""

    value = None
    __slots__ = ()

    def __repr__(self):
        return "Dimension(None)"

    def __str__(self):
        return "?"

    def __eq__(self, other):
        return None

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = None  # as TF1's

    def _unknown(self, other):
        return _UnknownDimension()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __floordiv__ = _unknown

    def __int__(self):
        raise TypeError("an unknown Dimension has no int value")

    def __bool__(self):
        return False  # as TF1's: `shape[0] or default` takes the default

    def is_compatible_with(self, other):
        return True

    def merge_with(self, other):
        return Dimension(dimension_value(other))


def dimension_value(dimension):
    """TF1's ``tf.dimension_value``: a dimension's int value, or None when unknown."""
    return getattr(dimension, "value", dimension) if dimension is not None else None


class TensorShape:
    """The static shape of a tensor; dimensions may be ``None`` (unknown).

    Examples
    --------
    >>> TensorShape([None, 784]).as_list()
    [None, 784]
    >>> TensorShape([None, 784])
    TensorShape([Dimension(None), Dimension(784)])
    >>> print(TensorShape([None, 784]))
    (?, 784)
    """

    __slots__ = ("dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
        elif isinstance(dims, int) or hasattr(dims, "__index__"):
            dims = (dims,)  # TF1 takes a bare int for a 1-D shape: placeholder(tf.float32, 100)
        self.dims = None if dims is None else tuple(_dim(d) for d in dims)

    @property
    def ndims(self):
        return None if self.dims is None else len(self.dims)

    rank = ndims

    def as_list(self) -> list:
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape")
        return list(self.dims)

    def is_fully_defined(self) -> bool:
        return self.dims is not None and None not in self.dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        return compatible(self.dims, TensorShape(other).dims)

    def merge_with(self, other) -> TensorShape:
        return TensorShape(merge(self.dims, TensorShape(other).dims))

    def __len__(self):
        if self.dims is None:
            raise ValueError("len() of an unknown TensorShape")
        return len(self.dims)

    def __iter__(self):
        if self.dims is None:
            raise ValueError("cannot iterate over an unknown TensorShape")
        return (Dimension(d) for d in self.dims)  # TF1's: each with .value, an unknown one too

    def __getitem__(self, index):
        """TF1's: a ``Dimension`` (``Dimension(None)`` when unknown, whose ``.value`` is None),
        or a ``TensorShape`` for a slice (of an unknown shape: the rank a slice's bounds give)."""
        if isinstance(index, slice) and index.step is not None and self.dims is None:
            raise ValueError("Steps are not yet handled")
        if self.dims is None:
            if not isinstance(index, slice):
                return _UnknownDimension()
            start, stop = index.start or 0, index.stop
            if stop is None or start < 0 or stop < 0:
                return TensorShape(None)
            return TensorShape([None] * max(stop - start, 0))
        if isinstance(index, slice):
            return TensorShape(self.dims[index])
        return Dimension(self.dims[index])

    def __eq__(self, other):
        try:
            return self.dims == TensorShape(other).dims
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.dims)

    def __repr__(self):
        if self.dims is None:
            return "TensorShape(None)"
        dims = ", ".join(f"Dimension({d})" for d in self.dims)  # TF1's, unknown ones included
        return f"TensorShape([{dims}])"

    def __str__(self):
        if self.dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self.dims)
        return f"({inner},)" if len(self.dims) == 1 else f"({inner})"


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value"):  # TF1 Dimension-like objects
        d = d.value
    d = int(d)
    if d < 0:
        return None  # TF uses -1 for unknown in some APIs
    return d


def as_dims(shape):
    """Normalise anything shape-like (list, tuple, TensorShape, None) to dims."""
    return TensorShape(shape).dims


def compatible(a, b) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def merge(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if not compatible(a, b):
        raise ValueError(f"shapes {fmt(a)} and {fmt(b)} are incompatible")
    return tuple(x if x is not None else y for x, y in zip(a, b))


def fmt(dims) -> str:
    return str(TensorShape(dims))


def broadcast(a, b):
    """Numpy broadcasting of two static shapes; ``None`` where it is unknown."""
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"shapes {fmt(a)} and {fmt(b)} cannot be broadcast")
    return tuple(out)
