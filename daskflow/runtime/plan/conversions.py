"""How ``Session.run`` fetches and feeds composite values (TF1's ``_REGISTERED_EXPANSIONS``).

A composite such as :class:`~daskflow.framework.sparse_tensor.SparseTensor`
is no tensor the plan knows: a fetch of one is expanded into its parts and
the fetched parts contracted back into one value; a feed key of one is
expanded into ``(part tensor, part value)`` pairs. Each composite type
registers its functions here once; the session consults this table and
knows no composite by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ...framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ...framework.sparse_tensor import SparseTensor, SparseTensorValue

if TYPE_CHECKING:
    from ...framework.graph import Tensor

# A fetch function's answer: the parts to fetch, and what makes one value of their values.
Expansion = tuple[list, Callable[[list], Any]]
# A feed function: (feed key, its value) -> [(part tensor, part value)].
FeedFunction = Callable[[Any, Any], list]

# (type, fetch_function, feed_function, feed_function_for_partial_run), newest first.
_REGISTERED_EXPANSIONS: list = []
# Key types a feed_dict may need flattened or expanded: tuples and every type with a
# feed function, kept in one tuple so the per-step test is one isinstance per key.
_STRUCTURED_KEYS: list = [(tuple,)]


def structured_key_types() -> tuple[type, ...]:
    """The types of feed keys that ``flatten_feed_dict`` must expand (one tuple)."""
    return _STRUCTURED_KEYS[0]


def register_session_run_conversion_functions(
    tensor_type: type,
    fetch_function: Callable[[Any], Expansion],
    feed_function: FeedFunction | None = None,
    feed_function_for_partial_run: Callable[[Any], list] | None = None,
) -> None:
    """Teach ``Session.run`` to fetch and feed values of ``tensor_type`` (TF1's function).

    Parameters
    ----------
    tensor_type : type
        The composite type.
    fetch_function : callable
        ``fetch_function(fetch) -> (list of fetches, contraction)``;
        ``contraction(list of fetched values)`` is what ``run`` returns.
    feed_function : callable, optional
        ``feed_function(feed, feed_value) -> list of (tensor, value)`` pairs.
    feed_function_for_partial_run : callable, optional
        ``feed_function_for_partial_run(feed) -> list of tensors`` (kept for TF1's
        signature; daskflow has no partial runs).

    Raises
    ------
    ValueError
        If ``tensor_type`` (or a subclass of it) is registered already.
    """
    for registered in _REGISTERED_EXPANSIONS:
        if issubclass(registered[0], tensor_type):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")
    entry = (tensor_type, fetch_function, feed_function, feed_function_for_partial_run)
    _REGISTERED_EXPANSIONS.insert(0, entry)
    if feed_function is not None:
        _STRUCTURED_KEYS[0] = (*_STRUCTURED_KEYS[0], tensor_type)


def fetch_expansion(fetch: object) -> Expansion | None:
    """``(parts to fetch, contraction)`` for a registered composite ``fetch``, else None."""
    for tensor_type, fetch_function, _, _ in _REGISTERED_EXPANSIONS:
        if isinstance(fetch, tensor_type):
            return fetch_function(fetch)
    return None


def feed_expansion(feed: object) -> FeedFunction | None:
    """The ``feed_function`` registered for ``feed``'s type, else None."""
    for tensor_type, _, feed_function, _ in _REGISTERED_EXPANSIONS:
        if isinstance(feed, tensor_type):
            return feed_function
    return None


def _sparse_parts(sparse: SparseTensor) -> list[Tensor]:
    return [sparse.indices, sparse.values, sparse.dense_shape]


def _feed_sparse(feed: SparseTensor, value: Iterable) -> list[tuple[Tensor, Any]]:
    # As TF1: the value (a SparseTensorValue or any (indices, values, dense_shape)
    # triple) is zipped with the parts, each checked as it is paired, so a dense
    # array fails on the indices' shape before any part is found missing.
    from .feeds import check_feed  # local import: a cycle (feeds consults this table)

    return [(part, check_feed(part, v)) for part, v in zip(_sparse_parts(feed), value)]


register_session_run_conversion_functions(
    SparseTensor,
    lambda fetch: (_sparse_parts(fetch), lambda values: SparseTensorValue(*values)),
    _feed_sparse,
    _sparse_parts,
)


def _rows_parts(rows: IndexedSlices) -> list[Tensor]:
    return [rows.values, rows.indices] + ([rows.dense_shape] if rows.dense_shape is not None else [])


register_session_run_conversion_functions(
    IndexedSlices,
    lambda fetch: (
        _rows_parts(fetch),
        lambda values: IndexedSlicesValue(*values, *([None] * (3 - len(values)))),
    ),
)
