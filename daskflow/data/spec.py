"""The static type of one element component: its dims and dtype."""

from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import DType


@dataclass(frozen=True)
class Spec:
    """Static dims (``None`` entries unknown; ``None`` for unknown rank) and dtype.

    Not a tuple on purpose: ``nest`` treats tuples as structure, and a Spec is a leaf.
    """

    dims: tuple | None
    dtype: DType

    def batched(self, size):
        """The spec of a stack of ``size`` (None: unknown) of these."""
        return Spec(None if self.dims is None else (size, *self.dims), self.dtype)
