"""``ClusterSpec``: the jobs of a cluster and their tasks (TF1's API)."""

from __future__ import annotations


class ClusterSpec:
    """Jobs and their tasks: ``{"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]}``.

    Entries are Dask worker names (or addresses). Also accepts, as TF1 does,
    a dict of ``{task index: address}`` per job, or another ``ClusterSpec``;
    :meth:`from_client` reads one off a running cluster.

    Examples
    --------
    >>> import daskflow as tf
    >>> spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    >>> spec.num_tasks("worker"), spec.task_address("ps", 0)
    (2, 'ps-0')
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec takes a dict of job name -> tasks, got {type(cluster).__name__}")
        self._jobs = {}
        for job, tasks in cluster.items():
            if not isinstance(job, str) or not job:
                raise ValueError(f"job names must be non-empty strings, got {job!r}")
            if isinstance(tasks, dict):
                self._jobs[job] = {int(i): str(a) for i, a in tasks.items()}
            elif isinstance(tasks, (list, tuple)):
                self._jobs[job] = {i: str(a) for i, a in enumerate(tasks)}
            else:
                raise TypeError(f"tasks of job {job!r} must be a list or a dict, got {type(tasks).__name__}")

    @classmethod
    def from_client(cls, client) -> ClusterSpec:
        """The cluster a ``distributed.Client`` is connected to, by worker names."""
        from ..runtime.devices import cluster_workers, scheduler_identity

        jobs: dict = {}
        for w in cluster_workers(scheduler_identity(client)):
            jobs.setdefault(w.job, {})[w.task] = w.name
        return cls(jobs)

    @property
    def jobs(self) -> list[str]:
        return list(self._jobs)

    def num_tasks(self, job_name) -> int:
        return len(self._tasks(job_name))

    def task_indices(self, job_name) -> list[int]:
        return sorted(self._tasks(job_name))

    def task_address(self, job_name, task_index) -> str:
        tasks = self._tasks(job_name)
        if task_index not in tasks:
            raise ValueError(f"job {job_name!r} has no task {task_index}; it has {sorted(tasks)}")
        return tasks[task_index]

    def job_tasks(self, job_name) -> list[str]:
        tasks = self._tasks(job_name)
        return [tasks[i] for i in sorted(tasks)]

    def as_dict(self) -> dict:
        return {job: self.job_tasks(job) if _dense(t) else dict(t) for job, t in self._jobs.items()}

    def _tasks(self, job_name):
        if job_name not in self._jobs:
            raise ValueError(f"no job {job_name!r} in the cluster; jobs: {self.jobs}")
        return self._jobs[job_name]

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


def _dense(tasks):
    return sorted(tasks) == list(range(len(tasks)))
