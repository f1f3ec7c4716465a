"""Which of a plan's tensors travel compressed, and what encodes and decodes them.

With ``ConfigProto(gradient_compression=...)``, a float tensor that a
replica makes and a single partition (the ps's update) reads — a gradient,
in data-parallel training — leaves its replica encoded
(:mod:`daskflow.kernels.codecs`) and is decoded where it is read,
before anything aggregates it. The producer exports it twice where it must:
encoded for that reader, as it is for a fetch. Tensors below
:data:`MIN_SIZE` values, or of a shape known only when the step runs, go as
they are. This module knows neither ops nor Dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy

from ...framework.replica import PerReplica, current_replica
from ...kernels import codecs

if TYPE_CHECKING:
    from collections.abc import Container, Iterable

    from numpy.typing import DTypeLike

    from ...framework.graph import Tensor
    from .partition import Plan

# Below this many values a tensor goes as it is: encoding it would save under 200 bytes.
MIN_SIZE = 64


@dataclass(frozen=True)
class Encoded:
    """An export: ``tensor`` encoded for the partitions that read it compressed."""

    tensor: Tensor


def compressed_tensors(plan: Plan, codec: str | None, replicated: Container[str]) -> dict[Tensor, str]:
    """``{tensor: codec}`` for the tensors crossing from a replica (a partition in
    ``replicated``) to a single partition."""
    if codec is None:
        return {}
    found = {}
    for op in plan.ops:
        reader = plan.partition_of.get(op)
        if reader is None or reader.key in replicated:
            continue
        for t in plan.inputs_of(op):
            maker = plan.partition_of.get(t.op)
            if maker is not None and maker.key in replicated and worth_encoding(t):
                found[t] = codec
    return found


def worth_encoding(t: Tensor) -> bool:
    """A float tensor of a static shape and at least :data:`MIN_SIZE` values."""
    shape = t.shape
    if not t.dtype.is_floating or not shape.is_fully_defined():
        return False
    return int(numpy.prod(shape.as_list(), dtype=numpy.int64)) >= MIN_SIZE


class Encoder:
    """Encodes one tensor as it leaves its replica; int8 keeps each replica's residual.

    A program's globals are copied to each worker, so each worker keeps its
    own replicas' residuals. A value not on the host (a GPU's, before it is
    copied) goes as it is.
    """

    def __init__(self, codec: str, dtype: DTypeLike) -> None:
        self.codec, self.dtype = codec, numpy.dtype(dtype)
        self.residuals: dict = {}  # replica index -> the error not yet sent

    def __call__(self, value: object) -> object:
        if type(value) is not numpy.ndarray or value.dtype != self.dtype:
            return value
        residual = None
        if self.codec == "int8":
            index = current_replica()[0]
            residual = self.residuals.get(index)
            if residual is None:
                residual = self.residuals[index] = numpy.zeros(value.size, self.dtype)
        return codecs.encode(self.codec, value, residual)


class Decoder:
    """Decodes one tensor where it is read: each replica's value, before aggregation."""

    def __init__(self, shape: Iterable[int], dtype: DTypeLike) -> None:
        self.shape, self.dtype = tuple(shape), numpy.dtype(dtype)

    def __call__(self, value: object) -> object:
        if type(value) is PerReplica:
            values = [self._one(v) for v in value.values]
            own = [own or v is not old for v, old, own in zip(values, value.values, value.own)]
            return PerReplica(values, own)
        return self._one(value)

    def _one(self, value: object) -> object:
        if type(value) is not numpy.ndarray:
            return value
        return codecs.decode(value, self.shape, self.dtype)


def encoder_for(t: Tensor, codec: str) -> Encoder:
    return Encoder(codec, t.dtype.as_numpy_dtype)


def decoder_for(t: Tensor) -> Decoder:
    return Decoder(t.shape.as_list(), t.dtype.as_numpy_dtype)
