"""What a session's runtime tells whoever listens: typed records, and a tiny registry.

The runtime emits a record as something happens (a session opened, a plan
placed, a step finished, a session closed; a ``FileWriter`` wrote scalars) and
knows nothing of who listens. A listener registers itself for a record type
with :func:`subscribe` when its module is imported; the modules named in the
Dask configuration key ``daskflow.subscribers`` (``daskflow/daskflow.yaml``:
the dashboard's publisher) are imported by :func:`load_subscribers`, as Dask
imports its preloads, so the runtime imports none of them. On the scheduler, a
session's plugin emits :class:`SchedulerSessionOpened` and
:class:`SchedulerSessionsClosed` to the modules ``daskflow.scheduler-subscribers``
names (the dashboard's Groups page layout), loaded there whether or not the
scheduler preloads the dashboard.

A listener's failure is logged, never raised: it must not fail a step.
"""

from __future__ import annotations

import importlib
import logging
import threading
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionOpened:
    """A cluster session opened: its ``client``, token ``session``, first step number and graph."""

    session: str
    client: Any
    first_step: int
    graph: Any = None


@dataclass(frozen=True)
class PlanPlaced:
    """Session ``session`` made a plan: ``lowered`` (its ``Lowered``), placed on ``workers``."""

    session: str
    lowered: Any
    workers: Any
    soft: bool


@dataclass(frozen=True)
class StepFinished:
    """Step ``n`` of plan ``plan`` finished after ``wall`` s, at ``time`` (``time.time()``)."""

    session: str
    plan: str
    n: int
    wall: float
    time: float


@dataclass(frozen=True)
class SessionClosed:
    """Session ``session`` closed."""

    session: str


@dataclass(frozen=True)
class SchedulerSessionOpened:
    """On the scheduler (``scheduler``, in this process): session ``session``'s plugin started."""

    session: str
    scheduler: Any


@dataclass(frozen=True)
class SchedulerSessionsClosed:
    """On the scheduler (``scheduler``, in this process): the last open session's plugin ended."""

    scheduler: Any


@dataclass(frozen=True)
class ScalarsWritten:
    """A ``FileWriter`` of ``graph`` (None: of none) wrote ``summary`` at ``global_step``."""

    summary: Any
    global_step: int
    graph: Any = None


_SUBSCRIBERS: dict[type, list] = {}
_LOCK = threading.Lock()
_LOADED: set = set()  # names of the subscriber modules imported in this process


def subscribe(kind: type, handler) -> None:
    """Call ``handler(record)`` for every record of type ``kind`` emitted (once per handler)."""
    with _LOCK:
        handlers = _SUBSCRIBERS.setdefault(kind, [])
        if handler not in handlers:
            handlers.append(handler)


def unsubscribe(kind: type, handler) -> None:
    """Stop calling ``handler`` for ``kind``."""
    with _LOCK:
        if handler in _SUBSCRIBERS.get(kind, ()):
            _SUBSCRIBERS[kind].remove(handler)


def listened(kind: type) -> bool:
    """Whether anyone listens to ``kind`` (a record nobody wants need not be made)."""
    return bool(_SUBSCRIBERS.get(kind))


def emit(record) -> None:
    """Hand ``record`` to each handler subscribed to its type, in order; errors are logged."""
    for handler in list(_SUBSCRIBERS.get(type(record), ())):
        try:
            handler(record)
        except Exception:  # noqa: BLE001 - a listener never fails the runtime
            logger.warning("daskflow: %r failed on %s", handler, type(record).__name__, exc_info=True)


def load_subscribers(names=None) -> None:
    """Import, once each, the modules ``names`` lists (by default those ``daskflow.subscribers``
    names); each subscribes on import."""
    if names is None:
        # local import: defaults loads dask.config, and records are emitted while graphs are built
        from .defaults import setting

        names = setting("daskflow.subscribers") or ()
    for name in names:
        if name in _LOADED:
            continue
        _LOADED.add(name)
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a listener that cannot load listens to nothing
            logger.warning("daskflow could not load the subscriber %s", name, exc_info=True)
