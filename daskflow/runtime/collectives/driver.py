"""The driver of an elastic job: it decides each generation of ranks from who is alive.

The launcher (``daskflow launch --np N --min-np M``) runs one: it tells the
driver which slots' processes ended (:meth:`Driver.lost`) and calls
:meth:`Driver.step` while the job runs; the driver reads the processes'
registrations from the scheduler's metadata and publishes a new generation
(:mod:`.membership`) whenever a member was lost or a new process registered:
the members left keep their order (rank 0 stays the oldest, whose state the
others get), the new ones come last, by slot.
"""

from __future__ import annotations

import time

from . import membership


class TooFewRanksError(RuntimeError):
    """Fewer than ``min_np`` ranks for longer than the elastic timeout."""


class Driver:
    """The generations of ``job``, decided from its members' registrations.

    Parameters
    ----------
    client : distributed.Client
        A client of the job's scheduler.
    job : str
        The job's name.
    expected : int
        How many processes the first generation waits for.
    min_np : int
        The fewest ranks that train; below that the ranks wait for more.
    timeout : float
        Seconds the job may stay below ``min_np`` before it fails.
    """

    def __init__(self, client, job: str, expected: int, min_np: int, timeout: float = 600.0) -> None:
        self.client, self.job = client, job
        self.expected, self.min_np, self.timeout = expected, min_np, timeout
        self.generation: membership.Generation | None = None
        self._dead: set[str] = set()
        self._short_since: float | None = None

    def lost(self, slot: int) -> None:
        """Slot ``slot``'s process ended: every member registered from it is gone (call it
        before the slot is started again)."""
        gone = {i for i, m in membership.registered(self.client, self.job).items() if m["slot"] == slot}
        if self.generation is None and not gone - self._dead:
            self.expected -= 1  # it died before registering: the first generation waits for one less
        self._dead |= gone

    def step(self) -> membership.Generation | None:
        """Publish the next generation if the members changed; the one published, if any.

        Raises
        ------
        TooFewRanksError
            Fewer than ``min_np`` members for longer than ``timeout`` seconds.
        """
        members = membership.registered(self.client, self.job)
        alive = {ident: m for ident, m in members.items() if ident not in self._dead}
        if self.generation is None and len(alive) < self.expected:
            return None  # the first generation waits for every process started
        before = self.generation.members if self.generation else ()
        kept = [m for m in before if m in alive]
        joining = sorted((m for m in alive if m not in before), key=lambda m: alive[m]["slot"])
        order = kept + joining
        self._check_enough(len(order))
        if tuple(order) == before:
            return None
        self.generation = membership.Generation(
            (self.generation.number if self.generation else 0) + 1,
            tuple(order),
            tuple(alive[m]["host"] for m in order),
            ready=len(order) >= self.min_np,
        )
        membership.publish(self.client, self.job, self.generation)
        return self.generation

    def slots(self) -> list[int]:
        """The slots of the current generation's members."""
        return [membership.slot_of(m) for m in (self.generation.members if self.generation else ())]

    def _check_enough(self, count: int) -> None:
        if count >= self.min_np or self.generation is None:
            self._short_since = None
            return
        self._short_since = self._short_since or time.monotonic()
        if time.monotonic() - self._short_since > self.timeout:
            raise TooFewRanksError(
                f"elastic job {self.job!r}: {count} rank(s) for {self.timeout:g} s, "
                f"fewer than --min-np {self.min_np}"
            )
