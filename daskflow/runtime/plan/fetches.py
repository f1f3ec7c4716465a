"""Flattening nested fetches and rebuilding the results in the same shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...framework.graph import Graph, Operation, Tensor
from .conversions import fetch_expansion


def _as_fetched(value: Any) -> Any:
    """A 0-d result as TF1 returns it: a numpy scalar, or ``bytes`` for a string."""
    if type(value) is np.ndarray and not value.shape:
        return value[()]
    return value


def invalid_fetch(fetch: object) -> TypeError:
    """TF1's error for a fetch that is no tensor, operation or name (an array, a number)."""
    kind = type(fetch).__name__
    return TypeError(
        f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or Tensor. "
        f"(Can not convert a {kind} into a Tensor or Operation.)"
    )


class FetchMapper:
    """Flattens ``fetches`` (a tensor, op, name, or nested list/tuple/dict/
    namedtuple) into distinct tensors and ops, and rebuilds results."""

    def __init__(self, graph: Graph, fetches: object) -> None:
        self.tensors: list = []
        self.ops: list = []
        self._build = self._mapper(graph, fetches)

    def build(self, values: Sequence[Any]) -> Any:
        return self._build(values)

    def _mapper(self, graph: Graph, fetch: Any) -> Callable[[Sequence[Any]], Any]:
        if isinstance(fetch, (list, tuple)):
            parts = [self._mapper(graph, f) for f in fetch]
            if hasattr(fetch, "_fields"):  # namedtuple
                return lambda vs: type(fetch)(*(p(vs) for p in parts))
            kind = type(fetch)
            return lambda vs: kind(p(vs) for p in parts)
        if isinstance(fetch, dict):
            named = {k: self._mapper(graph, v) for k, v in fetch.items()}
            return lambda vs: {k: p(vs) for k, p in named.items()}
        expansion = fetch_expansion(fetch)
        if expansion is not None:  # a composite (SparseTensor): its parts, contracted back
            subfetches, contract = expansion
            subparts = [self._mapper(graph, f) for f in subfetches]
            return lambda vs: contract([p(vs) for p in subparts])
        element = self._element(graph, fetch)
        if isinstance(element, Operation):
            if element not in self.ops:
                self.ops.append(element)
            return lambda vs: None
        if element not in self.tensors:
            self.tensors.append(element)
        index = self.tensors.index(element)
        return lambda vs: _as_fetched(vs[index])

    @staticmethod
    def _element(graph: Graph, fetch: object) -> Tensor | Operation:
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if not isinstance(fetch, (str, Tensor, Operation)) and not hasattr(fetch, "_as_graph_element"):
            raise invalid_fetch(fetch)
        try:
            element = graph.as_graph_element(fetch)
        except KeyError:  # TF1's words for a name the graph lacks
            raise ValueError(
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({_missing(fetch)})"
            ) from None
        except (ValueError, TypeError) as e:
            detail = e.args[0] if e.args else e  # KeyError's str() would quote it again
            raise type(e)(
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor or Operation: {detail}"
            ) from None
        if not isinstance(element, (Tensor, Operation)):
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        return element


def _missing(name: object) -> str:
    op_name, colon, _ = str(name).partition(":")
    if colon:
        return (
            f"\"The name '{name}' refers to a Tensor which does not exist. "
            f"The operation, '{op_name}', does not exist in the graph.\""
        )
    return f"\"The name '{name}' refers to an Operation not in the graph.\""
