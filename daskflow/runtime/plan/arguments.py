"""Where the values a step reads and returns come from, as small records.

A compiled partition's arguments are :class:`FedValue`, :class:`VariableValue`
and :class:`FromPartition`; a fetched tensor's source is one of
:class:`FedValue`, :class:`VariableValue`, :class:`Constant` and
:class:`PartitionResult`. All are made once, when a signature is planned; a
step only reads them (``type(x) is ...`` and attributes), so the keys a step
looks values up by are computed here, not per step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import final


def feed_key(index: int) -> str:
    """The key of feed ``index``'s value in a step's graph."""
    return f"feed-{index}"


def var_key(name: str) -> str:
    """The key of variable ``name``'s value in a step's graph."""
    return f"var-{name}"


# Each record is final: `type(a) is C`, which the per-step code uses, tells its kind to type
# checkers too.
@final
@dataclass(frozen=True, slots=True)
class FedValue:
    """The value fed for the run's feed number ``index``."""

    index: int
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", feed_key(self.index))


@final
@dataclass(frozen=True, slots=True)
class VariableValue:
    """Variable ``name``'s value as the step starts, from the session's store.

    ``required``: reading it uninitialized fails the step (it is read before
    anything assigns it); otherwise a missing value is passed as None.
    """

    name: str
    required: bool = False
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", var_key(self.name))


@final
@dataclass(frozen=True, slots=True)
class FromPartition:
    """All results of partition ``partition`` (a tuple), as another partition's argument."""

    partition: str

    @property
    def key(self) -> str:
        return self.partition  # a partition's task is keyed by the partition


@final
@dataclass(frozen=True, slots=True, eq=False)
class Constant:
    """A fetched tensor folded to ``value`` when the signature was planned."""

    value: object


@final
@dataclass(frozen=True, slots=True)
class PartitionResult:
    """Result number ``index`` of partition ``partition``: a tensor made there."""

    partition: str
    index: int


@final
@dataclass(frozen=True, slots=True)
class VariableUpdate:
    """Variable ``name``'s new value: result ``index`` of partition ``partition``."""

    name: str
    partition: str
    index: int
