"""Variables shared by the clients of a between-graph job, held on their worker.

In TF1's between-graph mode every worker script is its own client, and the
variables on the ps tasks belong to the job, not to any one client: the
chief initializes them, the others read and update the same values, and a
client that exits takes nothing with it. Here such a variable lives in its
ps worker's :class:`SharedVariables`, under ``(job, name)``: the job is a
hash of the ``ClusterSpec`` (:mod:`daskflow.train.server`), so two unrelated
jobs on one Dask cluster never meet.

An update runs where the variable lives and changes it in place, under the
job's lock: it reads the newest values after its gradients have arrived, so
updates from many clients all count (none overwrites another's) and none
waits for another client's step. Values are replaced, never mutated, so a
reader on another worker always gets a whole version of each variable.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

from ...errors import FailedPreconditionError, InvalidArgumentError
from ..wire.between_graph import Definition, Snapshot


@dataclass(frozen=True, slots=True)
class SharedWrite:
    """A task of a session sharing ``job``'s variables: it reads them, and an update (non-empty
    ``writes``) makes result ``index`` variable ``name``, for each ``(name, index)`` of
    ``writes``; unless the values its gradients were computed from are more than
    ``max_staleness`` updates old."""

    job: str
    writes: tuple
    max_staleness: int | None = None
    # Copies of the job's variables: sent to ``backup_to`` (a worker's address, set per
    # step) once ``backup_secs`` have passed since the last copy with updates between.
    backup_to: str | None = None
    backup_secs: float = 0.0
    # Synchronous training (SyncReplicasOptimizer): apply once per round, the mean of the
    # first ``sync`` clients' gradients (the arguments at ``gathered``); None: async.
    sync: int | None = None
    gathered: tuple = ()


SERVED_LIMIT = 1_000  # steps whose read versions are kept until their update comes
RETIRED_LIMIT = 10_000  # closed sessions' jobs remembered, so a late update cannot revive one


class HostedBy(NamedTuple):
    """The ``tf.train.Server`` hosting a worker: of ``job``, started with cluster ``spec``."""

    job: str
    spec: object


class _Job:
    __slots__ = (
        "lock",
        "values",
        "versions",
        "definitions",
        "served",
        "rounds",
        "copied_at",
        "copied_to",
        "updates",
    )

    def __init__(self):
        self.lock = threading.RLock()
        self.values: dict = {}
        self.versions: dict = {}  # name -> updates applied since it was first given a value
        self.definitions: dict = {}  # name -> Definition, of the first client that used it
        self.served: dict = {}  # step -> {name: version} its readers were sent
        self.rounds: dict = {}  # the variables a synchronous update writes -> its current round
        self.copied_at = time.monotonic()  # when a copy of the values was last sent
        self.copied_to = None  # the address it was sent to
        self.updates = 0  # updates applied here (the early copies double)


class SharedVariables:
    """The shared variables of the jobs whose ps tasks this worker is.

    Examples
    --------
    >>> import numpy as np
    >>> store = SharedVariables()
    >>> store.define("job", {"w": Definition((2,), "float32", "/job:ps/task:0")})
    >>> store.read("job", "w", required=False) is None
    True
    >>> store.write("job", {"w": np.ones(2, np.float32)})
    >>> store.read("job", "w", required=True), store.version("job", "w")
    (array([1., 1.], dtype=float32), 1)
    """

    def __init__(self):
        self._jobs: dict = {}
        self._guard = threading.Lock()
        self.hosted_by: HostedBy | None = None  # the tf.train.Server hosting this worker
        self.copies: dict = {}  # (job, the ps's name) -> Snapshot of its variables, kept for recovery
        self._retired: collections.OrderedDict = collections.OrderedDict()  # jobs that will not return

    def _job(self, job) -> _Job:
        found = self._jobs.get(job)
        if found is None:
            with self._guard:
                if job in self._retired:  # a step still in flight when its session left: kept nowhere
                    return _Job()
                found = self._jobs.setdefault(job, _Job())
        return found

    def lock(self, job):
        """The lock an update of ``job``'s variables holds from reading them to writing them."""
        return self._job(job).lock

    def define(self, job, definitions: dict[str, Definition]):
        """Record each variable's definition; refuse one that differs from the recorded one.

        Raises
        ------
        InvalidArgumentError
            Naming the first variable whose shape, dtype or device differs
            from what another client of the job defined; nothing is recorded.
        """
        state = self._job(job)
        with state.lock:
            for name, new in definitions.items():
                old = state.definitions.get(name)
                if old is not None and old != new:
                    raise InvalidArgumentError(None, None, _mismatch(name, old, new))
            for name, new in definitions.items():
                state.definitions.setdefault(name, new)

    def read(self, job, name, required):
        """The newest value of ``name``; None, or FailedPreconditionError if ``required``,
        when it has none."""
        value = self._job(job).values.get(name)
        if value is None and required:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {name}")
        return value

    def read_many(self, job, names, step=None) -> dict:
        """``{name: value}`` of those of ``names`` that have a value; the versions sent are
        noted for ``step`` (a session's step number), whose update measures its staleness
        by them (:meth:`staleness`)."""
        state = self._job(job)
        values, versions = state.values, state.versions
        if step is not None:
            state.served[step] = {name: versions.get(name, 0) for name in names}
            if len(state.served) > SERVED_LIMIT:  # a step whose update never came (it failed)
                del state.served[next(iter(state.served))]
        return {name: values[name] for name in names if name in values}

    def staleness(self, job, step, names) -> int:
        """Updates applied to ``names`` since step ``step``'s readers read them (0 when they
        read none of them elsewhere); forgets what was sent for that step."""
        state = self._job(job)
        served = state.served.pop(step, None)
        if not served:
            return 0
        versions = state.versions
        return max((versions.get(n, 0) - served[n] for n in names if n in served), default=0)

    def write(self, job, new_values: dict):
        """Replace the values of ``new_values``'s variables (the caller holds the lock)."""
        state = self._job(job)
        for name, value in new_values.items():
            state.values[name] = value
            state.versions[name] = state.versions.get(name, 0) + 1

    def rounds(self, job) -> dict:
        """The current round of each synchronous update of ``job`` (:mod:`.sync_rounds`)."""
        return self._job(job).rounds

    def version(self, job, name) -> int:
        """How many times ``name`` was written (0: never)."""
        return self._job(job).versions.get(name, 0)

    def names(self, job) -> list:
        """The variables of ``job`` that have a value here."""
        return sorted(self._job(job).values)

    def copy_due(self, job, secs, to=None) -> bool:
        """Whether a copy of ``job``'s values for the worker at ``to`` is due; if so, the
        clock starts again. Called after an update, under the job's lock.

        Due ``secs`` after the last copy; after the 1st, 2nd, 4th, ... update here (a ps
        lost early loses under half its updates, not all); and when the copy goes to
        another worker than the last did (the one holding it left, or a new one is next).
        """
        if not secs:
            return False
        state = self._job(job)
        state.updates += 1
        now = time.monotonic()
        doubling = state.updates & (state.updates - 1) == 0
        if not (doubling or to != state.copied_to or now - state.copied_at >= secs):
            return False
        state.copied_at, state.copied_to = now, to
        return True

    def snapshot(self, job) -> Snapshot:
        """The job's values, versions and definitions as they are now (the caller holds the lock)."""
        state = self._job(job)
        return Snapshot(dict(state.values), dict(state.versions), dict(state.definitions))

    def keep_copy(self, job, source, snapshot):
        """Keep ``snapshot`` of the variables of ``job`` on worker ``source`` if it is newer
        than the copy kept."""
        if job in self._retired:  # a copy sent before its session left, arriving after
            return
        kept = self.copies.get((job, source))
        if kept is None or snapshot.updates() >= kept.updates():
            self.copies[(job, source)] = snapshot

    def copies_bytes(self, but=None) -> int:
        """The bytes of the copies kept here, but the one of key ``but`` ((job, source))."""
        return sum(kept.nbytes for key, kept in list(self.copies.items()) if key != but)

    def restore(self, job, snapshot) -> bool:
        """Give ``job`` the snapshot's values unless it has values already (another client
        restored it first); whether it did."""
        state = self._job(job)
        with state.lock:
            if state.values:
                return False
            state.values.update(snapshot.values)
            state.versions.update(snapshot.versions)
            for name, definition in snapshot.definitions.items():
                state.definitions.setdefault(name, definition)
            return True

    def jobs(self) -> list:
        """The jobs with variables (or definitions) here."""
        return list(self._jobs)

    def drop(self, job):
        """Forget ``job``'s variables, definitions and copies (``Session.reset``)."""
        with self._guard:
            self._jobs.pop(job, None)
            for key in [k for k in self.copies if k[0] == job]:
                del self.copies[key]

    def retire(self, job):
        """Drop ``job`` for good (a session's own job, as it closes): an update of it still
        running writes nowhere, instead of giving it values again after the drop."""
        with self._guard:
            self._retired[job] = None
            while len(self._retired) > RETIRED_LIMIT:
                self._retired.popitem(last=False)
        self.drop(job)

    def clear(self):
        with self._guard:
            self._jobs.clear()
            self.copies.clear()


def _mismatch(name, old, new) -> str:
    what = [
        f"{field} {getattr(new, field)!r} where another client of this job defined {getattr(old, field)!r}"
        for field in ("shape", "dtype", "device")
        if getattr(old, field) != getattr(new, field)
    ]
    return (
        f"Variable {name} is defined with {', '.join(what)}: the clients of a job must build the same "
        "variables"
    )
