"""Where a cluster session's variables are.

One :class:`VariableTable` per session says, for each variable, where its
current value lives (a :class:`.held.Held`: a future, or an item of a step's
tuple), which worker holds it, which step made it, the copy kept on a second
worker for recovery, and where its newest value was pushed. Steps, recovery,
checkpoints and the backup schedule change it only through its methods, so
the five facts about a variable cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .held import Held, holders, singles


@dataclass(frozen=True)
class Copy:
    """A variable's copy on a second worker: what recovery falls back on."""

    future: object  # distributed.Future of the copied value
    step: int  # the step whose value was copied


@dataclass(frozen=True)
class Change:
    """What a step changes in the table, to undo it (:meth:`VariableTable.roll_back`)."""

    before: dict  # variable name -> its Held before the step
    created: tuple  # variables the step gives their first value


@dataclass
class VariableTable:
    """A session's variables on the cluster.

    Attributes
    ----------
    values : dict
        Variable name -> :class:`.held.Held`, its current value.
    homes : dict
        Variable name -> name of the worker holding that value, where known.
    versions : dict
        Variable name -> the step that made that value.
    copies : dict
        Variable name -> :class:`Copy` on another worker.
    pushed : dict
        Variable name -> where its newest value was pushed
        (:meth:`.step_tasks.Lowered.graph` reads and extends it).
    """

    values: dict = field(default_factory=dict)
    homes: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    copies: dict = field(default_factory=dict)
    pushed: dict = field(default_factory=dict)

    def __contains__(self, name) -> bool:
        return name in self.values

    def change(self, names) -> Change:
        """What a step updating ``names`` would change, recorded before it runs."""
        values = self.values
        before = {name: values[name] for name in names if name in values}
        return Change(before, tuple(name for name in names if name not in values))

    def commit(self, new_values: dict, homes: dict) -> tuple[list, set]:
        """Make ``new_values`` (name -> Held) current; ``homes``: name -> worker name.

        Returns the values replaced (to release after the next submission) and
        the keys of tuples that lost an item (see :meth:`unshare`).
        """
        replaced, superseded = [], set()
        for name, held in new_values.items():
            old = self.values.get(name)
            replaced.append(old)
            if old is not None and old.index is not None:
                superseded.add(old.future.key)
            self.values[name] = held
            self.homes[name] = homes.get(name)
        return replaced, superseded

    def roll_back(self, changes) -> None:
        """Undo ``changes`` (:class:`Change`, oldest first): values as before the oldest."""
        for change in reversed(changes):
            for name in change.created:
                self.values.pop(name, None)
            self.values.update(change.before)

    def unshare(self, client, superseded) -> None:
        """Values left in tuples that had others replaced become futures of their own: an item
        would keep its whole tuple alive (after the initializer, every variable's initial value,
        as long as one variable is never trained)."""
        left = {
            name: held
            for name, held in self.values.items()
            if held.index is not None and held.future.key in superseded
        }
        if left:
            self.values.update((name, Held(f)) for name, f in singles(client, left).items())

    def finished(self, names, step: int, copies: dict) -> None:
        """Step ``step`` made the values of ``names`` and ``copies`` (name -> Future) of them."""
        for name in names:
            self.versions[name] = step
            copy = copies.get(name)
            if copy is not None:
                self.copies[name] = Copy(copy, step)

    def stale(self) -> list:
        """The variables with no copy, or updated since their copy was made."""
        return [
            name
            for name in self.values
            if name not in self.copies or self.versions.get(name, float("-inf")) > self.copies[name].step
        ]

    def offer_copy(self, name, copy: Copy, ident) -> bool:
        """Keep ``copy`` of the value ``ident`` (:attr:`.held.Held.ident`) if that value is still
        current and the copy is not older than the one kept; whether it was kept."""
        current = self.values.get(name)
        kept = self.copies.get(name)
        if current is None or current.ident != ident or (kept is not None and copy.step < kept.step):
            return False
        self.copies[name] = copy
        return True

    def lost(self, client) -> list:
        """The variables whose value no worker holds any more (one request)."""
        return [name for name, where in holders(client, self.values).items() if not where]

    def fall_back(self, names, held: dict) -> int:
        """Each of ``names`` takes its copy as its value; return the steps lost (the most of any).

        The copy is the value now, held where the copy is (``held``: name -> worker name):
        it has no copy until its next update or the next flush makes one
        (:class:`.recovery.BackupSchedule`).
        """
        steps_lost = 0
        for name in names:
            copy = self.copies.pop(name)
            self.values[name] = Held(copy.future)
            self.homes[name] = held[name]
            steps_lost = max(steps_lost, self.versions.get(name, copy.step) - copy.step)
        return steps_lost

    def restored(self, futures: dict, homes: dict) -> None:
        """A checkpoint's values (name -> Future) are current, held on ``homes`` (name ->
        worker name); copies from before must not bring old values back."""
        self.values.update((name, Held(future)) for name, future in futures.items())
        for name in futures:
            self.copies.pop(name, None)
            self.versions.pop(name, None)
            self.homes[name] = homes[name]

    def clear(self) -> None:
        for table in (self.values, self.homes, self.versions, self.copies, self.pushed):
            table.clear()
