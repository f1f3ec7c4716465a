"""``map_fn``, ``scan``, ``foldl`` and ``foldr``: loops over the first dimension.

Each is built as TF1 builds it: the elements are unstacked into
TensorArrays, one ``while_loop`` calls ``fn`` once per element, and results
are written to TensorArrays and stacked after the loop. So each is one
``While`` op (run inside one task) and differentiable like any loop.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import name_scope
from ..framework.tensor_shape import TensorShape, merge
from . import array_ops
from .functional_ops import _flatten, _pack, while_loop
from .tensor_array_ops import TensorArray


def _is_nested(s):
    return isinstance(s, (list, tuple, dict))


def _assert_same_structure(expected, got, what):
    """TF's ``nest.assert_same_structure``: ValueError for another nesting, TypeError for
    another kind of sequence."""
    if _is_nested(expected) != _is_nested(got):
        raise ValueError(
            f"{what}: the structures differ: expected {_describe(expected)}, got {_describe(got)}"
        )
    if not _is_nested(expected):
        return
    if type(expected) is not type(got) and not (isinstance(expected, list) and isinstance(got, list)):
        if isinstance(expected, dict) != isinstance(got, dict) or hasattr(expected, "_fields"):
            raise TypeError(
                f"{what}: the structures have different sequence types: "
                f"{type(expected).__name__} and {type(got).__name__}"
            )
    if isinstance(expected, dict):
        if sorted(expected) != sorted(got):
            raise ValueError(f"{what}: the dicts have different keys: {sorted(expected)} and {sorted(got)}")
        pairs = [(expected[k], got[k]) for k in sorted(expected)]
    else:
        if len(expected) != len(got):
            raise ValueError(
                f"{what}: the structures have {len(expected)} and {len(got)} elements: "
                f"expected {_describe(expected)}, got {_describe(got)}"
            )
        pairs = list(zip(expected, got))
    for a, b in pairs:
        _assert_same_structure(a, b, what)


def _describe(s):
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in s.items()) + "}"
    if isinstance(s, (list, tuple)):
        inner = ", ".join(_describe(v) for v in s)
        return f"[{inner}]" if isinstance(s, list) else f"({inner})"
    return getattr(s, "name", type(s).__name__)


def _first_dim(t):
    return t._dims[0] if t._dims is not None and t._dims else None


def _length(elems_flat, what):
    """(static length or None, length tensor): the elements' common first dimension."""
    first = elems_flat[0]
    for t in elems_flat:
        if t._dims is not None and not t._dims:
            raise ValueError(
                f"{what}: elements in elems must be 1+ dimensional Tensors, not scalars ({t.name})"
            )
    n_static = None
    for t in elems_flat:
        try:
            n_static = merge((n_static,), (_first_dim(t),))[0]
        except ValueError:
            raise ValueError(
                f"{what}: the elems have different first dimensions: {first.name} has "
                f"{_first_dim(first)} and {t.name} has {_first_dim(t)}"
            ) from None
    n = n_static if n_static is not None else array_ops.shape(first)[0]
    return n_static, n


def _unstacked(elems_flat, n, element_shape=False):
    return [
        TensorArray(
            t.dtype, size=n, element_shape=t.shape[1:] if element_shape else None, infer_shape=True
        ).unstack(t)
        for t in elems_flat
    ]


def _with_length(t, n_static):
    """``t`` with its first (time) dimension set to the elements' static length."""
    if t._dims is not None:
        t.set_shape(TensorShape([n_static, *t._dims[1:]]))
    return t


def _limit(n):
    return n if isinstance(n, int) else None  # a tensor bound is kept by the loop's condition


def _elements(elems, what):
    flat = [convert_to_tensor(t, name="elem") for t in _flatten(elems)]
    if not flat:
        raise ValueError(
            f"{what}: elems must be a Tensor or (possibly nested) sequence of Tensors, got {elems!r}"
        )
    return flat


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """``fn`` applied to each element of ``elems`` (unstacked on dimension 0), stacked.

    ``elems`` may be a nested structure of tensors with one first dimension;
    ``fn`` gets the same structure of elements. ``fn`` must return the
    structure of ``dtype`` (of ``elems`` when ``dtype`` is None). Runs as one
    ``while_loop``.

    Examples
    --------
    >>> import daskflow as tf
    >>> squares = tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0]))
    >>> tf.Session().run(squares)
    array([1., 4., 9.], dtype=float32)
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if not callable(fn):
        raise TypeError(f"map_fn: fn {fn!r} is not callable")
    with name_scope(name or "map"):
        elems_flat = _elements(elems, "map_fn")
        n_static, n = _length(elems_flat, "map_fn")
        out_dtypes = (
            [t.dtype for t in elems_flat]
            if signature is None
            else [dtypes.as_dtype(d) for d in _flatten(signature)]
        )
        elems_ta = _unstacked(elems_flat, n)
        results_ta = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

        def compute(i, tas):
            packed = _pack(elems, iter([ta.read(i) for ta in elems_ta]))
            result = fn(packed)
            _assert_same_structure(signature if signature is not None else elems, result, "map_fn")
            values = _flatten(result)
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, values)]

        _, results_ta = while_loop(
            lambda i, _: i < n,
            compute,
            (constant(0), results_ta),
            parallel_iterations=parallel_iterations or 10,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=_limit(n),
        )
        results = [_with_length(ta.stack(), n_static) for ta in results_ta]
        return _pack(signature if signature is not None else elems, iter(results))


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """Every intermediate ``a = fn(a, x)`` over the elements of ``elems``, stacked.

    Without ``initializer`` the first element (the last with ``reverse``)
    starts the accumulation and is the first result.

    Examples
    --------
    >>> import daskflow as tf
    >>> sums = tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4]))
    >>> tf.Session().run(sums)
    array([ 1,  3,  6, 10], dtype=int32)
    """
    if not callable(fn):
        raise TypeError(f"scan: fn {fn!r} is not callable")
    out_structure = elems if initializer is None else initializer
    with name_scope(name or "scan"):
        elems_flat = _elements(elems, "scan")
        n_static, n = _length(elems_flat, "scan")
        elems_ta = _unstacked(elems_flat, n, element_shape=True)
        last = n - 1
        if initializer is None:
            a_flat = [ta.read(last if reverse else 0) for ta in elems_ta]
            start = 1
        else:
            a_flat = [convert_to_tensor(a) for a in _flatten(initializer)]
            start = 0
        accs_ta = [
            TensorArray(
                a.dtype, size=n, element_shape=a.shape if infer_shape else None, infer_shape=infer_shape
            )
            for a in a_flat
        ]
        if initializer is None:
            accs_ta = [ta.write(last if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = _pack(elems, iter([ta.read(i) for ta in elems_ta]))
            a_out = fn(_pack(out_structure, iter(a_flat)), packed_elems)
            _assert_same_structure(out_structure, a_out, "scan")
            flat_out = _flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
            return (i - 1 if reverse else i + 1), flat_out, tas

        if reverse:
            i0, condition = n - 1 - start, lambda i, _1, _2: i >= 0
        else:
            i0, condition = start, lambda i, _1, _2: i < n
        _, _, accs_ta = while_loop(
            condition,
            compute,
            (convert_to_tensor(i0, dtype=dtypes.int32), a_flat, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=_limit(n),
        )
        results = [_with_length(ta.stack(), n_static) for ta in accs_ta]
        return _pack(out_structure, iter(results))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, x0), x1)..., xn-1)`` over the elements of ``elems``.

    Without ``initializer`` the first element starts the accumulation.

    Examples
    --------
    >>> import daskflow as tf
    >>> total = tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3, 4]))
    >>> tf.Session().run(total)
    np.int32(10)
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``foldl`` from the last element to the first.

    Examples
    --------
    >>> import daskflow as tf
    >>> digits = tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))
    >>> tf.Session().run(digits)
    np.int32(321)
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr")


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, what):
    if not callable(fn):
        raise TypeError(f"{what}: fn {fn!r} is not callable")
    right = what == "foldr"
    with name_scope(name or what):
        elems_flat = _elements(elems, what)
        n_static, n = _length(elems_flat, what)
        n = n_static or array_ops.shape(elems_flat[0])[0]  # TF1: a static length of 0 reads the shape
        elems_ta = _unstacked(elems_flat, n)
        read = lambda i: _pack(elems, iter([ta.read(i) for ta in elems_ta]))  # noqa: E731
        if initializer is None:
            i = n - 1 if right else 1
            a = read(n - 1 if right else 0)
        else:
            i = n if right else 0
            a = initializer

        def compute(i, a):
            i = i - 1 if right else i
            a = fn(a, read(i))
            return [i if right else i + 1, a]

        _, result = while_loop(
            (lambda i, a: i > 0) if right else (lambda i, a: i < n),
            compute,
            [convert_to_tensor(i, dtype=dtypes.int32), a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=_limit(n),
        )
        return result
