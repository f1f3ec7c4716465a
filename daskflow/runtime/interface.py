"""What a :class:`~daskflow.runtime.session.Session` asks of the runtime under it.

A session is TF1's façade: it keeps the graph, the cache of plans by
signature and the feed and fetch checks, and hands everything that depends on
where the graph runs to one runtime object: :class:`~.embedded.EmbeddedRuntime`
(every partition in this process, variables in a dict) or
:class:`~.cluster.runtime.ClusterRuntime` (one Dask task per partition,
variables as futures on their workers). Both answer the :class:`Runtime`
protocol below, so the session has no branch on which one it holds.

The session plans a signature once (:meth:`Runtime.plan`) and runs it many
times (:meth:`Runtime.run`): the per-step path is the session's cache look-up,
the feed checks, one call here, and the shaping of the fetched values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from .plan.executable import Executable


@dataclass(frozen=True)
class Placement:
    """Where a run executes one op (``Session.placement``'s values).

    Attributes
    ----------
    device : str
        The device the plan gives the op (``""``: none was asked).
    worker : str or None
        The Dask worker that runs it (``"ps-0"``), several as ``"worker-0,
        worker-1"`` for an op of a replicated graph; None in an embedded
        session, where every op runs in this process.
    reason : str
        Why the op is there: cost placement's reason (``ConfigProto(placement=
        "cost")``), ``"its device scope"`` or ``"no device asked"``.
    """

    device: str
    worker: str | None
    reason: str


class Runtime(Protocol):
    """Where a session's steps run and its variables live.

    ``signatures`` is the session's cache of plans: ``{signature: (fetch
    mapper, executable, feed specs)}``; a runtime that places the graph anew
    (cost placement) drops the entries it made stale. ``between_graph`` says
    whether the variables are a between-graph job's, shared with its other
    clients; ``dashboard_link`` is the Dask dashboard's address, or None;
    ``recoveries`` lists each recovery from a lost worker.

    What a user sees of it (``Session.runtime``): ``client``, the
    ``distributed.Client`` the steps go through (None embedded), and
    ``variables``, ``{variable name: its current value}`` to read, not
    write: an array embedded, a :class:`~.cluster.held.Held` (where the
    value lives on the cluster) on a cluster.
    """

    client: object | None
    variables: Mapping
    signatures: dict
    between_graph: bool
    dashboard_link: str | None
    recoveries: list

    def plan(self, mapper, feeds: list, feed_dict: dict, state_for) -> Executable:
        """The executable of a signature: fetches ``mapper``, fed tensors ``feeds``."""

    def run(self, executable: Executable, feed_values: list, steps: int = 1, limit_ms=None) -> list:
        """Run ``steps`` steps, committing variable updates; the last one's fetched values."""

    def traced_run(self, executable: Executable, feed_values: list, stats, steps: int = 1) -> list:
        """:meth:`run`, its (last) step's op times noted into ``stats`` (a ``StepStats``)."""

    def lower(self, executable: Executable, feed_values: list) -> dict:
        """The Dask graph of one step, the variables' current values included."""

    def placement(self, executable: Executable) -> dict[str, Placement]:
        """``{op name: Placement}`` of each op the executable runs."""

    def num_replicas(self) -> int:
        """How many replicas a graph placed on ``/job:worker`` runs as."""

    def uninitialized(self, names: list) -> list:
        """Those of the variables ``names`` that hold no value."""

    def variable_futures(self) -> dict:
        """``{variable name: distributed.Future}`` of the variables' values."""

    def write_checkpoint(self, names: list, shard_url) -> tuple:
        """Write variables ``names`` where they live; ``({name: record}, shards)``."""

    def read_checkpoint(self, files: dict) -> None:
        """Set every variable of ``files`` (``{name: (url, record, device)}``), or none."""

    def step_metrics(self) -> list:
        """Metrics of each finished step, oldest first."""

    def sync(self) -> None:
        """Wait for the steps in flight; raise the first error among them."""

    def close(self) -> None:
        """Free the variables and whatever the runtime holds for the session."""


def make_executable(
    config, mapper, feeds, state_for, *, compression=None, placer=None, in_place=False, bucket_bytes=None
):
    """A signature's :class:`Executable` under ``config`` (soft placement, graph passes)."""
    soft = bool(config.allow_soft_placement)
    passes = config.graph_options.passes()
    tensors, ops = mapper.tensors, mapper.ops
    return Executable(
        tensors, ops, feeds, state_for, soft, passes, compression, placer, in_place, bucket_bytes
    )


def placement_of(plan, op, worker) -> Placement:
    """``op``'s :class:`Placement` in ``plan``, run by ``worker``."""
    reason = plan.reasons.get(op) or ("its device scope" if op.device else "no device asked")
    return Placement(plan.device_of(op), worker, reason)
